"""gymnasium's ``check_env`` on every single-game environment id bgrl registers, in every action
mode (``"play"``: an index into the roll's after-states; ``"checker"``: one checker, one die,
``Discrete(156)``), with every agent colour of ``bgrl/Backgammon-v0`` (the default alternating
one and both fixed ones), the default opponent, and the render checks (``ansi`` and ``human``).

``check_env``'s step check samples its action before its seeded reset, in another game state:
legal there, and in checker mode usually masked out after the reset. Such an action loses the
game, the same way every time (``bgrl.env.checker``), so the check holds for any colour (it
passed before only where the first legal action of the earlier state happened to be legal again).

The vector-only id (``bgrl/BackgammonVector-v0``) has no single entry point: ``check_env`` is
for ``gymnasium.Env``; ``tests/env/test_vector_env.py`` checks the vector env against single envs.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import bgrl.env  # noqa: F401 - registers the ids
from bgrl.env.checker import ACTION_MODES

SINGLE_IDS = ("bgrl/Backgammon-v0", "bgrl/BackgammonSelfPlay-v0")
COLOURS = ("alternate", "white", "black")
CASES = [(env_id, mode, colour) for env_id in SINGLE_IDS for mode in ACTION_MODES
         for colour in (COLOURS if env_id == "bgrl/Backgammon-v0" else (None,))]


def test_the_cases_cover_every_registered_id_and_action_mode():
    ours = {k: v for k, v in gym.registry.items() if k.startswith("bgrl/")}
    assert {k for k, v in ours.items() if v.entry_point is not None} == set(SINGLE_IDS)
    for k, v in ours.items():
        assert v.vector_entry_point is not None, k
        if v.entry_point is None:
            with pytest.raises(gym.error.Error):
                gym.make(k)
    assert ACTION_MODES == ("play", "checker") and len(CASES) == 2 * 3 + 2


@pytest.mark.parametrize("env_id,mode,colour", CASES)
def test_check_env(env_id, mode, colour):
    kw = {"action_mode": mode} | ({} if colour is None else {"agent_color": colour})
    env = gym.make(env_id, **kw)
    check_env(env.unwrapped)  # with the render checks of every render mode (the spec remakes the env)
    check_env(gym.make(env_id, render_mode="ansi", **kw).unwrapped)
