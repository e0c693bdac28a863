"""Environment throughput: bgrl's Gymnasium envs vs OpenSpiel's backgammon (and pgx), random play, one core.

    .venv/bin/python scripts/bench/bench_env.py [--seconds 3] [--num-envs 1024] [--quick]

Rows: bgrl/Backgammon-v0 (one step = the agent's play + the opponent's reply, opponent 'random'),
with and without the notation list in info; bgrl/BackgammonSelfPlay-v0 (one step = one play);
a SyncVectorEnv of 16 self-play envs (steps counted per sub-env); the native vector env
bgrl/BackgammonVector-v0 (gym.make_vec(..., vectorization_mode="vector_entry_point")) with N games,
self-play (one play per game-step) and against 'random' (two plays per game-step); OpenSpiel's
pyspiel.load_game("backgammon") stepped from Python with uniformly random legal actions (its
steps include chance nodes; a doubles turn takes two decisions); pgx's backgammon (JAX, batched,
jit-compiled) when pgx is installed.

All rates are per second of this process's CPU time (time.process_time, one thread), so the
time the process waits for a core on a shared machine is not counted. Ratios are measured side by side: the vector env and OpenSpiel run in alternating slices of
--seconds / 4 (four each) and the ratio is of the summed counts over the summed times, so a
machine loaded by other work slows both alike. The same is done for the legal-play generator
at batch 8192 against gnubg-nn's `moves` (one position per call, GNU Backgammon's C code) on
the same positions, and for the single self-play env (one play per step, notation=False)
against OpenSpiel's Python loop (its decisions): the ratio researchers meet with one env.
Also printed: the vector env's peak traced memory (tracemalloc) per game during a step, and the
single env in checker mode (action_mode="checker": one checker, one die per step).

Needs only the ``bench`` extra (OpenSpiel, gnubg-nn) for every row; without them the rows
that need them say so. Its side-by-side runners live in ``tests/workloads.py`` (shared with
``bench_hint.py --done-when``, as no script imports another); it does not import pytest.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import gymnasium as gym
import numpy as np

import bgrl.env  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from workloads import GenRunner, GnubgRunner, OpenSpielRunner, SingleRunner, VectorRunner, side_by_side  # noqa: E402


def bench_single(env_id, seconds, **kw):
    env = gym.make(env_id, **kw)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    steps = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        obs, r, term, trunc, info = env.step(int(rng.integers(int(info["action_mask"].sum()))))
        steps += 1
        if term or trunc:
            games += 1
            obs, info = env.reset()
    dt = time.process_time() - t0
    return steps / dt, games / dt


def bench_checker(env_id, seconds, **kw):
    """Checker mode: steps (one checker, one die) per second with masked random steps."""
    env = gym.make(env_id, action_mode="checker", **kw)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    steps = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        if term or trunc:
            games += 1
            obs, info = env.reset()
    dt = time.process_time() - t0
    return steps / dt, games / dt


def random_game_positions(rng, n, parallel=256):
    """``n`` (board, dice) pairs from ``parallel`` games of uniformly random plays (int8 (n, 26), (n, 2))."""
    from bgrl.rules.board import START_BOARD, flip
    from bgrl.rules.movegen import generate

    boards = np.repeat(START_BOARD[None], parallel, axis=0).astype(np.int8)
    out_b, out_d, total = [], [], 0
    while total < n:
        dice = rng.integers(1, 7, size=(parallel, 2)).astype(np.int8)
        out_b.append(boards.copy())
        out_d.append(dice)
        total += parallel
        res = generate(boards, dice, validate=False)
        after = res.boards[res.offsets[:-1] + (rng.random(parallel) * res.counts).astype(np.int64)]
        nxt = flip(after)
        nxt[np.maximum(after, 0).sum(axis=1) == 0] = START_BOARD  # a game over: a new one
        boards = np.ascontiguousarray(nxt, dtype=np.int8)
    return np.concatenate(out_b)[:n], np.concatenate(out_d)[:n]


def bench_vector(env_id, n, seconds, **kw):
    envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="sync", **kw)
    space = envs.single_action_space
    space.seed(0)
    obs, infos = envs.reset(seed=0)
    steps = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        actions = np.array([space.sample(mask=m) for m in infos["action_mask"]])
        obs, r, term, trunc, infos = envs.step(actions)
        steps += n
        games += int(term.sum())
    dt = time.process_time() - t0
    envs.close()
    return steps / dt, games / dt


def vector_peak_bytes_per_game(n):
    """Peak traced memory (tracemalloc) of one step of the self-play vector env, per game."""
    r = VectorRunner("bgrl/BackgammonSelfPlay-v0", n, seed=1)
    for _ in range(3):
        r.step()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    r.step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (peak - base) / n


def bench_pgx(n, seconds):
    """pgx backgammon (JAX), batch ``n``, jit-compiled uniformly random legal actions.

    pgx's actions are micro-actions (one die each, so a play is 1 to 4 steps). Returns the
    micro-steps of unfinished games per CPU second, or None when pgx (and jax) are absent, or
    the error text when pgx fails."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
    except ImportError:
        return None
    try:
        env = pgx.make("backgammon")
        init = jax.jit(jax.vmap(env.init))
        step = jax.jit(jax.vmap(env.step))

        @jax.jit
        def act(state, key):
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            return jax.random.categorical(key, logits, axis=-1)

        key = jax.random.PRNGKey(0)
        key, k1, k2, k3 = jax.random.split(key, 4)
        state = init(jax.random.split(k1, n))
        state = step(state, act(state, k2), jax.random.split(k3, n))  # compile
        steps = 0
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            key, k1, k2, k3 = jax.random.split(key, 4)
            live = int((~state.terminated).sum())
            if live < n // 2:
                state = init(jax.random.split(k1, n))
                continue
            state = step(state, act(state, k2), jax.random.split(k3, n))
            steps += live
        return steps / (time.process_time() - t0)
    except Exception as exc:  # a pgx API change must not stop the other rows
        return f"pgx failed: {exc}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per row (per side for the side-by-side rows)")
    ap.add_argument("--num-envs", type=int, default=1024, help="games in the native vector env (default 1024)")
    ap.add_argument("--quick", action="store_true", help="skip the single-env and SyncVectorEnv rows")
    args = ap.parse_args(argv)
    s, n = args.seconds, args.num_envs
    print(f"machine: {platform.machine()}, os.cpu_count()={os.cpu_count()}; python {platform.python_version()}, "
          f"numpy {np.__version__}, gymnasium {gym.__version__}")
    rows = []
    if not args.quick:
        rows.append(("Backgammon-v0 (vs random), 1 env, notation", *bench_single("bgrl/Backgammon-v0", s, opponent="random")))
        rows.append(("Backgammon-v0 (vs random), 1 env, notation=False",
                     *bench_single("bgrl/Backgammon-v0", s, opponent="random", notation=False)))
        rows.append(("BackgammonSelfPlay-v0, 1 env, notation", *bench_single("bgrl/BackgammonSelfPlay-v0", s)))
        rows.append(("BackgammonSelfPlay-v0, 1 env, notation=False",
                     *bench_single("bgrl/BackgammonSelfPlay-v0", s, notation=False)))
        rows.append(("BackgammonSelfPlay-v0, SyncVectorEnv x16, notation=False",
                     *bench_vector("bgrl/BackgammonSelfPlay-v0", 16, s, notation=False)))
        rows.append(("BackgammonSelfPlay-v0, 1 env, action_mode='checker' (steps)",
                     *bench_checker("bgrl/BackgammonSelfPlay-v0", s, notation=False)))
    try:
        osp = OpenSpielRunner()
    except ImportError:
        osp = None
    ratios = []
    if osp is not None:  # the single self-play env beside OpenSpiel's Python loop
        single = SingleRunner()
        d0 = osp.decisions
        ts, to = side_by_side(single, osp, 2 * s)
        ratios.append(("BackgammonSelfPlay-v0, 1 env, notation=False", single.steps / ts, (osp.decisions - d0) / to, 1))
    for label, env_id, kw in ((f"BackgammonVector-v0 self-play, N={n}", "bgrl/BackgammonSelfPlay-v0", {}),
                              (f"BackgammonVector-v0 vs random, N={n}", "bgrl/Backgammon-v0", {"opponent": "random"})):
        vr = VectorRunner(env_id, n, **kw)
        if osp is None:
            tv = vr.run(s)
        else:
            d0 = osp.decisions
            tv, to = side_by_side(vr, osp, 2 * s)
            od = (osp.decisions - d0) / to
            plays = 1 if env_id.endswith("SelfPlay-v0") else 2  # decisions per game-step
            ratios.append((label, plays * vr.steps / tv, od, 2))
        rows.append((label, vr.steps / tv, vr.games / tv))
    if osp is not None:
        osp.run(s)
        tt = osp.time
        rows.append(("OpenSpiel backgammon, Python loop (all nodes)", osp.nodes / tt, osp.games / tt))  # cumulative
        rows.append(("OpenSpiel backgammon, Python loop (decisions only)", osp.decisions / tt, osp.games / tt))
    pg = bench_pgx(n, s)
    print(f"\n{'environment':58s} {'steps/s':>9s} {'games/s':>8s}")
    print("-" * 77)
    for name, sps, gps in rows:
        print(f"{name:58s} {sps:9.0f} {gps:8.1f}")
    if osp is None:
        print(f"{'OpenSpiel backgammon (pyspiel not installed)':58s} {'-':>9s} {'-':>8s}")
    if pg is None:
        print(f"{'pgx backgammon (pgx not installed)':58s} {'-':>9s} {'-':>8s}")
    elif isinstance(pg, str):
        print(f"pgx backgammon: {pg}")
    else:
        print(f"{f'pgx backgammon, N={n}, jit (micro-steps: one die each)':58s} {pg:9.0f} {'-':>8s}")
    print("\nA Backgammon-v0 step is two plays (agent + opponent); a self-play step is one play;")
    print("an OpenSpiel node is a chance roll or a decision (a doubles turn is two decisions).")
    print("The OpenSpiel rows add up all its slices (the side-by-side ones included).")
    if ratios:
        print("\nside by side (alternating slices), decisions (plays) per second of bgrl's env / OpenSpiel's Python loop")
        print("(a vector game-step is one play in self-play, two against an opponent: the agent's and the reply):")
        for label, ours, theirs, target in ratios:
            print(f"  {label:44s} {ours:9.0f} / {theirs:7.0f} = {ours / theirs:5.2f}x  (target >= {target}x)")
    print(f"\nvector env peak traced memory per game during a step (N={n}): {vector_peak_bytes_per_game(n):,.0f} bytes")
    # the generator beside gnubg-nn, per position, batch 8192
    boards, dice = random_game_positions(np.random.default_rng(0), 16384, parallel=256)
    gen = GenRunner(boards, dice, 8192)
    try:
        gnu = GnubgRunner(boards, dice)
    except ImportError:
        print("generator: gnubg_nn not installed (pip install -e '.[gnubg]'), no ratio")
        return
    tg, tn = side_by_side(gen, gnu, 2 * s)
    ours, theirs = gen.positions / tg, gnu.positions / tn
    print(f"generator side by side, positions/s: bgrl.rules.movegen.generate batch 8192 {ours:,.0f} / gnubg_nn.moves "
          f"{theirs:,.0f} = {ours / theirs:.2f}x  (target >= 1x)")


if __name__ == "__main__":
    main()
