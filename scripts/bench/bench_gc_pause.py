"""Garbage-collector pauses in a loaded process: hint latency with and without ``gc.freeze()``.

    python scripts/bench/bench_gc_pause.py [--positions 90] [--level expert] [--seed 0]

A process that has loaded torch, numba and a level holds about 280,000 objects the cyclic
garbage collector tracks. Its full (generation-2) collections walk all of them, and one
lands inside whichever request happens to allocate at that moment. ``bgrl serve`` therefore
calls :func:`bgrl.service.pool.settle_heap` once everything is loaded: one collection, then
``gc.freeze()``, which moves the loaded objects out of the collector's reach.

This script runs the same hints (``LevelAgent.hint`` at 0, 1 and 2-ply, one third of the
contact positions each, after a warm-up) in two fresh child processes, one of them calling
``settle_heap()`` after the warm-up. For each it prints the slowest hint, the total CPU time,
and every generation-2 collection with its length (``gc.callbacks``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import gc, json, sys, time
sys.path.insert(0, {tests!r})
from workloads import contact_decisions
from bgrl.agents.levels import load_level
from bgrl.rules.board import Position
from bgrl.service.pool import settle_heap

agent = load_level({level!r})
decisions = contact_decisions({n} + 1, {seed})
warm_b, warm_d = decisions.pop()
for ply in (0, 1, 2):
    agent.hint(Position.from_board(warm_b), warm_d, ply=ply)
if {settle!r}:
    settle_heap()
tracked = len(gc.get_objects())
events, starts = [], {{}}

def on_gc(phase, info):
    g = info["generation"]
    if phase == "start":
        starts[g] = time.perf_counter()
    elif g == 2:
        events.append(time.perf_counter() - starts[g])

gc.callbacks.append(on_gc)
times = []
for ply in (0, 1, 2):
    for board, dice in decisions[ply::3]:
        pos = Position.from_board(board)
        t = time.thread_time()
        agent.hint(pos, dice, ply=ply)
        times.append(time.thread_time() - t)
gc.callbacks.remove(on_gc)
print(json.dumps({{"tracked": tracked, "frozen": gc.get_freeze_count(), "max": max(times), "sum": sum(times),
                  "n": len(times), "gen2": events}}))
"""


def run(settle: bool, args) -> dict:
    code = _CHILD.format(tests=str(ROOT / "tests"), level=args.level, n=args.positions, seed=args.seed, settle=settle)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--positions", type=int, default=90, help="contact positions, a third per ply (default: %(default)s)")
    p.add_argument("--level", default="expert", help="level whose hints are timed (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the positions (default: %(default)s)")
    args = p.parse_args(argv)
    if args.positions < 3:
        p.error(f"--positions must be >= 3, got {args.positions}")
    print(f"level {args.level}, {args.positions} hints (0/1/2-ply), CPU time per hint; two fresh processes")
    print(f"{'process':<28} {'tracked objects':>15} {'frozen':>8} {'slowest ms':>11} {'total ms':>9}  generation-2 collections")
    for settle in (False, True):
        r = run(settle, args)
        gen2 = ", ".join(f"{1e3 * t:.1f} ms" for t in r["gen2"]) or "none"
        name = "settle_heap() after loading" if settle else "as loaded"
        print(f"{name:<28} {r['tracked']:>15,} {r['frozen']:>8,} {1e3 * r['max']:>11.1f} {1e3 * r['sum']:>9.1f}  "
              f"{len(r['gen2'])}: {gen2}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
