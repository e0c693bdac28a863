"""A checker-mode policy (``ppo_checker_mode.py --save MODEL.zip``) as a bgrl agent, so that
``bgrl match`` and ``bgrl rate`` can measure it and it can take a row of docs/leaderboard.md:

    python scripts/examples/ppo_checker_mode.py --total-steps 300000 --save ppo_checker.zip
    BGRL_CHECKER_MODEL=ppo_checker.zip bgrl match scripts/examples/checker_policy_agent.py:Agent pubeval --games 1000 --seed 1
    BGRL_CHECKER_MODEL=ppo_checker.zip bgrl rate scripts/examples/checker_policy_agent.py:Agent --max-games 2000

``Agent.choose_play(position, dice, rng)`` (the protocol of ``module:object`` agents) plays the
roll one checker at a time as the environment would: the observation is the encoding of the
board so far and the dice left (:mod:`bgrl.env.checker`), the mask the legal steps
(:class:`bgrl.env.checker.CheckerTurns`), the action the policy's greedy choice; the result is
the after-state board, one of the roll's legal plays. The model file comes from the
environment variable ``BGRL_CHECKER_MODEL`` (a class given as ``module:object`` is made with no
arguments).
"""

from __future__ import annotations

import os

import numpy as np

from bgrl.env.checker import CheckerTurns
from bgrl.evaluation.encoding import ENCODER, encode
from bgrl.rules.movegen import generate


class Agent:
    def __init__(self, path: str | None = None, deterministic: bool = True):
        from sb3_contrib import MaskablePPO

        path = path or os.environ.get("BGRL_CHECKER_MODEL", "ppo_checker.zip")
        self.model = MaskablePPO.load(path, device="cpu")
        self.deterministic = deterministic
        self.name = f"MaskablePPO checker policy ({os.path.basename(path)})"

    def choose_play(self, position, dice, rng):
        board = np.asarray(position.board, dtype=np.int8)
        after = generate(board[None], np.array([dice]), validate=False)
        if not after.dice_used[0]:
            return None  # no legal play: the turn passes
        turn = CheckerTurns(1)
        g = np.zeros(1, np.int64)
        turn.start(g, board[None], np.array([dice]), after.dice_used)
        while True:
            obs = np.concatenate([encode(turn.boards[:1], ENCODER)[0], turn.features()[0]])
            action, _ = self.model.predict(obs, action_masks=turn.mask[0], deterministic=self.deterministic)
            if turn.apply(g, np.array([int(action)]))[0]:
                return turn.boards[0].copy()
