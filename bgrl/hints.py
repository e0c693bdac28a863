"""Hints: every legal play ranked by the evaluator (0-ply), best first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .board import Position
from .model import Probabilities, equity
from .notation import Play, legal_plays, parse_dice

__all__ = ["RankedPlay", "rank_plays"]


@dataclass(frozen=True)
class RankedPlay:
    """A play with its evaluation.

    rank : 1 = best; equity : cubeless equity of the side that played, points per game,
    after the play; equity_loss : best equity minus this one (>= 0); probabilities : of
    the side that played, after the play.
    """

    rank: int
    play: Play
    equity: float
    equity_loss: float
    probabilities: Probabilities

    def as_dict(self) -> dict:
        return {
            "rank": self.rank,
            "play": self.play.notation,
            "position_id": self.play.position_id,
            "equity": round(self.equity, 6),
            "equity_loss": round(self.equity_loss, 6),
            "probabilities": {k: round(v, 6) for k, v in self.probabilities.as_dict().items()},
        }


def rank_plays(position, dice, evaluator) -> list[RankedPlay]:
    """Rank all legal plays of ``position`` with roll ``dice`` by ``evaluator``.

    position : Position or Position ID; dice : pair of ints or text like ``"53"``;
    evaluator : callable after-states int8 (M, 26) -> probabilities (M, 5) of the side
    that played. Returns [] when no die can be played. Ties keep canonical order.
    """
    pos = position if isinstance(position, Position) else Position.from_id(position)
    plays = legal_plays(pos, parse_dice(dice))
    if not plays:
        return []
    probs = evaluator(np.stack([p.after_state for p in plays]))
    eq = equity(probs)
    order = np.argsort(-eq, kind="stable")
    best = eq[order[0]]
    return [
        RankedPlay(rank=r + 1, play=plays[i], equity=float(eq[i]), equity_loss=float(best - eq[i]), probabilities=Probabilities.from_array(probs[i]))
        for r, i in enumerate(order)
    ]
