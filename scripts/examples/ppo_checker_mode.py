"""A stock algorithm, untouched: sb3-contrib's ``MaskablePPO`` with the default ``MlpPolicy`` on
``bgrl/Backgammon-v0`` in checker mode (``action_mode="checker"``), against the random opponent.

    pip install "bgrl[examples]"
    python scripts/examples/ppo_checker_mode.py --total-steps 300000 --eval-games 1000

In checker mode an action always means the same thing, ``6 * source + die - 1`` in a fixed
``Discrete(156)`` (move one checker from ``source``, 1..24 or 25 = the bar, by ``die``), and the
dice left to play are the observation's last six units, so the default ``MlpPolicy`` (two
hidden layers of 64) can learn: no custom policy and no wrapper. PPO trains on
:class:`bgrl.env.sb3.BackgammonSB3VecEnv`, an SB3 ``VecEnv`` over the native vector env (the
``--envs`` games stepped as arrays, one batched move generation per step), which hands the legal
steps to PPO through ``env_method("action_masks")`` at every step (Huang & Ontañón 2022,
invalid-action masking). Contrast ``sb3_maskable_ppo.py``, whose actions are indices into each
roll's list of plays and which needs an after-state policy.

Training: ``--envs`` games in the SB3 VecEnv, PPO's defaults (n_steps 2048 per
env, batch 64, 10 epochs, gamma 0.99; the reward is the game's points at its end). The
evaluation plays ``--eval-games`` games per player on the same dice (game ``i`` of each
``bgrl/BackgammonVector-v0`` in checker mode is seeded ``--seed + 10_000 + i``), each player
once against ``random`` and once against ``pubeval``: a uniformly random policy over the legal
steps (what the untrained network does, near enough), the trained policy sampling its
actions, and the trained policy greedy (``deterministic=True``). It prints the points per game
of each with a 95% interval, and ``--eval-every`` steps prints the greedy policy against random
during training. Figures and commands are in docs/environments.md and docs/leaderboard.md.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import bgrl.env  # noqa: F401 - registers the ids
from bgrl.env import BackgammonVectorEnv
from bgrl.env.sb3 import BackgammonSB3VecEnv


def make_venv(envs: int, opponent: str = "random") -> BackgammonSB3VecEnv:
    """``envs`` games of ``bgrl/Backgammon-v0`` in checker mode against ``opponent``, as one SB3 VecEnv."""
    return BackgammonSB3VecEnv(envs, opponent=opponent, action_mode="checker")


def evaluate(policy, opponent: str, games: int, seed: int) -> tuple[float, float]:
    """Points per game (and the half-width of its 95% interval) of ``policy`` over ``games``
    games against ``opponent``, the first game of each of ``games`` vector-env slots.

    policy : ``"random"`` (uniform over the legal steps) or ``(model, deterministic)``."""
    env = BackgammonVectorEnv(games, opponent=opponent, action_mode="checker", notation=False)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    points = np.full(games, np.nan)
    while np.isnan(points).any():
        mask = info["action_mask"].astype(bool)
        if policy == "random":
            acts = np.argmax(rng.random(mask.shape) * mask, axis=1)
        else:
            model, det = policy
            acts, _ = model.predict(obs, action_masks=mask, deterministic=det)
            acts = np.where(mask.any(axis=1), acts, 0)  # a game just ended: its action is ignored
        obs, reward, term, _trunc, info = env.step(np.asarray(acts, dtype=np.int64))
        first = term & np.isnan(points)
        points[first] = reward[first]
    return float(points.mean()), float(1.96 * points.std(ddof=1) / math.sqrt(games))


class EvalEvery(BaseCallback):
    def __init__(self, every: int, games: int, seed: int):
        super().__init__()
        self.every, self.games, self.seed, self.next = every, games, seed, every
        self.curve: list[tuple[int, float, float]] = []

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps >= self.next:
            self.next += self.every
            ppg, ci = evaluate((self.model, True), "random", self.games, self.seed)
            self.curve.append((self.num_timesteps, ppg, ci))
            print(f"  {self.num_timesteps:>9,} steps: greedy vs random {ppg:+.3f} +- {ci:.3f} ppg", flush=True)
        return True


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--total-steps", type=int, default=300_000, help="PPO environment steps (checker moves of the agent)")
    ap.add_argument("--envs", type=int, default=8, help="games stepped together in the SB3 VecEnv")
    ap.add_argument("--eval-games", type=int, default=1000, help="games per player and opponent at the end")
    ap.add_argument("--eval-every", type=int, default=0, help="also evaluate the greedy policy against random every N steps")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", default=None, help="save the trained model here (a .zip)")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object at the end")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    venv = make_venv(args.envs)
    venv.seed(args.seed)
    model = MaskablePPO("MlpPolicy", venv, seed=args.seed, verbose=0, device="cpu")
    cb = EvalEvery(args.eval_every, min(args.eval_games, 400), args.seed + 10_000)
    t0, c0 = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.total_steps, callback=cb)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    games = int(venv.venv._episodes.sum())  # games begun, per slot
    print(f"trained MaskablePPO('MlpPolicy') for {model.num_timesteps:,} checker steps (~{games:,} games) in "
          f"{wall:.0f} s ({cpu:.0f} s CPU)")
    if args.save:
        model.save(args.save)
    seed = args.seed + 10_000
    out = {"steps": int(model.num_timesteps), "games": games, "seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
           "curve": cb.curve, "eval": {}}
    for opp in ("random", "pubeval"):
        for label, policy in (("random policy", "random"), ("trained, sampling", (model, False)),
                              ("trained, greedy", (model, True))):
            ppg, ci = evaluate(policy, opp, args.eval_games, seed)
            out["eval"][f"{label} vs {opp}"] = [round(ppg, 3), round(ci, 3)]
            print(f"{label:>18} vs {opp:<8} {ppg:+.3f} +- {ci:.3f} ppg ({args.eval_games} games, same dice)")
    if args.json:
        print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
