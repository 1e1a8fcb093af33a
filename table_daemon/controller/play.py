"""Play at the table (layer 4): what the camera sees in the seats' zones, the buttons, declarations, the
10-card report and the turn timers, turned into the engine's actions (:mod:`.steps`). The rules engine
(:mod:`guandan.deal`) decides what is legal; this module turns what the table sees into the
engine's actions, and the engine's refusals into alerts with their evidence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

from guandan import (
    COPIES,
    SEATS,
    AmbiguousPlayError,
    Card,
    GuandanError,
    InvalidPlayError,
    Reading,
    TimedOut,
    beats,
    classify,
    deadline,
    interpret,
    parse_card,
)
from guandan import actions as act
from guandan import deal as engine
from guandan import tick as engine_tick

from .model import CardsSeen, Press
from .seen_choice import SURE
from .seen_choice import choose as choose_candidates
from .seen_choice import sure as reading_is_sure
from .state import TableDeal, TableState
from .steps import act_on, run_effects
from .tribute import on_laid as tribute_laid
from .tribute import on_press as tribute_press
from .tribute import on_tick as tribute_tick
from .views import publish_state

#: what a laid set counts as: (reading, (), "") decided; (None, candidates, "ambiguous"); (None, (), why illegal)
Decided = tuple[Reading | None, tuple[Reading, ...], str]


def on_cards_seen(c: TableState, e: CardsSeen) -> None:
    d = c.deal
    evidence: dict[str, Any] = {"frame": e.frame, "seen": list(e.cards), "confidence": e.confidence}
    if last_word_on_a_taken_play(c, e, evidence):
        return
    if e.provisional and not may_settle_now(c, e):
        return  # the camera reports this set again once it reads it surely or stops waiting: judged then
    if e.seat not in SEATS:  # the reader found cards outside every play zone
        if e.cards:
            c.alert("exposed_card", None, "cards seen outside the play zones (暴露张)", evidence)
        return
    st = d.state if d is not None else None
    in_play = playing(c)
    if in_play and e.seat != st.to_move and d.zone_read_as.get(e.seat) == tuple(e.cards):
        return  # the play lying there, read as when the table took it for the held cards it chose
    on_turn_play = in_play and d.pending_declare is None and e.seat == st.to_move
    if (e.unreadable or e.confidence < c.timing.min_confidence) and in_play and e.seat != st.to_move \
            and d.zone[e.seat]:
        # unsure cards beside the earlier play of a seat not on turn: no play, and too unsure for an exposed
        # card; its own cards, lying there, read another way in a few frames (a pip as a card) raise nothing
        return
    if e.unreadable:
        c.alert("misread", e.seat, "the reader is unsure of these cards (识别不确定)",
                {**evidence, "unreadable": e.unreadable})
        return
    cards = c.parse_seen(list(e.cards))
    if cards is None:
        c.alert("misread", e.seat, "unknown card code from the reader", evidence)
        return
    too_many = more_than_the_pack(cards)
    if too_many:  # no seat can lay that: a card read twice (a joker's 大王 or JOKER read as one more joker)
        c.alert("misread", e.seat, "please lay the cards again: more copies seen than the pack holds "
                "(请重新摆牌，识别张数超出牌数)", {**evidence, "more_than_the_pack_holds": too_many})
        return
    tributes = d is not None and st is not None and c.phase in ("tribute", "playing") and st.phase in (
        engine.TRIBUTE, engine.RETURNING)
    if e.confidence < c.timing.min_confidence and not (on_turn_play or tributes):
        c.alert("misread", e.seat, "the reader is unsure of these cards (识别不确定)",
                {**evidence, "unreadable": e.unreadable})
        return
    if d is None or d.state is None or c.phase not in ("tribute", "playing"):
        if cards:
            c.alert("exposed_card", e.seat, "cards shown outside play (暴露张)", evidence)
        return
    new = new_cards(d.zone[e.seat], cards)
    if not new:
        return
    st = d.state
    if tributes:
        cards, new = choose_seen(c, e, cards, evidence, owed(c, e.seat))
        if new:
            tribute_laid(c, e.seat, new, cards, evidence)
        return
    if d.pending_declare is not None:
        c.alert("out_of_turn", e.seat, "cards laid while a declaration is awaited (等待声明)", evidence)
        return
    if e.seat != st.to_move:
        code = "exposed_card" if d.zone[e.seat] else "out_of_turn"
        text = "card shown that is not part of a play (暴露张)" if code == "exposed_card" \
            else f"played out of turn (越序出牌): it is {st.to_move}'s turn"
        c.alert(code, e.seat, text, {**evidence, "turn": st.to_move})
        return
    worked_out: dict[tuple[str, ...], Decided] = {}  # the new cards' codes -> choose_reading's answer
    cards, new = choose_seen(c, e, cards, evidence, playable(c, e.seat, worked_out))
    if not new:
        return
    missing = engine.hand_without(st.hand(e.seat), new) is None
    if missing:  # the cards' shape does not matter: a seat cannot lay what it does not hold
        if not doubt_the_reading(c, e.seat, new, evidence, held=False):
            c.alert("not_held", e.seat, f"{e.seat} does not hold these cards (非本家牌)",
                    {**evidence, "hand_size": len(st.hand(e.seat))})
        return
    reading, candidates, why = worked_out.get(tuple(x.code for x in new)) or choose_reading(
        new, st.level, c.profile.wild_reading, st.trick_reading)
    if reading is None and candidates:
        d.pending_declare = {"seat": e.seat, "cards": [x.code for x in new], "frame": e.frame,
                             "candidates": [r.to_json() for r in candidates]}
        lay_in_zone(d, e, cards)
        taken_while_held(d, e, cards)
        c.emit("declare_needed", deal=d.number, seat=e.seat, cards=[x.code for x in new],
               candidates=[r.to_json() for r in candidates])
        c.set_turn(e.seat, "declare")
        publish_state(c)
        return
    if reading is None:
        if not doubt_the_reading(c, e.seat, new, evidence, held=True):
            c.alert("illegal_play", e.seat, why, {**evidence, "hand_size": len(st.hand(e.seat))})
        return
    if act_on(c, act.play(e.seat, new, reading), evidence):
        lay_in_zone(d, e, cards)
        taken_while_held(d, e, cards)


def taken_while_held(d: TableDeal, e: CardsSeen, cards: list[Card]) -> None:
    """A play taken from a provisional reading: the camera still holds the set and will report it once more
    (:func:`last_word_on_a_taken_play`)."""
    if e.provisional and e.wait:
        d.taken_in_wait[e.seat] = (e.wait, tuple(x.code for x in cards))


def last_word_on_a_taken_play(c: TableState, e: CardsSeen, evidence: dict[str, Any]) -> bool:
    """Whether ``e`` is the camera's word on a play the table already took from a provisional reading of the
    same hold (then handled here): another provisional look says nothing; the final report says nothing when
    it is unsure or reads the cards as taken, and when it reads other cards surely the referee is asked to check
    the play (``misread``: the player laid what he laid, never a foul). The play may be over by then (the trick
    ended, a declaration is awaited, the table paused), so the seat's turn and zone do not matter. A report of
    another hold, or of none, ends the record (that hold's final report will not come: the zone emptied, or the
    camera restarted)."""
    d = c.deal
    if d is None or e.seat not in d.taken_in_wait:
        return False
    wait, taken = d.taken_in_wait[e.seat]
    if not e.wait or e.wait != wait:
        del d.taken_in_wait[e.seat]
        return False
    if e.provisional:
        return True
    del d.taken_in_wait[e.seat]
    if sure_enough_to_accuse(c, e) and Counter(e.cards) != Counter(taken):
        c.alert("misread", e.seat, "the play taken by the seat's hand now reads otherwise: referee, please check it "
                "(按手牌认定的出牌复读不同，请裁判核对)", {**evidence, "taken": list(taken)})
    return True


def lay_in_zone(d: TableDeal, e: CardsSeen, cards: list[Card]) -> None:
    """The cards taken as laid now lie in the seat's zone; what the reader read of them is kept when it chose
    other candidates, so the camera's next report of the same reading is known for the same cards."""
    d.zone[e.seat] = list(cards)
    if [x.code for x in cards] != list(e.cards):
        d.zone_read_as[e.seat] = tuple(e.cards)
    else:
        d.zone_read_as.pop(e.seat, None)


