"""The game-phase classifier (bgrl.evaluation.phase): contact, race, bear-off, crashed."""

import numpy as np
import pytest

from bgrl.arena.benchmark import load_benchmark, phase_of
from bgrl.evaluation.phase import BEAROFF, CONTACT, CRASHED, RACE, classify, crashed, phase_name
from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.outcome import is_race
from positions import board_from
from tests.rules.test_movegen import random_game_positions, synthetic_positions


board = board_from


OPP_HOME = {24: 5, 23: 4, 22: 4}  # 13 opponent checkers in its home board (the mover's 19-24)


def test_start_is_contact():
    assert classify(START_BOARD) == CONTACT
    assert phase_name(START_BOARD) == "contact"
    assert not crashed(START_BOARD)


def test_race_and_bearoff():
    race = board({8: 5, 6: 5, 3: 5}, {20: 5, 22: 5, 24: 5})
    assert classify(race) == RACE
    home = board({6: 5, 3: 5, 1: 5}, {20: 5, 22: 5, 24: 5})
    assert classify(home) == BEAROFF
    # the piled checkers of a bear-off are not "crashed": no contact
    assert classify(board({1: 10, 2: 5}, {24: 15})) == BEAROFF


def test_crashed_by_gnubgs_definition():
    # 8 on the ace point, 4 on the two point, 3 still out: n - a = 7 but n - a - t + 1 = 4 <= 6
    b = board({1: 8, 2: 4, 20: 3}, {**OPP_HOME, 5: 2})
    assert not is_race(b)
    assert classify(b) == CRASHED and phase_name(b) == "crashed"
    # the same seen from the other side: the opponent is the crashed one
    assert classify(flip(b)) == CRASHED


@pytest.mark.parametrize("ace, two, out, expected", [
    (9, 0, 6, True),    # a > 1: n - a = 6 <= 6
    (8, 0, 7, False),   # n - a = 7, two point empty
    (8, 2, 5, True),    # n - a = 7, t > 1: n - a - t + 1 = 6
    (8, 1, 6, False),   # n - a = 7, t = 1 is not a pile
    (1, 3, 5, False),   # a <= 1: n - t + 1 = 7 (six checkers borne off)
    (0, 4, 3, True),    # a <= 1: n - t + 1 = 4
    (0, 0, 6, True),    # n = 6 <= 6 (nine borne off)
])
def test_crashed_edges(ace, two, out, expected):
    mover = {p: n for p, n in {1: ace, 2: two, 20: out}.items() if n}
    b = board(mover, {**OPP_HOME, 5: 2})
    assert bool(crashed(b)) == expected
    assert classify(b) == (CRASHED if expected else CONTACT)
    assert classify(flip(b)) == classify(b)


def test_bar_checkers_count_as_in_play():
    # 9 on the ace point and 6 on the bar: six in play outside the pile: crashed
    assert crashed(board({1: 9}, {**OPP_HOME, 5: 2}, mover_bar=6))
    # one more in play (7): not crashed
    assert not crashed(board({1: 8}, {**OPP_HOME, 5: 2}, mover_bar=7))


def test_symmetric_and_consistent_with_is_race():
    rng = np.random.default_rng(3)
    boards, _ = random_game_positions(rng, 3000, 64)
    synth, _ = synthetic_positions(rng, 1000)
    b = np.concatenate([boards, synth])
    ph = classify(b)
    assert np.array_equal(classify(np.stack([flip(x) for x in b])), ph)
    assert np.array_equal(np.isin(ph, (RACE, BEAROFF)), is_race(b))
    assert set(np.unique(ph)) == {CONTACT, RACE, BEAROFF, CRASHED}  # random games reach every phase


def test_benchmark_phases_count_crashed_as_contact():
    bench = load_benchmark()
    ph = classify(bench.board)
    assert (ph == CRASHED).any()
    assert np.array_equal(np.where(ph == CRASHED, CONTACT, ph), bench.phase)
    assert np.array_equal(phase_of(bench.board), bench.phase)


def test_bad_shape():
    with pytest.raises(ValueError, match=r"\(N, 26\)"):
        classify(np.zeros((3, 25), dtype=np.int8))


def test_phase_evaluator_routes_each_phase_to_its_network():
    from bgrl.evaluation.networks import load_evaluator
    from bgrl.evaluation.phase import PhaseEvaluator
    from bgrl.rules.movegen import generate

    main = load_evaluator("td198g")
    race_net = load_evaluator("distilled")
    ev = PhaseEvaluator(main, {RACE: race_net}, names={RACE: "distilled"})
    assert ev.describe() == "race: distilled"
    assert ev.exact == main.exact
    rng = np.random.default_rng(5)
    boards, dice = random_game_positions(rng, 3000, 64)
    keep = np.isin(classify(boards), (RACE, CRASHED)) | (np.arange(boards.shape[0]) % 10 == 0)
    boards, dice = boards[keep], dice[keep]
    aft = generate(boards, dice).boards
    ph = classify(aft)
    assert (ph == RACE).any() and (ph != RACE).any()
    got = ev(aft)
    assert np.array_equal(got[ph == RACE], race_net(aft[ph == RACE]))
    assert np.array_equal(got[ph != RACE], main(aft[ph != RACE]))
    live = boards[classify(boards) != BEAROFF]
    pp = ev.position_probs(live)
    lp = classify(live)
    assert np.allclose(pp[lp == RACE], race_net.position_probs(live[lp == RACE]))
    assert np.allclose(pp[lp != RACE], main.position_probs(live[lp != RACE]))
    assert ev(aft[:0]).shape == (0, 5)
    with pytest.raises(ValueError, match="phase codes"):
        PhaseEvaluator(main, {7: race_net})


