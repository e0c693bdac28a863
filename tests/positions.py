"""Shared (board, dice) sources for the move-generator checks.

Re-exports the generators of ``tests/rules/test_movegen.py`` (random games, synthetic positions
heavy in bar checkers / closed boards / bear-offs, all 21 rolls) and adds positions from
games between agents (e.g. pubeval vs pubeval), whose positions are more "realistic" than
random play (primes, anchors, races).

Importable from tests (the tests directory is on ``sys.path`` under pytest) and from
scripts that put the tests directory on ``sys.path`` themselves.
"""

from __future__ import annotations

import numpy as np

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "rules"))  # as pytest imports it: the module test_movegen
from test_movegen import ROLLS, all_rolls, random_game_positions, synthetic_positions  # noqa: E402

__all__ = ["ROLLS", "all_rolls", "random_game_positions", "synthetic_positions", "agent_game_positions", "mixed_cases",
           "board_from"]


def board_from(mover: dict, opp: dict, opp_bar: int = 0, mover_bar: int = 0) -> np.ndarray:
    """A board int8 (26,) in the mover's view: ``mover`` / ``opp`` map the mover's points
    (1..24) to each side's checker counts; at most 15 checkers a side."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opp.items():
        b[p] = -n
    b[0], b[25] = -opp_bar, mover_bar
    assert np.maximum(b, 0).sum() <= 15 and np.maximum(-b, 0).sum() <= 15
    return b


def agent_game_positions(agent, rng: np.random.Generator, n: int, parallel: int = 64):
    """``n`` (board, dice) pairs from ``parallel`` self-play games of ``agent`` (an object
    with ``select(AfterStates, rng) -> int64 (B,)``, e.g. ``bgrl.agents.registry.load_agent('pubeval')``).

    Returns boards int8 (n, 26) (mover on roll) and dice int8 (n, 2).
    """
    return random_game_positions(rng, n, parallel, agent=agent)


def mixed_cases(rng: np.random.Generator, n_random: int, n_agent: int, n_synth: int, n_all_rolls: int, agent=None):
    """A labelled mix of (board, dice) cases: list of ``(label, boards, dice)``.

    * ``random-games``: n_random positions from random games;
    * ``pubeval-games``: n_agent positions from games of ``agent`` (pubeval by default);
    * ``synthetic``: n_synth synthetic positions (bar, closed boards, bear-offs, ...);
    * ``all-21-rolls``: n_all_rolls positions (half from games, half synthetic) with each
      of the 21 rolls (n_all_rolls * 21 cases).
    """
    if agent is None:
        from bgrl.agents.registry import load_agent

        agent = load_agent("pubeval")
    out = []
    gb, gd = random_game_positions(rng, n_random)
    out.append(("random-games", gb, gd))
    pb, pd = agent_game_positions(agent, rng, n_agent)
    out.append(("pubeval-games", pb, pd))
    sb, sd = synthetic_positions(rng, n_synth)
    out.append(("synthetic", sb, sd))
    if n_all_rolls:
        pool_g = np.concatenate([gb, pb])
        half = n_all_rolls // 2
        pick_g = pool_g[rng.choice(len(pool_g), size=min(half, len(pool_g)), replace=False)]
        extra_s = synthetic_positions(rng, n_all_rolls - len(pick_g))[0]
        out.append(("all-21-rolls", *all_rolls(np.concatenate([pick_g, extra_s]))))
    return out
