"""The terminal game with the doubling cube (bgrl.cli.play and bgrl.cli.play_view), driven by scripted input."""

import io
import re

import numpy as np
import pytest

from bgrl import legal_plays
from bgrl.agents.base import NetAgent
from bgrl.cli import main
from bgrl.cli.play_view import TerminalGame as CubefulTerminalGame
from bgrl.rules.match import MatchRules
from tests.cli.test_play import FirstPlayAgent, FixedRanker


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

    def __init__(self, cube_words=(), answers=(), other="n", max_lines=20000, another=0):
        self.another = another  # how many times to answer "y" to "Another game?"
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
        if text.rstrip().endswith("Another game? [y/N]"):
            self.another -= 1
            return ("y" if self.another >= 0 else "n") + "\n"
        if "cannot move" in text[-200:] and last == "":
            return "\n"
        return self.other + "\n"


def match_score(games) -> dict:
    """Match points of each colour after ``games`` (GameScore list)."""
    return {c: sum(x.points for x in games if x.winner == c) for c in ("white", "black")}


def run_game(script, rules, agent=None, human="white", seed=5):
    g = CubefulTerminalGame(agent or FirstPlayAgent(), human, FixedRanker(), np.random.default_rng(seed),
                            rules=rules, input=script, output=script.out, seed=seed, opponent_name="bot")
    script.game = g
    status = g.run()
    return g, status, script.out.getvalue()


def test_cubeful_money_game_played_to_the_end_with_a_double():
    s = Script(cube_words=["take", "double"], other="n")
    g, status, out = run_game(s, MatchRules())
    assert status == 0
    assert "Cannot take: no double was offered." in out
    assert "You double to 2. bot takes." in out  # an agent without a network always takes
    assert "Cube 2, owned by bot | money play" in out  # the board header
    gs = g.match.games[0]
    assert len(g.match.games) == 1 and gs.cube == 2 and gs.how == "bear-off"
    assert gs.points == 2 * gs.result
    assert f"Result for you: {gs.points_for('white'):+d}" in out
    assert "Another game? [y/N]" in out


def test_money_session_goes_on_while_the_player_says_yes():
    s = Script(other="", another=2)
    g, status, out = run_game(s, MatchRules(jacoby=True))
    assert len(g.match.games) == 3 and "Game 3." in out and "Game 4." not in out
    total = sum(x.points_for("white") for x in g.match.games)
    assert g.match.score["white"] == total and f"Session: you {total:+d} after 3 games." in out
    assert "Jacoby rule" in out


def test_three_point_match_to_the_end_with_crawford_and_post_crawford():
    # the computer thinks the side on roll has 30% (never doubles); seed 5 reaches 2-0, then 2-2
    # (the session's dice: issue 41 made the terminal game a view of bgrl.session.GameSession)
    s = Script(other="")
    g, status, out = run_game(s, MatchRules(match_length=3), agent=NetAgent(const_evaluator(0.7), name="c"), seed=5)
    m = g.match
    assert status == 0 and m.over and max(m.score.values()) >= 3
    assert [x.crawford for x in m.games].count(True) == 1
    i = [x.crawford for x in m.games].index(True)
    assert max(match_score(m.games[:i]).values()) == 2
    assert "This is the Crawford game" in out and "Post-Crawford game" in out
    assert "the 3-point match" in out and "3-point match: you" in out
    crawford_part = out[out.index("This is the Crawford game"):out.index("Post-Crawford game")]
    assert "('double', or Enter to roll)" not in crawford_part  # no cube prompt in the Crawford game


def test_computer_doubles_player_passes_then_takes():
    # the fake network gives the side on roll 70%: the computer doubles at once
    agent = NetAgent(const_evaluator(0.3), name="c")
    s = Script(answers=["double", "pass"], other="")
    g, status, out = run_game(s, MatchRules(match_length=3), agent=agent, human="black")
    assert "bot doubles to 2." in out
    assert "A double is waiting for your answer" in out
    assert "You pass: bot wins 1 point." in out
    assert g.match.games[0].how == "pass" and g.match.games[0].winner == "white"
    s = Script(answers=["take"], other="")
    g, status, out = run_game(s, MatchRules(), agent=agent, human="black")
    assert "You take: the cube is at 2, yours." in out
    assert g.match.games[0].cube >= 2


def _line(text):
    """A scripted input line; None (the script is used up) reads as the end of input, so a
    game that asks for more than the script gives ends instead of waiting forever."""
    return "" if text is None else text + "\n"


def _scripted_money_game(lines) -> str:
    """A cube money session as White against FirstPlayAgent, read from the iterator ``lines``: its output."""
    out = io.StringIO()
    g = CubefulTerminalGame(FirstPlayAgent(), "white", FixedRanker(), np.random.default_rng(1), rules=MatchRules(),
                            input=lambda: _line(next(lines, None)), output=out, opponent_name="bot")
    g.run()
    return out.getvalue()


def test_cube_words_after_the_roll_get_a_message():
    text = _scripted_money_game(iter(["", "double", "take", "quit", "y"]))
    assert "You can double only before you roll" in text and "Cannot take: no double was offered." in text