def _composite(tmp_path, phase_networks):
    from bgrl.evaluation.networks import load_network, save_checkpoint
    from bgrl._resources import resolve_checkpoint

    main, meta = load_network(resolve_checkpoint("td198g"))
    race, rmeta = load_network(resolve_checkpoint("distilled"))
    save_checkpoint(tmp_path / "race.pt", race, {k: v for k, v in rmeta.items() if k not in ("hidden", "n_inputs")})
    clean = {k: v for k, v in meta.items() if k not in ("hidden", "n_inputs")}
    return save_checkpoint(tmp_path / "main.pt", main, {**clean, "phase_networks": phase_networks})


def test_open_network_composes_phase_networks(tmp_path):
    from bgrl.evaluation.networks import load_evaluator, open_network
    from bgrl.evaluation.phase import PhaseEvaluator
    from bgrl.rules.movegen import generate

    path = _composite(tmp_path, {"race": "race.pt"})
    ev = open_network(path, cache=False).evaluator
    assert isinstance(ev, PhaseEvaluator) and ev.describe() == "race: race"
    rng = np.random.default_rng(9)
    boards, dice = random_game_positions(rng, 2000, 64)
    aft = generate(boards, dice).boards
    ph = classify(aft)
    race_ev = load_evaluator(tmp_path / "race.pt", cache=False)
    main_ev = load_evaluator("td198g", cache=False)
    got = ev(aft)
    assert np.allclose(got[ph == RACE], race_ev(aft[ph == RACE]))
    assert np.allclose(got[ph != RACE], main_ev(aft[ph != RACE]))


@pytest.mark.parametrize("spec, match", [
    ({"endgame": "race.pt"}, "unknown phase 'endgame'"),
    ({"race": "missing.pt"}, "its race network: checkpoint not found"),
    ({"race": "../race.pt"}, "must be the name of a .pt file beside it"),
    ({"race": ".."}, "must be the name of a .pt file beside it"),
    ({"race": ""}, "must be the name of a .pt file beside it"),
    ({"race": "main.pt"}, "is the checkpoint itself"),
    ("race.pt", "phase_networks must map phase names"),
])
def test_bad_phase_networks_are_checkpoint_errors(tmp_path, spec, match):
    from bgrl.evaluation.networks import CheckpointError, open_network

    path = _composite(tmp_path, spec)
    with pytest.raises(CheckpointError, match=match):
        open_network(path, cache=False)


def test_phase_networks_refuse_cycles_and_follow_file_changes(tmp_path):
    from bgrl.evaluation.networks import CheckpointError, load_network, open_network, save_checkpoint
    from bgrl._resources import resolve_checkpoint

    main = _composite(tmp_path, {"race": "race.pt"})
    race, rmeta = load_network(tmp_path / "race.pt")
    clean = {k: v for k, v in rmeta.items() if k not in ("hidden", "n_inputs")}
    save_checkpoint(tmp_path / "race.pt", race, {**clean, "phase_networks": {"race": "main.pt"}})  # a -> b -> a
    with pytest.raises(CheckpointError, match="has phase networks of its own"):
        open_network(main)
    # the cache follows the phase network's file: a fixed race.pt is read again
    other, ometa = load_network(resolve_checkpoint("td198g"))
    save_checkpoint(tmp_path / "race.pt", other, {k: v for k, v in ometa.items() if k not in ("hidden", "n_inputs")})
    b = np.zeros((1, 26), dtype=np.int8)
    b[0, [3, 5, 6]], b[0, [20, 22, 24]] = 5, -5  # a race
    ev = open_network(main).evaluator
    assert np.array_equal(ev(b), open_network(tmp_path / "race.pt").evaluator(b))


def test_auto_backend_falls_back_to_torch_per_phase_network(tmp_path):
    from bgrl.evaluation.networks import open_network, write_weights_twin

    main = _composite(tmp_path, {"race": "race.pt"})
    write_weights_twin(main)  # the main network has a twin, its race network none
    with pytest.raises(Exception, match="no numpy weights twin race.npz"):
        open_network(main, backend="numpy", cache=False)
    # in a fresh interpreter (torch not imported): "auto" reads the main network's twin in
    # numpy and falls back to torch for the race network, which has none
    import subprocess
    import sys

    code = ("import sys; from bgrl.evaluation.networks import open_network; "
            "ev = open_network(sys.argv[1], backend='auto').evaluator; "
            "print(type(ev.main).__name__, type(ev.by_phase[1]).__name__)")
    r = subprocess.run([sys.executable, "-c", code, str(main)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["NumpyTableEvaluator", "TableNetEvaluator"]


def test_bad_inputs_are_value_errors():
    with pytest.raises(ValueError, match="integer boards"):
        classify(START_BOARD.astype(np.float64))
    with pytest.raises(ValueError, match="-15..15"):
        classify(np.full((1, 26), 2**20, dtype=np.int64))
    with pytest.raises(ValueError, match="use classify for a batch"):
        phase_name(START_BOARD[None])
    assert classify(np.zeros((0, 26), dtype=np.int8)).shape == (0,)
