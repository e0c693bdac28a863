"""One action check (``bgrl.env.backgammon.action_index``) serves the Gymnasium and the
PettingZoo environments; each keeps its own wording."""

from __future__ import annotations

import re

import numpy as np
import pytest

import bgrl.env
from bgrl.env import backgammon
from bgrl.env.backgammon import MAX_PLAYS, BackgammonSelfPlayEnv, action_index, check_render_mode


def _msg(a, k):
    return f"index {a} not in 0..{k - 1}"


@pytest.mark.parametrize("good", [0, 4, np.int64(2), np.uint8(3), np.array(1)])
def test_action_index_accepts_integer_scalars(good):
    out = action_index(good, 5, expected="the plays", illegal=_msg)
    assert type(out) is int and out == int(good)


@pytest.mark.parametrize("bad", [1.0, "0", None, True, np.bool_(False), np.array([0]), [0], np.float32(1)])
def test_action_index_rejects_non_integers(bad):
    with pytest.raises(ValueError, match=re.escape(f"action must be an integer index into the plays, got {bad!r}")):
        action_index(bad, 5, expected="the plays", illegal=_msg)


@pytest.mark.parametrize("bad", [-1, 5, 10**9])
def test_action_index_rejects_out_of_range(bad):
    with pytest.raises(ValueError, match=re.escape(f"index {bad} not in 0..4")):
        action_index(bad, 5, expected="the plays", illegal=_msg)


def test_render_mode_check():
    check_render_mode(None, ["ansi"])
    check_render_mode("ansi", ["ansi"])
    with pytest.raises(ValueError, match=r"render_mode must be one of \['ansi'\] or None, got 'rgb'"):
        check_render_mode("rgb", ["ansi"])


def _spy(calls):
    def spy(action, n_legal, *, expected, illegal):
        calls.append(expected)
        return action_index(action, n_legal, expected=expected, illegal=illegal)

    return spy


def test_gymnasium_env_uses_the_shared_check(monkeypatch):
    calls = []
    monkeypatch.setattr(backgammon, "action_index", _spy(calls))
    single = BackgammonSelfPlayEnv(notation=False)
    _, info = single.reset(seed=0)
    k = int(info["action_mask"].sum())
    with pytest.raises(ValueError) as ei:
        single.step(k)
    assert str(ei.value) == (f"illegal action {k}: this roll {single._dice} has {k} legal plays, so the action must be "
                             f"0..{k - 1} (info['action_mask'] marks them); the action space holds {MAX_PLAYS} indices")
    with pytest.raises(ValueError, match=re.escape("action must be an integer index into info['legal_plays'], got 1.5")):
        single.step(1.5)
    assert calls == ["info['legal_plays']"] * 2


def test_pettingzoo_env_uses_the_shared_check(monkeypatch):
    pytest.importorskip("pettingzoo")  # the optional extra bgrl[pettingzoo]
    from bgrl.env import pettingzoo

    calls = []
    monkeypatch.setattr(pettingzoo, "action_index", _spy(calls))
    aec = bgrl.env.pettingzoo_env()
    aec.reset(seed=0)
    obs, *_ = aec.last()
    k = int(obs["action_mask"].sum())
    with pytest.raises(ValueError) as ei:
        aec.step(k)
    assert str(ei.value) == f"illegal action {k} for white: the roll {aec._dice} has {k} legal plays (0..{k - 1})"
    with pytest.raises(ValueError, match=re.escape("action must be an integer index into the legal plays, got '0'")):
        aec.step("0")
    assert calls == ["the legal plays"] * 2
