"""Two agents play each other through the PettingZoo AEC environment (bgrl.env.pettingzoo_env).

    .venv/bin/python scripts/examples/pettingzoo_match.py pubeval random --games 100 --seed 0

Needs the ``pettingzoo`` extra. Agents are specs of :func:`bgrl.agents.registry.load_agent` (``random``,
``pubeval``, ``default``, a checkpoint path); A plays White in even games and Black in odd
ones. Each agent sees the observing side's info (board, dice, after-states) and the
observation's action mask, and answers with an action index. Prints A's points per game
(95% interval) and win rate.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="agent A: random, pubeval, default or a checkpoint path")
    ap.add_argument("b", help="agent B")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be >= 1")
    try:
        import bgrl.env
        from bgrl.agents.registry import load_agent
        from bgrl.rules.movegen import generate

        agents = {"A": load_agent(args.a), "B": load_agent(args.b)}
        env = bgrl.env.pettingzoo_env()
    except ImportError as exc:
        print(f"pettingzoo_match: error: {exc} (pip install -e '.[pettingzoo]')", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"pettingzoo_match: error: {exc}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    points = []
    t0 = time.perf_counter()
    for g in range(args.games):
        env.reset(seed=args.seed * 100_003 + g)
        seat = {"white": "A", "black": "B"} if g % 2 == 0 else {"white": "B", "black": "A"}
        result = 0
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                if seat[name] == "A":
                    result = reward
                env.step(None)
                continue
            after = info["after_states"]
            k = int(obs["action_mask"].sum())
            assert after.shape[0] == k
            # the agents' batched protocol: the after-states of this one position (same canonical order)
            batch = generate(info["board"][None], np.array([info["dice"]], dtype=np.int8))
            assert np.array_equal(batch.boards, after)
            env.step(int(agents[seat[name]].select(batch, rng)[0]))
        points.append(result)
    dt = time.perf_counter() - t0
    p = np.array(points, dtype=float)
    half = 1.96 * p.std(ddof=1) / math.sqrt(len(p)) if len(p) > 1 else float("nan")
    print(f"{args.a} vs {args.b} through the PettingZoo AEC env: {len(p)} games in {dt:.1f} s")
    print(f"  A's points per game {p.mean():+.3f} (95% CI +-{half:.3f})   A's win rate {(p > 0).mean():.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