@pytest.mark.parametrize("argv, expect", [
    (["--cube", "--cube-cap", "3"], "power of 2"),
    (["--cube", "--match", "0"], "--match must be"),
    (["--cube", "--match", "40"], "beyond the match equity table"),
    (["--cube", "--match", "7", "--beavers"], "money-game options"),
    (["--jacoby"], "--jacoby needs --cube"),
    (["--match", "0"], "--match needs --cube"),
    (["--cube", "--match", "5", "--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:4:1:7:10"], "differs"),
    (["--cube", "--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:4:0:7:10"], "at or above the match length"),
    (["--cube", "--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:1:7:10"], "Crawford"),
    (["--cube", "--dice", "31"], "--dice needs --position"),
])
def test_play_cube_bad_flags_exit_2(argv, expect, capsys):
    assert main(["play", "--opponent", "random", "--no-save", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert expect in err and len(err.splitlines()) == 1


def test_bgrl_play_cube_match_through_the_cli(monkeypatch, capsys):
    """``bgrl play --cube --match 3`` against random, the player typing the first legal play."""
    import bgrl.cli.play_view as pc

    script = Script(other="")
    real = pc.TerminalGame.__init__

    def init(self, *a, **kw):
        kw["input"], kw["output"] = script, script.out
        real(self, *a, **kw)
        script.game = self

    monkeypatch.setattr(pc.TerminalGame, "__init__", init)
    assert main(["play", "--cube", "--match", "3", "--opponent", "random", "--no-save", "--seed", "2"]) == 0
    m = script.game.match
    assert m.over and m.rules.match_length == 3


def test_seven_point_match_to_the_end_against_a_level_through_the_cli(monkeypatch):
    """``bgrl play --cube --match 7 --level beginner``: the player plays the first legal play
    and doubles at every other cube prompt; the match is played to its end."""
    import bgrl.cli.play_view as pc

    script = Script(cube_words=["", "double"] * 200, answers=["take", "pass"] * 200, other="", max_lines=100000)
    real = pc.TerminalGame.__init__

    def init(self, *a, **kw):
        kw["input"], kw["output"] = script, script.out
        real(self, *a, **kw)
        script.game = self

    monkeypatch.setattr(pc.TerminalGame, "__init__", init)
    assert main(["play", "--cube", "--match", "7", "--level", "beginner", "--no-save", "--seed", "5"]) == 0
    m = script.game.match
    out = script.out.getvalue()
    assert m.over and max(m.score.values()) >= 7
    assert "the 7-point match" in out
    n_crawford = sum(x.crawford for x in m.games)
    reached_six = any(max(match_score(m.games[:i]).values()) == 6 for i in range(len(m.games)))
    assert n_crawford == (1 if reached_six else 0)


def test_play_cube_from_an_xgid_in_the_crawford_game(monkeypatch):
    """``--position XGID`` with a score: the match continues from it; in the Crawford game
    ``double`` gets the reason, and no cube prompt is shown."""
    import bgrl.cli.play_view as pc

    lines = iter(["double", "take", "quit", "y"])
    out = io.StringIO()
    real = pc.TerminalGame.__init__

    def init(self, *a, **kw):
        kw["input"], kw["output"] = (lambda: _line(next(lines, None))), out
        real(self, *a, **kw)

    monkeypatch.setattr(pc.TerminalGame, "__init__", init)
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:6:4:1:7:10"
    assert main(["play", "--cube", "--opponent", "random", "--no-save", "--position", xgid]) == 0
    text = out.getvalue()
    assert "Game 1 of a 7-point match: you 6, random 4." in text and "This is the Crawford game" in text
    assert "Cannot double: no doubling in the Crawford game." in text
    assert "Cannot take: no double was offered." in text
    assert "('double', or Enter to roll)" not in text
    assert "rolled 3-1" in text


def test_hint_at_the_play_prompt_is_cubeful():
    lines = iter(["", "hint 3", "quit", "y"])
    out = io.StringIO()
    g = CubefulTerminalGame(FirstPlayAgent(), "white", FixedRanker(win=0.6, wg=0.2), np.random.default_rng(1),
                            rules=MatchRules(match_length=5), input=lambda: _line(next(lines, None)), output=out,
                            opponent_name="bot")
    g.run()
    text = out.getvalue()
    assert "Hint with the cube from fixed test ranker, 0-ply; best first (cube 1):" in text
    table = text[text.index("Hint with the cube"):]
    rows = [ln for ln in table.splitlines()[2:5]]
    assert len(rows) == 3 and all("%" in r for r in rows)  # MWC column at a score
    assert "match winning chances on the equity scale" in table


def test_quit_at_a_cube_prompt_asks_for_confirmation():
    """'quit' at the cube prompt asks [y/N] as at the play prompt: 'n' goes on (the next
    word is read at the same prompt), 'y' leaves."""
    lines = iter(["quit", "n", "board", "quit", "yes"])
    text = _scripted_money_game(lines)
    assert text.count("Leave this game without finishing it? [y/N]") == 2
    assert "Cancelled: the game goes on." in text and text.count("Game abandoned.") == 1
    assert text.index("Cancelled") < text.index("Game abandoned.")
    assert next(lines, None) is None  # every line was read: 'n' did not leave


def test_cube_hint_comes_from_the_hint_engine():
    """The cube hint at the cube prompt is by the same engine as the play hint (the ranker,
    as the class docstring says), not by the judge: a new user's trial found two engines."""
    from bgrl.agents.hints import HintRanker
    from service_fakes import fake_evaluator

    ranker = HintRanker(fake_evaluator, 0, name="the test ranker")
    lines = iter(["hint", "quit", "y"])
    out = io.StringIO()
    g = CubefulTerminalGame(FirstPlayAgent(), "white", ranker, np.random.default_rng(1), rules=MatchRules(),
                            input=lambda: _line(next(lines, None)), output=out, opponent_name="bot")
    g.run()
    assert "Cube hint from the test ranker, 0-ply" in out.getvalue()
