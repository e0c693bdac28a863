"""A 0-ply value agent through bgrl/Backgammon-v0: evaluates every legal after-state the env
exposes (``env.unwrapped.after_states()``) with a network checkpoint and plays the best.

    .venv/bin/python scripts/examples/env_value_agent.py --checkpoint runs/main/latest.pt --opponent pubeval

Prints the agent's win rate and points per game (ppg, with a 95% interval) against the env's
built-in opponent.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import gymnasium as gym
import numpy as np
import torch

import bgrl.env  # noqa: F401  (registers the environments)
from bgrl.agents.base import DEFAULT_CHECKPOINT
from bgrl.evaluation.networks import load_network
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.probabilities import equity


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT), help="network to play with (.pt)")
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--opponent", default="pubeval", help="random, pubeval, default or a checkpoint path")
    ap.add_argument("--agent-color", default="alternate", choices=["white", "black", "alternate"])
    args = ap.parse_args(argv)

    torch.set_num_threads(1)  # DESIGN.md: one thread per process
    net, meta = load_network(args.checkpoint)
    evaluate = NetEvaluator(net, meta["encoder"])

    env = gym.make("bgrl/Backgammon-v0", opponent=args.opponent, agent_color=args.agent_color, notation=False)
    points = []
    t0 = time.perf_counter()
    for ep in range(args.episodes):
        obs, info = env.reset(seed=args.seed if ep == 0 else None)
        while True:
            after = env.unwrapped.after_states()  # (k, 26), row i = result of action i
            action = int(np.argmax(equity(evaluate(after))))  # equity of the side that just played
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                points.append(reward)
                break
    dt = time.perf_counter() - t0
    p = np.array(points)
    se = p.std(ddof=1) / math.sqrt(len(p)) if len(p) > 1 else float("nan")
    shown = os.path.relpath(args.checkpoint) if not os.path.relpath(args.checkpoint).startswith("..") else args.checkpoint
    print(f"value agent ({shown}, 0-ply) vs {args.opponent}: {len(p)} games in {dt:.1f} s")
    print(f"  win rate {np.mean(p > 0):.1%}   ppg {p.mean():+.3f} (95% CI +-{1.96 * se:.3f})"
          f"   gammons+ {np.mean(np.abs(p) >= 2):.1%}")


if __name__ == "__main__":
    main()
