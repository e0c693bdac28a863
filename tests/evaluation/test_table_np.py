"""The torch-free network evaluator (bgrl.evaluation.table_np) and the shipped .npz weights
twins that ``bgrl hint`` reads (issue 17 item 8: hint without importing torch)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from bgrl.agents.search import ROLLS
from bgrl.evaluation import networks
from bgrl.evaluation.networks import (CheckpointError, ManifestError, load_network, open_network, sha256_of,
                                      verify_manifest, weights_twin, write_weights_twin)
from bgrl.evaluation.table import TableNetEvaluator
from bgrl.evaluation.table_np import NumpyTableEvaluator, read_weights_npz, write_weights_npz
from bgrl.evaluation.exact import exact_probs
from bgrl.rules.board import flip
from bgrl.rules.movegen import generate

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())
NAMES = sorted(MANIFEST)


def _after_states(n_boards=40):
    """After-states of benchmark decisions under every roll: contact, race, bear-off and
    finished games (the last checkers borne off) among them."""
    d = np.load(ROOT / "bgrl" / "data" / "benchmark.npz", allow_pickle=False)
    phase = d["phase"]
    pick = np.concatenate([np.flatnonzero(phase == p)[:n_boards] for p in np.unique(phase)])
    b = d["board"][pick].astype(np.int8)
    aft = generate(np.repeat(b, ROLLS.shape[0], axis=0), np.tile(ROLLS, (b.shape[0], 1)), validate=False).boards
    won = np.zeros((1, 26), dtype=np.int8)
    won[0, 5] = -3  # the side that played has borne off its last checker
    return np.concatenate([aft, won])


@pytest.mark.parametrize("name", NAMES)
def test_shipped_twin_equals_the_pt(name):
    """Each shipped network has its .npz twin beside it, listed with its sha256 in the
    manifest, naming the .pt's sha256, with the .pt's weights (float32, equal) and meta."""
    entry = MANIFEST[name]
    pt = ROOT / entry["file"]
    twin = ROOT / entry["npz"]["file"]
    assert twin == weights_twin(pt) and twin.is_file()
    assert sha256_of(twin) == entry["npz"]["sha256"]
    assert verify_manifest(twin) == (entry["npz"]["sha256"], True)
    weights, meta, source = read_weights_npz(twin)
    assert source == entry["sha256"] == sha256_of(pt), (
        f"{twin.name} is stale: run `python scripts/tools/ship_checkpoint.py --twins-only {name}`")
    net, pt_meta = load_network(pt)
    state = net.state_dict()
    assert set(weights) == set(state)
    for k, v in state.items():
        assert weights[k].dtype == np.float32 and np.array_equal(weights[k], v.numpy()), k
    assert meta == json.loads(json.dumps(pt_meta))


@pytest.mark.parametrize("name", NAMES)
def test_numpy_evaluator_matches_torch(name):
    """The numpy backend gives TableNetEvaluator's values bit for bit on batches of up to 64
    positions (its own numpy path) and within float32 rounding on larger ones; exact
    bear-off values and finished games included; position_probs too."""
    t = open_network(name, backend="torch")
    n = open_network(name, backend="numpy")
    assert isinstance(t.evaluator, TableNetEvaluator) and type(n.evaluator) is NumpyTableEvaluator
    assert (t.backend, n.backend) == ("torch", "numpy")
    assert n.sha256 == t.sha256 and n.listed and n.meta == json.loads(json.dumps(t.meta))
    assert np.array_equal(n.evaluator._np_table, t.evaluator._np_table)
    a = _after_states()
    rng = np.random.default_rng(0)
    for _ in range(20):
        idx = rng.choice(a.shape[0], size=int(rng.integers(1, 65)), replace=False)
        assert np.array_equal(n.evaluator(a[idx]), t.evaluator(a[idx]))
    big_t, big_n = t.evaluator(a), n.evaluator(a)
    assert big_n.shape == (a.shape[0], 5) and big_n.dtype == np.float64
    assert np.abs(big_n - big_t).max() < 2e-6
    known, _ = exact_probs(flip(a))
    assert known.sum() > 100  # bear-offs with exact values are among them
    assert np.array_equal(big_n[known], big_t[known]) and np.array_equal(big_n[-1], big_t[-1])  # and the won game
    boards = flip(a[:50])  # positions from the side on roll
    assert np.array_equal(n.evaluator.position_probs(boards), t.evaluator.position_probs(boards))


def test_row_sum_is_the_gather_sum():
    """The first layer's sum, one column of rows at a time, equals numpy's sum of the
    gathered rows bit for bit (the sums are sequential in both), for any batch size."""
    n = open_network("distilled", backend="numpy").evaluator
    a = _after_states(10)
    rows = n._rows(a)[0]
    for m in (1, 5, 64, 65, 1000):
        r = rows[:m]
        want = n._np_table[r].sum(axis=1) + n._np_bias
        got = n._np_table[r[:, 0]]
        for k in range(1, r.shape[1]):
            got += n._np_table[r[:, k]]
        got += n._np_bias
        assert np.array_equal(got, want), m


def test_numpy_evaluator_blocks_agree():
    """A large batch goes through in blocks; each position's value does not depend on the
    batch it came in beyond float32 rounding (blocks of 64; the compiled feature kernel and the
    numpy reference may take turns, so values near 0 differ by up to about 2e-7, within the
    7.2e-7 that ``scripts/tools/check_hint_backends.py`` measured between backends)."""
    n = open_network("distilled", backend="numpy").evaluator
    a = _after_states(60)
    assert a.shape[0] > 2048
    whole = n(a)
    assert np.allclose(np.concatenate([n(a[i : i + 700]) for i in range(0, a.shape[0], 700)]), whole, rtol=0, atol=1e-6)


def test_backend_choice_and_errors(tmp_path, monkeypatch):
    """backend="auto" takes torch once torch is imported (as here); "numpy" refuses a .pt
    without a twin, a twin of another .pt (stale), a damaged or pickled twin, a twin the
    manifest disowns; an unknown backend is a ValueError."""
    assert open_network("default", backend="auto").backend == "torch"
    with pytest.raises(ValueError, match="backend must be one of"):
        open_network("default", backend="jax")
    pt = tmp_path / "net.pt"
    shutil.copy(ROOT / "checkpoints" / "default.pt", pt)
    with pytest.raises(CheckpointError, match="no numpy weights twin"):
        open_network(pt, backend="numpy")
    assert open_network(pt, backend="auto").backend == "torch"
    twin = write_weights_twin(pt)
    assert twin == tmp_path / "net.npz"
    loaded = open_network(pt, backend="numpy", cache=False)
    assert loaded.backend == "numpy" and not loaded.listed
    # a twin of another network: refused by the sha256 it names
    weights, meta, _ = read_weights_npz(twin)
    write_weights_npz(twin, weights, meta, "0" * 64)
    with pytest.raises(CheckpointError, match="was written for a .pt with sha256 0000"):
        open_network(pt, backend="numpy", cache=False)
    # as in a fresh `bgrl hint` (torch not imported), auto would take the twin, but it is stale
    monkeypatch.setattr(networks, "_pick_backend", lambda backend, path: "numpy")
    assert open_network(pt, backend="auto", cache=False).backend == "torch"
    monkeypatch.undo()
    # damaged, wrong dtype, pickled objects
    twin.write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(CheckpointError, match="cannot be used"):
        open_network(pt, backend="numpy", cache=False)
    src = sha256_of(pt)
    np.savez(twin, **{k: v.astype(np.float64) for k, v in weights.items()}, meta=np.array(json.dumps(meta)),
             source_sha256=np.array(src), format=np.array("bgrl-weights-npz/1"))
    with pytest.raises(CheckpointError, match="must be float32"):
        open_network(pt, backend="numpy", cache=False)
    np.savez(twin, **weights, meta=np.array([meta], dtype=object), source_sha256=np.array(src),
             format=np.array("bgrl-weights-npz/1"))
    with pytest.raises(CheckpointError, match="cannot be used"):  # allow_pickle=False refuses the object array
        open_network(pt, backend="numpy", cache=False)
    # a manifest that lists the twin with another sha256
    write_weights_twin(pt)
    (tmp_path / "manifest.json").write_text(json.dumps({"net": {"file": "net.pt", "sha256": src,
                                                                "npz": {"file": "net.npz", "sha256": "f" * 64}}}))
    with pytest.raises(ManifestError, match="net.npz"):
        open_network(pt, backend="numpy", cache=False)


def test_hint_answers_equal_across_backends():
    """The hint tables (every play, ranked, to the printed precision) of each level at its
    ply, and of world-class at 2-ply, are the same read through torch or the numpy twins
    (scripts/tools/check_hint_backends.py runs this on 2,000+ decisions)."""
    from bgrl.agents.hints import HintRanker
    from bgrl.agents.levels import LEVEL_NAMES, load_level
    from bgrl.cli._table import hint_text
    from bgrl.rules.board import Position

    torch.set_num_threads(1)
    d = np.load(ROOT / "bgrl" / "data" / "benchmark.npz", allow_pickle=False)
    for level, ply, n in [(lv, None, 6) for lv in LEVEL_NAMES] + [("world-class", 2, 1)]:
        agents = [load_level(level, backend=b) for b in ("torch", "numpy")]
        use_ply = agents[0].level.ply if ply is None else ply
        for i in range(0, 60 * n, 60):
            pos, dice = Position.from_id(str(d["position_id"][i])), tuple(int(x) for x in d["dice"][i])
            texts = [hint_text(pos, dice, HintRanker.from_agent(a, use_ply).rank(pos, dice), level, use_ply, 0) for a in agents]
            assert texts[0] == texts[1], (level, use_ply, d["position_id"][i], dice)
