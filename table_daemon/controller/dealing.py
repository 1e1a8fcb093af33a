"""Dealing (layer 4): a deal asked of the dealer, the dealer's news (cards, summary, faults), the first
leader by the engine's rule, and a void deal. Pure: time comes with the input."""

from __future__ import annotations

import hashlib

from guandan import SEATS, GuandanError, format_team_level, next_setup, parse_card, parse_level
from guandan import deal as engine
from guandan import first_leader as engine_first_leader

from .model import DealerCard, DealerDo, DealerDone, DealerFault, DealerFaultKind, DealerStarted
from .state import Phase, TableDeal, TableState
from .steps import run_effects
from .views import publish_hands, publish_state


def start_deal(c: TableState, board: int | None = None) -> str | None:
    """Ask the dealer for the next deal; returns an error text when no deal can start now."""
    if not c.match_active:
        return "no match in progress (先开始比赛: start_match)"
    if c.phase not in ("idle", "deal_over"):
        return f"现在不能发牌 | cannot start a deal while {c.phase}"
    if c.match.over:
        return "the match is over (比赛已结束)"
    setup = next_setup(c.match)
    played, level, number = setup.played, setup.level, setup.number
    if board is None and c.boards:
        board = c.boards[min(number - 1, len(c.boards) - 1)]
    c.deal = TableDeal(number=number, level=level, played=played, levels_before=dict(c.levels),
                       started=c.now, board=board)
    c.phase = Phase.DEALING
    c.set_turn(None, "wait")
    c.effect(DealerDo("deal", board, number))
    # a board's level is its own (rules §12): said with the cards dealt (deal_dealt), not the match's here
    c.emit("deal_started", match=c.match_no, deal=number, level=format_team_level(level) if board is None else None,
           played=played, board=board)
    publish_state(c)
    publish_hands(c)  # the new deal's (none yet): the last deal's cards are not this deal's hands
    return None


def on_dealer_started(c: TableState, e: DealerStarted) -> None:
    if c.deal is not None and c.phase == "dealing" and e.commitment:
        c.deal.commitment = e.commitment
        c.emit("deal_commitment", deal=c.deal.number, sha256=e.commitment)


def on_dealer_card(c: TableState, e: DealerCard) -> None:
    d = c.deal
    if d is None or c.phase != "dealing":
        return
    d.dealt_order.append((e.index, e.card, e.seat))
    if e.seat in SEATS:
        d.dealt[e.seat] += 1
    c.emit("card_dealt", deal=d.number, index=e.index, seat=e.seat, counts={s: d.dealt[s] for s in SEATS})
    publish_state(c)  # each seat's cards so far are public state: a screen that joins mid-deal reads them


#: fouled deals in a row that the table deals again by itself; then it waits for a referee
REDEALS = 3


def on_dealer_fault(c: TableState, e: DealerFault) -> None:
    code = "dealer_jam" if e.reason == DealerFaultKind.JAM else "dealer_fault"
    c.alert(code, None, f"发牌机故障 {e.reason} {e.detail}".strip() + f" | dealer: {e.reason} {e.detail}".rstrip(), {"reason": e.reason, "detail": e.detail})
    if c.phase == Phase.DEALING:
        void_deal(c, f"dealer fault: {e.reason}")


