"""Speed of the exact bear-off lookups (bgrl.evaluation.bearoff.exact_probs, bgrl.evaluation.exact.exact_probs).

    .venv/bin/python scripts/bench/bench_bearoff.py [--seconds 1]

Random two-sided bear-off positions (both sides with 1..15 checkers on their home points),
database already loaded; prints positions/s per batch size, and the load time of the
shipped file.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bgrl.evaluation import bearoff

from bgrl.evaluation import exact


def random_bearoffs(n: int, rng) -> np.ndarray:
    pos = bearoff.positions()
    ia, ib = rng.integers(1, len(pos), n), rng.integers(1, len(pos), n)
    b = np.zeros((n, 26), dtype=np.int8)
    b[:, 1:7] = pos[ia]
    b[:, 24:18:-1] = -pos[ib]
    return b


def rate(fn, boards, seconds) -> float:
    fn(boards)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn(boards)
        n += boards.shape[0]
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    bearoff.load(bearoff.shipped_db_path())
    print(f"load {bearoff.shipped_db_path().name}: {time.perf_counter() - t0:.3f} s")
    bearoff.database()
    rng = np.random.default_rng(0)
    print(f"{'batch':>6} {'bearoff.exact_probs pos/s':>26} {'exact.exact_probs pos/s':>24}")
    for batch in (1, 64, 4096):
        b = random_bearoffs(batch, rng)
        r1 = rate(bearoff.exact_probs, b, args.seconds)
        r2 = rate(exact.exact_probs, b, args.seconds)
        print(f"{batch:>6} {r1:>26,.0f} {r2:>24,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
