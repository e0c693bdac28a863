#!/usr/bin/env python
"""Train one small network per encoder with identical settings and compare their error rates.

    python scripts/experiments/encoder_experiment.py --games 5000 --encoders td198r td198g --seed 1

Each run is ``bgrl.training.train`` from random weights (same seed, hidden units, alpha,
lambda, games; no evaluations during training) in a temporary folder; the final network is
then measured on the error-rate benchmark (:func:`bgrl.arena.benchmark.error_rate`, 0-ply).
Prints one row per encoder: training time (this process's wall time and the run's own
``train_seconds``), games/s and millipoints lost per decision. Nothing is kept.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--encoders", nargs="+", default=["td198r", "td198g"])
    ap.add_argument("--hidden", type=int, default=80)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--file", default=None, help="benchmark file (default: the shipped one)")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    from bgrl.agents.base import NetAgent
    from bgrl.arena.benchmark import error_rate, load_benchmark
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.encoding import num_features
    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.training.loop import TrainConfig, train

    try:
        for e in args.encoders:
            num_features(e)
        bench = load_benchmark(args.file)
    except ValueError as exc:
        print(f"encoder_experiment: error: {exc}", file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for enc in args.encoders:
            cfg = TrainConfig(games=args.games, encoder=enc, hidden=args.hidden, alpha=args.alpha, seed=args.seed,
                              eval_every=0, checkpoint_every=args.games)
            t0 = time.perf_counter()
            final = train(cfg, Path(tmp) / enc, progress=False, log=lambda *a, **k: None)
            wall = time.perf_counter() - t0
            net, meta = load_network(final)
            r = error_rate(NetAgent(NetEvaluator(net, enc)), bench)
            rows.append((enc, meta, wall, r))
            print(f"done {enc}: {wall:.0f} s", file=sys.stderr, flush=True)
    print(f"{args.games} self-play games per encoder, hidden {args.hidden}, alpha {args.alpha}, seed {args.seed}; "
          f"error rate on {bench.decisions} benchmark decisions (millipoints per decision, gnubg 2-ply)")
    print(f"{'encoder':<8} {'inputs':>6} {'wall s':>7} {'train s':>8} {'games/s':>8} {'all':>7} {'contact':>8} {'race':>6} {'bearoff':>8}")
    for enc, meta, wall, r in rows:
        ts = float(meta.get("train_seconds", wall))
        print(f"{enc:<8} {num_features(enc):>6} {wall:7.0f} {ts:8.0f} {args.games / ts:8.1f} {r['all']:7.2f} "
              f"{r['contact']:8.2f} {r['race']:6.2f} {r['bearoff']:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