def may_settle_now(c: TableState, e: CardsSeen) -> bool:
    """Whether a provisional reading (an unsure play the camera still looks at) may be taken now: only a play on
    turn, every card read and no more copies than the pack holds. It is then taken only if the seat's hand
    settles it (:func:`choose_seen`, quietly); anything else waits for the camera's final report, so a
    provisional reading never raises an alert."""
    d = c.deal
    if not playing(c) or d.pending_declare is not None or e.seat != d.state.to_move or e.unreadable \
            or not e.cards:
        return False
    cards = c.parse_seen(list(e.cards))
    return cards is not None and not more_than_the_pack(cards)


def playing(c: TableState) -> bool:
    """The deal is in its play (not dealing, tribute or return)."""
    d = c.deal
    return d is not None and d.state is not None and c.phase == "playing" and d.state.phase not in (
        engine.TRIBUTE, engine.RETURNING)


def more_than_the_pack(cards: list[Card]) -> list[str]:
    """The codes read more often than the pack holds copies of them: no seat can lay that."""
    return sorted(code for code, n in Counter(x.code for x in cards).items() if n > COPIES)


#: at most this many cards of a play may lie hidden under others in a tight fan (a bomb's cards, fanned close;
#: a full house of a held-out design read surely as two of its cards, bench/simulate.py)
HIDDEN_AT_MOST = 3


