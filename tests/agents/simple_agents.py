"""Tiny user agents for tests of ``module:object`` specs (bgrl rate / bgrl match)."""

import numpy as np

from bgrl.rules.notation import legal_plays


class RandomPlayer:
    """Plays a uniformly random legal play (the Agent protocol's choose_play)."""

    def choose_play(self, position, dice, rng):
        plays = legal_plays(position, dice)
        return plays[int(rng.integers(len(plays)))] if plays else None


def first_play(position, dice, rng):
    """A callable agent: the first legal play, by its notation."""
    plays = legal_plays(position, dice)
    return plays[0].notation if plays else None


def cheater(position, dice, rng):
    """Returns the starting position's board: never a legal after-state after a real roll."""
    from bgrl.rules.board import START_BOARD

    return np.array(START_BOARD)


#: not an agent (for the error test)
NOT_AN_AGENT = 42
