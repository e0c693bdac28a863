#!/usr/bin/env python
"""Cross-check bgrl's move generator and Position IDs against GNU Backgammon (gnubg_nn).

For N (position, roll) cases -- from random games, pubeval-vs-pubeval games, synthetic
positions heavy in bar checkers / closed boards / bear-offs, and a subset with all 21
rolls -- compare the full set of legal after-states of ``bgrl.rules.movegen.generate`` with
``gnubg_nn.moves``, and check the Position ID round trip of every position.

    python scripts/tools/crosscheck_gnubg.py --cases 100000 --seed 0

Needs the optional extra: pip install -e '.[gnubg]'.  Exit status 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100000, help="(position, roll) cases to compare (default 100000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--show", type=int, default=20, help="disagreements to print in full (default 20)")
    args = ap.parse_args(argv)
    if args.cases < 21:
        ap.error("--cases must be at least 21")

    from bgrl.gnubg.adapter import crosscheck_batch, position_id_roundtrip, require_gnubg

    try:
        require_gnubg()
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return 2
    from positions import mixed_cases

    # Split: 35% random games, 30% pubeval games, 25% synthetic, ~10% all-21-rolls.
    n_all = max(1, (args.cases // 10) // 21)
    rest = args.cases - 21 * n_all
    n_random = int(rest * 0.35 / 0.9)
    n_agent = int(rest * 0.30 / 0.9)
    n_synth = rest - n_random - n_agent

    t0 = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    cases = mixed_cases(rng, n_random=n_random, n_agent=n_agent, n_synth=n_synth, n_all_rolls=n_all)
    t_gen = time.perf_counter() - t0

    total = 0
    disagreements = []
    ids_ok = ids_checked = 0
    seen: set[bytes] = set()
    for label, boards, dice in cases:
        t = time.perf_counter()
        dis = crosscheck_batch(boards, dice)
        for b in boards:
            key = b.tobytes()
            if key in seen:
                continue
            seen.add(key)
            ids_checked += 1
            ids_ok += position_id_roundtrip(b)
        print(f"  {label:<14} {len(boards):>7} cases  {len(dis)} disagreement(s)  {time.perf_counter() - t:7.1f} s")
        total += len(boards)
        disagreements += [(label, d) for d in dis]
    elapsed = time.perf_counter() - t0

    print(f"cases compared:          {total}")
    print(f"disagreements:           {len(disagreements)}")
    print(f"Position ID round trips: {ids_ok}/{ids_checked} distinct positions agree with gnubg")
    print(f"time:                    {elapsed:.1f} s (positions built in {t_gen:.1f} s), seed {args.seed}")
    for label, d in disagreements[: args.show]:
        print(f"[{label}] {d.describe()}")
    return 0 if not disagreements and ids_ok == ids_checked else 1


if __name__ == "__main__":
    sys.exit(main())
