"""An after-state scorer trained outside bgrl (the RL examples' ``--save MODEL.pt``) as a bgrl
agent, so that ``bgrl match`` and ``bgrl rate`` measure it and it can take a row of
docs/leaderboard.md::

    python scripts/examples/dqn_vector.py --total-steps 3000 --save dqn.pt
    BGRL_AFTERSTATE_MODEL=dqn.pt bgrl match bgrl.agents.afterstate:ScorerAgent pubeval --games 1000 --seed 1
    BGRL_AFTERSTATE_MODEL=dqn.pt bgrl rate bgrl.agents.afterstate:ScorerAgent --max-games 1000

The examples ``dqn_vector.py``, ``torchrl_pettingzoo.py`` and ``sb3_maskable_ppo.py`` each score
every legal play by the board it leaves; ``--save`` writes that scorer as TorchScript
(:func:`save_scorer`: a traced graph and its constants, no Python objects), with its input named
in the file: ``"encoded-opponent-on-roll"`` (the after-state encoded from the opponent's side,
:func:`bgrl.evaluation.encoding.encode` of ``flip(board)``: the DQN and TorchRL value networks)
or ``"boards"`` (the int8 after-state boards as float32, mover's view: the PPO after-state
policy's score head). :meth:`ScorerAgent.select` plays the legal play of highest score in every
game of a batch (greedy).
"""

from __future__ import annotations

import os

import numpy as np
import torch

from bgrl.agents.base import group_argmax
from bgrl.evaluation.encoding import encode
from bgrl.rules.board import flip

__all__ = ["INPUTS", "ENV_VAR", "save_scorer", "ScorerAgent"]

#: The inputs a saved scorer may take (named in the file's ``input`` entry).
INPUTS = ("encoded-opponent-on-roll", "boards")
#: The environment variable that names the file when ``bgrl match``/``bgrl rate`` make the agent
#: with no arguments (default ``afterstate.pt`` in the working folder).
ENV_VAR = "BGRL_AFTERSTATE_MODEL"


def save_scorer(module: torch.nn.Module, path: str, input_kind: str, example_input: torch.Tensor, note: str = "") -> None:
    """Trace ``module`` (input float32 ``(M, F)`` -> scores ``(M,)`` or ``(M, 1)``, higher is better
    for the side that played) to TorchScript at ``path``, written atomically (a temporary file
    beside it, then renamed).

    Raises:
        ValueError: ``input_kind`` not one of :data:`INPUTS`.
    """
    if input_kind not in INPUTS:
        raise ValueError(f"input_kind must be one of {INPUTS}, got {input_kind!r}")
    with torch.no_grad():
        traced = torch.jit.trace(module.eval(), example_input)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        torch.jit.save(traced, tmp, _extra_files={"input": input_kind, "note": note})
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


class ScorerAgent:
    """The greedy agent of a scorer saved by :func:`save_scorer`.

    Args:
        path: the ``.pt`` file; default ``$BGRL_AFTERSTATE_MODEL``, else ``afterstate.pt``.

    Raises:
        ValueError: the file is missing, not TorchScript, or not written by :func:`save_scorer`.
    """

    def __init__(self, path: str | None = None):
        path = path or os.environ.get(ENV_VAR, "afterstate.pt")
        extra = {"input": "", "note": ""}
        try:
            self.net = torch.jit.load(path, map_location="cpu", _extra_files=extra)
        except (OSError, RuntimeError, ValueError) as e:
            raise ValueError(f"{path}: expected a TorchScript scorer written by save_scorer "
                             f"(set {ENV_VAR} to the file an example's --save wrote): {str(e).splitlines()[0][:200]}") from None
        self.input = extra["input"].decode() if isinstance(extra["input"], bytes) else extra["input"]
        if self.input not in INPUTS:
            raise ValueError(f"{path}: not a scorer saved by save_scorer (input {self.input!r}, expected one of {INPUTS})")
        self.name = f"after-state scorer ({os.path.basename(path)})"

    def scores(self, boards: np.ndarray) -> np.ndarray:
        """int8 after-state boards ``(M, 26)`` (mover's view) -> float64 scores ``(M,)``."""
        if self.input == "boards":
            x = torch.from_numpy(np.asarray(boards).astype(np.float32))
        else:
            x = torch.from_numpy(encode(flip(boards)))
        with torch.no_grad():
            return self.net(x).reshape(-1).double().numpy()

    def select(self, after, rng):
        """The index, per game, of the play of highest score (``after``: the batch's
        :class:`bgrl.rules.movegen.AfterStates`; ``rng`` unused)."""
        return group_argmax(self.scores(after.boards), after.offsets)
