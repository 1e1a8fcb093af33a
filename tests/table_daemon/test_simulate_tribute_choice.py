"""The simulated players at a ``winner_chooses`` table: when an equal double tribute comes up, simulated 上游
picks a card (seeded: its pass or confirm button, or the ``declare`` command) and the match runs on; every
published deal record replays."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from guandan import SEATS, full_pack, next_seat, partner, previous_seat, replay
from table_daemon.adapters.devices import PlannedDealer
from table_daemon.config import simulated_config
from table_daemon.simulate import SimTable

CHOOSE = {"name": "open-choice", "tie_tribute": "winner_chooses"}


class TieDealer(PlannedDealer):
    """Seeded deals; after a 双下 it deals the losers equal highest cards (SA and HA, nothing above them), so
    that the tribute is an equal double one."""

    controller: Any = None

    def lines(self, board: int | None, deal_no: int) -> Iterator[dict[str, Any]]:
        c = self.controller
        finish = c.last_finish if c is not None else None
        level = c.deal.level if c is not None and c.deal is not None else 14
        if not finish or finish[1] != partner(finish[0]) or level == 14:
            yield from super().lines(board, deal_no)
            return
        losers = (next_seat(finish[0]), previous_seat(finish[0]))
        pack = [x.code for x in full_pack()]
        random.Random(deal_no).shuffle(pack)
        level_code = "23456789TJQKA"[level - 2]
        low = [x for x in pack if x[1] not in ("A", "B", "R", level_code) and x[0] not in "BR"]
        hands = {losers[0]: ["SA", *low[:26]], losers[1]: ["HA", *low[26:52]]}
        rest = list(pack)
        for x in hands[losers[0]] + hands[losers[1]]:
            rest.remove(x)
        winners = [s for s in SEATS if s not in losers]
        hands[winners[0]], hands[winners[1]] = rest[:27], rest[27:]
        for i in range(108):
            seat = SEATS[i % 4]
            yield {"index": i, "card": hands[seat][i // 4], "seat": seat, "quality": 1.0}
        yield {"summary": True, "ok": True, "fouled": None, "hands": hands, "commitment": "", "retransmits": 0}


def test_simulated_upstream_chooses_a_tribute_card(mosquitto: Any, topic_root: Any, tmp_path: Path) -> None:
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.panels = replace(cfg.panels, debounce_ms=0)
    sim = SimTable(cfg, seed=5, speed=0.0, camera=False)
    dealer = TieDealer(seed=5)
    dealer.controller = sim.app.controller
    sim.app.dealer = sim.dealer = dealer
    published: list[tuple[str, dict[str, Any]]] = []
    chosen_record = threading.Event()

    def on_published(topic: str, msg: dict[str, Any]) -> None:
        published.append((topic, msg))
        if msg.get("format") and any(m.get("type") == "tribute_chosen" and m.get("deal") == msg.get("deal")
                                     for _, m in published):
            chosen_record.set()

    sim.app.on_published = on_published
    sim.app.start()
    try:
        sim.app.command("start_match", {"match_end": {"method": "deals", "deals": 12}, "profile": CHOOSE})
        assert chosen_record.wait(90), "no equal double tribute was chosen and played out"
    finally:
        sim.stop()
    events = [m for _, m in published]
    asks = [m for m in events if m.get("type") == "tribute_choice_needed"]
    chosen = [m for m in events if m.get("type") == "tribute_chosen"]
    assert asks and chosen and chosen[0]["seat"] == asks[0]["seat"]
    assert chosen[0]["how"] in ("button:pass", "button:confirm", "command")
    records = [m for m in events if m.get("format") == "guandan-deal/1"]
    assert records and all(replay(r)["ok"] for r in records)
    tie = next(r for r in records if r["deal"] == chosen[0]["deal"])
    first = next(t for t in tie["tribute"] if t["to"] == chosen[0]["seat"])
    assert first["from"] == chosen[0]["tribute_from"] and tie["leader"] == first["from"]
    assert tie["profile"] == "open-choice" and tie["profile_settings"]["tie_tribute"] == "winner_chooses"
    assert not [m for m in events if m.get("type") == "alert"]
