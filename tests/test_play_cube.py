"""The terminal game with the doubling cube (bgrl.cli.play_cube), driven by scripted input."""

import io
import re

import numpy as np
import pytest

from bgrl import legal_plays
from bgrl.agents.base import NetAgent
from bgrl.cli import main
from bgrl.cli.play_cube import CubefulTerminalGame
from bgrl.rules.match import MatchRules
from tests.test_play import FirstPlayAgent, FixedRanker


def const_evaluator(win, wg=0.0, lg=0.0):
    """After-states -> the same probabilities for the side that played (a fake network)."""
    def ev(boards):
        n = np.asarray(boards).reshape(-1, 26).shape[0]
        return np.tile(np.array([win, wg, 0.0, lg, 0.0]), (n, 1))

    return ev


class Script:
    """The player's input: answers the cube prompts from a list of words (then Enter), plays
    the first legal play at every checker-play prompt, and answers other prompts with
    ``other`` ('' = Enter)."""

    def __init__(self, cube_words=(), answers=(), other="n", max_lines=20000):
        self.cube_words = list(cube_words)
        self.answers = list(answers)
        self.other = other
        self.game = None
        self.out = io.StringIO()
        self.lines = 0
        self.max_lines = max_lines

    def __call__(self):
        self.lines += 1
        if self.lines > self.max_lines:
            return ""
        text = self.out.getvalue()
        last = text[text.rfind("\n") + 1:] if not text.endswith("\n") else ""
        m = re.search(r"to play (\d)-(\d)> $", last)
        if m:
            g = self.game.game
            plays = legal_plays(g.position, (int(m.group(1)), int(m.group(2))))
            return plays[0].notation + "\n"
        if "('double', or Enter to roll)> " in last:
            return (self.cube_words.pop(0) if self.cube_words else "") + "\n"
        if "or 'hint'> " in last:
            return (self.answers.pop(0) if self.answers else "take") + "\n"
        if "cannot move" in text[-200:] and last == "":
            return "\n"
        return self.other + "\n"


def run_game(script, rules, agent=None, human="white", seed=5):
    g = CubefulTerminalGame(agent or FirstPlayAgent(), human, FixedRanker(), np.random.default_rng(seed),
                            rules=rules, input=script, output=script.out, seed=seed, opponent_name="bot")
    script.game = g
    status = g.run()
    return g, status, script.out.getvalue()
