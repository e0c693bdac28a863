"""Build the exact bear-off database (bgrl.evaluation.bearoff: one-sided distributions and the two-sided
table for up to 6 checkers a side) and write it as package data.

    python scripts/tools/build_bearoff.py [--out PATH]

Default output: bgrl/data/bearoff.npz (the shipped file). Prints the build time, the file
size and a few sanity figures.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from bgrl.evaluation import bearoff

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bgrl" / "data" / bearoff.DB_FILENAME)
    args = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    db = bearoff.build()
    t_build, c_build = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    bearoff.build_two_sided()
    t_two = time.perf_counter() - t0
    bearoff.save(db, args.out)
    back = bearoff.load(args.out)
    err = max(np.abs(back.off - db.off).max(), np.abs(back.first - db.first).max(), np.abs(back.two_sided - db.two_sided).max())
    mean = db.mean_rolls()
    full = bearoff.position_index(np.array([0, 0, 0, 0, 0, 15]))
    print(f"positions: {bearoff.N_POSITIONS}; widths: off {db.off.shape[1]} rolls, first {db.first.shape[1]} rolls")
    print(f"build time: {t_build:.1f} s wall, {c_build:.1f} s CPU in all, of which the two-sided table (<= 6 checkers a side) {t_two:.1f} s (timed again)")
    print(f"file: {args.out} ({args.out.stat().st_size:,} bytes); max abs storage error {err:.2e}")
    print(f"expected rolls, 15 checkers on the 6-point: {mean[full]:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
