"""Bad input to scripts/tools/average_checkpoints.py and scripts/train/distill.py: one-line errors, exit 2.

Each test runs a script's ``main(argv)`` in-process (imported by path) and checks the exit
status, that stderr is one ``<script>: error: ...`` line naming what was expected, and that
no traceback is printed. Nothing slow runs: the distill errors come before any self-play,
search or benchmark work; the one full distill run fits 120 positions for one epoch with
the benchmark replaced by a stub.
"""

import importlib.util
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bgrl.evaluation.networks import load_network, save_checkpoint
from bgrl.evaluation.model import TDNet
from bgrl._resources import resolve_checkpoint

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _path(name) -> Path:
    """scripts/<kind>/<name>.py (the scripts are sorted into folders by kind)."""
    (path,) = SCRIPTS.glob(f"*/{name}.py")
    return path


def _script(name):
    spec = importlib.util.spec_from_file_location(f"_script_{name}", _path(name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def avg():
    return _script("average_checkpoints")


@pytest.fixture(scope="module")
def distill():
    return _script("distill")


def _error(capsys, mod, argv, *expected):
    """Run mod.main(argv); assert exit 2 and one error line holding each of ``expected``."""
    with pytest.raises(SystemExit) as exc:
        mod.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert lines and lines[-1].startswith(f"{mod.PROG}: error: ")
    if not err.startswith("usage:"):
        assert len(lines) == 1, err
    for s in expected:
        assert s in lines[-1], lines[-1]
    return lines[-1]


# ---------------------------------------------------------------- average_checkpoints


def test_average_checkpoints_refuses_missing_and_bad_checkpoints(avg, capsys, tmp_path):
    out = str(tmp_path / "o.pt")
    _error(capsys, avg, ["--out", out, "default", str(tmp_path / "nosuch.pt")], "not found", "nosuch.pt")
    good = resolve_checkpoint("default").read_bytes()
    trunc = tmp_path / "trunc.pt"
    trunc.write_bytes(good[: len(good) // 2])
    _error(capsys, avg, ["--out", out, "default", str(trunc)], "trunc.pt", "expected a bgrl checkpoint")
    pick = tmp_path / "pick.pt"
    torch.save({"some": "dict"}, pick)
    _error(capsys, avg, ["--out", out, "default", str(pick)], "pick.pt", "not a bgrl checkpoint")
    raw = tmp_path / "raw.pt"
    raw.write_bytes(pickle.dumps([1, 2, 3]))
    _error(capsys, avg, ["--out", out, "default", str(raw)], "raw.pt")
    assert not Path(out).exists()


def test_average_checkpoints_refuses_unwritable_out(avg, capsys, tmp_path):
    _error(capsys, avg, ["--out", str(tmp_path), "default", "default"], "is a folder", "expected a checkpoint file")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _error(capsys, avg, ["--out", str(blocker / "sub" / "o.pt"), "default", "default"], "is not a folder")


def test_average_checkpoints_refuses_mismatched_networks_with_status_2(avg, capsys, tmp_path):
    small = tmp_path / "small.pt"
    save_checkpoint(small, TDNet(202, 7), {"encoder": "td198r"})
    line = _error(capsys, avg, ["--out", str(tmp_path / "o.pt"), "default", str(small)], "202-7-5", "expected td198r 202-80-5")
    assert "small.pt" in line


def test_average_checkpoints_still_averages(avg, capsys, tmp_path):
    out = tmp_path / "o.pt"
    assert avg.main(["--out", str(out), "default", "default"]) == 0
    net, meta = load_network(out)
    ref, _ = load_network(resolve_checkpoint("default"))
    assert all(torch.allclose(a, b) for a, b in zip(net.state_dict().values(), ref.state_dict().values()))
    assert meta["averaged_from"] == ["default", "default"]


# ---------------------------------------------------------------- distill


def _npz(path, n=120, **over):
    rng = np.random.default_rng(0)
    from bgrl.rules.board import Position

    fields = {
        "boards": np.repeat(Position.start().board.astype(np.int8)[None], n, axis=0),
        "targets": rng.uniform(0.0, 1.0, (n, 5)).astype(np.float32),
        "teacher": "td198g",
        "ply": 1,
    }
    fields.update(over)
    np.savez(path, **{k: v for k, v in fields.items() if v is not None})
    return str(path)


@pytest.mark.parametrize(
    "flags, expected",
    [
        (["--games", "0"], "--games must be >= 1"),
        (["--epochs", "-1"], "--epochs must be >= 0"),
        (["--lr", "0"], "--lr must be"),
        (["--batch", "0"], "--batch must be >= 1"),
        (["--ply", "4"], "--ply must be 0..3"),
        (["--ply", "-1"], "--ply must be 0..3"),
        (["--noise", "-0.5"], "--noise must be"),
    ],
)
def test_distill_refuses_bad_arguments_up_front(distill, capsys, tmp_path, flags, expected):
    data = tmp_path / "d.npz"
    _error(capsys, distill, ["--data", str(data), "--out", str(tmp_path / "s.pt"), *flags], expected)
    assert not data.exists()


def test_distill_refuses_bad_data_files(distill, capsys, tmp_path):
    out = ["--out", str(tmp_path / "s.pt")]
    text = tmp_path / "text.npz"
    text.write_text("hello\n")
    _error(capsys, distill, ["--data", str(text), *out], "text.npz", "expected an npz archive")
    zipbad = tmp_path / "zipbad.npz"
    zipbad.write_bytes(Path(_npz(tmp_path / "ok.npz")).read_bytes()[:200])
    _error(capsys, distill, ["--data", str(zipbad), *out], "zipbad.npz", "expected an npz archive")
    pick = tmp_path / "pick.npz"
    pick.write_bytes(pickle.dumps({"boards": 1}))
    _error(capsys, distill, ["--data", str(pick), *out], "pick.npz", "pickled")
    objs = tmp_path / "objs.npz"
    np.savez(objs, boards=np.array([object()] * 3), targets=np.zeros((3, 5)), teacher="x", ply=1)
    _error(capsys, distill, ["--data", str(objs), *out], "objs.npz", "pickled")
    npy = tmp_path / "one.npy"
    np.save(npy, np.zeros(3))
    _error(capsys, distill, ["--data", str(npy), *out], "one.npy", "not an npz archive")
    _error(capsys, distill, ["--data", _npz(tmp_path / "nob.npz", boards=None), *out], "nob.npz", "lacks boards")
    _error(capsys, distill, ["--data", _npz(tmp_path / "not.npz", targets=None), *out], "not.npz", "lacks targets")


@pytest.mark.parametrize(
    "over, expected",
    [
        ({"boards": np.zeros((120, 25), np.int8)}, "expected int8 (N, 26)"),
        ({"boards": np.zeros((120, 26), np.float32)}, "expected int8 (N, 26)"),
        ({"boards": np.full((120, 26), 40, np.int8)}, "outside -15..15"),
        ({"targets": np.zeros((120, 4), np.float32)}, "expected float32 (N, 5)"),
        ({"targets": np.zeros((120, 5), np.int64)}, "expected float32 (N, 5)"),
        ({"targets": np.zeros((119, 5), np.float32)}, "120 boards but 119 targets"),
        ({"targets": np.full((120, 5), 1.5, np.float32)}, "outside [0, 1]"),
        ({"targets": np.full((120, 5), np.nan, np.float32)}, "outside [0, 1]"),
        ({"ply": 9}, "expected an integer 0..3"),
        ({"teacher": np.zeros(2)}, "expected a string"),
    ],
)
def test_distill_refuses_malformed_arrays(distill, capsys, tmp_path, over, expected):
    data = _npz(tmp_path / "bad.npz", **over)
    _error(capsys, distill, ["--data", data, "--out", str(tmp_path / "s.pt")], "bad.npz", expected)


def test_distill_refuses_duplicates_too_few_positions_and_other_ply(distill, capsys, tmp_path):
    out = ["--out", str(tmp_path / "s.pt")]
    a = _npz(tmp_path / "a.npz")
    _error(capsys, distill, ["--data", a, str(tmp_path / "." / "a.npz"), *out], "given twice")
    _error(capsys, distill, ["--data", _npz(tmp_path / "few.npz", n=40), _npz(tmp_path / "few2.npz", n=40), *out],
           "80 positions", "at least 100")
    line = _error(capsys, distill, ["--data", a, "--ply", "2", *out], "--ply 2 differs", "a.npz (1-ply)")
    assert line
    _error(capsys, distill, ["--data", str(tmp_path / "nosuch.npz"), a, *out], "not found", "nosuch.npz")


def test_distill_refuses_bad_checkpoints_and_out(distill, capsys, tmp_path):
    a = _npz(tmp_path / "a.npz")
    out = ["--out", str(tmp_path / "s.pt")]
    _error(capsys, distill, ["--data", a, "--teacher", str(tmp_path / "nosuch.pt"), *out], "--teacher", "not found")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x00\x01junk")
    _error(capsys, distill, ["--data", a, "--student", str(junk), *out], "--student", "junk.pt")
    _error(capsys, distill, ["--data", a, "--out", str(tmp_path)], "is a folder")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _error(capsys, distill, ["--data", a, "--out", str(blocker / "s.pt")], "is not a folder")
    _error(capsys, distill, ["--data", str(blocker / "d.npz"), *out], "--data", "is not a folder")


def test_distill_help_says_what_is_written(distill, capsys):
    with pytest.raises(SystemExit) as exc:
        distill.main(["--help"])
    assert exc.value.code == 0
    assert "_epN before the suffix" in " ".join(capsys.readouterr().out.split())


def test_distill_with_existing_data_notes_its_teacher_and_writes_epochs(distill, capsys, tmp_path, monkeypatch):
    import bgrl.arena.benchmark

    monkeypatch.setattr(bgrl.arena.benchmark, "load_benchmark", lambda: None)
    monkeypatch.setattr(bgrl.arena.benchmark, "error_rate", lambda chooser, bench: {"all": 1.0, "contact": 1.0, "race": 1.0})
    a = _npz(tmp_path / "a.npz", teacher="someteacher", ply=2)
    out = tmp_path / "s.pt"
    assert distill.main(["--data", a, "--out", str(out), "--epochs", "1", "--games", "7"]) == 0
    stdout = capsys.readouterr().out
    assert "note: using the data's own targets (someteacher at 2-ply)" in stdout
    assert not out.exists()
    _, meta = load_network(tmp_path / "s_ep1.pt")
    assert meta["distilled"]["targets"] == ["someteacher at 2-ply"] and meta["distilled"]["positions"] == 120


@pytest.mark.parametrize("argv", [["--batch", "0"], ["--positions", "0"], ["--seconds", "0"]])
def test_bench_engine_batch_bad_flags(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        _script("bench_engine_batch").main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error: --positions and --batch must be >= 1 and --seconds > 0" in err and "Traceback" not in err


@pytest.mark.slow
def test_bench_engine_batch_prints_its_table(capsys):
    assert _script("bench_engine_batch").main(["--positions", "40", "--batch", "8", "--seconds", "0.3"]) == 0
    out = capsys.readouterr().out
    rows = {ln.split("  ")[0]: ln.split()[-2:] for ln in out.splitlines()[2:]}
    assert len(rows) == 3 and all(float(v[0]) > 0 and v[1].endswith("x") for v in rows.values())


# ---------------------------------------------------------------- rollout_targets


@pytest.fixture(scope="module")
def rollout_targets():
    return _script("rollout_targets")


def _race_npz(path, n=120):
    """A distill data file of ``n`` race after-states (racing positions of a few checkers)."""
    rng = np.random.default_rng(1)
    boards = np.zeros((n, 26), dtype=np.int8)
    for i in range(n):
        for p in rng.choice(np.arange(1, 10), 3, replace=False):
            boards[i, p] = 1
        for p in rng.choice(np.arange(14, 25), 3, replace=False):
            boards[i, p] = -1
    targets = np.full((n, 5), 0.5, dtype=np.float32)
    targets[:, 1:] = 0.0
    np.savez(path, boards=boards, targets=targets, teacher="td198g", ply=1)
    return str(path)


@pytest.mark.parametrize("flags, expected", [
    (["--trials", "0"], "--trials must be >= 1, got 0"),
    (["--chunk", "0"], "--chunk must be >= 1"),
    (["--truncate", "-1"], "--truncate must be >= 0, got -1"),
    (["--ply", "4"], "--ply must be 0..3, got 4"),
    (["--ply", "-1"], "--ply must be 0..3, got -1"),
    (["--max-seconds", "-1"], "--max-seconds must be >= 0"),
    (["--max-positions", "0"], "--max-positions must be >= 1"),
    (["--phases", "endgame"], "unknown phase 'endgame'"),
    (["--phases", "contact"], "0 positions selected; expected at least 100"),
    (["--network", "nosuch-net"], "--network"),
    (["--out", "FOLDER"], "is a folder; expected a file path"),
])
def test_rollout_targets_refuses_bad_arguments(rollout_targets, capsys, tmp_path, flags, expected):
    data = _race_npz(tmp_path / "race.npz")
    flags = [str(tmp_path) if f == "FOLDER" else f for f in flags]
    argv = [data, *flags] if "--out" in flags else [data, "--out", str(tmp_path / "o.npz"), *flags]
    _error(capsys, rollout_targets, argv, expected)


def test_rollout_targets_names_itself_and_refuses_stale_parts(rollout_targets, capsys, tmp_path):
    data = _race_npz(tmp_path / "race.npz")
    _error(capsys, rollout_targets, [str(tmp_path / "nosuch.npz"), "--out", str(tmp_path / "o.npz")], "nosuch.npz")
    _error(capsys, rollout_targets, [data, data, "--out", str(tmp_path / "o.npz")], "given twice")
    out = str(tmp_path / "ro.npz")
    base = [data, "--out", out, "--network", "td198g", "--trials", "4", "--chunk", "64", "--max-positions", "100"]
    assert rollout_targets.main(base) == 0
    capsys.readouterr()
    # other settings, or other chunks, over the parts of the first run: an error, never mixed data
    _error(capsys, rollout_targets, [*base, "--trials", "8"], "ro.part0.npz", "other settings", "trials=8")
    _error(capsys, rollout_targets, [*base, "--chunk", "30"], "ro.part0.npz", "other settings", "chunk=30")
    _error(capsys, rollout_targets, [*base, "--truncate", "2"], "ro.part0.npz", "other settings", "truncate=2")
    _error(capsys, rollout_targets, [*base, "--ply", "1"], "ro.part0.npz", "other settings", "ply=1")
    (tmp_path / "ro.part1.npz").write_bytes(b"not an archive")
    _error(capsys, rollout_targets, base, "ro.part1.npz", "cannot be read")
    # a part of the right settings and positions whose targets are not probabilities is refused
    part0 = tmp_path / "ro.part0.npz"
    with np.load(part0) as z:
        arrays = {k: z[k] for k in z.files}
    for bad, expected in [(np.full_like(arrays["targets"], np.nan), "outside [0, 1] or NaN"),
                          (arrays["targets"] + 2.0, "outside [0, 1] or NaN"),
                          (np.full(arrays["targets"].shape, "x"), "of dtype <U1")]:
        np.savez(part0, **{**arrays, "targets": bad})
        _error(capsys, rollout_targets, base, "ro.part0.npz", expected)
    np.save(tmp_path / "bare.npy", arrays["targets"])
    (tmp_path / "bare.npy").replace(part0)
    _error(capsys, rollout_targets, base, "ro.part0.npz", "a single .npy array, not an npz archive")


def test_rollout_targets_writes_distill_data_and_resumes(rollout_targets, distill, capsys, tmp_path):
    data = _race_npz(tmp_path / "race.npz")
    out = tmp_path / "ro.npz"
    argv = [data, "--out", str(out), "--phases", "race", "--network", "td198g", "--trials", "4", "--chunk", "64"]
    assert rollout_targets.main(argv) == 0
    first = capsys.readouterr().out
    assert first.count("part ") == 2 and "wrote" in first
    boards, targets, teacher, ply = distill.load_data(str(out), 3)
    from bgrl.evaluation.phase import RACE, classify

    n_race = int((classify(np.load(data)["boards"]) == RACE).sum())
    assert 100 <= n_race < 120  # a few of the boards are bear-offs, left out
    assert boards.shape == (n_race, 26) and targets.shape == (n_race, 5) and teacher == "rollout:td198g:4" and ply == 0
    assert ((targets >= 0) & (targets <= 1)).all() and (targets[:, 1] <= targets[:, 0] + 1e-6).all()
    assert rollout_targets.main(argv) == 0  # the parts are there: nothing is rolled out again, same bits
    assert "part " not in capsys.readouterr().out
    assert np.array_equal(distill.load_data(str(out), 3)[1], targets)


def test_rollout_targets_plays_at_the_given_ply(rollout_targets, distill, capsys, tmp_path):
    # cut after 0 plies, a rollout played at --ply N is the N-ply value of the position: the
    # targets of --ply 1 are the network's 1-ply values (not its 0-ply ones), so the depth
    # reaches the trials, and the teacher's name records it
    from bgrl.agents.search import after_state_probs
    from bgrl.evaluation.networks import load_evaluator

    data = _race_npz(tmp_path / "race.npz")
    argv = [data, "--network", "td198g", "--trials", "2", "--truncate", "0", "--max-positions", "100", "--chunk", "100"]
    assert rollout_targets.main([*argv, "--out", str(tmp_path / "p1.npz"), "--ply", "1"]) == 0
    boards, targets, teacher, _ = distill.load_data(str(tmp_path / "p1.npz"), 3)
    assert teacher == "rollout:td198g:2:p1:t0"
    ev = load_evaluator("td198g")
    one, zero = after_state_probs(ev, boards, 1), after_state_probs(ev, boards, 0)
    assert np.allclose(targets, np.clip(one, 0, 1), atol=1e-5)
    assert np.abs(one - zero).max() > 1e-3
    capsys.readouterr()


def test_rollout_targets_max_seconds_joins_the_chunks_done(rollout_targets, distill, capsys, tmp_path, monkeypatch):
    data = _race_npz(tmp_path / "race.npz")
    out = tmp_path / "ro.npz"
    base = [data, "--out", str(out), "--network", "td198g", "--trials", "4", "--chunk", "40", "--max-positions", "100"]
    _error(capsys, rollout_targets, [*base, "--max-seconds", "0"], "no chunk was rolled out")

    class Clock:  # every reading 100 s after the last: the first chunk starts, then time is up
        t = 0.0

        def perf_counter(self):
            self.t += 100.0
            return self.t

    monkeypatch.setattr(rollout_targets, "time", Clock())
    assert rollout_targets.main([*base, "--max-seconds", "150"]) == 0
    monkeypatch.undo()
    text = capsys.readouterr().out
    assert text.count("part ") == 1 and "(partial: 1 of 3 chunks; rerun to go on)" in text
    boards, targets, _, _ = distill.load_data(str(out), 3)
    assert boards.shape == (40, 26) and targets.shape == (40, 5)
    assert rollout_targets.main(base) == 0  # the rerun rolls out the rest; the first part is kept
    text = capsys.readouterr().out
    assert text.count("part ") == 2 and "partial" not in text
    boards2, targets2, _, _ = distill.load_data(str(out), 3)
    assert boards2.shape == (100, 26) and np.array_equal(targets2[:40], targets)


def test_rollout_targets_truncated_names_the_horizon(rollout_targets, distill, capsys, tmp_path):
    """Trials cut after 2 plies end at the network's value: other targets than played to the
    end, and the teacher says so."""
    data = _race_npz(tmp_path / "race.npz")
    full, cut = tmp_path / "full.npz", tmp_path / "cut.npz"
    base = [data, "--phases", "race", "--network", "td198g", "--trials", "4", "--variance-reduction"]
    assert rollout_targets.main([*base, "--out", str(full)]) == 0
    assert rollout_targets.main([*base, "--out", str(cut), "--truncate", "2"]) == 0
    capsys.readouterr()
    _, t_full, _, _ = distill.load_data(str(full), 3)
    _, t_cut, teacher, _ = distill.load_data(str(cut), 3)
    assert teacher == "rollout:td198g:4:vr:t2"
    assert t_cut.shape == t_full.shape and not np.allclose(t_cut, t_full)


# ---------------------------------------------------------------- search_targets


@pytest.fixture(scope="module")
def search_targets_script():
    return _script("search_targets")


@pytest.mark.parametrize("flags, expected", [
    (["--ply", "0"], "--ply must be 1..3, got 0"),
    (["--ply", "4"], "--ply must be 1..3, got 4"),
    (["--chunk", "0"], "--chunk must be >= 1, got 0"),
    (["--positions", "0"], "--positions must be >= 1, got 0"),
    (["--workers", "-2"], "--workers must be >= 1, got -2"),
    (["--max-seconds", "0"], "--max-seconds must be > 0"),
    (["--device", "tpu"], "--device: device must be cpu, cuda or auto"),
    (["--teacher", "nosuch-net"], "--teacher"),
    (["--positions", "50"], "50 positions selected; expected at least 100"),
    (["--out", "FOLDER"], "is a folder; expected a file path"),
])
def test_search_targets_refuses_bad_arguments(search_targets_script, capsys, tmp_path, flags, expected):
    data = _race_npz(tmp_path / "race.npz")
    flags = [str(tmp_path) if f == "FOLDER" else f for f in flags]
    argv = [data, *flags] if "--out" in flags else [data, "--out", str(tmp_path / "o.npz"), *flags]
    _error(capsys, search_targets_script, argv, expected)


def test_search_targets_values_resumes_and_refuses_stale_parts(search_targets_script, distill, capsys, tmp_path):
    from bgrl.evaluation.networks import load_evaluator
    from bgrl.training.distill import search_targets

    data = _race_npz(tmp_path / "race.npz")
    _error(capsys, search_targets_script, [data, data, "--out", str(tmp_path / "o.npz")], "given twice")
    out = tmp_path / "st.npz"
    base = [data, "--out", str(out), "--teacher", "td198g", "--ply", "1", "--chunk", "64", "--seed", "3"]
    assert search_targets_script.main(base) == 0
    first = capsys.readouterr().out
    assert first.count("  part ") == 2 and "wrote" in first and "partial" not in first
    boards, targets, teacher, ply = distill.load_data(str(out), 3)
    src = np.load(data)["boards"]
    assert boards.shape == src.shape and ply == 1 and teacher == "td198g"
    assert np.array_equal(boards, src[np.random.default_rng(3).permutation(src.shape[0])])  # the seeded order
    want = search_targets(load_evaluator("td198g"), boards, ply=1)  # the values distill.py would give
    assert np.allclose(targets, np.clip(want, 0, 1), atol=1e-6)
    assert search_targets_script.main(base) == 0  # all parts there: nothing valued again, same bits
    assert "  part " not in capsys.readouterr().out
    assert np.array_equal(distill.load_data(str(out), 3)[1], targets)
    # parts of other settings are refused, never mixed in; a damaged part is named
    _error(capsys, search_targets_script, [*base[:-1], "4"], "st.part0.npz", "other settings", "seed=4")
    (tmp_path / "st.part1.npz").write_bytes(b"not an archive")
    _error(capsys, search_targets_script, base, "st.part1.npz", "cannot be read")


def test_search_targets_stops_at_max_seconds_with_a_partial_file(search_targets_script, distill, capsys, tmp_path, monkeypatch):
    data = _race_npz(tmp_path / "race.npz")
    out = tmp_path / "st.npz"
    argv = [data, "--out", str(out), "--teacher", "td198g", "--ply", "1", "--chunk", "60", "--max-seconds", "1000"]
    real = search_targets_script._value
    calls = []

    def first_only(job):  # the deadline passes after the first chunk
        calls.append(job[0])
        if len(calls) > 1:
            search_targets_script._STATE["deadline"] = 0.0
        return real(job)

    monkeypatch.setattr(search_targets_script, "_value", first_only)
    assert search_targets_script.main(argv) == 0
    assert "partial: 1 of 2 chunks" in capsys.readouterr().out
    assert distill.load_data(str(out), 3)[0].shape == (60, 26)
    monkeypatch.setattr(search_targets_script, "_value", real)
    assert search_targets_script.main(argv) == 0  # the rerun values the rest
    assert "partial" not in capsys.readouterr().out and distill.load_data(str(out), 3)[0].shape == (120, 26)


def test_device_network_path_equals_the_cpu_path(tmp_path):
    """The arithmetic of a GPU evaluator (TableNetEvaluator(device=...)), run on the CPU, gives
    the CPU path's probabilities."""
    from bgrl.evaluation.table import TableNetEvaluator

    net, meta = load_network(resolve_checkpoint("distilled2c"))
    ev = TableNetEvaluator(net, meta["encoder"], small_batch=0)
    assert ev._features is not None  # td198g: the features' product is on this path too
    boards = np.load(_race_npz(tmp_path / "r.npz"))["boards"]
    rows = ev._rows(boards)[0]
    feats = ev._features_of(boards)
    assert np.allclose(ev._device_network(rows, feats), ev._network(boards, rows), atol=1e-6)


def test_search_targets_checks_every_part_before_any_work(search_targets_script, capsys, tmp_path):
    data = _race_npz(tmp_path / "race.npz")
    out = tmp_path / "st.npz"
    base = [data, "--out", str(out), "--teacher", "td198g", "--ply", "1", "--chunk", "40"]
    assert search_targets_script.main(base) == 0
    capsys.readouterr()
    (tmp_path / "st.part2.npz").unlink()
    before = sorted(p.name for p in tmp_path.iterdir())
    # another teacher over the parts of the first: refused before part 2 is valued again
    _error(capsys, search_targets_script, [*base[:4], "distilled2c", *base[5:]], "st.part0.npz", "teacher=td198g")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    # a part with targets that are no probabilities, a damaged compressed part, a folder in a part's place
    good = np.load(tmp_path / "st.part1.npz")
    np.savez(tmp_path / "st.part1.npz", boards=good["boards"], targets=np.full_like(good["targets"], np.nan),
             settings=good["settings"])
    _error(capsys, search_targets_script, base, "st.part1.npz", "outside [0, 1]")
    np.savez_compressed(tmp_path / "st.part1.npz", **{k: good[k] for k in good.files})
    raw = bytearray((tmp_path / "st.part1.npz").read_bytes())
    raw[100:160] = bytes(b ^ 0xFF for b in raw[100:160])
    (tmp_path / "st.part1.npz").write_bytes(bytes(raw))
    _error(capsys, search_targets_script, base, "st.part1.npz", "cannot be read")
    (tmp_path / "st.part1.npz").unlink()
    (tmp_path / "st.part1.npz").mkdir()
    _error(capsys, search_targets_script, base, "st.part1.npz", "is not a file")


def test_search_targets_protects_its_inputs_and_special_files(search_targets_script, capsys, tmp_path):
    import os

    data = _race_npz(tmp_path / "race.npz")
    kept = (tmp_path / "race.npz").read_bytes()
    _error(capsys, search_targets_script, [data, "--out", data, "--teacher", "td198g", "--ply", "1"],
           "also one of the data files")
    assert (tmp_path / "race.npz").read_bytes() == kept
    os.mkfifo(tmp_path / "fifo")
    _error(capsys, search_targets_script, [data, "--out", str(tmp_path / "fifo"), "--teacher", "td198g"],
           "not a regular file")
    _error(capsys, search_targets_script, [data, "--out", str(tmp_path / "o.npz"), "--seed", "-1"], "--seed must be >= 0")
    bad = np.load(data)
    boards = bad["boards"].copy()
    boards[7, 25] = -1  # an opponent's checker on the mover's bar
    np.savez(tmp_path / "bad.npz", boards=boards, targets=bad["targets"], teacher="td198g", ply=1)
    _error(capsys, search_targets_script, [str(tmp_path / "bad.npz"), "--out", str(tmp_path / "o.npz")],
           "board 7 is not a legal board")


# ---------------------------------------------------------------- target_accuracy


@pytest.fixture(scope="module")
def target_accuracy():
    return _script("target_accuracy")


@pytest.mark.parametrize("flags, expected", [
    (["--positions", "0"], "--positions must be >= 1, got 0"),
    (["--truth-trials", "0"], "--truth-trials must be >= 1"),
    (["--trials", "0"], "--trials must be >= 1"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--truncate", "-1"], "--truncate must be >= 0, got -1"),
    (["--plies", "4"], "--plies must lie in 0..3"),
    (["--phases", "race", "--positions", "5000"], "only"),
    (["--phases", "nosuch"], "nosuch"),
    (["--network", "nosuch-net", "--positions", "10"], "--network"),
    (["--candidates", "nosuch-net", "--positions", "10", "--truth-trials", "2", "--plies", "--truncate"], "--candidates"),
])
def test_target_accuracy_refuses_bad_arguments(target_accuracy, capsys, tmp_path, flags, expected):
    data = _race_npz(tmp_path / "race.npz")
    _error(capsys, target_accuracy, [data, "--out", str(tmp_path / "a.npz"), "--phases", "race", *flags], expected)


def test_target_accuracy_compares_targets_with_a_reference_and_reuses_it(target_accuracy, capsys, tmp_path):
    data = _race_npz(tmp_path / "race.npz")
    out = tmp_path / "acc.npz"
    argv = [data, "--out", str(out), "--phases", "race", "--positions", "12", "--network", "td198g", "--truth-trials", "8",
            "--trials", "4", "--plies", "0", "1", "--truncate", "0", "2", "--candidates", "early"]
    assert target_accuracy.main(argv) == 0
    text = capsys.readouterr().out
    assert "reference: 12 positions" in text and "1 process(es)" in text
    z = np.load(out)
    names = [str(z[f"row{i}_name"]) for i in range(5)]
    assert names[0].startswith("the data's targets (td198g 1-ply)") and names[1:3] == ["0-ply", "1-ply"]
    assert names[3] == "0-ply of early" and str(z["row4_name"]) == "rollout, 4 trials, cut after 0 plies"
    rows = [line for line in text.splitlines() if line.startswith(("0-ply", "1-ply", "rollout"))]
    assert len(rows) == 5
    assert z["reference"].shape == (12, 5) and (z["reference_se"] >= 0).all() and (z["reference_se"] > 0).any()
    # the reference slices are reused: same table, nothing rolled out again
    assert target_accuracy.main(argv) == 0
    again = capsys.readouterr().out
    assert "process(es)" not in again and again.splitlines()[-1] == f"wrote {out}"
    assert np.array_equal(np.load(out)["reference"], z["reference"])
    # a slice of other settings is refused by name, never mixed in
    _error(capsys, target_accuracy, [*argv, "--truth-trials", "16"], "acc.truth0.npz", "other settings")
    # two processes, one slice each (as on the command line): the same reference, since every
    # position's trial i is played with the same dice whatever else is in its batch
    out2 = tmp_path / "acc2.npz"
    argv2 = [a if a != str(out) else str(out2) for a in argv] + ["--workers", "2"]
    r = subprocess.run([sys.executable, str(_path("target_accuracy")), *argv2], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 process(es)" in r.stdout and (tmp_path / "acc2.truth1.npz").is_file()
    assert np.allclose(np.load(out2)["reference"], z["reference"], atol=1e-9)
    # slices cut for two processes, read back with one: refused as other positions, the count named
    argv1 = [a if a != str(out) else str(out2) for a in argv]
    _error(capsys, target_accuracy, argv1, "acc2.truth0.npz", "holds other positions (6 of them, 12 expected here: the input data or --phases, --positions, --seed or --workers changed)")
