"""Speed of the distillation fit (bgrl.training.distill.fit) on the CPU and, where one exists, a CUDA GPU.

    python scripts/bench/bench_distill_device.py --positions 20000 --hidden 160 --epochs 2

The same positions and targets (self-play after-states of a random-weight network, targets
from the same network: only the speed is measured) are fitted once per device through the
same code (``fit(..., device=...)``); the script prints positions per second of each and the
ratio. Without CUDA it measures the CPU only and says so.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch


def main(argv=None) -> int:
    from bgrl.evaluation.model import TDNet
    from bgrl.evaluation.encoding import num_features
    from bgrl.evaluation.table import network_evaluator
    from bgrl.training.distill import collect_positions, fit

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=20000, help="positions to fit (default: %(default)s)")
    p.add_argument("--hidden", type=int, default=160, help="hidden units (default: %(default)s)")
    p.add_argument("--epochs", type=int, default=2, help="epochs per device (default: %(default)s)")
    p.add_argument("--batch", type=int, default=256, help="batch size (default: %(default)s)")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    enc = "td198g"
    net = TDNet(num_features(enc), args.hidden)
    ev = network_evaluator(net, enc)
    boards = collect_positions(ev, max(1, args.positions // 50), seed=0)[: args.positions]
    targets = np.asarray(ev(boards), dtype=np.float32)
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    speed = {}
    for dev in devices:
        student = TDNet(num_features(enc), args.hidden)
        student.load_state_dict(net.state_dict())
        t0 = time.perf_counter()
        fit(student, enc, boards, targets, epochs=args.epochs, lr=1e-3, batch=args.batch, device=dev, log=lambda *_: None)
        speed[dev] = boards.shape[0] * args.epochs / (time.perf_counter() - t0)
        print(f"{dev}: {speed[dev]:,.0f} positions/s ({boards.shape[0]} positions x {args.epochs} epochs, batch {args.batch})")
    if "cuda" in speed:
        print(f"cuda / cpu: {speed['cuda'] / speed['cpu']:.1f}x")
    else:
        print("no CUDA device here: CPU only")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
