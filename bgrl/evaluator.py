"""Evaluators: map a batch of after-states to outcome probabilities of the side that played.

Protocol (DESIGN.md, habit 8): an evaluator is a callable
``evaluate(after_states: int8 (M, 26)) -> float64 (M, 5)`` giving the five outcome
probabilities (bgrl.model.OUTPUTS order) of the side that has just played.

After a play the opponent is on roll, so the network evaluates ``flip(after_state)`` (the
opponent's view, as the network was trained) and the result is flipped back
(:func:`bgrl.model.flip_probs`). Finished games get their exact outcome, and positions
with an exact value (:mod:`bgrl.exact`: no-contact bear-offs, one checker a side) get it
instead of the network's estimate unless ``exact=False``.
"""

from __future__ import annotations

import numpy as np
import torch

from .board import flip
from .encoding import encode
from .exact import exact_probs
from .model import TDNet, flip_probs, make_consistent
from .rules import game_results, is_race

__all__ = ["NetEvaluator", "terminal_probs", "bound_probs"]


def bound_probs(after_states: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Zero the outcomes a position can no longer reach (RULES.md scoring), in place.

    after_states int8 (M, 26), probs float (M, 5) of the side that has just played (the
    mover). Once the opponent has borne off a checker the mover cannot win a gammon (nor a
    backgammon), and once the mover has borne off one it cannot lose one. In a race a
    backgammon needs checkers already in the winner's home board (no checker can be hit
    back there any more), so without them it is out of reach. Returns ``probs``.
    """
    b = after_states
    mover_off = 15 - np.maximum(b, 0).sum(axis=1)
    opp_off = 15 + np.minimum(b, 0).sum(axis=1)
    race = is_race(b)
    probs[opp_off > 0, 1:3] = 0.0
    probs[mover_off > 0, 3:5] = 0.0
    opp_in_mover_home = (b[:, 1:7] < 0).any(axis=1)
    mover_in_opp_home = (b[:, 19:25] > 0).any(axis=1)
    probs[race & ~opp_in_mover_home, 2] = 0.0
    probs[race & ~mover_in_opp_home, 4] = 0.0
    return probs


def terminal_probs(results: np.ndarray) -> np.ndarray:
    """Exact probabilities (M, 5) of the winner for results 1/2/3 (int (M,))."""
    r = np.asarray(results)
    p = np.zeros((r.shape[0], 5))
    p[:, 0] = r >= 1
    p[:, 1] = r >= 2
    p[:, 2] = r >= 3
    return p


class NetEvaluator:
    """Evaluate after-states with a :class:`bgrl.model.TDNet` (0-ply).

    Parameters
    ----------
    net : TDNet
    encoder : str, the encoding name the net was trained with.
    exact : bool, use exact values where known (:func:`bgrl.exact.exact_probs`); default True.
    """

    def __init__(self, net: TDNet, encoder: str, exact: bool = True):
        self.net = net.eval()
        self.encoder = encoder
        self.exact = exact

    def position_probs(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities (N, 5) of the side on roll for positions (N, 26) (not over):
        exact where known (if ``self.exact``), the network elsewhere."""
        boards = np.asarray(boards)
        known = np.zeros(boards.shape[0], dtype=bool)
        if self.exact:
            known, out = exact_probs(boards)
            if known.all():
                return out
        with torch.inference_mode():
            x = torch.from_numpy(encode(boards[~known], self.encoder))
            net_out = self.net(x).numpy().astype(np.float64)
        if not known.any():
            return net_out
        out[~known] = net_out
        return out

    def __call__(self, after_states: np.ndarray) -> np.ndarray:
        a = np.asarray(after_states)
        res = game_results(a)
        out = np.empty((a.shape[0], 5))
        live = res == 0
        if live.any():
            out[live] = flip_probs(self.position_probs(flip(a[live])))
        if (~live).any():
            out[~live] = terminal_probs(res[~live])
        return make_consistent(bound_probs(a, out))
