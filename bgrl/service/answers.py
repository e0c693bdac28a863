"""The parts of the routes' answers built from engine results, each in one place: the
fields every ``/v1`` answer carries (:func:`served`), the whole ``POST /v1/move`` answer
(:func:`move_answer`: the lean path and the FastAPI route both send it), probabilities in
bgrl's and wildbg's names, and a play's checker moves. The wildbg ``GET /move`` body is
:func:`bgrl.service.engine.wildbg_move_json`'s.
"""

from __future__ import annotations

import time

import numpy as np

from bgrl._version import __version__
from bgrl.service import schemas as S
from bgrl.service.engine import ENGINE_NAME, MoveResult, plain_notation, plain_steps, step_dicts

__all__ = ["served", "move_answer", "probabilities", "wildbg_probabilities", "steps"]


def served(eng, t0: float, level: str) -> dict:
    """The fields of every ``/v1`` answer: engine, version, ``model_sha256`` (that of the
    network that plays ``level``) and the milliseconds since ``t0`` (``time.perf_counter()``)."""
    return {"engine": ENGINE_NAME, "version": __version__, "model_sha256": eng.level_sha256(level),
            "elapsed_ms": round((time.perf_counter() - t0) * 1000.0, 3)}


def move_answer(eng, t0: float, r: MoveResult) -> dict:
    """The ``POST /v1/move`` answer (:class:`bgrl.service.schemas.MoveResponse`'s fields, JSON
    types) of the engine's :class:`bgrl.service.engine.MoveResult`."""
    return {**served(eng, t0, r.level), "play": plain_notation(r.play), "moves": step_dicts(r.play),
            "position_id": r.result_id, "level": r.level, "ply": r.ply, "seed": r.seed}


def probabilities(p) -> S.Probabilities:
    """Probabilities float (5,) of one side, rounded to 6 decimals."""
    p = np.asarray(p, dtype=np.float64)
    return S.Probabilities(win=round(float(p[0]), 6), win_gammon=round(float(p[1]), 6), win_backgammon=round(float(p[2]), 6),
                           lose_gammon=round(float(p[3]), 6), lose_backgammon=round(float(p[4]), 6))


def wildbg_probabilities(p) -> S.WildbgProbabilities:
    """:func:`probabilities` in wildbg's names."""
    q = probabilities(p)
    return S.WildbgProbabilities(win=q.win, winG=q.win_gammon, winBg=q.win_backgammon, loseG=q.lose_gammon, loseBg=q.lose_backgammon)


def steps(play) -> list[S.Step]:
    """A play's checker moves (:func:`bgrl.service.engine.plain_steps`) as schema objects."""
    return [S.Step(**{"from": a, "to": b}) for a, b in plain_steps(play)]
