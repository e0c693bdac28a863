"""Named levels: table, reproducible noise, hints by ply, thread safety, CLI."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import bgrl
from bgrl.rules.board import Position
from bgrl.cli import main
from bgrl.agents.levels import LEVEL_NAMES, LEVELS, LevelAgent, load_level, measured_levels, play_noise
from bgrl.rules.movegen import generate
from positions import agent_game_positions


@pytest.fixture(scope="module")
def decisions():
    """(Position, dice) pairs with at least two legal plays, from pubeval self-play."""
    boards, dice = agent_game_positions(bgrl.load_agent("pubeval"), np.random.default_rng(11), 60, parallel=6)
    aft = generate(boards, dice)
    keep = np.flatnonzero(aft.counts > 1)[:16]
    return [(Position.from_board(boards[i]), tuple(int(x) for x in dice[i])) for i in keep]


def test_table_names_and_order():
    assert LEVEL_NAMES == ("beginner", "casual", "intermediate", "advanced", "expert", "world-class", "grandmaster")
    # the top levels search: world-class looks ahead at least one ply more than expert, grandmaster one more again
    assert LEVELS["world-class"].ply >= 1 and LEVELS["world-class"].ply > LEVELS["expert"].ply
    assert LEVELS["grandmaster"].ply == LEVELS["world-class"].ply + 1 == 2
    for name in LEVEL_NAMES:
        agent = bgrl.load_agent(name)
        assert isinstance(agent, LevelAgent) and agent.name == name
        assert callable(agent.hint) and callable(agent.choose_play)


def test_searches_of_two_ply_and_deeper_prune_the_replies(decisions):
    from bgrl.agents.hints import HintRanker
    from bgrl.agents.levels import DEFAULT_PRUNING, STRONGEST_NETWORK, _evaluator
    from bgrl.agents.search import GNUBG_FILTERS, ReplyPruning, search_plays

    gm, wc = LEVELS["grandmaster"], LEVELS["world-class"]
    assert gm.network == wc.network == STRONGEST_NETWORK and gm.filters == GNUBG_FILTERS
    assert gm.pruned() and not wc.pruned() and wc.with_ply(2).pruned() and not gm.with_ply(1).pruned()
    assert "prune default/5" in gm.definition() and "prune" not in wc.definition()
    assert gm.as_dict()["prune"] == ["default", 5] and "prune" not in wc.as_dict()
    agent = load_level("grandmaster")
    assert agent.pruning(1) is None and load_level("world-class").pruning() is None
    pr = agent.pruning()
    assert pr.keep == DEFAULT_PRUNING.keep and pr.evaluator is _evaluator(DEFAULT_PRUNING.network)[0]
    assert HintRanker.from_agent(load_level("world-class"), 2).prune is not None
    assert HintRanker.from_agent(load_level("world-class")).prune is None
    # the agent's choice is the pruned search's
    pos, dice = decisions[0]
    aft = generate(pos.board[None], np.array([dice]))
    want = search_plays(agent.evaluator, aft.boards, aft.offsets, 2, GNUBG_FILTERS, prune=ReplyPruning(pr.evaluator, 5)).best
    assert np.array_equal(agent.select(aft), want)


def test_cube_decisions_and_rollouts_search_as_the_level_does(decisions):
    """A 2-ply level's cube decisions, cubeful plays and rollouts prune as its select and hints do."""
    from bgrl.agents.cube import cube_hint, pre_roll_probs
    from bgrl.agents.levels import Pruning
    from bgrl.agents.registry import load_ranker
    from bgrl.agents.rollout import Roller
    from bgrl.agents.search import after_state_probs
    from bgrl.evaluation.probabilities import flip_probs
    from bgrl.rules.board import flip

    agent = load_level("grandmaster")
    pos = decisions[1][0]
    want = after_state_probs(agent.evaluator, flip(pos.board)[None], 2, agent.pruning())[0]
    got = pre_roll_probs(agent.evaluator, pos, 2, agent.pruning())
    np.testing.assert_array_equal(got, flip_probs(want))
    ranker = load_ranker("grandmaster")
    assert ranker.prune is not None and load_ranker("world-class").prune is None
    _, probs = cube_hint(ranker.evaluator, pos, None, 2, prune=ranker.prune)
    np.testing.assert_allclose(probs, pre_roll_probs(agent.evaluator, pos, 2, agent.pruning()), rtol=0, atol=1e-12)
    assert Roller.from_agent(agent).prune is not None and Roller.from_agent(load_level("world-class")).prune is None
    # a 2-ply ranker's own rows and value_at agree at every ply
    rows = ranker.rank(*decisions[2])
    for r in rows:
        np.testing.assert_allclose(ranker.value_at(r.play.after_state[None], [r.ply])[0], r.probabilities.to_array(),
                                   rtol=0, atol=2e-6)
    for bad in (0, 2.5, "3", True, np.bool_(True), None):
        with pytest.raises(ValueError, match="keep must be an int"):
            Pruning("default", bad)
    with pytest.raises(TypeError, match="prune must be a Pruning"):
        LEVELS["grandmaster"].__class__("x", "default", 2, prune=("default", 5))


