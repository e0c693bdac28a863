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