def doubt_the_reading(c: TableState, seat: str, new: list[Card], evidence: dict[str, Any], held: bool) -> bool:
    """Whether to ask for the cards again instead of calling a foul (``illegal_play``, ``not_held``) on a reading
    sure of every card it read, because the reader may have missed up to three cards, read one twice, or misread
    one:
    - one to three short (``held``: every card seen is held) of a play the seat could make with cards it holds:
      a card lying almost wholly under another in a tight fan shows no index, and the fan's count does not always
      notice (a full house read as two pairs or as two of its cards, a bomb of four as a pair);
    - one over a play it could make, the card over read twice or not held: a picture or a word printed on a card
      read as one more index, of the card beside it (a pair of jokers read as three red jokers, the JOKER or 大王
      printed beside the index read as a joker; at the table, the edge of a card read as the index beside it) or
      of a card the seat does not hold (a queen's court picture read surely as H7 between two queens,
      ``bench/simulate.py`` on lato-italic), or a joker (a king's court picture read surely as the black joker,
      ``bench/table_reading.py`` on noto-sans-beside). Two different held cards, neither a joker, that are no play
      are the foul at once;
    - one card not held where a held card in its place makes a play it could lay: a card read surely as another
      (a bomb of four queens with the heart queen read as the ten, in a court picture of a held-out design).
      Every card of both packs is dealt, so a card not held lies in another seat's hand: laying it is far rarer
      than the reader mistaking one card.
    The first time a seat shows this set in this turn the table raises ``misread`` (please lay the cards again)
    with what would make a play (``without`` the card read too many, how many cards it is ``short_of`` one, or
    the card ``not_held`` that a held one could replace: never which held cards, nor how many would do, the
    alerts topic being public); the same set shown again in the turn is the foul, another set shown between
    notwithstanding."""
    d = c.deal
    st = d.state
    seen = (seat, tuple(sorted(x.code for x in new)), st.turn_since)
    if seen in d.doubted_in_turn:
        return False  # shown again in the turn: the foul it is (another set in between does not reset it)
    d.doubted_in_turn = {x for x in d.doubted_in_turn if x[2] == st.turn_since}
    takes = playable(c, seat, {})

    def one_over(doubtful: set[str]) -> bool:
        """Ask again where leaving out one card of ``doubtful`` makes a play the seat could lay."""
        over = sorted({x.code for i, x in enumerate(new)
                       if x.code in doubtful and len(new) > 1 and takes(new[:i] + new[i + 1:])})
        if over:
            d.doubted_in_turn.add(seen)
            c.alert("misread", seat, "please lay the cards again: a card may have been read twice "
                    "(请重新摆牌，可能多识别了一张)", {**evidence, "one_over": True, "without": over})
        return bool(over)

    # a card read twice, or a joker: pictures of other cards are read as jokers (a king's court picture as the
    # black joker, surely, in bench/table_reading.py on noto-sans-beside)
    if one_over({code for code, n in Counter(x.code for x in new).items() if n > 1}
                | {x.code for x in new if x.is_joker}):
        return True
    if not held:
        swap = held_swap(st.hand(seat), new, takes)
        if swap is None:
            return one_over(not_held_codes(st.hand(seat), new))
        d.doubted_in_turn.add(seen)
        c.alert("misread", seat, "please lay the cards again: a card may have been misread (请重新摆牌，可能有牌识别错误)",
                {**evidence, "not_held": swap, "held_in_its_place": True})
        return True
    rest = engine.hand_without(st.hand(seat), new) or []
    completions: list[list[str]] = []
    for hidden in range(1, HIDDEN_AT_MOST + 1):
        tried: set[tuple[str, ...]] = set()
        for extra in combinations(rest, hidden):
            codes = tuple(sorted(x.code for x in extra))
            if codes not in tried:
                tried.add(codes)
                if takes([*new, *extra]):
                    completions.append(list(codes))
        if completions:
            break
    if not completions:
        return False
    d.doubted_in_turn.add(seen)
    c.alert("misread", seat, "please lay the cards again: a card may be hidden (请重新摆牌，可能有牌被遮挡)",
            {**evidence, "short_of": len(completions[0])})
    return True