def on_dealer_done(c: TableState, e: DealerDone) -> None:
    d = c.deal
    if d is None or c.phase != "dealing":
        return
    if not e.ok:
        attempts = d.redeal_attempts + 1
        again = c.auto_deal and attempts < REDEALS
        c.alert("dealer_jam" if DealerFaultKind.JAM in e.faults else "dealer_fault", None,
                f"发牌错误，本副作废{'，重新发牌' if again else ''} | deal fouled by the dealer, void"
                f"{', dealt again' if again else ''}: {e.fouled}",
                {"fouled": e.fouled, "counts": {s: len(e.hands.get(s, [])) for s in SEATS},
                 "retransmits": e.retransmits, "faults": list(e.faults), "attempt": attempts})
        void_deal(c, f"fouled deal: {e.fouled}")
        if again and start_deal(c) is None and c.deal is not None:
            c.deal.redeal_attempts = attempts
        elif c.auto_deal:
            # the table waits for a person now: say so, or it just sits idle in the middle of its match
            c.alert("dealer_gave_up", None,
                    f"发牌机连续 {attempts} 副发牌错误，已停止自动发牌：排除故障后由裁判发送 start_deal（guandan-table "
                    f"referee start-deal） | {attempts} fouled deals in a row: the table stopped dealing by itself; "
                    "clear the dealer, then a referee sends start_deal", {"attempts": attempts})
        return
    try:
        d.hands = {s: [parse_card(x) for x in e.hands[s]] for s in SEATS}
        if e.level and d.board is not None:
            d.level = parse_level(e.level)
        tribute = c.deals_done > 0 and d.board is None and c.last_finish is not None
        c.previous_finish = c.last_finish if tribute else None
        leader = None if tribute else (e.leader if e.leader in SEATS else first_leader(c, d))
        if leader is None and not tribute:
            return  # nobody can be told to lead: first_leader raised the alert and voided the deal
        d.state, effects = engine.start_deal(c.profile, d.level, d.hands,
                                             previous_finish=c.last_finish if tribute else None,
                                             leader=leader, t=c.now)
        d.state = engine.evolve_kw(d.state, t0=d.started)  # record times count from the deal's start
    except (KeyError, GuandanError) as exc:
        # what was wrong, without the cards: they were dealt and lie in the seats' hands
        c.alert("dealer_fault", None, f"发牌汇总无效 | dealer summary refused ({getattr(exc, 'reason', 'no hand')})",
                {"counts": {s: len(e.hands.get(s, [])) for s in SEATS}})
        void_deal(c, "bad dealer summary")
        return
    if not e.faces_verified:
        c.alert("dealer_fault", None, "发牌机无法读牌面：各家手牌未经核对 | the dealer cannot read faces: who holds what is not checked",
                {"faces_verified": False})
    d.commitment = e.commitment or d.commitment
    d.deal_line = e.deal_line
    c.emit("deal_dealt", deal=d.number, counts={s: len(d.hands[s]) for s in SEATS}, commitment=d.commitment,
           retransmits=e.retransmits, level=format_team_level(d.level), board=d.board)
    c.phase = Phase.TRIBUTE
    run_effects(c, effects)
    if d.state.phase == engine.TRIBUTE:
        c.set_turn(d.state.pending_gives(), "tribute")
    publish_hands(c)
    publish_state(c)


def first_leader(c: TableState, d: TableDeal) -> str | None:
    """The first deal's leader per the profile's ``first_lead``, decided by the engine (``seat:X``,
    ``first_dealt:CARD``); under ``turned_card`` the table turns a card of the deal (picked from the
    commitment, or the hands) and shows it, and the engine names the seat dealt it. When no seat was dealt
    the first-lead card the table never guesses: a ``dealer_fault`` alert says so and the deal is void."""
    rule = c.profile.first_lead
    dealt = [(card, seat) for _, card, seat in sorted(d.dealt_order) if seat in SEATS]
    turned: str | None = None
    if rule.startswith("seat:") or rule.startswith("first_dealt:"):
        d.first_lead = rule
    else:
        flat = dealt if len(dealt) == 108 and all(card for card, _ in dealt) else \
            [(x.code, s) for s in SEATS for x in d.hands[s]]
        seed = (d.commitment or "".join(card or "" for card, _ in flat)).encode()
        card, turned = flat[int(hashlib.sha256(seed).hexdigest(), 16) % len(flat)]
        d.first_lead = f"turned_card:{card}"
        c.emit("turned_card", deal=d.number, card=card, seat=turned)
    sequence = []
    for card, seat in dealt:
        try:
            if card:
                sequence.append((seat, parse_card(card)))
        except GuandanError:
            continue  # an unreadable face says nothing about who was dealt what
    try:
        return engine_first_leader(c.profile, d.hands, deal_sequence=sequence, turned_seat=turned)
    except ValueError as exc:
        code = rule.partition(":")[2]
        c.alert("dealer_fault", None,
                f"no seat holds the first-lead card {code} ({rule}): the first leader cannot be told, the deal "
                f"is void (无人持有首出牌 {code}，无法确定首出，本副牌作废)",
                {"first_lead": rule, "error": str(exc), "counts": {s: len(d.hands[s]) for s in SEATS}})
        void_deal(c, f"no seat holds the first-lead card {code}")
        return None


def void_deal(c: TableState, reason: str) -> None:
    d = c.deal
    c.emit("deal_void", deal=d.number if d else None, reason=reason)
    c.deal = None
    c.phase = Phase.IDLE
    c.set_turn(None, "wait")
    publish_state(c)
