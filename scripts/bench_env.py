"""Environment throughput: bgrl's Gymnasium envs vs OpenSpiel's backgammon, random play, one core.

    .venv/bin/python scripts/bench_env.py [--seconds 3]

Rows: bgrl/Backgammon-v0 (one step = the agent's play + the opponent's reply, opponent 'random'),
with and without the notation list in info; bgrl/BackgammonSelfPlay-v0 (one step = one play);
a SyncVectorEnv of 16 self-play envs (steps counted per sub-env); OpenSpiel's
pyspiel.load_game("backgammon") stepped from Python with uniformly random legal actions
(its steps include chance nodes; a doubles turn takes two decisions).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bgrl.env  # noqa: F401


def bench_single(env_id, seconds, **kw):
    env = gym.make(env_id, **kw)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, r, term, trunc, info = env.step(int(rng.integers(int(info["action_mask"].sum()))))
        steps += 1
        if term or trunc:
            games += 1
            obs, info = env.reset()
    dt = time.perf_counter() - t0
    return steps / dt, games / dt


def bench_vector(env_id, n, seconds, **kw):
    envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", **kw)
    space = envs.single_action_space
    space.seed(0)
    obs, infos = envs.reset(seed=0)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        actions = np.array([space.sample(mask=m) for m in infos["action_mask"]])
        obs, r, term, trunc, infos = envs.step(actions)
        steps += n
        games += int(term.sum())
    dt = time.perf_counter() - t0
    envs.close()
    return steps / dt, games / dt


def bench_openspiel(seconds):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("backgammon")
    rng = np.random.default_rng(0)
    steps = games = decisions = 0
    t0 = time.perf_counter()
    state = game.new_initial_state()
    while time.perf_counter() - t0 < seconds:
        if state.is_terminal():
            games += 1
            state = game.new_initial_state()
            continue
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        steps += 1
    dt = time.perf_counter() - t0
    return steps / dt, games / dt, decisions / dt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per row")
    args = ap.parse_args(argv)
    s = args.seconds
    rows = []
    rows.append(("Backgammon-v0 (vs random), 1 env, notation", *bench_single("bgrl/Backgammon-v0", s, opponent="random")))
    rows.append(("Backgammon-v0 (vs random), 1 env, notation=False",
                 *bench_single("bgrl/Backgammon-v0", s, opponent="random", notation=False)))
    rows.append(("BackgammonSelfPlay-v0, 1 env, notation", *bench_single("bgrl/BackgammonSelfPlay-v0", s)))
    rows.append(("BackgammonSelfPlay-v0, 1 env, notation=False",
                 *bench_single("bgrl/BackgammonSelfPlay-v0", s, notation=False)))
    rows.append(("BackgammonSelfPlay-v0, SyncVectorEnv x16, notation=False",
                 *bench_vector("bgrl/BackgammonSelfPlay-v0", 16, s, notation=False)))
    osp = bench_openspiel(s)
    print(f"{'environment':58s} {'steps/s':>9s} {'games/s':>8s}")
    print("-" * 77)
    for name, sps, gps in rows:
        print(f"{name:58s} {sps:9.0f} {gps:8.1f}")
    if osp is None:
        print(f"{'OpenSpiel backgammon (pyspiel not installed)':58s} {'-':>9s} {'-':>8s}")
    else:
        print(f"{'OpenSpiel backgammon, Python loop (all nodes)':58s} {osp[0]:9.0f} {osp[1]:8.1f}")
        print(f"{'OpenSpiel backgammon, Python loop (decisions only)':58s} {osp[2]:9.0f} {osp[1]:8.1f}")
    print("\nA Backgammon-v0 step is two plays (agent + opponent); a self-play step is one play;")
    print("an OpenSpiel node is a chance roll or a decision (a doubles turn is two decisions).")


if __name__ == "__main__":
    main()