def test_unknown_level_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown level 'supergrandmaster'"):
        load_level("supergrandmaster")
    with pytest.raises(ValueError, match="world-class"):
        bgrl.load_agent("supergrandmaster")


def test_noise_is_reproducible_and_seeded(decisions):
    casual = bgrl.load_agent("casual")
    other = bgrl.load_agent("casual", seed=1)
    first = [casual.choose_play(p, d).notation for p, d in decisions]
    again = [bgrl.load_agent("casual").choose_play(p, d, rng=np.random.default_rng(99)).notation for p, d in decisions]
    assert first == again
    # the noise of a seed is a different draw: over many plays it must differ somewhere
    aft = generate(np.stack([p.board for p, _ in decisions]), np.array([d for _, d in decisions], dtype=np.int8))
    z0, z1 = play_noise(aft, "casual", 0), play_noise(aft, "casual", 1)
    assert not np.allclose(z0, z1)
    assert abs(z0.mean()) < 0.5 and 0.6 < z0.std() < 1.4  # roughly standard normal
    # and it does not depend on what else is in the batch
    one = np.concatenate([play_noise(generate(p.board[None], np.array([d], dtype=np.int8)), "casual", 0) for p, d in decisions])
    np.testing.assert_array_equal(one, z0)
    assert [other.choose_play(p, d).notation for p, d in decisions]  # runs


def test_batched_select_equals_one_by_one(decisions):
    for name in ("intermediate", "expert"):
        agent = bgrl.load_agent(name)
        boards = np.stack([p.board for p, _ in decisions])
        aft = generate(boards, np.array([d for _, d in decisions], dtype=np.int8))
        batch = agent.select(aft, None) - aft.offsets[:-1]
        for i, (p, d) in enumerate(decisions):
            single = generate(p.board[None], np.array([d], dtype=np.int8))
            assert int(agent.select(single, None)[0]) == int(batch[i])


def test_hint_orders_by_ply_then_equity_and_agrees_with_choice(decisions):
    agent = bgrl.load_agent("world-class")
    top = LEVELS["world-class"].ply
    for p, d in decisions[:4]:
        ranked = agent.hint(p, d)
        plies = [r.ply for r in ranked]
        assert plies == sorted(plies, reverse=True) and plies[0] == top
        for a, b in zip(ranked, ranked[1:]):
            if a.ply == b.ply:
                assert a.equity >= b.equity
        assert ranked[0].play.notation == agent.choose_play(p, d).notation
        assert ranked[0].equity_loss == 0.0
        assert {r.play.notation for r in ranked} == {pl.notation for pl in bgrl.legal_plays(p, d)}
    zero = agent.hint(decisions[0][0], decisions[0][1], ply=0)
    assert all(r.ply == 0 for r in zero) and all(r.equity_loss >= 0 for r in zero)
    two = agent.hint(decisions[0][0], decisions[0][1], ply=2)  # deeper than the level: filters reach 2-ply
    assert two[0].ply == 2 and [r.ply for r in two] == sorted((r.ply for r in two), reverse=True)


def test_thread_safety_eight_threads(decisions):
    agent = bgrl.load_agent("expert")
    work = decisions[:8]

    def answer(p, d):
        return agent.choose_play(p, d).notation, [(r.play.notation, r.ply, round(r.equity, 9)) for r in agent.hint(p, d)]

    sequential = [answer(p, d) for p, d in work]
    results: list = [None] * 8
    errors: list = []
    barrier = threading.Barrier(8)

    def run(t):
        try:
            barrier.wait()
            results[t] = [answer(*work[(t + k) % len(work)]) for k in range(len(work))]
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    for t in range(8):
        for k in range(len(work)):
            assert results[t][k] == sequential[(t + k) % len(work)]