def not_held_positions(hand: list[Card], new: list[Card]) -> list[int]:
    """The positions in ``new`` of the cards ``hand`` does not hold (each held copy accounts for one)."""
    left = Counter(x.id for x in hand)
    missing = []
    for i, x in enumerate(new):
        if left[x.id] > 0:
            left[x.id] -= 1
        else:
            missing.append(i)
    return missing


def not_held_codes(hand: list[Card], new: list[Card]) -> set[str]:
    """The code of the one card of ``new`` that ``hand`` does not hold, if exactly one is not held; else none."""
    missing = not_held_positions(hand, new)
    return {new[missing[0]].code} if len(missing) == 1 else set()


def held_swap(hand: list[Card], new: list[Card], takes: Callable[[list[Card]], bool]) -> str | None:
    """When one card of ``new`` is not in ``hand`` and the rest are, and some held card in its place makes a play
    the seat could lay: that card's code; else None."""
    missing = not_held_positions(hand, new)
    if len(missing) != 1:
        return None
    i = missing[0]
    rest = engine.hand_without(hand, new[:i] + new[i + 1:]) or []
    one_of_each = {x.code: x for x in rest}.values()
    return new[i].code if any(takes(new[:i] + [other] + new[i + 1:]) for other in one_of_each) else None


def choose_seen(c: TableState, e: CardsSeen, cards: list[Card], evidence: dict[str, Any],
                takes: Callable[[list[Card]], bool]) -> tuple[list[Card], list[Card]]:
    """What a seat laid (all its zone's cards, and those new in it) when the table ``takes`` the new ones (a
    play: held and legal; a tribute or return: the card owed): the reader's first reading when it is sure
    enough and taken, else the most probable set of its candidates that is taken, if that is probable enough
    (``seen_choice``: an unsure first reading may be it). ``([], [])`` after raising ``misread`` when neither
    will do (quietly for a provisional reading: the camera's final report is judged again); a first reading
    that is not taken comes back only when the reader is sure of it, for the caller to call the foul it is."""
    zone = c.deal.zone[e.seat]
    options = options_of(e)

    def fits(codes: tuple[str, ...]) -> bool:
        laid = c.parse_seen(list(codes))
        fresh = new_cards(zone, laid) if laid is not None else []
        return bool(fresh) and takes(fresh)

    first = tuple(e.cards)
    if e.confidence >= c.timing.min_confidence and fits(first):
        return cards, new_cards(zone, cards)
    sure_at = max(SURE, c.timing.min_confidence)  # the reader's own threshold, when stricter
    chosen = choose_candidates(options, fits, sure_at)
    if chosen is not None:
        laid = c.parse_seen(list(chosen)) or cards
        if chosen != first:
            evidence["read_as"] = list(chosen)  # the reader's candidates, chosen by what the seat holds
        return laid, new_cards(zone, laid)
    if e.provisional:
        return [], []  # not settled by the hand: the camera's final report decides, alert and all
    if sure_enough_to_accuse(c, e):
        return cards, new_cards(zone, cards)  # a sure reading: the caller calls the foul it is
    c.alert("misread", e.seat, "please lay the cards again: the reader is unsure (请重新摆牌，识别不确定)",
            {**evidence, "candidates": [[list(x) for x in o] for o in options]})
    return [], []


