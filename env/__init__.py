"""Gymnasium environments for bgrl (installed as bgrl.env).

Importing this package registers:

- ``bgrl/Backgammon-v0`` (:class:`BackgammonEnv`): one agent against a built-in opponent.
- ``bgrl/BackgammonSelfPlay-v0`` (:class:`BackgammonSelfPlayEnv`): the agent plays both sides.

>>> import gymnasium as gym, bgrl.env
>>> env = gym.make("bgrl/Backgammon-v0", opponent="pubeval")
"""

from gymnasium.envs.registration import register, registry

from bgrl.env.backgammon import MAX_PLAYS, BackgammonEnv, BackgammonSelfPlayEnv, LegalPlaySpace

__all__ = ["MAX_PLAYS", "BackgammonEnv", "BackgammonSelfPlayEnv", "LegalPlaySpace"]

_ENVS = {
    "bgrl/Backgammon-v0": "bgrl.env.backgammon:BackgammonEnv",
    "bgrl/BackgammonSelfPlay-v0": "bgrl.env.backgammon:BackgammonSelfPlayEnv",
}

for _id, _entry in _ENVS.items():
    if _id not in registry:
        register(id=_id, entry_point=_entry)
