"""Hints: every legal play ranked by the evaluator at a search depth (n-ply), best first."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.evaluation.probabilities import Probabilities, equity
from bgrl.rules.notation import Play, legal_plays
from bgrl.agents.search import GNUBG_FILTERS, search_plays

__all__ = ["RankedPlay", "rank_plays"]


@dataclass(frozen=True)
class RankedPlay:
    """A play with its evaluation.

    rank : 1 = best; equity : cubeless equity of the side that played, points per game,
    after the play; equity_loss : best equity minus this one (>= 0 among plays valued at
    the same ply); probabilities : of the side that played, after the play; ply : the
    search depth this play was valued at (plays cut by a move filter keep a shallower one).
    """

    rank: int
    play: Play
    equity: float
    equity_loss: float
    probabilities: Probabilities
    ply: int = 0

    def as_dict(self) -> dict:
        return {
            "rank": self.rank,
            "play": self.play.notation,
            "position_id": self.play.position_id,
            "ply": self.ply,
            "equity": round(self.equity, 6),
            "equity_loss": round(self.equity_loss, 6),
            "probabilities": {k: round(v, 6) for k, v in self.probabilities.as_dict().items()},
        }


def rank_plays(position, dice, evaluator, ply: int = 0, filters=GNUBG_FILTERS) -> list[RankedPlay]:
    """Rank all legal plays of ``position`` with roll ``dice`` by an n-ply search.

    position : Position or Position ID; dice : pair of ints or text like ``"53"``;
    evaluator : callable after-states int8 (M, 26) -> probabilities (M, 5) of the side
    that played; ply : search depth 0..3 (gnubg's convention, :mod:`bgrl.agents.search`);
    filters : move filters between plies.

    Plays that passed every filter are valued at ``ply`` and come first; the others keep
    the shallower ply they reached, as gnubg's hint shows them (deeper ply first, then
    equity). ``equity_loss`` is measured from the first play, so it can be negative for a
    play valued at a shallower ply. Returns [] when no die can be played. Ties keep
    canonical order and share a rank (:mod:`bgrl.agents.ranking`).
    """
    from bgrl.rules.notation import legal_plays_and_after_states
    from bgrl.rules.xgid import position_and_dice

    pos, d = position_and_dice(position, dice)
    if 15 in pos.off:
        legal_plays(pos, d)  # raises the game-over error
    plays, after = legal_plays_and_after_states(pos.board, d)
    if not plays:
        return []
    boards = after.copy()  # writable: the plays keep the read-only rows
    if int(ply) == 0:  # search_plays at 0-ply is the evaluator alone: skip its bookkeeping
        probs = np.asarray(evaluator(boards), dtype=np.float64).reshape(boards.shape[0], 5)
        eq = equity(probs)
        depth = np.zeros(boards.shape[0], dtype=np.int8)
        order = np.argsort(-eq, kind="stable")  # = the lexsort below when every depth is 0
    else:
        res = search_plays(evaluator, boards, np.array([0, len(plays)]), ply, filters, search_forced=True)
        eq, depth, probs = res.equity, res.ply, res.probs
        order = np.lexsort((-eq, -depth.astype(np.int64)))
    from bgrl.agents.ranking import shared_ranks

    ranks = shared_ranks(eq[order], depth[order]).tolist()  # plays that tie share a rank
    best = eq[order[0]]
    eq_list, loss_list, depth_list, prob_rows = eq.tolist(), (best - eq).tolist(), depth.tolist(), probs.tolist()
    return [
        RankedPlay(
            rank=ranks[r],
            play=plays[i],
            equity=eq_list[i],
            equity_loss=loss_list[i],
            probabilities=Probabilities(*prob_rows[i]),
            ply=depth_list[i],
        )
        for r, i in enumerate(order.tolist())
    ]