def options_of(e: CardsSeen) -> list[list[tuple[str, float]]]:
    """Each card of a reading with its candidates (the card alone at the reading's confidence where the camera
    gave none)."""
    if len(e.candidates) == len(e.cards) and all(e.candidates):
        return [list(o) for o in e.candidates]
    return [[(code, e.confidence)] for code in e.cards]


def sure_enough_to_accuse(c: TableState, e: CardsSeen) -> bool:
    """Whether a reading is sure enough to call a foul on (``seen_choice.sure`` at the reader's own threshold
    when stricter), or to say that the cards lie otherwise than the table took them."""
    return not e.unreadable and e.confidence >= c.timing.min_confidence \
        and reading_is_sure(options_of(e), max(SURE, c.timing.min_confidence), e.confidence)


def playable(c: TableState, seat: str, worked_out: dict[tuple[str, ...], Decided]) -> Callable[[list[Card]], bool]:
    """Whether ``seat`` holds these cards and they are a legal play now (what :func:`choose_reading` made of
    them is kept in ``worked_out``, so the play chosen is classified once)."""
    st = c.deal.state

    def takes(fresh: list[Card]) -> bool:
        if engine.hand_without(st.hand(seat), fresh) is None:
            return False
        decided = choose_reading(fresh, st.level, c.profile.wild_reading, st.trick_reading)
        worked_out[tuple(x.code for x in fresh)] = decided
        return decided[0] is not None or bool(decided[1])

    return takes


def owed(c: TableState, seat: str) -> Callable[[list[Card]], bool]:
    """Whether these cards are the tribute or return card ``seat`` may lay now (the engine's own check)."""
    st = c.deal.state
    kind = act.GIVE if st.phase == engine.TRIBUTE else act.RETURN

    def takes(fresh: list[Card]) -> bool:
        try:
            engine.apply(st, act.Action(seat, kind, tuple(fresh)), c.now)
        except GuandanError:
            return False
        return True

    return takes


