#!/usr/bin/env python
"""Agreement with GNU Backgammon: top-play agreement with gnubg 0-ply and 2-ply, and the error rate.

On the benchmark's decisions (bgrl/data/benchmark.npz: decisions with a choice from games
between GNU Backgammon 0-ply players, every legal play scored by gnubg 2-ply; see
scripts/tools/build_benchmark.py), for each agent:

* ``=0ply``: share of decisions where its play is gnubg 0-ply's choice (ties count);
* ``=2ply``: share where its play is gnubg 2-ply's best (it loses nothing);
* ``error``: the mean equity its choice loses against gnubg 2-ply's best, in millipoints
  per decision (1000 x points per game), overall and for contact, race and bear-off.

    python scripts/bench/agreement_gnubg.py default pubeval gnubg random
    python scripts/bench/agreement_gnubg.py expert mypackage.levels:MY_AGENT --json

AGENT is any spec :func:`bgrl.agents.registry.load_agent` accepts (``random``, ``pubeval``,
``default``, a checkpoint path, ``gnubg``, ``gnubg:N``, level names where installed), or
``module:attribute`` naming an importable object (or a class, instantiated without
arguments) with ``select(after, rng)`` or ``choose_play(position, dice, rng)``. From Python, :func:`agreement` takes such objects
directly. Bad specs: one-line error, exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time


def resolve(spec: str):
    """An agent for ``spec``: :func:`bgrl.agents.registry.load_agent`, else ``module:attribute``."""
    from bgrl.agents.registry import load_agent

    try:
        return load_agent(spec)
    except ValueError as first:
        mod, sep, attr = spec.partition(":")
        if not sep or not mod or not attr.isidentifier():
            raise
        try:
            obj = getattr(importlib.import_module(mod), attr)
        except (ImportError, AttributeError):
            raise first from None
        if isinstance(obj, type):  # a class: use an instance made without arguments
            obj = obj()
        if not (hasattr(obj, "select") or hasattr(obj, "choose_play")):
            raise ValueError(f"{spec!r} is neither an agent spec nor an object with select or choose_play") from None
        return obj


def agreement(agents: dict, bench=None) -> dict:
    """``{name: bgrl.arena.benchmark.error_rate(agent)}`` for agents given as objects (select,
    choose_play or an evaluator), each with its run time in seconds added."""
    from bgrl.arena.benchmark import error_rate, load_benchmark

    b = bench if bench is not None else load_benchmark()
    out = {}
    for name, agent in agents.items():
        t0 = time.perf_counter()
        out[name] = error_rate(agent, b)
        out[name]["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agents", nargs="+", metavar="AGENT")
    ap.add_argument("--file", default=None, help="benchmark file (default: the shipped one)")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    from bgrl.arena.benchmark import load_benchmark, shipped_benchmark_path

    try:
        bench = load_benchmark(args.file)
        agents = {spec: resolve(spec) for spec in args.agents}
    except ValueError as exc:
        print(f"agreement_gnubg: error: {exc}", file=sys.stderr)
        return 2
    res = agreement(agents, bench)
    if args.json:
        print(json.dumps({"benchmark": str(args.file or shipped_benchmark_path()), "decisions": bench.decisions,
                          "results": res}))
        return 0
    print(f"{bench.decisions} decisions from games between GNU Backgammon players "
          f"({bench.meta.get('command', '?')})")
    head = f"{'agent':<24} {'=gnubg 0-ply':>12} {'=gnubg 2-ply':>12} {'error':>7} {'contact':>8} {'race':>6} {'bearoff':>8} {'s':>6}"
    print(head)
    print("-" * len(head))
    for name, r in res.items():
        print(f"{name:<24} {100 * r['agree_0ply']:11.1f}% {100 * r['agree_2ply']:11.1f}% {r['all']:7.2f} "
              f"{r['contact']:8.2f} {r['race']:6.2f} {r['bearoff']:8.2f} {r['seconds']:6.1f}")
    print("error: millipoints lost per decision against gnubg 2-ply's best play (cubeless money equity)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
