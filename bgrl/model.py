"""The value network and outcome probabilities (torch).

The network maps an encoded position (side on roll) to five outcome probabilities for
the side on roll, in this order (gnubg's convention):

  0 win, 1 win_gammon, 2 win_backgammon, 3 lose_gammon, 4 lose_backgammon

``win_gammon`` includes backgammons, ``lose_gammon`` includes lost backgammons.
Cubeless equity in points per game (money, no cube):
``2*win - 1 + win_gammon - lose_gammon + win_backgammon - lose_backgammon``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

__all__ = ["OUTPUTS", "TDNet", "Probabilities", "equity", "flip_probs", "make_consistent"]

OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
# flip_probs(p)[i] = sign * p[_FLIP_IDX[i]] + offset
_FLIP_IDX = np.array([0, 3, 4, 1, 2])


def equity(p: np.ndarray) -> np.ndarray:
    """Cubeless equity (points per game) from probabilities (..., 5) -> (...)."""
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def flip_probs(p: np.ndarray) -> np.ndarray:
    """The same outcome distribution seen from the other side. (..., 5) -> (..., 5)."""
    q = p[..., _FLIP_IDX].copy()
    q[..., 0] = 1.0 - p[..., 0]
    return q


def make_consistent(p: np.ndarray) -> np.ndarray:
    """Clip into [0, 1] and enforce win >= win_gammon >= win_backgammon and
    (1 - win) >= lose_gammon >= lose_backgammon. Returns a new array."""
    q = np.clip(p, 0.0, 1.0)
    q[..., 1] = np.minimum(q[..., 1], q[..., 0])
    q[..., 2] = np.minimum(q[..., 2], q[..., 1])
    q[..., 3] = np.minimum(q[..., 3], 1.0 - q[..., 0])
    q[..., 4] = np.minimum(q[..., 4], q[..., 3])
    return q


@dataclass(frozen=True)
class Probabilities:
    """Outcome probabilities of one side, each in [0, 1]."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_array(cls, p) -> "Probabilities":
        return cls(*(float(x) for x in np.asarray(p, dtype=np.float64)))

    def to_array(self) -> np.ndarray:
        return np.array([self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon])

    def equity(self) -> float:
        """Cubeless equity in points per game."""
        return float(equity(self.to_array()))

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in OUTPUTS}


class TDNet(nn.Module):
    """One-hidden-layer sigmoid network (TD-Gammon shape): n_inputs -> hidden -> 5.

    forward: float32 (N, n_inputs) -> float32 (N, 5) probabilities for the side on roll.
    """

    def __init__(self, n_inputs: int, hidden: int = 80):
        super().__init__()
        self.n_inputs = n_inputs
        self.hidden = hidden
        self.fc1 = nn.Linear(n_inputs, hidden)
        self.fc2 = nn.Linear(hidden, len(OUTPUTS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.fc2(torch.sigmoid(self.fc1(x))))