def choose_reading(cards: list[Card], level: int, wild_reading: str,
                   over: Reading | None) -> Decided:
    """The reading a laid-out play counts as against ``over``: (reading, (), "") when decided;
    (None, candidates, "ambiguous") when the seat must declare; (None, (), reason) when it is illegal."""
    readings = classify(cards, level)
    if not readings:
        return None, (), "not a combination (不成牌型)"
    try:
        reading = interpret(cards, level, wild_reading=wild_reading)
    except InvalidPlayError as exc:
        return None, (), str(exc)
    except AmbiguousPlayError as exc:
        pool = tuple(r for r in exc.candidates if over is None or beats(r, over, level))
        if len(pool) == 1:
            return pool[0], (), ""
        return (None, pool, "ambiguous") if pool else (None, (), f"no reading of these cards beats {over}")
    if over is None or beats(reading, over, level):
        return reading, (), ""
    pool = tuple(r for r in readings if beats(r, over, level))
    if len(pool) == 1 or (pool and wild_reading != "declare"):
        return pool[0], (), ""
    if pool:
        return None, pool, "ambiguous"
    return None, (), f"{reading} does not beat {over} (管不上)"


def new_cards(before: list[Card], seen: list[Card]) -> list[Card]:
    """Cards in ``seen`` beyond those already lying in the zone (order kept); all of ``seen`` when some of the
    old ones were taken away."""
    left = Counter(x.id for x in before)
    if any(n > 0 for n in (left - Counter(x.id for x in seen)).values()):
        return list(seen)
    out = []
    for x in seen:
        if left[x.id] > 0:
            left[x.id] -= 1
        else:
            out.append(x)
    return out


def declare(c: TableState, seat: str, reading: Reading) -> str | None:
    d = c.deal
    if d is None or d.state is None or d.pending_declare is None:
        return "no declaration is awaited"
    if d.pending_declare["seat"] != seat:
        return f"the declaration is awaited from {d.pending_declare['seat']}"
    cards = [parse_card(x) for x in d.pending_declare["cards"]]
    if not any(reading.same_as(Reading.from_json(r)) for r in d.pending_declare["candidates"]):
        return f"{reading} is not one of the readings asked for"
    d.pending_declare = None
    if not act_on(c, act.play(seat, cards, reading), {"declared": reading.to_json()}):
        return "declared play refused"
    c.emit("declared", deal=d.number, seat=seat, reading=reading.to_json())
    return None


def report(c: TableState, seat: str) -> str | None:
    d = c.deal
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return "no deal in play"
    return None if act_on(c, act.report(seat), {"button": "confirm"}) else "report refused"


def on_press(c: TableState, e: Press) -> None:
    d = c.deal
    if e.button == "referee":
        c.alert("referee_call", e.seat, "a seat calls the referee (呼叫裁判)", {"button": "referee"})
        return
    if tribute_press(c, e.seat, e.button):
        return
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return
    if e.button == "confirm":
        pd = d.pending_declare
        if pd is not None and pd["seat"] == e.seat:
            declare(c, e.seat, Reading.from_json(pd["candidates"][0]))
        elif e.seat in d.state.reported and e.seat not in d.state.report_due and not d.state.profile.report_on_ask:
            return  # confirm pressed again after the report was taken (a second press, a seat asked twice
            # after a restart): nothing to report, and no foul
        else:
            report(c, e.seat)
        return
    if e.button == "pass":
        if d.pending_declare is not None:
            c.alert("out_of_turn", e.seat, "pass while a declaration is awaited", {"button": "pass"})
            return
        act_on(c, act.pass_turn(e.seat), {"button": "pass", "turn": d.state.to_move})


def on_tick(c: TableState) -> None:
    d = c.deal
    if d is None or d.state is None or c.phase not in ("playing", "tribute"):
        return
    if d.tribute_choice is not None:
        tribute_tick(c, d)
        return
    due = deadline(d.state)
    if due is not None and d.warned_at != d.state.turn_since and c.now >= due - c.timing.warn_before:
        d.warned_at = d.state.turn_since
        c.emit("timer_warning", deal=d.number, seat=d.state.to_move, seconds_left=round(max(0.0, due - c.now), 1))
    new, effects = engine_tick(d.state, c.now, auto_seats=c.software_seats)
    if new is not d.state:
        before, d.state = d.state, new
        if any(isinstance(ef, TimedOut) for ef in effects):
            d.log_since(before, c.ref + 1)
        run_effects(c, effects)
