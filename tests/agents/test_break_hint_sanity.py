"""Regressions from adversarial testing of hints and the shipped network agent.

docs/rules.md, "End of game and scoring": a gammon needs the loser to have borne off no
checker, and the first side to bear off all 15 wins. So (a) once the opponent has borne
off a checker, no play can be worth more than a single game, and win_gammon /
win_backgammon must be 0; (b) a play that bears off the last checker wins for certain
and no other play can have higher cubeless equity than a sure win of the maximum value.
"""

import numpy as np
import pytest

from bgrl.rules.board import Position
from bgrl.agents.registry import load_agent, load_ranker
from bgrl.agents.hints import rank_plays

# Mover: one checker on each of two home points; opponent: 12 on its 6-point (mover's 19),
# one on the bar, two borne off. The roll bears both checkers off (a certain single game);
# the alternative leaves a blot the checker on the bar can hit.
CASES = [
    ("4P8BAJAEAAAAAA", (4, 2), "4/off 2/off"),
    ("8P8BAKACAAAAAA", (2, 1), "2/off 1/off"),
]


@pytest.mark.parametrize("pid,dice,winning", CASES)
def test_hint_ranks_the_sure_win_first(pid, dice, winning):
    pos = Position.from_id(pid)
    assert pos.off[1] >= 1  # opponent has borne off: no gammon possible
    ev = load_ranker("default").evaluator
    ranked = rank_plays(pos, dice, ev)
    assert ranked[0].play.notation == winning, [(r.play.notation, r.equity) for r in ranked]
    for r in ranked:
        assert r.equity <= 1.0 + 1e-6, (r.play.notation, r.equity)
        assert r.probabilities.win_gammon == pytest.approx(0.0, abs=1e-6), r.play.notation
        assert r.probabilities.win_backgammon == pytest.approx(0.0, abs=1e-6), r.play.notation


@pytest.mark.parametrize("pid,dice,winning", CASES)
def test_default_agent_takes_the_sure_win(pid, dice, winning):
    agent = load_agent("default")
    play = agent.choose_play(Position.from_id(pid), dice, rng=np.random.default_rng(0))
    assert play.notation == winning
