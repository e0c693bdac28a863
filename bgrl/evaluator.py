"""Evaluators: map a batch of after-states to outcome probabilities of the side that played.

Protocol (DESIGN.md, habit 8): an evaluator is a callable
``evaluate(after_states: int8 (M, 26)) -> float64 (M, 5)`` giving the five outcome
probabilities (bgrl.model.OUTPUTS order) of the side that has just played.

After a play the opponent is on roll, so the network evaluates ``flip(after_state)`` (the
opponent's view, as the network was trained) and the result is flipped back
(:func:`bgrl.model.flip_probs`). Finished games get their exact outcome.
"""

from __future__ import annotations

import numpy as np
import torch

from .board import flip
from .encoding import encode
from .model import TDNet, flip_probs, make_consistent
from .rules import game_results

__all__ = ["NetEvaluator", "terminal_probs"]


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
    """

    def __init__(self, net: TDNet, encoder: str):
        self.net = net.eval()
        self.encoder = encoder

    def position_probs(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities (N, 5) of the side on roll for positions (N, 26) (not over)."""
        with torch.inference_mode():
            x = torch.from_numpy(encode(boards, self.encoder))
            return self.net(x).numpy().astype(np.float64)

    def __call__(self, after_states: np.ndarray) -> np.ndarray:
        a = np.asarray(after_states)
        res = game_results(a)
        out = np.empty((a.shape[0], 5))
        live = res == 0
        if live.any():
            out[live] = flip_probs(self.position_probs(flip(a[live])))
        if (~live).any():
            out[~live] = terminal_probs(res[~live])
        return make_consistent(out)
