"""Train a small value network through the vector env, then play it against random.

    .venv/bin/python scripts/examples/vector_train_example.py --steps 1000 --num-envs 256 --lr 0.03 --eval-games 400

A learning loop written only against the Gymnasium vector API (``gym.make_vec(...,
vectorization_mode="vector_entry_point")``, ``info["after_states"]``, ``info["to_move"]``), not
bgrl's own TD(lambda) trainer: a 202-40-1 torch network ``f(x)`` estimates the probability that
the side on roll wins; every step each of N self-play games picks the after-state ``a`` with the
highest ``1 - f(encode(flip(a)))`` (epsilon-greedy), and ``f`` is fitted by semi-gradient TD(0)
(Sutton & Barto, "Reinforcement Learning", 2nd ed., section 9.3) towards ``1`` when the play won,
``1 - f(next)`` when the opponent is on roll next and ``f(next)`` when the opponent passed.
Then the greedy agent plays ``--eval-games`` games against the built-in 'random' opponent in
``bgrl/Backgammon-v0``'s vector form and the script prints its win rate and points per game.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np
import torch

import bgrl.env  # noqa: F401  (registers the environments)
from bgrl.agents.base import group_argmax
from bgrl.rules.board import flip
from bgrl.evaluation.encoding import encode


def values_of_after_states(net, groups) -> np.ndarray:
    """Mover's win probability of every after-state (flat, float64 (M,))."""
    boards = groups.boards
    if boards.shape[0] == 0:
        return np.zeros(0)
    with torch.no_grad():
        p_opp = net(torch.from_numpy(encode(flip(boards))))[:, 0].numpy()
    return 1.0 - p_opp.astype(np.float64)


def choose(net, info, rng, epsilon) -> np.ndarray:
    """Per game, the index (into that game's legal plays) of the best after-state; random with
    probability epsilon; 0 for games with no legal play (ignored by the env's autoreset)."""
    groups = info["after_states"]
    offsets = groups.offsets
    counts = np.diff(offsets)
    live = counts > 0
    actions = np.zeros(counts.size, dtype=np.int64)
    if live.any():
        vals = values_of_after_states(net, groups)
        live_off = np.concatenate([[0], np.cumsum(counts[live])])
        best = group_argmax(vals, live_off) - live_off[:-1]
        explore = rng.random(best.size) < epsilon
        best[explore] = (rng.random(int(explore.sum())) * counts[live][explore]).astype(np.int64)
        actions[live] = best
    return actions


def train(args) -> torch.nn.Module:
    torch.manual_seed(args.seed)
    net = torch.nn.Sequential(torch.nn.Linear(202, 40), torch.nn.Sigmoid(), torch.nn.Linear(40, 1), torch.nn.Sigmoid())
    opt = torch.optim.SGD(net.parameters(), lr=args.lr)
    envs = gym.make_vec("bgrl/BackgammonSelfPlay-v0", num_envs=args.num_envs, vectorization_mode="vector_entry_point",
                        notation=False)
    rng = np.random.default_rng(args.seed)
    obs, info = envs.reset(seed=args.seed)
    fresh = np.zeros(args.num_envs, dtype=bool)  # games the env has just auto-reset (no transition)
    games = 0
    t0 = time.perf_counter()
    for step in range(args.steps):
        actions = choose(net, info, rng, args.epsilon)
        mover = info["to_move"]
        nobs, reward, term, trunc, ninfo = envs.step(actions)
        learn = ~fresh
        with torch.no_grad():
            v_next = net(torch.from_numpy(nobs))[:, 0].numpy().astype(np.float64)
        same_side = ninfo["to_move"] == mover  # the opponent passed: the mover is on roll again
        target = np.where(term, 1.0, np.where(same_side, v_next, 1.0 - v_next))
        x = torch.from_numpy(obs[learn])
        y = torch.from_numpy(target[learn].astype(np.float32))
        loss = 0.5 * ((net(x)[:, 0] - y) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        games += int(term.sum())
        fresh = term | trunc
        obs, info = nobs, ninfo
        if (step + 1) % max(1, args.steps // 5) == 0:
            print(f"  step {step + 1:5d}: {games} self-play games finished, {time.perf_counter() - t0:.0f} s")
    return net


def evaluate(net, args) -> np.ndarray:
    """Points per game of the greedy agent against 'random' over ``args.eval_games`` games."""
    n = min(args.eval_games, args.num_envs)
    envs = gym.make_vec("bgrl/Backgammon-v0", num_envs=n, vectorization_mode="vector_entry_point",
                        opponent="random", notation=False)
    rng = np.random.default_rng(args.seed + 1)
    obs, info = envs.reset(seed=args.seed + 10_000)
    results: list[float] = []
    while len(results) < args.eval_games:
        obs, reward, term, trunc, info = envs.step(choose(net, info, rng, 0.0))
        results.extend(reward[term].tolist())
    return np.array(results[: args.eval_games])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1000, help="vector steps of self-play training (default 1000)")
    ap.add_argument("--num-envs", type=int, default=256, help="games in lockstep (default 256)")
    ap.add_argument("--lr", type=float, default=0.03, help="SGD step size (loss summed over the games)")
    ap.add_argument("--epsilon", type=float, default=0.05, help="exploration rate while training")
    ap.add_argument("--eval-games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.steps < 1 or args.num_envs < 1 or args.eval_games < 2:
        ap.error("--steps and --num-envs must be >= 1, --eval-games >= 2")
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    print(f"training a 202-40-1 value network by TD(0) through BackgammonVector-v0 (N={args.num_envs})")
    torch.manual_seed(args.seed + 1)
    untrained = torch.nn.Sequential(torch.nn.Linear(202, 40), torch.nn.Sigmoid(), torch.nn.Linear(40, 1), torch.nn.Sigmoid())
    net = train(args)
    print(f"trained in {time.perf_counter() - t0:.0f} s; playing {args.eval_games} games against random")
    for name, model in (("untrained network", untrained), ("trained network", net)):
        p = evaluate(model, args)
        half = 1.96 * p.std(ddof=1) / math.sqrt(len(p))
        print(f"  {name:18s} vs random: win rate {(p > 0).mean():6.1%}   points per game {p.mean():+.3f} (95% CI +-{half:.3f})")


if __name__ == "__main__":
    main()
