"""Shared workloads of the benchmark scripts under ``scripts/bench/`` (which put ``tests/`` on
``sys.path``, as they do for :mod:`positions`), so that no script imports another."""

from __future__ import annotations

import time

import numpy as np


def workload(n: int, seed: int) -> list[tuple[str, list[int]]]:
    """(Position ID, dice) pairs from pubeval self-play games."""
    from bgrl.agents.registry import load_agent
    from bgrl.rules.board import position_id
    from positions import agent_game_positions

    boards, dice = agent_game_positions(load_agent("pubeval"), np.random.default_rng(seed), n, parallel=16)
    return [(position_id(b), [int(d[0]), int(d[1])]) for b, d in zip(boards, dice)]


def in_process_rate(level: str, work: list, seconds: float) -> float:
    """Sequential ``choose_play`` calls per second of the level's agent, in this process
    (one torch thread), over the same positions."""
    import torch

    from bgrl.agents.levels import load_level
    from bgrl.rules.board import Position

    torch.set_num_threads(1)
    agent = load_level(level)
    items = [(Position.from_id(p), tuple(d)) for p, d in work]
    agent.choose_play(*items[0])  # warm up
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        agent.choose_play(*items[n % len(items)])
        n += 1
    return n / (time.perf_counter() - t0)


def contact_decisions(n: int, seed: int):
    """n (board int8 (26,), dice) contact decisions with a choice (two or more plays), from the
    default network's self-play games (seeded)."""
    from bgrl.agents.registry import load_agent
    from bgrl.rules.movegen import generate
    from bgrl.rules.outcome import is_race
    from positions import agent_game_positions

    boards, dice = agent_game_positions(load_agent("default"), np.random.default_rng(seed), 8 * n, parallel=16)
    aft = generate(boards, dice)
    ok = np.flatnonzero((aft.counts > 1) & ~is_race(boards))
    pick = np.random.default_rng(seed + 1).permutation(ok)[:n]
    return [(boards[i], (int(dice[i, 0]), int(dice[i, 1]))) for i in pick]


# ---------------------------------------------------------------- side-by-side runners
# bench_env.py's rows and bench_hint.py --done-when: each ``run(seconds)`` works for that many
# seconds of process CPU time and returns the time it took; counters accumulate across slices.

#: bench_rollout.py's position (a contact middle game, 14 plies of expert self-play from the start).
ROLLOUT_POSITION = "jOfgAFjGnsGAAw"


class SingleRunner:
    """One bgrl/BackgammonSelfPlay-v0 (notation=False) with random legal plays, resumable in slices."""

    def __init__(self, seed=0):
        import gymnasium as gym

        import bgrl.env  # noqa: F401 - registers the environments

        self.env = gym.make("bgrl/BackgammonSelfPlay-v0", notation=False)
        self.rng = np.random.default_rng(seed)
        self.obs, self.info = self.env.reset(seed=seed)
        self.steps = self.games = 0

    def run(self, seconds):
        env, rng, info = self.env, self.rng, self.info
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            for _ in range(32):
                _obs, _r, term, _t, info = env.step(int(rng.integers(int(info["action_mask"].sum()))))
                self.steps += 1
                if term:
                    self.games += 1
                    _obs, info = env.reset()
        self.info = info
        return time.process_time() - t0


class OpenSpielRunner:
    """OpenSpiel backgammon random play from Python, resumable in slices."""

    def __init__(self, seed=0):
        import pyspiel

        self.game = pyspiel.load_game("backgammon")
        self.rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        self.nodes = self.decisions = self.games = 0
        self.time = 0.0

    def run(self, seconds):
        rng, state = self.rng, self.state
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            for _ in range(64):
                if state.is_terminal():
                    self.games += 1
                    state = self.game.new_initial_state()
                elif state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                    self.nodes += 1
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.integers(len(legal))])
                    self.decisions += 1
                    self.nodes += 1
        self.state = state
        dt = time.process_time() - t0
        self.time += dt
        return dt


class VectorRunner:
    """The native vector env with random legal actions, resumable in slices."""

    def __init__(self, env_id, n, seed=0, **kw):
        import gymnasium as gym

        import bgrl.env  # noqa: F401 - registers the environments

        self.envs = gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", notation=False, **kw)
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.obs, self.info = self.envs.reset(seed=seed)
        self.steps = self.games = 0

    def step(self):
        counts = np.diff(self.info["after_states"].offsets)  # legal plays per game (0 after the end)
        actions = (self.rng.random(self.n) * counts).astype(np.int64)
        self.obs, _, term, _, self.info = self.envs.step(actions)
        self.steps += self.n
        self.games += int(term.sum())

    def run(self, seconds):
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            self.step()
        return time.process_time() - t0


def side_by_side(a, b, seconds, slices=4):
    """Alternate a.run and b.run for ``seconds / slices`` each; return their total times."""
    ta = tb = 0.0
    for _ in range(slices):
        ta += a.run(seconds / slices)
        tb += b.run(seconds / slices)
    return ta, tb


class GenRunner:
    """bgrl.rules.movegen.generate on fixed batches, resumable in slices (positions/s)."""

    def __init__(self, boards, dice, batch):
        from bgrl.rules.movegen import generate

        self.gen = generate
        self.chunks = [(boards[i : i + batch], dice[i : i + batch]) for i in range(0, len(boards) - batch + 1, batch)]
        self.positions = self.i = 0
        generate(*self.chunks[0], validate=False)

    def run(self, seconds):
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            b, d = self.chunks[self.i % len(self.chunks)]
            self.gen(b, d, validate=False)
            self.positions += b.shape[0]
            self.i += 1
        return time.process_time() - t0


class GnubgRunner:
    """gnubg_nn.moves one position per call on prepared boards, resumable in slices."""

    def __init__(self, boards, dice):
        import gnubg_nn

        from bgrl.gnubg.adapter import to_gnubg

        self.moves = gnubg_nn.moves
        self.items = [(to_gnubg(b), int(d[0]), int(d[1])) for b, d in zip(boards, dice)]
        self.positions = self.i = 0

    def run(self, seconds):
        moves, items = self.moves, self.items
        t0 = time.process_time()
        while time.process_time() - t0 < seconds:
            for _ in range(256):
                pair, d1, d2 = items[self.i % len(items)]
                moves(pair, d1, d2)
                self.i += 1
            self.positions += 256
        return time.process_time() - t0
