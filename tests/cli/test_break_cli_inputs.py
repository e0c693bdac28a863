"""Regressions found by adversarial testing of the CLI (README: bad input ends with
`bgrl: error: ...` naming what was expected, exit status 2; never a traceback; never a
silently wrong answer)."""

import json
import math
import subprocess
import sys

import pytest
import torch

from bgrl.cli import main

BGRL = [sys.executable, "-m", "bgrl.cli"]


def _run(args, timeout=60):
    return subprocess.run(BGRL + args, capture_output=True, text=True, timeout=timeout)


def _assert_clean_error(proc):
    assert "Traceback" not in proc.stderr, proc.stderr[-800:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-800:])
    assert "bgrl: error:" in proc.stderr


@pytest.mark.parametrize("path", ["/nonexistent/batch.txt", "."])
def test_moves_batch_unreadable_file_is_clean_error(path):
    _assert_clean_error(_run(["moves", "--batch", path]))


def test_train_games_zero_is_not_the_default_budget(tmp_path):
    # --games 0 used to fall back to the 20,000-game default (`args.games or ...`).
    try:
        proc = _run(["train", "--games", "0", "--hidden", "8", "--parallel", "4", "--eval-every", "0",
                     "--run-dir", str(tmp_path / "r"), "--no-progress"], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("`bgrl train --games 0` started a full default-budget training run")
    _assert_clean_error(proc)


@pytest.mark.parametrize(
    "flags",
    [
        ["--games", "-5"],
        ["--games", "5", "--parallel", "0"],  # used to loop forever
        ["--games", "5", "--hidden", "-1"],  # used to end in a RuntimeError traceback
        ["--games", "5", "--hidden", "0"],
        ["--games", "5", "--alpha", "nan"],  # used to save a NaN network with exit 0
        ["--games", "5", "--eval-every", "-1"],  # used to evaluate after every step
    ],
)
def test_train_rejects_bad_config(tmp_path, flags):
    try:
        proc = _run(["train", *flags, "--eval-games", "10", "--run-dir", str(tmp_path / "r"), "--no-progress"], timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`bgrl train {' '.join(flags)}` did not finish")
    _assert_clean_error(proc)


def test_train_run_dir_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    _assert_clean_error(_run(["train", "--games", "4", "--parallel", "4", "--hidden", "8", "--eval-every", "0",
                              "--run-dir", str(f), "--no-progress"]))


def test_resume_from_checkpoint_without_trainer_state(tmp_path):
    # a valid bgrl checkpoint (e.g. the shipped one, or any exported network) as latest.pt
    from bgrl.agents.base import DEFAULT_CHECKPOINT

    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_bytes(DEFAULT_CHECKPOINT.read_bytes())
    _assert_clean_error(_run(["train", "--resume", str(run), "--games", "10", "--no-progress"]))


@pytest.mark.parametrize("hidden", [-3, 10**12])
def test_hostile_checkpoint_meta_is_clean_error(tmp_path, hidden):
    from bgrl.agents.base import DEFAULT_CHECKPOINT

    p = torch.load(DEFAULT_CHECKPOINT, weights_only=True)
    p["meta"]["hidden"] = hidden
    path = tmp_path / "bad.pt"
    torch.save(p, path)
    _assert_clean_error(_run(["hint", "4HPwATDgc/ABMA", "21", "--checkpoint", str(path)]))


def test_match_one_game_json_is_valid_json(capsys):
    code = main(["match", "random", "random", "--games", "1", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    # strict JSON: NaN / Infinity are not JSON
    obj = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c} in {out}"))
    assert obj["games"] == 1
    assert obj["ci95"] is None or math.isfinite(obj["ci95"])
