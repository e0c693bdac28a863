"""Gymnasium environments for bgrl (installed as bgrl.env).

Importing this package registers:

- ``bgrl/Backgammon-v0`` (:class:`BackgammonEnv`): one agent against a built-in opponent.
- ``bgrl/BackgammonSelfPlay-v0`` (:class:`BackgammonSelfPlayEnv`): the agent plays both sides.
- ``bgrl/BackgammonVector-v0`` (:class:`BackgammonVectorEnv`): N games as arrays, against an
  opponent or (``self_play=True``) self-play; ``gym.make_vec("bgrl/Backgammon-v0", num_envs=N,
  vectorization_mode="vector_entry_point")`` (or ``"bgrl/BackgammonSelfPlay-v0"``) also returns it.

and offers :func:`pettingzoo_env` (needs the ``pettingzoo`` extra) and, in :mod:`bgrl.env.sb3`
(the ``examples`` extra), ``BackgammonSB3VecEnv``: a Stable-Baselines3 ``VecEnv`` over the native
vector env.

Every one takes ``action_mode="checker"`` (one checker, one die per step, ``Discrete(156)``;
:mod:`bgrl.env.checker`) and ``reset(options={"position": ID_or_XGID, "dice": [d1, d2]})``
(:mod:`bgrl.env.state`, with ``set_dice``, ``set_next_dice``, ``clone_state`` and
``restore_state`` on the single envs for search).

>>> import gymnasium as gym, bgrl.env
>>> env = gym.make("bgrl/Backgammon-v0", opponent="pubeval")
>>> envs = gym.make_vec("bgrl/Backgammon-v0", num_envs=64, vectorization_mode="vector_entry_point", opponent="pubeval")
"""

from gymnasium.envs.registration import register, registry

from bgrl.env.backgammon import MAX_PLAYS, BackgammonEnv, BackgammonSelfPlayEnv, LegalPlaySpace
from bgrl.env.checker import CHECKER_ACTIONS, checker_action, checker_move
from bgrl.env.state import EnvState
from bgrl.env.vector import BackgammonSelfPlayVectorEnv, BackgammonVectorEnv

__all__ = [
    "MAX_PLAYS",
    "BackgammonEnv",
    "BackgammonSelfPlayEnv",
    "BackgammonVectorEnv",
    "BackgammonSelfPlayVectorEnv",
    "LegalPlaySpace",
    "CHECKER_ACTIONS",
    "checker_action",
    "checker_move",
    "EnvState",
    "pettingzoo_env",
]

_ENVS = {
    "bgrl/Backgammon-v0": ("bgrl.env.backgammon:BackgammonEnv", "bgrl.env.vector:BackgammonVectorEnv"),
    "bgrl/BackgammonSelfPlay-v0": ("bgrl.env.backgammon:BackgammonSelfPlayEnv", "bgrl.env.vector:BackgammonSelfPlayVectorEnv"),
    "bgrl/BackgammonVector-v0": (None, "bgrl.env.vector:BackgammonVectorEnv"),
}

for _id, (_entry, _vector_entry) in _ENVS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry, vector_entry_point=_vector_entry)


def pettingzoo_env(**kwargs):
    """The PettingZoo AEC environment (:class:`bgrl.env.pettingzoo.BackgammonAECEnv`, agents
    ``"white"`` and ``"black"``); needs the optional extra ``pettingzoo``
    (:class:`bgrl._extras.MissingExtraError`, an ImportError, otherwise)."""
    from bgrl.env.pettingzoo import BackgammonAECEnv

    return BackgammonAECEnv(**kwargs)
