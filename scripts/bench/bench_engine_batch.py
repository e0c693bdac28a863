"""The service engine's batched throughput: decisions per second of ``Engine.run_batch``
for expert moves and wildbg ``GET /move`` lists, beside sequential ``choose_play``.

    python scripts/bench/bench_engine_batch.py [--positions 400] [--batch 32] [--seconds 3] [--seed 0]

What a worker process of ``bgrl serve`` does with a batch of requests (no HTTP, no pipe):
``MoveJob(pos, dice, "expert", seed)`` and ``ListJob(pos, dice, "expert", as_json=True)``
jobs in batches of ``--batch``, over positions from pubeval self-play games (the load
test's, ``scripts/bench/load_test.py``), one torch thread, measured in one process one after the
other, so the figures compare with each other on a shared machine (docs/service.md, "Where
a request's time goes"). Printed: decisions per second of each kind and their ratio to the
sequential in-process rate of the level agent's ``choose_play``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))


def rate(fn, seconds: float) -> float:
    """Calls of ``fn`` (each returning how many decisions it made) per second over ``seconds``."""
    fn()  # warm up
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        n += fn()
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=400, help="positions from pubeval self-play (default %(default)s)")
    p.add_argument("--batch", type=int, default=32, help="jobs per run_batch call (default %(default)s)")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds per figure (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the positions (default %(default)s)")
    args = p.parse_args(argv)
    if args.positions < 1 or args.batch < 1 or not args.seconds > 0:
        p.error("--positions and --batch must be >= 1 and --seconds > 0")

    import torch

    from bgrl.rules.board import Position
    from bgrl.service.engine import Engine, ListJob, MoveJob
    from workloads import in_process_rate, workload  # tests/workloads.py

    torch.set_num_threads(1)
    work = workload(args.positions, args.seed)
    items = [(Position.from_id(pid), tuple(d)) for pid, d in work]
    eng = Engine()
    state = {"k": 0}

    def batch():
        k = state["k"]
        state["k"] = (k + args.batch) % len(items)
        return [items[(k + i) % len(items)] for i in range(args.batch)]

    def moves():
        return len(eng.run_batch([MoveJob(pos, d, "expert", 1) for pos, d in batch()]))

    def lists():
        return len(eng.run_batch([ListJob(pos, d, "expert", as_json=True) for pos, d in batch()]))

    seq = in_process_rate("expert", work, args.seconds)
    mv = rate(moves, args.seconds)
    wb = rate(lists, args.seconds)
    print(f"expert, {len(items)} positions, batches of {args.batch}, one torch thread, {args.seconds:g} s each")
    print(f"{'what':<36} {'decisions/s':>12} {'ratio':>7}")
    print(f"{'sequential choose_play':<36} {seq:>12.1f} {1.0:>6.2f}x")
    print(f"{'run_batch moves (POST /v1/move)':<36} {mv:>12.1f} {mv / seq:>6.2f}x")
    print(f"{'run_batch wildbg lists (GET /move)':<36} {wb:>12.1f} {wb / seq:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
