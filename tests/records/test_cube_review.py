"""The cube review: cube actions read from .mat files, judged (missed/wrong doubles, wrong
takes/passes), counted as gnubg counts cube decisions, refused when ill-formed."""

import json
from pathlib import Path

import numpy as np
import pytest

from bgrl.cli import main
from bgrl.evaluation.cube import CubeDecision
from bgrl.records.matfile import MatError, parse_mat, read_mat
from bgrl.records.cube_review import CLOSE_CUBE, review_cube

DATA = Path(__file__).parents[1] / "data"

HEAD = " 0 point match\n\n Game 1\n alice : 0                      bob : 0\n"
ROWS = (
    "  1) 21: 13/11 24/23             65: 24/18 18/13\n"
    "  2) 32: 23/21 24/21             66: 24/18 13/7 13/7 13/7\n"
)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_mat_cube_actions_read_in_order():
    g = read_mat(DATA / "gnubg_money_cube.mat")[1]
    acts = [(a.player, a.action, a.value) for a in g.cube_actions]
    assert acts == [("white", "double", 2), ("black", "take", 2), ("black", "double", 4), ("white", "drop", 2)]
    # the double comes before the doubler's roll: the position is that turn's
    d = g.cube_actions[0]
    assert g.record.turns[d.turn].player == "white" and g.record.turns[d.turn].position_id == d.position_id


@pytest.mark.parametrize("rows, what", [
    ("  3)  Takes\n", "no double was offered"),
    ("  3)  Doubles => 4\n", "expected 'Doubles => 2'"),
    ("  3)  Doubles => 2                Doubles => 4\n", "waits for an answer"),
    ("  3)  Doubles => 2\n  4) 31: 8/5 6/5\n", "waits for an answer"),
    ("  3)                              Doubles => 2\n", "only the player about to roll may double"),
    ("  3)  Doubles => 2                Takes\n  4) 31: 8/5 6/5                 Doubles => 4\n  5)  Takes\n"
     "  6)                              Doubles => 8\n", "owns the cube"),
])
def test_mat_ill_formed_cube_action_names_the_line(rows, what):
    text = HEAD + ROWS + rows
    with pytest.raises(MatError) as exc:
        parse_mat(text, "x.mat")
    msg = str(exc.value)
    assert what in msg and "x.mat, line " in msg and "\n" not in msg


def test_mat_double_in_crawford_game_refused_and_later_allowed():
    crawford = (" 5 point match\n\n Game 1\n alice : 4                      bob : 2\n" + ROWS +
                "  3)  Doubles => 2\n")
    with pytest.raises(MatError, match="line 7: .*Crawford game"):
        parse_mat(crawford, "m.mat")
    # after the Crawford game (an earlier game already had alice at 4) doubling is allowed
    post = (" 5 point match\n\n Game 1\n alice : 4                      bob : 2\n" + ROWS +
            "                                  Wins 1 point\n\n Game 2\n alice : 4                      bob : 3\n" + ROWS +
            "  3)  Doubles => 2                Takes\n")
    g1, g2 = parse_mat(post, "m.mat")
    assert g1.crawford and not g2.crawford and [a.action for a in g2.cube_actions] == ["double", "take"]


