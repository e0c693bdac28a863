"""The value network (torch): an encoded position (side on roll) -> its five outcome
probabilities (:data:`bgrl.evaluation.probabilities.OUTPUTS` order, for the side on roll).
"""

from __future__ import annotations

import torch
from torch import nn

from bgrl.evaluation.probabilities import OUTPUTS

__all__ = ["TDNet"]


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
