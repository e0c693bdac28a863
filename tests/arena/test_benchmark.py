"""Tests for bgrl.arena.benchmark (error-rate benchmark) and the shipped benchmark file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgrl.arena.benchmark import (
    Benchmark,
    error_rate,
    format_table,
    load_benchmark,
    phase_of,
    save_benchmark,
    shipped_benchmark_path,
)
from bgrl.rules.board import START_BOARD, board_from_position_id, flip, position_id
from bgrl.rules.movegen import generate



def _fixture_positions():
    race = np.zeros(26, dtype=np.int8)  # mover: 8 on 10pt, 7 on 4pt; opponent: 15 on its 12pt (our 13)
    race[10], race[4], race[13] = 8, 7, -15
    bear = np.zeros(26, dtype=np.int8)  # both sides in their home boards
    bear[6], bear[5], bear[2] = 5, 5, 3
    bear[24], bear[22] = -6, -7
    return np.stack([START_BOARD, race, bear]), np.array([[6, 5], [4, 2], [3, 1]], dtype=np.int8)


def make_fixture(seed: int = 0) -> Benchmark:
    """A tiny benchmark with made-up equities (distinct per play) for the scoring tests."""
    boards, dice = _fixture_positions()
    aft = generate(boards, dice)
    rng = np.random.default_rng(seed)
    eq = rng.normal(0.0, 0.3, size=aft.boards.shape[0]).astype(np.float32)
    eq0 = (eq + rng.normal(0.0, 0.05, size=eq.shape)).astype(np.float32)
    best0 = np.array([int(np.argmax(eq0[aft.offsets[i]:aft.offsets[i + 1]])) for i in range(3)])
    return Benchmark(
        position_id=np.array([position_id(b) for b in boards]), board=boards, dice=dice, phase=phase_of(boards),
        offsets=aft.offsets.astype(np.int64), after_id=np.array([position_id(flip(a)) for a in aft.boards]),
        after_board=aft.boards, equity=eq, ply=np.full(eq.shape, 2, dtype=np.int8), equity_0ply=eq0,
        best_0ply=best0, meta={"fixture": True},
    ).validate()


@pytest.fixture
def fixture_file(tmp_path):
    return save_benchmark(tmp_path / "tiny.npz", make_fixture())


class TableAgent:
    """Picks by the stored equities: best (oracle) or worst."""

    def __init__(self, bench: Benchmark, worst: bool = False):
        self.value = {(a.tobytes()): float(e) for a, e in zip(bench.after_board, bench.equity)}
        self.sign = -1.0 if worst else 1.0

    def equities(self, boards):
        return self.sign * np.array([self.value[a.tobytes()] for a in boards])

    def select(self, after, rng):
        v = self.equities(after.boards)
        return np.array([after.offsets[i] + int(np.argmax(v[after.offsets[i]:after.offsets[i + 1]]))
                         for i in range(after.counts.size)])


def test_fixture_phases_and_round_trip(fixture_file):
    b = load_benchmark(fixture_file)
    assert list(b.phase) == [0, 1, 2]
    ref = make_fixture()
    for name in ("position_id", "board", "dice", "offsets", "after_id", "after_board", "equity", "best_0ply"):
        assert np.array_equal(getattr(b, name), getattr(ref, name)), name
    assert b.meta == {"fixture": True}


def test_oracle_scores_zero_and_worst_scores_known_maximum(fixture_file):
    b = load_benchmark(fixture_file)
    oracle = error_rate(TableAgent(b), b)
    assert oracle["all"] == 0.0 and oracle["agree_2ply"] == 1.0
    assert oracle["contact"] == oracle["race"] == oracle["bearoff"] == 0.0
    # the known maximum: per decision best - worst stored equity, by plain loops
    spans = []
    for i in range(b.decisions):
        grp = [float(x) for x in b.equity[b.offsets[i]:b.offsets[i + 1]]]
        spans.append(1000.0 * (max(grp) - min(grp)))
    worst = error_rate(TableAgent(b, worst=True), b)
    assert worst["all"] == pytest.approx(sum(spans) / 3, rel=1e-6)
    assert worst["all"] > 0
    for ph, name in enumerate(("contact", "race", "bearoff")):
        assert worst[name] == pytest.approx(spans[ph], rel=1e-6)
        assert worst[f"n_{name}"] == 1
    assert worst["agree_2ply"] == 0.0
    assert "contact" in format_table({"oracle": oracle, "worst": worst})


def test_evaluator_and_choose_play_forms_agree_with_agent_form(fixture_file):
    b = load_benchmark(fixture_file)
    t = TableAgent(b)
    # evaluator returning equities (M,), called once on every after-state
    calls = []

    def evaluator(boards):
        calls.append(boards.shape[0])
        return t.equities(boards)

    assert error_rate(evaluator, b)["all"] == 0.0
    assert calls == [b.after_board.shape[0]]
    worst = error_rate(TableAgent(b, worst=True), b)
    assert error_rate(lambda x: -t.equities(x), b)["all"] == pytest.approx(worst["all"])

    class ChoosePlayOnly:
        def choose_play(self, position, dice, rng=None):
            from bgrl.rules.notation import legal_plays

            plays = legal_plays(position, dice)
            return max(plays, key=lambda p: t.value[p.after_state.tobytes()])

    assert error_rate(ChoosePlayOnly(), b)["all"] == 0.0
    with pytest.raises(ValueError, match="evaluator must return"):
        error_rate(lambda x: np.zeros((x.shape[0], 3)), b)
    with pytest.raises(TypeError, match="expected an agent"):
        error_rate(42, b)


def test_agree_0ply_counts_gnubg_0ply_choices(fixture_file):
    b = load_benchmark(fixture_file)
    r = error_rate(lambda x: np.array([float(b.equity_0ply[np.flatnonzero((b.after_board == a).all(axis=1))[0]])
                                       for a in x]), b)
    assert r["agree_0ply"] == 1.0


def test_bad_files_give_clear_errors(tmp_path, fixture_file):
    with pytest.raises(ValueError, match="cannot read benchmark file"):
        load_benchmark(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot read benchmark file"):
        load_benchmark(bad)
    f = make_fixture()
    with pytest.raises(ValueError, match="at least two plays"):
        Benchmark(**{**f.__dict__, "offsets": np.array([0, 1, 2, f.after_board.shape[0]])}).validate()


def test_phase_of():
    boards, _ = _fixture_positions()
    assert list(phase_of(boards)) == [0, 1, 2]
    assert list(phase_of(np.stack([flip(b) for b in boards]))) == [0, 1, 2]


# ------------------------------------------------------------------ the shipped file


@pytest.fixture(scope="module")
def shipped():
    return load_benchmark()


def test_shipped_benchmark_is_consistent(shipped):
    b = shipped
    assert shipped_benchmark_path().is_file()
    assert b.decisions >= 2000
    assert (b.counts >= 2).all()
    aft = generate(b.board, b.dice)  # the stored plays are exactly the legal plays, in generator order
    assert np.array_equal(aft.offsets, b.offsets)
    assert np.array_equal(aft.boards, b.after_board)
    assert np.array_equal(phase_of(b.board), b.phase)
    rng = np.random.default_rng(0)
    for i in rng.choice(b.decisions, 50, replace=False):
        assert np.array_equal(board_from_position_id(str(b.position_id[i])), b.board[i])
        j = int(b.offsets[i])
        assert str(b.after_id[j]) == position_id(flip(b.after_board[j]))
    assert (b.dice[:, 0] >= b.dice[:, 1]).all()
    # best_0ply is the argmax of the 0-ply equities
    for i in range(b.decisions):
        grp = b.equity_0ply[b.offsets[i]:b.offsets[i + 1]]
        assert grp[b.best_0ply[i]] == grp.max()
    assert set(np.unique(b.ply)) <= {0, 2}
    meta = b.meta
    assert meta["format"] == "bgrl-benchmark-1" and "command" in meta
    assert (np.bincount(b.phase, minlength=3) > 0).all()  # every phase represented
    json.dumps(meta)


def test_shipped_network_error_rate_is_finite_and_form_independent(shipped):
    import torch

    from bgrl.agents.registry import load_agent

    torch.set_num_threads(1)
    agent = load_agent("default")
    r_agent = error_rate(agent, shipped)
    r_eval = error_rate(agent.evaluator, shipped)
    assert r_agent == r_eval
    assert 0.0 < r_agent["all"] < 100.0
    r_random = error_rate(load_agent("random"), shipped)
    assert r_random["all"] > 5 * r_agent["all"]


# ------------------------------------------------------------------ CLI and script


def test_cli_benchmark_prints_table(fixture_file, capsys):
    from bgrl.cli import main

    assert main(["benchmark", "pubeval", "random", "--file", str(fixture_file)]) == 0
    out = capsys.readouterr().out
    assert "pubeval" in out and "random" in out and "3 (1 contact, 1 race, 1 bear-off)" in out
    assert main(["benchmark", "pubeval", "--file", str(fixture_file), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["results"]["pubeval"]
    assert res["n_all"] == 3 and res["all"] >= 0


def test_cli_benchmark_bad_input(fixture_file, tmp_path, capsys):
    from bgrl.cli import main

    assert main(["benchmark", "nonsense", "--file", str(fixture_file)]) == 2
    assert capsys.readouterr().err.startswith("bgrl: error: unknown agent 'nonsense'")
    assert main(["benchmark", "pubeval", "--file", str(tmp_path / "nope.npz")]) == 2
    assert "cannot read benchmark file" in capsys.readouterr().err


def test_agreement_script(fixture_file, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "agreement_gnubg.py"
    spec = importlib.util.spec_from_file_location("agreement_gnubg", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["pubeval", "bgrl.agents.base:RandomAgent", "--file", str(fixture_file), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)["results"]
    assert set(res) == {"pubeval", "bgrl.agents.base:RandomAgent"}
    assert mod.main(["no-such-agent", "--file", str(fixture_file)]) == 2
    assert "unknown agent" in capsys.readouterr().err
    b = load_benchmark(fixture_file)
    table = mod.agreement({"oracle": TableAgent(b), "worst": TableAgent(b, worst=True)}, b)
    assert table["oracle"]["agree_2ply"] == 1.0 and table["worst"]["agree_2ply"] == 0.0
