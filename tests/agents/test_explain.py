"""Why a play is best (bgrl.agents.explain, bgrl hint --explain): each kind of fact and
sentence on hand-built positions, shot counts counted by hand under the full rules."""

from __future__ import annotations

import json

import numpy as np

from bgrl.agents.explain import compare_facts, fact_sentences, play_facts, shot_counts
from bgrl.rules.board import START_BOARD, Position
from bgrl.rules.notation import legal_plays
from positions import board_from


_board = board_from


def test_blot_at_six_with_the_points_between_open_has_17_shots():
    # the opponent's one checker on the mover's 6-point, 6 pips from the blot on 12
    a = _board({12: 1, 1: 14}, {6: 1})
    per, any_ = shot_counts(a)
    # 11 rolls with a 6, plus 5-1 (2), 4-2 (2), 3-3 (1), 2-2 (1): 17 (the standard count)
    assert per == {12: 17} and any_ == 17


def test_blot_at_six_with_the_points_between_blocked_has_only_direct_shots():
    a = _board({12: 1, 7: 2, 8: 2, 9: 2, 10: 2, 11: 2, 1: 4}, {6: 1})
    per, any_ = shot_counts(a)
    assert per == {12: 11} and any_ == 11  # only the 11 rolls with a 6: every intermediate landing is blocked


def test_opponent_bar_checker_must_enter_first():
    # the opponent has a checker on the bar; the mover's home board is open
    a = _board({12: 1, 13: 14}, {6: 1}, opp_bar=1)
    per, _ = shot_counts(a)
    # enter with one die, then: 6-x (10 rolls), 6-6, and doubles whose last moves reach 12:
    # 3-3 (6->9->12), 2-2 (6->8->10->12), 4-4 (the entered checker 4->8->12); 5-1 and 4-2 no longer hit
    assert per[12] == 10 + 1 + 3


def test_a_blot_out_of_reach_and_no_blots():
    a = _board({12: 1, 1: 14}, {13: 1})  # the opponent's checker is past the blot: it cannot move backwards
    assert shot_counts(a) == ({12: 0}, 0)
    a = _board({12: 1, 1: 14}, {11: 1})  # one pip away: the 11 rolls with a 1
    assert shot_counts(a) == ({12: 11}, 11)
    assert shot_counts(START_BOARD) == ({}, 0)


def test_points_made_broken_home_prime_anchors_back_and_pips():
    before = _board({24: 2, 8: 3, 6: 5, 13: 5}, {1: 2, 12: 5, 17: 3, 19: 5})
    pos = Position(before)
    play = next(p for p in legal_plays(pos, (6, 1)) if p.notation == "13/7 8/7")
    facts = play_facts(before, play.after_state)
    kinds = {f["kind"] for f in facts}
    assert {"shots", "home_points", "prime", "anchors", "back", "pips"} <= kinds
    assert {"kind": "point_made", "point": 7} in facts
    assert not [f for f in facts if f["kind"] == "blot"]
    assert {"kind": "shots", "any": 0} in facts
    assert {"kind": "home_points", "count": 1} in facts
    assert {"kind": "prime", "length": 3, "top": 8} in facts
    assert {"kind": "anchors", "points": [24]} in facts
    assert {"kind": "back", "checkers": 2} in facts
    assert {"kind": "pips", "mover": 160, "opponent": 167} in facts
    broken = next(p for p in legal_plays(pos, (6, 1)) if p.notation == "24/23 24/18")
    fb = play_facts(before, broken.after_state)
    assert {"kind": "point_broken", "point": 24} in fb
    assert {(f["point"]) for f in fb if f["kind"] == "blot"} == {23, 18}
    shots = {f["point"]: f["shots"] for f in fb if f["kind"] == "blot"}
    assert shots == shot_counts(broken.after_state)[0]


def test_sentences_are_facts_of_the_positions():
    before = START_BOARD
    pos = Position(before)
    plays = {p.notation: p for p in legal_plays(pos, (6, 1))}
    best, other = plays["13/7 8/7"], plays["24/23 24/18"]
    fa = play_facts(before, best.after_state, np.array([0.53, 0.17, 0.0, 0.13, 0.0]))
    fo = play_facts(before, other.after_state, np.array([0.49, 0.13, 0.0, 0.15, 0.0]))
    s = fact_sentences("13/7 8/7", fa)
    assert s[0] == "13/7 8/7 leaves no blot." and "It makes the 7 point." in s
    assert any(x.startswith("Pips after it: 160 to 167 (ahead by 7") for x in s)
    any_o = next(f["any"] for f in fo if f["kind"] == "shots")
    c = compare_facts("13/7 8/7", fa, "24/23 24/18", fo)
    assert f"13/7 8/7 leaves 0 shots of 36, 24/23 24/18 {any_o}." in c
    assert "24/23 24/18 breaks the 24 point; 13/7 8/7 does not." in c
    assert "13/7 8/7 makes the 7 point; 24/23 24/18 does not." in c
    assert "Gammons (win / lose): 17.0% / 13.0% after 13/7 8/7, 13.0% / 15.0% after 24/23 24/18." in c
    sb = fact_sentences("24/23 24/18", fo)
    assert sb[0].startswith("24/23 24/18 leaves 2 blots: on 23 (") and f"{any_o} of the opponent's 36 rolls hit." in sb[0]
    same = compare_facts("a", fa, "b", fa)
    assert same == ["a and b leave the same blots, points and pips: they differ only in where the checkers stand."]


def test_cli_hint_explain_json_and_text(capsys):
    from bgrl.cli import main

    assert main(["hint", "4HPwATDgc/ABMA", "61", "--explain", "--json", "--level", "beginner"]) == 0
    out = json.loads(capsys.readouterr().out)
    for p in out["plays"]:
        kinds = [f["kind"] for f in p["facts"]]
        assert "shots" in kinds and "pips" in kinds
        blots = [f for f in p["facts"] if f["kind"] == "blot"]
        assert all(set(f) == {"kind", "point", "shots"} and 0 <= f["shots"] <= 36 for f in blots)
    assert main(["hint", "4HPwATDgc/ABMA", "61", "--explain", "--level", "beginner", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert "Why:" in text and " over " in text
