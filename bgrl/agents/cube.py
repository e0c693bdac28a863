"""Cube decisions of a level: its cubeless pre-roll evaluation through Janowski's model.

The level's evaluator and ply give the cubeless probabilities of the side on roll *before
it rolls* (:func:`pre_roll_probs`: 0-ply is the evaluator on the position; n-ply averages
the 21 rolls, each played by the best 0-ply play and valued at (n-1)-ply, the search of
:mod:`bgrl.agents.search`); :func:`bgrl.evaluation.cube.cube_decision` turns them into the
decision with the cube life of the position's phase (:func:`bgrl.evaluation.cube.cube_life`).
Unlike gnubg's n-ply cubeful search, the cube enters at the root only (documented in
docs/cube.md).
"""

from __future__ import annotations

import numpy as np

from bgrl.agents.search import after_state_probs
from bgrl.evaluation.cube import CubeDecision, cube_decision, cube_life
from bgrl.evaluation.probabilities import flip_probs
from bgrl.rules.board import Position, flip
from bgrl.rules.cube import CubeState
from bgrl.rules.outcome import check_not_over

__all__ = ["pre_roll_probs", "cube_hint", "cube_hints_many"]


def pre_roll_probs(evaluator, position: Position, ply: int = 0) -> np.ndarray:
    """Cubeless probabilities float64 (5,) of the side on roll before it rolls, at ``ply``.

    Parameters
    ----------
    evaluator : after-states int8 (M, 26) -> probabilities (M, 5) (bgrl.evaluation.evaluator)
    position : Position, from the side on roll (game not over).
    ply : int 0..3 (gnubg's convention).

    Raises
    ------
    TypeError for a non-Position; ValueError for a finished game or a ply out of range.
    """
    if not isinstance(position, Position):
        raise TypeError(f"position must be a Position, got {type(position).__name__}")
    check_not_over(position)
    before = flip(position.board)[None].astype(np.int8)  # as if the opponent had just played
    return flip_probs(after_state_probs(evaluator, before, int(ply))[0])


def cube_hint(evaluator, position: Position, cube: CubeState | None = None, ply: int = 0, x: float | None = None,
              met=None) -> tuple[CubeDecision, np.ndarray]:
    """The cube decision of the side on roll, before the roll.

    Returns ``(CubeDecision, cubeless probabilities (5,))``. ``x`` overrides the cube life of
    the position's phase. Raises ValueError when the side may not double (Crawford game,
    opponent's cube, the cap), for a finished game, or a score beyond the match table.
    """
    cube = CubeState() if cube is None else cube
    cube.check_double()
    probs = pre_roll_probs(evaluator, position, ply)
    life = cube_life(position.board) if x is None else float(x)
    return cube_decision(probs, cube, life, met), probs


def cube_hints_many(evaluator, positions, cubes, ply: int = 0, met=None) -> list[CubeDecision]:
    """:func:`cube_hint` for many positions at once (one batched search for all of them).

    positions : list of Position (side on roll, games not over); cubes : list of CubeState,
    one per position, each allowing the side on roll to double. Returns the decisions in
    order. Raises ValueError as :func:`cube_hint` does (naming the position's index).
    """
    positions, cubes = list(positions), list(cubes)
    if len(positions) != len(cubes):
        raise ValueError(f"{len(positions)} positions but {len(cubes)} cube states")
    if not positions:
        return []
    for i, (p, c) in enumerate(zip(positions, cubes)):
        if not isinstance(p, Position):
            raise TypeError(f"positions[{i}] must be a Position, got {type(p).__name__}")
        check_not_over(p)
        try:
            c.check_double()
        except ValueError as exc:
            raise ValueError(f"position {i} ({p.position_id}): {exc}") from None
    before = np.stack([flip(p.board) for p in positions]).astype(np.int8)
    probs = after_state_probs(evaluator, before, int(ply))
    return [cube_decision(flip_probs(pr), c, cube_life(p.board), met) for pr, p, c in zip(probs, positions, cubes)]
