"""A fake evaluator for the service tests: exact, cheap, and position-sensitive."""

from __future__ import annotations

import time

import numpy as np


def fake_evaluator(after_states) -> np.ndarray:
    """Probabilities (M, 5) of the side that played: more points made and more opponent
    checkers on the bar win more often. Deterministic, vectorized."""
    a = np.asarray(after_states, dtype=np.int64).reshape(-1, 26)
    made = (a[:, 1:25] >= 2).sum(axis=1)
    opp_bar = -a[:, 0]
    win = np.clip(0.25 + 0.0625 * made + 0.0625 * opp_bar, 0.0, 0.9375)
    return np.stack([win, win / 4, win / 16, (1 - win) / 4, (1 - win) / 16], axis=1)


class SlowEvaluator:
    """The fake evaluator, sleeping ``delay`` seconds per call (overload and deadline tests)."""

    def __init__(self, delay: float):
        self.delay = delay

    def __call__(self, after_states):
        time.sleep(self.delay)
        return fake_evaluator(after_states)
