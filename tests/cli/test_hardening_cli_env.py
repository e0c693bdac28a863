"""Issue 40, item 7: the smaller CLI and environment gaps of the breaker's run.

An agent that calls sys.exit makes `bgrl match` fail with one line (not exit 0 silently);
`rollout --seed -1` is refused; `hint --trials/--truncate/--seed` without `--rollout` is
refused, not ignored; `match --games 10**12` is refused up front; `benchmark --file` with a
truncated .npz or an oversized or lying array header gets one line, exit 2; the Gymnasium and
PettingZoo environments raise Gymnasium's ResetNeeded or a TypeError with a clear message
instead of AttributeError / KeyError.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from bgrl.cli import main

START = "4HPwATDgc/ABMA"


def _one_error_line(err: str) -> None:
    assert err.startswith("bgrl: error: ") and err.count("\n") == 1, err[-2000:]
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- agents that exit
@pytest.mark.parametrize("when", ["import", "play"])
@pytest.mark.parametrize("command", ["match", "rate"])
def test_an_agent_calling_sys_exit_is_an_error(when, command, tmp_path, capsys):
    mod = tmp_path / f"quitter_{when}_{command}.py"
    body = "import sys\n"
    body += "sys.exit(0)\n" if when == "import" else ""
    body += "def choose(position, dice, rng):\n    sys.exit(0)\n"
    mod.write_text(body)
    spec = f"{mod}:choose"
    argv = ["match", spec, "random", "--games", "2"] if command == "match" else ["rate", spec, "--max-games", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "sys.exit(0)" in err and spec in err


# ----------------------------------------------------------------------------- flags
def test_rollout_negative_seed_is_refused(capsys):
    assert main(["rollout", START, "31", "--seed", "-1", "--trials", "1", "--truncate", "0"]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "--seed must be >= 0, got -1" in err


def test_hint_rollout_negative_seed_is_refused(capsys):
    assert main(["hint", START, "31", "--rollout", "--seed", "-1", "--trials", "1", "--truncate", "0", "--level", "beginner"]) == 2
    assert "--seed must be >= 0, got -1" in capsys.readouterr().err


@pytest.mark.parametrize("flag, value", [("--trials", "5"), ("--truncate", "2"), ("--seed", "7")])
def test_hint_rollout_flags_without_rollout_are_refused(flag, value, capsys):
    assert main(["hint", START, "31", flag, value, "--level", "beginner"]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert f"{flag} " in err and "needs --rollout" in err


def test_hint_rollout_defaults_still_apply(capsys):
    assert main(["hint", START, "31", "--rollout", "--trials", "2", "--truncate", "0", "--level", "beginner", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["trials"] == 2 and out["seed"] == 0


@pytest.mark.parametrize("games", [10**12, 100_001])
def test_match_games_beyond_the_maximum_is_refused_up_front(games, capsys):
    from bgrl.cli.match import MAX_MATCH_GAMES

    assert main(["match", "random", "random", "--games", str(games)]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert f"at most {MAX_MATCH_GAMES:,}" in err


# ----------------------------------------------------------------------------- benchmark --file
def _npy(arr: np.ndarray) -> bytes:
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def _npz_with(path: Path, replace: dict) -> Path:
    from bgrl.arena.benchmark import shipped_benchmark_path

    with np.load(shipped_benchmark_path(), allow_pickle=False) as z, zipfile.ZipFile(path, "w") as out:
        for name in z.files:
            out.writestr(name + ".npy", replace.get(name) or _npy(z[name]))
    return path


def _header(descr: str, shape: tuple, pad: int = 0) -> bytes:
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, shape) + " " * pad
    text += " " * (64 - (12 + len(text) + 1) % 64) + "\n"
    return b"\x93NUMPY\x02\x00" + len(text).to_bytes(4, "little") + text.encode("latin1")


@pytest.mark.parametrize("kind, words", [
    ("truncated", "truncated or damaged"),
    ("big-header", "over numpy's 10,000-byte limit"),
    ("lying-shape", "declares a float64 array of shape (100000000000,)"),
    ("fifo", "FIFO"),
])
def test_benchmark_file_faults_get_one_line(kind, words, tmp_path, capsys):
    import os

    from bgrl.arena.benchmark import shipped_benchmark_path

    path = tmp_path / f"{kind}.npz"
    if kind == "truncated":
        data = shipped_benchmark_path().read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "big-header":
        with np.load(shipped_benchmark_path(), allow_pickle=False) as z:
            board = z["board"]
        _npz_with(path, {"board": _header("|i1", board.shape, pad=200_000) + board.tobytes()})
    elif kind == "lying-shape":
        _npz_with(path, {"equity": _header("<f8", (100_000_000_000,)) + b"\0" * 64})
    else:
        os.mkfifo(path)
    if kind == "fifo":  # in a child with a time limit: reading a FIFO nobody writes to would block
        r = subprocess.run([sys.executable, "-m", "bgrl.cli", "benchmark", "random", "--file", str(path)],
                           cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=60)
        code, err = r.returncode, r.stderr
    else:
        code, err = main(["benchmark", "random", "--file", str(path)]), capsys.readouterr().err
    assert code == 2, err[-2000:]
    _one_error_line(err)
    assert words in err and f"benchmark file {path}" in err


# ----------------------------------------------------------------------------- environments
def _gym_envs():
    import bgrl.env as E

    return [
        ("Backgammon", lambda: E.BackgammonEnv(opponent="random")),
        ("Backgammon-cube", lambda: E.BackgammonEnv(opponent="random", cube=True)),
        ("SelfPlay", lambda: E.BackgammonSelfPlayEnv()),
        ("SelfPlay-cube", lambda: E.BackgammonSelfPlayEnv(cube=True)),
        ("Vector", lambda: E.BackgammonVectorEnv(num_envs=2, opponent="random")),
    ]


def _aec(cube: bool):
    pytest.importorskip("pettingzoo")
    from bgrl.env.pettingzoo import BackgammonAECEnv

    return BackgammonAECEnv(cube=cube)


@pytest.mark.parametrize("name, make", _gym_envs(), ids=[n for n, _ in _gym_envs()])
@pytest.mark.parametrize("options", ["x", ["agent_color"], 3])
def test_gym_reset_options_must_be_a_dict(name, make, options):
    env = make()
    with pytest.raises(TypeError, match="reset options must be a dict or None"):
        env.reset(options=options)
    env.reset(seed=1)  # the env is still usable


@pytest.mark.parametrize("name, make", _gym_envs()[:4], ids=[n for n, _ in _gym_envs()[:4]])
def test_gym_unknown_reset_option_is_named(name, make):
    with pytest.raises(ValueError, match="unknown reset option"):
        make().reset(options={"agent_colour": "black"})


@pytest.mark.parametrize("name, make", _gym_envs(), ids=[n for n, _ in _gym_envs()])
def test_gym_step_before_reset_is_reset_needed(name, make):
    env = make()
    action = np.zeros(2, dtype=np.int64) if name == "Vector" else 0
    with pytest.raises(gym.error.ResetNeeded, match="call reset"):
        env.step(action)
    with pytest.raises(RuntimeError):  # as before
        env.step(action)


def test_gym_step_after_the_end_is_reset_needed():
    import bgrl.env as E

    env = E.BackgammonSelfPlayEnv()
    env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, info = env.step(0)
    with pytest.raises(gym.error.ResetNeeded, match="game is over"):
        env.step(0)


@pytest.mark.parametrize("cube", [False, True])
def test_pettingzoo_before_reset_is_reset_needed(cube):
    env = _aec(cube)
    for call in (lambda: env.step(0), env.last, lambda: env.observe("white")):
        with pytest.raises(gym.error.ResetNeeded, match="call reset"):
            call()


@pytest.mark.parametrize("cube", [False, True])
def test_pettingzoo_steps_after_the_end_are_reset_needed(cube):
    env = _aec(cube)
    env.reset()  # unseeded, as PettingZoo allows (the cube env raised AttributeError)
    env.reset(seed=5)
    while not all(env.terminations.values()):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)  # PettingZoo's own rule for a finished agent
    while env.agents:
        env.step(None)
    for action in (None, 0):
        with pytest.raises(gym.error.ResetNeeded, match="game is over"):
            env.step(action)
    env.reset(seed=6)
    assert env.agents == ["white", "black"]


@pytest.mark.parametrize("cube", [False, True])
def test_pettingzoo_reset_options_must_be_a_dict(cube):
    env = _aec(cube)
    with pytest.raises(TypeError, match="reset options must be a dict or None"):
        env.reset(options="x")
    env.reset(seed=1, options={"unrelated": 1})  # PettingZoo's api_test passes options of its own
