"""Evaluators: map a batch of after-states to outcome probabilities of the side that played.

Protocol (DESIGN.md, habit 8): an evaluator is a callable
``evaluate(after_states: int8 (M, 26)) -> float64 (M, 5)`` giving the five outcome
probabilities (bgrl.evaluation.probabilities.OUTPUTS order) of the side that has just played.

After a play the opponent is on roll, so the network evaluates ``flip(after_state)`` (the
opponent's view, as the network was trained) and the result is flipped back
(:func:`bgrl.evaluation.probabilities.flip_probs`). Finished games get their exact outcome, and positions
with an exact value (:mod:`bgrl.evaluation.exact`: no-contact bear-offs, one checker a side) get it
instead of the network's estimate unless ``exact=False``.
"""

from __future__ import annotations

import numpy as np
import torch

from bgrl.rules.board import flip
from bgrl.evaluation.encoding import encode
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import bound_probs, flip_probs, make_consistent, terminal_probs
from bgrl.rules.outcome import game_results

__all__ = ["NetEvaluator"]


class NetEvaluator:
    """Evaluate after-states with a :class:`bgrl.evaluation.model.TDNet` (0-ply).

    Parameters
    ----------
    net : TDNet
    encoder : str, the encoding name the net was trained with.
    exact : bool, use exact values where known (:func:`bgrl.evaluation.exact.exact_probs`); default True.
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
