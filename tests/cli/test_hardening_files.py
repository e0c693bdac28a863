"""Issue 40, item 6: files and training that lose nothing.

SIGTERM during ``bgrl train`` saves a resumable run; a run that dies before its first
checkpoint still resumes; every checkpoint carries its sha256 and one changed byte is
refused (exit 2, one line) by every command that loads checkpoints; a FIFO or device given
as a checkpoint is named as such; records, ``--batch`` and ``--config`` files are read up to
a documented size, and a device, FIFO or folder, nested JSON, a lone surrogate or bytes that
are not UTF-8 get one line and exit 2.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import torch

from bgrl._fileio import MAX_INPUT_BYTES, MAX_JSON_DEPTH
from bgrl.cli import main
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.networks import CheckpointError, load_checkpoint, load_network, save_checkpoint
from bgrl.training.loop import TrainConfig, train

ROOT = Path(__file__).resolve().parents[2]
QUIET = dict(progress=False, log=lambda *_: None)
START = "4HPwATDgc/ABMA"


def _one_error_line(err: str) -> None:
    assert err.startswith("bgrl: error: ") and err.count("\n") == 1, err[-2000:]
    assert "Traceback" not in err


def _tiny(**kw) -> TrainConfig:
    base = dict(games=24, hidden=4, parallel=4, eval_every=0, checkpoint_every=8, seed=3)
    return TrainConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A finished tiny run: latest.pt (with trainer state) and final.pt."""
    run = tmp_path_factory.mktemp("hardening") / "run"
    train(_tiny(), run, **QUIET)
    return run


def _flip(path: Path, at: int | None = None) -> Path:
    data = bytearray(path.read_bytes())
    i = len(data) // 2 if at is None else at
    data[i] ^= 0x01
    path.write_bytes(bytes(data))
    return path


