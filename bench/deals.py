"""Deal engine speed (issue 3 targets): bot-played deals per second and record replays per second, one core.

Plays ``--deals`` deals per profile with four seeded bots through the pure state machine (tribute phases
included: the previous finish cycles through no tribute, single and double tribute), then builds each deal's
``guandan-deal/1`` record, round-trips it through JSON text, and replays every record. Prints:
- deals/s: whole bot-played deals (deal-in to the end, bots' choices included), target >= 200;
- replays/s: records checked action by action from their JSON text, target >= 1,000;
- the share of records that replayed ok (must be 100 %) and actions per deal.
Run: ``nice -n 10 .venv/bin/python bench/deals.py`` (``--deals 500`` for 2,000 deals over four profiles).
"""

from __future__ import annotations

import argparse
import json
import random
import time

from guandan import PROFILES, SEATS, Bot, build_record, deal_hands, play_out, replay

FINISHES = [None, ["S", "E", "N", "W"], ["E", "W"], ["N", "W", "E", "S"], ["S", "N"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=250, help="deals per profile (default 250)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bots = {s: Bot(args.seed * 10 + i) for i, s in enumerate(SEATS)}
    jobs = []
    for profile in PROFILES.values():
        for i in range(args.deals):
            jobs.append((profile, rng.randint(2, 14), deal_hands(rng), FINISHES[i % len(FINISHES)], rng.choice(SEATS)))

    start = time.perf_counter()
    states = [play_out(p, level, hands, bots, previous_finish=fin, leader=lead) for p, level, hands, fin, lead in jobs]
    play_s = time.perf_counter() - start
    actions = sum(len(s.actions()) for s in states)

    texts = []
    for state, (_, level, _, fin, _) in zip(states, jobs, strict=True):
        record = build_record(state, levels_before={"NS": level, "EW": 2}, played="NS", previous_finish=fin)
        texts.append(json.dumps(record))
    start = time.perf_counter()
    ok = sum(1 for text in texts if replay(json.loads(text))["ok"])
    replay_s = time.perf_counter() - start

    n = len(states)
    print(f"deals: {n} over {len(PROFILES)} profiles, {actions / n:.1f} actions/deal")
    print(f"bot-played deals/s (engine + bots, one core): {n / play_s:.0f}   (target >= 200)")
    print(f"replays/s (JSON text -> checked record):      {n / replay_s:.0f}   (target >= 1000)")
    print(f"records replayed ok: {ok}/{n} ({100.0 * ok / n:.1f} %)")


if __name__ == "__main__":
    main()