def test_cli_review_mat_bad_cube_action_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.mat"
    f.write_text(HEAD + ROWS + "  3)  Takes\n")
    code, out, err = run(["review", str(f)], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "line 7" in err and "no double was offered" in err


def _decision(nd, dt, dp=1.0):
    take = dt <= dp
    ans = min(dt, dp)
    dec = ("double, take" if take else "double, pass") if ans >= nd else ("too good to double" if nd > dp else "no double")
    return CubeDecision(dec, take, nd, dt, dp)


def test_review_cube_losses_and_counting_with_a_fixed_judge():
    # game 2 of the fixture: white doubles (turn 19), black takes, black doubles (4), white drops
    g = read_mat(DATA / "gnubg_money_cube.mat")[1]
    info = [{"record": g.record, "actions": g.cube_actions, "match_length": 0, "score": (0, 0), "crawford": False}]
    calls = []

    def judge(positions, cubes):
        calls.append(len(positions))
        # every position: double/take is right (ND 0.5 < DT 0.6 < DP 1)
        return [_decision(0.5, 0.6) for _ in positions]

    (rows,) = review_cube(info, judge)
    assert calls == [len([r for r in rows if r.kind == "double"])]  # one batched call
    doubles = [r for r in rows if r.kind == "double"]
    missed = [r for r in doubles if r.error == "missed double"]
    made = [r for r in doubles if r.action == "double"]
    assert len(made) == 2 and all(r.error is None and r.loss == 0 for r in made)
    assert missed and all(r.loss == pytest.approx(0.1) and r.close for r in missed)
    takes = [r for r in rows if r.kind == "take"]
    assert [(t.action, t.error) for t in takes] == [("take", None), ("pass", "wrong pass")]
    assert takes[1].loss == pytest.approx(0.4)
    # the cube owner's opponent may not double: no decision for it while the other owns the cube
    for r in doubles:
        assert r.cube.may_double()


def test_review_cube_too_good_is_no_error_and_not_close():
    g = read_mat(DATA / "gnubg_money_nocube.mat")[0]
    info = [{"record": g.record, "actions": [], "match_length": 0, "score": (0, 0), "crawford": False}]
    (rows,) = review_cube(info, lambda ps, cs: [_decision(0.2, -0.5) for _ in ps])  # far from doubling
    assert rows and all(r.error is None and not r.close for r in rows)
    assert 0.2 - min(-0.5, 1.0) >= CLOSE_CUBE
    (rows,) = review_cube(info, lambda ps, cs: [_decision(1.5, 2.2) for _ in ps])  # too good: play on
    assert all(r.error is None and r.right == "too good to double" for r in rows)


def test_cli_review_planted_wrong_pass_flagged(capsys):
    code, out, err = run(["review", str(DATA / "planted_wrong_pass.mat")], capsys)
    assert code == 0, err
    assert "WRONG PASS" in out and "Cube " in out
    code, out, _ = run(["review", str(DATA / "planted_wrong_pass.mat"), "--json"], capsys)
    obj = json.loads(out)
    cube = obj["games"][0]["cube"]
    passes = [c for c in cube if c["kind"] == "take"]
    assert len(passes) == 1 and passes[0]["action"] == "pass" and passes[0]["error"] == "wrong pass"
    assert passes[0]["loss"] == pytest.approx(abs(passes[0]["equities"]["double_take"] - 1.0), abs=1e-6)
    alice = obj["players"]["white"]["cube"]
    assert alice["errors"]["wrong pass"] == 1 and alice["passes"] == 1 and alice["decisions"] >= 1
    assert alice["error_rate"] == pytest.approx(1000 * alice["total_loss"] / alice["decisions"], abs=1e-2)
    assert obj["players"]["black"]["cube"]["doubles"] == 1
    # checker error rates are still there, apart
    assert "error_rate" in obj["players"]["white"] and obj["players"]["white"]["decisions"] > 0


def test_cli_review_missed_doubles_in_a_session_played_without_the_cube(capsys):
    code, out, err = run(["review", str(DATA / "gnubg_money_nocube.mat"), "--json"], capsys)
    assert code == 0, err
    obj = json.loads(out)
    missed = [c for g in obj["games"] for c in g["cube"] if c["error"] == "missed double"]
    assert missed and all(c["action"] == "no double" and c["right"] == "double" for c in missed)
    for c in missed:
        e = c["equities"]
        assert min(e["double_take"], e["double_pass"]) - e["no_double"] == pytest.approx(c["loss"], abs=1e-5)
    total = sum(obj["players"][p]["cube"]["errors"]["missed double"] for p in ("white", "black"))
    assert total == len(missed)
    code, out, _ = run(["review", str(DATA / "gnubg_money_nocube.mat"), "--json", "--no-cube"], capsys)
    obj = json.loads(out)
    assert "cube" not in obj["games"][0] and "cube" not in obj["players"]["white"]


def test_bgrl_record_review_has_no_cube_section(capsys):
    code, out, _ = run(["review", str(DATA / "bgrl_match_game.jsonl"), "--json"], capsys)
    assert code == 0
    assert "cube" not in json.loads(out)["games"][0]
    assert np.isfinite(json.loads(out)["players"]["white"]["error_rate"] or 0.0)


def test_cli_review_match_score_uses_match_equity(tmp_path, capsys):
    text = (DATA / "planted_wrong_pass.mat").read_text()
    text = text.replace(" 0 point match", " 5 point match").replace(" alice : 0                      bob : 0",
                                                                    " alice : 1                      bob : 3")
    f = tmp_path / "m.mat"
    f.write_text(text)
    code, out, err = run(["review", str(f), "--json"], capsys)
    assert code == 0, err
    cube = json.loads(out)["games"][0]["cube"]
    dbl = next(c for c in cube if c["action"] == "double")
    assert dbl["player"] == "black" and dbl["cube"]["match_length"] == 5
    assert dbl["cube"]["score"] == [3, 1]  # from the doubler (bob) first
    assert dbl["equities"]["double_pass"] == pytest.approx(1.0)
    # money and match equities differ for the same position
    code, out, _ = run(["review", str(DATA / "planted_wrong_pass.mat"), "--json"], capsys)
    money = next(c for c in json.loads(out)["games"][0]["cube"] if c["action"] == "double")
    assert money["position_id"] == dbl["position_id"] and money["equities"] != dbl["equities"]


def test_cli_review_jacoby_changes_money_equities_only(capsys):
    code, out, _ = run(["review", str(DATA / "planted_wrong_pass.mat"), "--json"], capsys)
    plain = [c for c in json.loads(out)["games"][0]["cube"] if c["kind"] == "double"]
    code, out, _ = run(["review", str(DATA / "planted_wrong_pass.mat"), "--json", "--jacoby"], capsys)
    assert code == 0
    jac = [c for c in json.loads(out)["games"][0]["cube"] if c["kind"] == "double"]
    assert [c["position_id"] for c in jac] == [c["position_id"] for c in plain]
    assert all(c["cube"]["jacoby"] for c in jac) and not any(c["cube"]["jacoby"] for c in plain)
    # the Jacoby rule only changes the centred-cube no-double equity; double/take is the same
    for a, b in zip(plain, jac):
        assert a["equities"]["double_take"] == pytest.approx(b["equities"]["double_take"])
    assert any(a["equities"]["no_double"] != b["equities"]["no_double"] for a, b in zip(plain, jac))


def test_errors_only_names_the_turn_of_each_cube_error(capsys):
    """--errors-only leaves out unmarked turns, so each cube error says which roll it came
    before (a new user's trial found them standing alone)."""
    path = Path(__file__).parents[1] / "data" / "planted_wrong_pass.mat"
    assert main(["review", str(path), "--level", "expert", "--errors-only"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cube = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("cube:")]
    assert cube and all("WRONG" in lines[i] or "MISSED" in lines[i] for i in cube)
    assert all(lines[i - 1].startswith(("  before turn ", "  after the last turn")) or lines[i - 1].lstrip().startswith("cube:")
               for i in cube)
