"""A masked-random agent playing bgrl/Backgammon-v0 against the env's built-in opponent.

    .venv/bin/python scripts/examples/env_random_agent.py --episodes 200 --opponent pubeval --seed 0

Prints the agent's win rate and points per game (ppg, with a 95% interval).
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

import bgrl.env  # noqa: F401  (registers the environments)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opponent", default="pubeval", help="random, pubeval, default or a checkpoint path")
    ap.add_argument("--agent-color", default="alternate", choices=["white", "black", "alternate"])
    args = ap.parse_args(argv)

    env = gym.make("bgrl/Backgammon-v0", opponent=args.opponent, agent_color=args.agent_color, notation=False)
    rng = np.random.default_rng(args.seed)
    points = []
    t0 = time.perf_counter()
    for ep in range(args.episodes):
        obs, info = env.reset(seed=args.seed if ep == 0 else None)
        while True:
            action = int(rng.integers(int(info["action_mask"].sum())))  # uniform over the legal plays
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                points.append(reward)
                break
    dt = time.perf_counter() - t0
    p = np.array(points)
    se = p.std(ddof=1) / math.sqrt(len(p)) if len(p) > 1 else float("nan")
    print(f"masked-random agent vs {args.opponent}: {len(p)} games in {dt:.1f} s")
    print(f"  win rate {np.mean(p > 0):.1%}   ppg {p.mean():+.3f} (95% CI +-{1.96 * se:.3f})"
          f"   gammons+ {np.mean(np.abs(p) >= 2):.1%}")


if __name__ == "__main__":
    main()