def test_measured_figures_belong_to_the_table_and_are_monotone():
    """checkpoints/levels.json must describe the current definitions (rerun scripts/tools/ladder.py
    after changing the table), and no level may measure weaker than the one below it."""
    m = measured_levels()
    levels = m.get("levels", {})
    for name, fig in levels.items():
        assert name in LEVELS
        assert fig["definition"] == json.loads(json.dumps(LEVELS[name].as_dict())), f"{name}: figures measured for another definition"
    vs_pub = [levels.get(n, {}).get("vs_pubeval") for n in LEVEL_NAMES]
    known = [(n, r) for n, r in zip(LEVEL_NAMES, vs_pub) if r]
    for (lo, a), (hi, b) in zip(known, known[1:]):  # no significant inversion against pubeval
        assert b["ppg"] + b["ci95"] >= a["ppg"] - a["ci95"], f"{hi} measures weaker than {lo} against pubeval"
    for name in LEVEL_NAMES:
        step = levels.get(name, {}).get("vs_lower")
        if step and step["games"] >= 1000:
            assert step["ppg"] > 0, f"{name} does not beat the level below it"


def test_measured_figures_belong_to_the_shipped_networks():
    """levels.json records the SHA-256 prefix of every network it measured: a changed
    network means the figures are stale (rerun scripts/tools/ladder.py)."""
    import hashlib

    from bgrl._resources import shipped_checkpoint

    nets = measured_levels().get("networks", {})
    used = {lv.network for lv in LEVELS.values()}
    assert used <= set(nets), f"levels.json lacks the hash of {sorted(used - set(nets))}"
    for name, digest in nets.items():
        assert hashlib.sha256(shipped_checkpoint(name).read_bytes()).hexdigest()[:16] == digest, f"{name} changed since it was measured"


def test_strongest_network_is_played_and_has_the_lowest_error_rate():
    """STRONGEST_NETWORK (vs_gnubg's 0- and 1-ply pairings) is a level's network, and no
    shipped network with a recorded error rate in the manifest errs less."""
    from bgrl._resources import shipped_path
    from bgrl.agents.levels import STRONGEST_NETWORK

    assert any(lv.network == STRONGEST_NETWORK for lv in LEVELS.values())
    manifest = json.loads(shipped_path("manifest.json").read_text(encoding="utf-8"))
    rates = {name: e["error_rate_mp"]["all"] for name, e in manifest.items() if "error_rate_mp" in e}
    assert STRONGEST_NETWORK in rates and rates[STRONGEST_NETWORK] == min(rates.values()), rates


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_hint_level_and_ply(capsys):
    code, out, _ = run_cli(capsys, "hint", "4HPwATDgc/ABMA", "53", "--json")
    obj = json.loads(out)
    ply = LEVELS["world-class"].ply  # the one hint default (issue 41)
    assert code == 0 and obj["level"] == "world-class" and obj["ply"] == ply
    assert obj["plays"][0]["ply"] == ply and {p["ply"] for p in obj["plays"]} <= set(range(ply + 1))
    code, out, _ = run_cli(capsys, "hint", "4HPwATDgc/ABMA", "53", "--ply", "0", "--json", "--top", "3")
    obj = json.loads(out)
    assert len(obj["plays"]) == 3 and all(p["ply"] == 0 for p in obj["plays"])
    code, out, _ = run_cli(capsys, "hint", "4HPwATDgc/ABMA", "53", "--level", "beginner")
    assert code == 0 and "level beginner, 0-ply" in out and "0-ply" in out.splitlines()[2]
    code, out, _ = run_cli(capsys, "hint", "4HPwATDgc/ABMA", "53", "--level", "world-class", "--ply", "2", "--top", "0")
    rows = [ln for ln in out.splitlines() if ln.strip()[:1].isdigit()]
    assert code == 0 and "2-ply" in rows[0] and "1-ply" in out and "0-ply" in rows[-1]


@pytest.mark.parametrize("argv", [
    ["hint", "4HPwATDgc/ABMA", "53", "--level", "pro"],
    ["hint", "4HPwATDgc/ABMA", "53", "--ply", "7"],
    ["hint", "4HPwATDgc/ABMA", "53", "--top", "-1"],
    ["match", "expert", "supergrandmaster", "--games", "2"],
])
def test_cli_bad_level_input(capsys, argv):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and err.startswith("bgrl: error:") and len(err.strip().splitlines()) == 1 and out == ""


def test_cli_levels_and_match(capsys):
    code, out, _ = run_cli(capsys, "levels")
    assert code == 0 and all(name in out for name in LEVEL_NAMES)
    code, out, _ = run_cli(capsys, "levels", "--json")
    assert [r["name"] for r in json.loads(out)["levels"]] == list(LEVEL_NAMES)
    code, out, _ = run_cli(capsys, "match", "expert", "beginner", "--games", "2", "--json")
    assert code == 0 and json.loads(out)["games"] == 2