def _limited():
    """For a child: 3 GiB of address space at most, so that a reader without a bound fails
    fast instead of filling the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _bgrl(*args, timeout=60, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgrl.cli", *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=stdin, preexec_fn=_limited)


# ----------------------------------------------------------------------------- SIGTERM and resume
def test_sigterm_saves_latest_and_the_run_resumes(tmp_path):
    """`bgrl train` on SIGTERM: the step finishes, latest.pt is saved, the resume command is
    printed and the exit status is 143 (not a silent death by the signal); the run resumes."""
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "train", "--run-dir", str(run), "--games", "1000000",
                             "--hidden", "4", "--parallel", "4", "--eval-every", "0", "--checkpoint-every", "1000000",
                             "--no-progress", "--rate-games", "0"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (run / "tb").is_dir() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)  # some games into the run, long before its first checkpoint
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, (proc.returncode, out[-1000:], err[-2000:])
    assert "Traceback" not in err and f"continue with: bgrl train --resume {run}" in out
    games = load_checkpoint(run / "latest.pt")["meta"]["games"]
    final = train(None, run, resume=True, overrides={"games": games + 8}, **QUIET)
    assert load_checkpoint(final)["meta"]["games"] >= games + 8


def test_sigterm_takes_the_ctrl_c_path_in_process(tmp_path):
    """SIGTERM mid-run in the library: like Ctrl-C, latest.pt is saved and KeyboardInterrupt
    (with signum 15) is raised; resuming gives exactly the weights of an uninterrupted run."""
    full = train(_tiny(games=30, benchmark_every=13), tmp_path / "full", benchmark=lambda ev, g: {}, **QUIET)

    def term(ev, games):
        signal.raise_signal(signal.SIGTERM)
        return {}

    def unhandled(signum, frame):  # what the process would do without train's handler: die
        raise AssertionError("train left SIGTERM to its default action: the process would die, saving nothing")

    previous = signal.signal(signal.SIGTERM, unhandled)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            train(_tiny(games=30, benchmark_every=13), tmp_path / "cut", benchmark=term, **QUIET)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert getattr(info.value, "signum", None) == signal.SIGTERM
    assert 13 <= load_checkpoint(tmp_path / "cut" / "latest.pt")["meta"]["games"] < 30
    resumed = train(None, tmp_path / "cut", resume=True, benchmark=lambda ev, g: {}, **QUIET)
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])


def test_a_run_that_dies_before_its_first_checkpoint_resumes(tmp_path):
    """A run killed (here: a crash, which saves nothing) before its first checkpoint still has
    a latest.pt, written before the first game, and resumes bit for bit."""
    full = train(_tiny(games=30, checkpoint_every=1000, benchmark_every=13), tmp_path / "full",
                 benchmark=lambda ev, g: {}, **QUIET)

    def crash(ev, games):
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        train(_tiny(games=30, checkpoint_every=1000, benchmark_every=13), tmp_path / "cut", benchmark=crash, **QUIET)
    assert load_checkpoint(tmp_path / "cut" / "latest.pt")["meta"]["games"] == 0
    resumed = train(None, tmp_path / "cut", resume=True, benchmark=lambda ev, g: {}, **QUIET)
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])


# ----------------------------------------------------------------------------- checksums
def test_every_single_byte_change_is_refused(tmp_path):
    """Each byte of a checkpoint flipped in turn: every copy is refused as damaged, none loads
    (torch itself reads about three quarters of such copies, many with other weights)."""
    src = save_checkpoint(tmp_path / "c.pt", TDNet(202, 3), {"encoder": "td198r", "games": 0},
                          trainer={"rng": "{}", "loop": {"acc": [1, 2]}})
    good = src.read_bytes()
    bad = tmp_path / "bad.pt"
    loaded = []
    for i in range(len(good)):
        data = bytearray(good)
        data[i] ^= 0x01
        bad.write_bytes(bytes(data))
        try:
            load_checkpoint(bad)
        except CheckpointError:
            continue
        loaded.append(i)
    assert not loaded, f"{len(loaded)} of {len(good)} one-byte changes loaded, e.g. at {loaded[:10]}"
    for cut in (1, 10, 64):  # a cut or an extended file too
        bad.write_bytes(good[:-cut])
        with pytest.raises(CheckpointError, match="damaged|truncated"):
            load_checkpoint(bad)
    bad.write_bytes(good + b"\n")
    with pytest.raises(CheckpointError, match="damaged"):
        load_checkpoint(bad)


def test_the_seal_is_a_zip_comment_torch_still_reads(tmp_path):
    path = save_checkpoint(tmp_path / "c.pt", TDNet(202, 3), {"encoder": "td198r"})
    assert zipfile.ZipFile(path).comment.startswith(b"bgrl-sha256:")
    assert torch.load(path, weights_only=True)["format"] == "bgrl-checkpoint/1"
    load_network(path)


def test_shipped_checkpoints_without_a_seal_load_and_are_checked_by_the_manifest(tmp_path):
    """The shipped networks carry no seal: they still load, and a copy beside the manifest
    with one changed byte is refused by the manifest's sha256 (also by load_network, which
    `--init-from` uses)."""
    from bgrl._resources import shipped_checkpoint, shipped_path

    net, meta = load_network(shipped_checkpoint("default"))
    assert meta["encoder"]
    shutil.copy(shipped_path("manifest.json"), tmp_path / "manifest.json")
    copy = tmp_path / "default.pt"
    shutil.copy(shipped_checkpoint("default"), copy)
    load_network(copy)
    _flip(copy, at=copy.stat().st_size - 4000)  # inside the tensors' data
    with pytest.raises(CheckpointError, match="sha256"):
        load_network(copy)


@pytest.mark.parametrize("command", ["match", "hint", "rate", "benchmark", "review", "play", "init-from", "resume"])
def test_a_changed_byte_is_refused_by_every_command(command, run_dir, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(run_dir, run)
    final = _flip(run / "final.pt")
    _flip(run / "latest.pt")
    game = ROOT / "tests" / "data" / "bgrl_match_game.jsonl"
    argv = {
        "match": ["match", final, "random", "--games", "2"],
        "hint": ["hint", START, "31", "--checkpoint", final],
        "rate": ["rate", final, "--max-games", "2"],
        "benchmark": ["benchmark", final],
        "review": ["review", game, "--level", final],
        "play": ["play", "--opponent", final],
        "init-from": ["train", "--run-dir", tmp_path / "new", "--init-from", final, "--games", "4", "--no-progress"],
        "resume": ["train", "--resume", run, "--games", "40", "--no-progress"],
    }[command]
    monkeypatch.setattr(sys, "stdin", open(os.devnull))
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "is damaged" in err and "sha256" in err


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_checkpoint_is_named(kind, tmp_path):
    """Not "not found", and never opened (a FIFO would block, /dev/zero never ends)."""
    path = "/dev/zero"
    if kind == "fifo":
        path = tmp_path / "net.pt"
        os.mkfifo(path)
    for argv in (["hint", START, "31", "--checkpoint", path], ["match", path, "random", "--games", "2"]):
        r = _bgrl(*argv, timeout=60)
        assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
        _one_error_line(r.stderr)
        assert "not found" not in r.stderr and "not a regular file" in r.stderr
        assert ("FIFO" if kind == "fifo" else "character device") in r.stderr


# ----------------------------------------------------------------------------- input files
def _surface(name: str, path, tmp_path) -> list:
    return {
        "review": ["review", path],
        "config": ["train", "--config", path, "--run-dir", tmp_path / "r", "--games", "2", "--no-progress"],
        "batch": ["moves", "--batch", path],
    }[name]


@pytest.mark.parametrize("surface", ["review", "config", "batch"])
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_input_gets_its_own_line(surface, kind, tmp_path):
    """/dev/zero was read without limit (gigabytes in seconds), a FIFO blocked: each is now
    refused before any read, with exit status 2."""
    path = "/dev/zero"
    if kind == "fifo":
        path = tmp_path / "input.json"
        os.mkfifo(path)
    r = _bgrl(*_surface(surface, path, tmp_path), timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    _one_error_line(r.stderr)
    assert "not a regular file" in r.stderr and ("FIFO" if kind == "fifo" else "character device") in r.stderr


@pytest.mark.parametrize("surface", ["config", "batch"])
def test_a_folder_as_input_is_named(surface, tmp_path, capsys):
    (tmp_path / "d").mkdir()
    assert main([str(a) for a in _surface(surface, tmp_path / "d", tmp_path)]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "is a folder" in err


@pytest.mark.parametrize("surface", ["review", "config", "batch"])
def test_input_larger_than_the_limit_is_refused_before_reading(surface, tmp_path, capsys):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: no disk, no memory
        fh.truncate(MAX_INPUT_BYTES + 1)
    assert main([str(a) for a in _surface(surface, big, tmp_path)]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert "16 MiB limit" in err


def test_input_at_the_limit_is_still_read(tmp_path, capsys):
    path = tmp_path / "b.txt"
    line = f"{START} 31\n".encode()
    rest = MAX_INPUT_BYTES - len(line)
    comment = b"#" * 4095 + b"\n"
    path.write_bytes(line + comment * (rest // len(comment)) + b"\n" * (rest % len(comment)))
    assert path.stat().st_size == MAX_INPUT_BYTES
    assert main(["moves", "--batch", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["position_id"] == START


def _nested(depth: int) -> str:
    return '{"type": "game", "format": "bgrl-game-1", "white": ' + "[" * depth + "]" * depth + "}\n"


@pytest.mark.parametrize("content, words", [
    (_nested(5000), f"nested more than {MAX_JSON_DEPTH} deep"),
    (_nested(MAX_JSON_DEPTH + 1), f"nested more than {MAX_JSON_DEPTH} deep"),
    ('{"type": "game", "format": "bgrl-game-1", "white": "\\ud800"}\n', "lone surrogate"),
    (b'{"type": "game", "format": "bgrl-game-1", "white": "\xff"}\n', "not UTF-8"),
])
def test_review_refuses_nested_surrogate_and_non_utf8_records(content, words, tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert words in err and str(path) in err


@pytest.mark.parametrize("name, content, words", [
    ("c.json", '{"games": ' + "[" * 5000 + "]" * 5000 + "}", f"nested more than {MAX_JSON_DEPTH} deep"),
    ("c.toml", "games = " + "[" * 5000 + "]" * 5000 + "\n", f"nested more than {MAX_JSON_DEPTH} deep"),
    ("c.json", '{"run_dir": "\\udc00"}', "lone surrogate"),
    ("c.cfg", '{"games": 2, "x": {"y": "\\ud83d"}}', "lone surrogate"),
])
def test_train_config_refuses_nested_and_surrogate_input(name, content, words, tmp_path, capsys):
    cfg = tmp_path / name
    cfg.write_text(content)
    assert main(["train", "--config", str(cfg), "--run-dir", str(tmp_path / "r"), "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    _one_error_line(err)
    assert words in err and "--config" in err
    assert not (tmp_path / "r").exists()


def test_a_batch_line_without_end_is_refused(capsys, monkeypatch):
    """`--batch -` fed an endless line (e.g. /dev/zero) stops at MAX_BATCH_LINE characters."""
    import io

    from bgrl.cli._common import MAX_BATCH_LINE

    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{START} 31\n" + "A" * (MAX_BATCH_LINE + 10)))
    assert main(["moves", "--batch", "-"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[0])["position_id"] == START
    _one_error_line(err)
    assert "line 2" in err and f"{MAX_BATCH_LINE:,} characters" in err


def test_dev_zero_on_stdin_is_bounded(tmp_path):
    with open("/dev/zero", "rb") as zero:
        r = _bgrl("moves", "--batch", "-", stdin=zero, timeout=60)
    assert r.returncode == 2 and "characters" in r.stderr
    _one_error_line(r.stderr)