def test_env_opponent_accepts_level_names():
    import gymnasium as gym

    import bgrl.env  # noqa: F401

    env = gym.make("bgrl/Backgammon-v0", opponent="intermediate")
    obs, info = env.reset(seed=0)
    obs, *_ = env.step(0)
    assert env.unwrapped.opponent.name == "intermediate"


def test_cli_play_level(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code, out, _ = run_cli(capsys, "play", "--level", "advanced", "--seed", "1")
    assert code == 0 and "advanced" in out
    code, out, err = run_cli(capsys, "play", "--level", "pro")
    assert code == 2 and "unknown level 'pro'" in err


def test_ladder_script_writes_figures(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "tools"))
    import ladder

    out = tmp_path / "levels.json"
    assert ladder.main(["--scale", "0.001", "--only", "beginner/random", "--no-gnubg", "--no-error-rates", "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    r = d["levels"]["beginner"]["vs_lower"]
    assert r["games"] == 10 and r["command"] == "bgrl match beginner random --games 10 --seed 1" and r["ppg"] > 0
    assert d["levels"]["expert"]["definition"]["ply"] == LEVELS["expert"].ply
    assert not list(tmp_path.glob("*.tmp"))


def test_api_takes_a_position_and_a_roll_and_refuses_text():
    """Text is read at the edges (issue 19): choose_play, hint and bgrl.hint take a Position and
    a roll; the edge readers (read_position, parse_dice) give the same decision for a Position
    ID with "31", an XGID with its dice, or (3, 1); text or a bad roll raises, naming what was expected."""
    import pytest

    import bgrl

    a = bgrl.load_agent("advanced")
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    pos, _ = bgrl.read_position("4HPwATDgc/ABMA")
    xpos, xdice = bgrl.read_position(xgid)
    p1 = a.choose_play(pos, bgrl.parse_dice("31"), rng=None)
    p2 = a.choose_play(pos, (3, 1))
    p3 = a.choose_play(xpos, xdice)
    assert p1.notation == p2.notation == p3.notation == a.hint(pos, bgrl.parse_dice("31"))[0].play.notation
    assert a.hint(xpos, xdice)[0].play.notation == p1.notation
    assert bgrl.hint(pos, (3, 1), level="advanced")[0].play.notation == p1.notation
    for call in (a.choose_play, a.hint, bgrl.hint):
        with pytest.raises(TypeError, match="position must be a bgrl Position.*read_position"):
            call("4HPwATDgc/ABMA", (3, 1))
        with pytest.raises(TypeError, match=r"dice must be a pair of ints 1..6 such as \(5, 3\), got the string '31'"):
            call(pos, "31")
        with pytest.raises(TypeError, match="dice must be a pair of ints 1..6"):
            call(pos, None)
        with pytest.raises(TypeError, match="pair of ints 1..6"):
            call(pos, 0)
        with pytest.raises(ValueError, match="each die must be 1..6"):
            call(pos, (0, 3))
    board = np.zeros(26, dtype=np.int8)
    board[20] = -15  # the side on roll has borne off all 15: no decision is left
    for call in (a.hint, bgrl.hint):
        with pytest.raises(ValueError, match="the game is over"):
            call(bgrl.Position(board), (3, 1))


@pytest.mark.parametrize("ply", [1.5, 2.0, True, "2", 4, -1])
def test_a_depth_must_be_an_int_0_to_3(ply):
    """bgrl.hint, a level's with_ply and the ranker's loader take the same check
    (bgrl.agents.search.check_ply): a float, a bool or text is refused, never truncated."""
    from bgrl.agents.registry import load_ranker

    from bgrl.agents.cube import cube_hints_many, pre_roll_probs
    from bgrl.agents.levels import reply_pruning
    from bgrl.rules.cube import CubeState

    ev = load_level("expert").evaluator
    for call in (lambda: bgrl.hint(Position.start(), (3, 1), level="expert", ply=ply),
                 lambda: LEVELS["expert"].with_ply(ply), lambda: load_ranker("expert", ply=ply),
                 lambda: LEVELS["expert"].pruned(ply), lambda: reply_pruning(ply),
                 lambda: pre_roll_probs(ev, Position.start(), ply),
                 lambda: cube_hints_many(ev, [Position.start()], [CubeState()], ply)):
        with pytest.raises(ValueError, match=r"ply must be an int 0..3"):
            call()
    assert bgrl.hint(Position.start(), (3, 1), level="expert", ply=np.int64(0), top=1)[0].play.notation == "8/5 6/5"
