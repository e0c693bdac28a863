"""The terminal game (bgrl.cli.play) driven through fake input, and the CLI details of issue 9."""

import io
import json
import os
import sys

import numpy as np
import pytest

from bgrl import Position, legal_plays
from bgrl.rules.board import START_BOARD, flip
from bgrl.cli import main
from bgrl.agents.hints import RankedPlay
from bgrl.evaluation.probabilities import Probabilities
from bgrl.cli.play import TerminalGame, draw_decision, read_command, resign_decision
from bgrl.records.record import read_record
from bgrl.rules.render import render


def board(points: dict, opp: dict, bar=0, opp_bar=0):
    b = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    for p, n in opp.items():
        b[p] = -n
    b[25] = bar
    b[0] = -opp_bar
    return b


class FixedRanker:
    """A hint ranker giving every legal play the same probabilities, the best ``equity``
    first and each next one 0.01 worse; records the dice it was asked about."""

    name = "fixed test ranker"
    ply = 0

    def __init__(self, win=0.5, wg=0.0, lg=0.0):
        self.probs = (win, wg, 0.0, lg, 0.0)
        self.calls = []

    def __call__(self, position, dice):
        self.calls.append(tuple(dice))
        plays = legal_plays(position, dice)
        base = Probabilities(*self.probs)
        eq = base.equity()
        return [RankedPlay(i + 1, p, eq - 0.01 * i, 0.01 * i, base) for i, p in enumerate(plays)]


class FirstPlayAgent:
    """The computer: always the first legal play in canonical order."""

    name = "first-play"

    def choose_play(self, position, dice, rng=None):
        plays = legal_plays(position, dice)
        return plays[0] if plays else None


def lines_input(*lines):
    it = iter(lines)

    def read():
        try:
            item = next(it)
        except StopIteration:
            return ""
        if isinstance(item, BaseException):
            raise item
        return item + "\n"

    return read


def play(*lines, human="white", ranker=None, start=None, first_dice=None, save_dir=None, seed=3, agent=None, judge=None):
    out = io.StringIO()
    g = TerminalGame(agent or FirstPlayAgent(), human, ranker or FixedRanker(), np.random.default_rng(seed),
                     input=lines_input(*lines), output=out, start=start, first_dice=first_dice, save_dir=save_dir,
                     seed=seed, opponent_name="first-play", judge=judge)
    code = g.run()
    return code, out.getvalue(), g


# ------------------------------------------------------------------ items 2 and 3: resign and draw by equity
def test_resign_decision_both_answers():
    ok, text = resign_decision(1.8, 1)  # expects ~2 points: a single game is not enough
    assert not ok and "declines" in text and "+1.800" in text
    ok, text = resign_decision(1.8, 2)
    assert ok and "accepts" in text
    ok, _ = resign_decision(0.4, 1)
    assert ok


def test_the_judge_not_the_hint_ranker_answers_resignations_and_draws():
    # the hint ranker (think: a beginner) sees the human ahead; the judge sees a likely gammon
    hints, judge = FixedRanker(win=0.7), FixedRanker(win=0.02, lg=0.96)
    code, out, g = play("resign", "y", "draw", "yes", "quit", "y", ranker=hints, judge=judge, first_dice=(3, 1))
    assert "declines your resignation of a single game" in out and "declines the draw" in out
    assert g.game.over is None and judge.calls and not hints.calls
    code, out, g = play("hint", "resign gammon", "y", ranker=hints, judge=judge, first_dice=(3, 1))
    assert "accepts your resignation of a gammon" in out and g.game.over.points == 2
    assert hints.calls  # the hint came from the hint ranker


def test_hint_n_shows_n_plays():
    assert read_command("hint 2") == ("command", "hint", [2])
    code, out, _ = play("hint 2", "hint 0", "quit", start=Position.start(), first_dice=(3, 1))
    first, second = out.split("Hint from", 2)[1:3]
    rows = lambda text: [ln for ln in text.split("Why:")[0].splitlines() if ln[:5].strip().isdigit()]  # noqa: E731
    n_legal = len(legal_plays(Position.start(), (3, 1)))
    assert len(rows(first)) == 2 and f"… and {n_legal - 2} more" in first
    assert len(rows(second)) == n_legal


def test_hint_gives_the_reasons_of_the_best_play():
    """issue 17 item 5: the terminal game's hint ends with the explain sentences, best vs second."""
    from bgrl.agents.explain import compare_facts, play_facts

    code, out, _ = play("hint", "quit", "y", start=Position.start(), first_dice=(3, 1))
    ranked = FixedRanker()(Position.start(), (3, 1))
    a, b = ranked[0], ranked[1]
    fa = play_facts(Position.start().board, a.play.after_state, a.probabilities)
    fb = play_facts(Position.start().board, b.play.after_state, b.probabilities)
    assert "Why:" in out and f"{a.play.compact} over {b.play.compact}:" in out
    for sentence in compare_facts(a.play.compact, fa, b.play.compact, fb):
        assert sentence in out


def test_resign_draw_and_quit_ask_for_confirmation():
    """issue 17 item 8: resign, draw and quit go ahead only on y or yes; anything else cancels
    and the turn goes on (the judge is not asked)."""
    judge = FixedRanker(win=0.1)  # the computer expects a lot: it would accept a backgammon resignation
    code, out, g = play("resign backgammon", "n", "draw", "", "quit", "maybe", "resign backgammon", "YES",
                        judge=judge, first_dice=(3, 1))
    assert out.count("[y/N]") >= 4 and "Offer to resign a backgammon (3 points)? [y/N]" in out
    assert "Offer a draw? [y/N]" in out and "Leave this game without finishing it? [y/N]" in out
    assert out.count("Cancelled:") == 3 and len(judge.calls) == 1  # judged once: after the YES
    assert g.game.over.how == "resign" and g.game.over.points == 3
    code, out, g = play("quit", "yes", first_dice=(3, 1))
    assert "Game abandoned." in out and g.game.over is None
    code, out, g = play("quit", first_dice=(3, 1))  # end of input while asked: abandoned too
    assert "End of input: game abandoned." in out


def test_bgrl_play_judges_with_the_strongest_level(monkeypatch):
    import argparse

    from bgrl.agents.levels import JUDGE_LEVEL
    from bgrl.cli import play as play_mod

    seen = {}

    class Stop(Exception):
        pass

    def fake_run(self):
        seen["judge"] = self.judge
        raise Stop

    monkeypatch.setattr(play_mod.TerminalGame, "run", fake_run)
    base = dict(seed=1, position=None, opening_roll=False, dice=None, opponent="beginner", no_save=True, save=None,
                color="white", notation="compact", checkpoint=None, hint_level=None)
    with pytest.raises(Stop):
        play_mod.run_from_args(argparse.Namespace(**base), play_mod.play_ranker(argparse.Namespace(**base)))
    assert seen["judge"].name == f"level {JUDGE_LEVEL} (the judge)"
    args = argparse.Namespace(**{**base, "hint_level": "casual"})
    with pytest.raises(Stop):
        play_mod.run_from_args(args, play_mod.play_ranker(args))
    # --hint-level chooses the hints only: the strongest level still judges
    assert seen["judge"].name == f"level {JUDGE_LEVEL} (the judge)"


def test_draw_decision_both_answers():
    ok, text = draw_decision(0.2)
    assert not ok and "declines" in text and "not behind" in text
    ok, text = draw_decision(-0.2)
    assert ok and "accepts" in text and "behind" in text


def test_resign_in_game_declined_then_accepted(tmp_path):
    # the human is far behind: best play keeps 10% wins and 60% gammons lost -> computer expects ~1.4
    ranker = FixedRanker(win=0.1, lg=0.6)
    code, out, g = play("resign", "y", "resign gammon", "Y", ranker=ranker, first_dice=(3, 1), save_dir=tmp_path)
    comp_eq = -Probabilities(0.1, 0, 0, 0.6, 0).equity()
    assert comp_eq > 1
    assert f"declines your resignation of a single game: it expects to win more (its equity {comp_eq:+.3f}" in out
    assert "accepts your resignation of a gammon" in out
    assert g.game.over.points == 2 and g.game.over.winner == "black" and g.game.over.how == "resign"
    assert ranker.calls and all(c == (3, 1) for c in ranker.calls)  # judged with the dice on the table


def test_draw_in_game_uses_dice_on_table():
    # the computer is ahead: declines; then a ranker where the human is ahead: accepts
    code, out, g = play("draw", "y", "quit", "y", ranker=FixedRanker(win=0.4), first_dice=(6, 5))
    assert "declines the draw" in out and g.game.over is None
    ranker = FixedRanker(win=0.6)
    code, out, g = play("draw", "y", ranker=ranker, first_dice=(6, 5))
    assert "accepts the draw" in out and g.game.over.how == "draw"
    assert ranker.calls == [(6, 5)]
    assert "Game drawn by agreement." in out


# ------------------------------------------------------------------ item 4: playing Black
def test_black_board_and_computer_play_in_human_numbering():
    code, out, g = play("quit", human="black", seed=1)
    assert "Points in Black's numbering" in out
    # the computer (White) opened with the first legal play; it is shown in Black's numbering
    line = next(s for s in out.splitlines() if s.startswith("White (O) rolls"))
    dice = (int(line.split()[3][0]), int(line.split()[3][2]))
    first = legal_plays(Position.start(), dice)[0]
    assert first.shown(True, other_side=True) in line and "in your numbering, Black's" in line
    # points p -> 25 - p: White's 24/18 is Black's 1/7
    assert legal_plays(Position.start(), (6, 5))[0].shown(False, True) != legal_plays(Position.start(), (6, 5))[0].notation


def test_black_types_own_numbering():
    # Black on roll at the start with 3-1 plays 8/5 6/5 in Black's own numbering
    code, out, g = play("8/5 6/5", "quit", human="black", start=Position.start(), first_dice=(3, 1))
    assert "You play 8/5 6/5" in out


def test_render_from_black_side_mirrors_white():
    w = render(START_BOARD, True, (3, 1), viewer="white")
    b = render(START_BOARD, False, (3, 1), viewer="black")
    # from its own side each colour sees the same picture, symbols swapped
    assert w.splitlines()[:13] == [s.replace("X", "#").replace("O", "X").replace("#", "O") for s in b.splitlines()[:13]]


# ------------------------------------------------------------------ item 5: checkers on the bar drawn
def test_bar_checkers_drawn():
    b = board({6: 5, 8: 3, 13: 5}, {24: 2, 19: 5, 17: 3, 12: 3}, bar=2, opp_bar=2)
    text = render(b, True, None)
    rows = text.splitlines()
    bar_cells = [r[23:26] for r in rows[2:13]]  # the BAR column, between "|" and "|"
    assert all(r[22] == "|" and r[26] == "|" for r in rows[2:13])
    assert sum(c.strip() == "X" for c in bar_cells) == 2 and sum(c.strip() == "O" for c in bar_cells) == 2
    assert "|BAR|" in text


# ------------------------------------------------------------------ items 6 and 18: illegal plays, notation
def test_illegal_reasons_in_game():
    code, out, _ = play("8/3/1", "13/11", "6/4", "quit", start=Position.start(), first_dice=(1, 1))
    assert "Illegal play '8/3/1': 8/3 moves 5 pips, but with 1-1" in out
    assert "held" not in out.split("Illegal play '8/3/1'")[1].splitlines()[0]
    assert "Illegal play '13/11': point 12 is held by the opponent." in out  # its intermediate point
    assert "Illegal play '6/4'" in out  # a span of two 1s, but four moves can be played
    assert "4 moves of 1 can be played, so all four must be" in out
    assert "Legal plays, best first" in out and "… and" in out and "more" in out


def test_illegal_reason_wordings():
    from bgrl import IllegalPlayError, play_from_notation

    def reason(pos, dice, text):
        with pytest.raises(IllegalPlayError) as e:
            play_from_notation(pos, dice, text)
        return e.value.reason

    s = Position.start()
    assert reason(s, (2, 1), "13/11") == "both dice can be played, so both must be"
    assert reason(Position(board({6: 14}, {24: 15}, bar=1)), (3, 1), "6/3 6/5") == "a checker on the bar must enter first"
    b = board({13: 1, 1: 14}, {2: 2, 24: 13})  # either die alone, never both
    assert "the larger die (6) must be played" in reason(Position(b), (6, 5), "13/8")
    b = board({8: 2, 6: 5, 13: 8}, {5: 2, 24: 13})
    assert reason(Position(b), (3, 1), "8/5 6/5") == "point 5 is held by the opponent"
    b = board({6: 14}, {3: 2, 20: 13}, bar=1)
    assert reason(Position(b), (3, 1), "bar/24 6/3") == "point 3 is held by the opponent"
    assert reason(Position(b), (5, 1), "bar/20 6/5") == "you cannot enter on the 20-point: it is held by the opponent"


def test_span_through_hit_accepted_and_ambiguous_refused():
    from bgrl import IllegalPlayError, play_from_notation

    b = board({8: 2, 6: 5, 13: 8}, {5: 1, 7: 2, 24: 12})  # 8/7 blocked: the only path is 8/5*/4
    p = play_from_notation(Position(b), (3, 1), "8/4")
    assert p.notation == "8/5* 5/4" and p.compact == "8/5*/4"
    b = board({13: 1, 6: 14}, {10: 1, 8: 1, 24: 13})  # 13/5 hits on 10 or on 8: ambiguous
    with pytest.raises(IllegalPlayError, match="ambiguous"):
        play_from_notation(Position(b), (5, 3), "13/5")
    assert play_from_notation(Position(b), (5, 3), "13/10*/5").compact == "13/10*/5"


@pytest.mark.parametrize("dice,text,dice_form,compact", [
    ((6, 5), "24/13", "24/18 18/13", "24/13"),
    ((1, 1), "6/5(2) 8/7(2)", "8/7(2) 6/5(2)", "8/7(2) 6/5(2)"),
    ((2, 2), "24/20(2)", "24/22(2) 22/20(2)", "24/20(2)"),
    ((3, 1), "8/5 6/5", "8/5 6/5", "8/5 6/5"),
])
def test_compact_notation(dice, text, dice_form, compact):
    from bgrl import play_from_notation

    p = play_from_notation(Position.start(), dice, text)
    assert p.notation == dice_form and p.compact == compact
    assert play_from_notation(Position.start(), dice, compact).position_id == p.position_id  # readable back


# ------------------------------------------------------------------ item 7: typed commands
@pytest.mark.parametrize("line,expect", [("hnit", "hint"), ("quit please", "quit"), ("borad", "board"),
                                         ("resign lots", "resign single|gammon|backgammon"), ("hlep", "help")])
def test_mistyped_commands_suggest(line, expect):
    kind = read_command(line)
    assert kind[0] == "unknown" and kind[2] == expect


def test_commands_and_plays_classified():
    assert read_command("hint") == ("command", "hint", [])
    assert read_command("resign gammon") == ("command", "resign", ["gammon"])
    assert read_command("13/10 10/5") == ("play", "13/10 10/5")
    assert read_command("  ") == ("empty",)


def test_typo_in_game_not_read_as_play_and_play_echoed():
    code, out, g = play("hnit", "quit please", "8/5 6/5", "quit", "y", start=Position.start(), first_dice=(3, 1))
    assert "Unknown command 'hnit'. Did you mean 'hint'? Type 'help'" in out
    assert "Unknown command 'quit please'. Did you mean 'quit'?" in out
    assert "You play 8/5 6/5" in out and "Game abandoned." in out


def test_ctrl_c_leaves_cleanly_with_record(tmp_path):
    code, out, g = play(KeyboardInterrupt(), save_dir=tmp_path)
    assert code == 130 and "Interrupted (Ctrl-C): game abandoned." in out
    assert "Game record (unfinished) saved to" in out and g.saved is not None and g.saved.exists()


# ------------------------------------------------------------------ item 8: hints
def test_hint_shows_engine_ply_probabilities_and_columns():
    code, out, _ = play("hint", "quit", start=Position.start(), first_dice=(3, 1))
    assert "Hint from fixed test ranker, 0-ply" in out
    assert "win     wg    wbg   lose     lg    lbg" in out
    assert "equity: points per game you expect after the play" in out and "lose/lg/lbg" in out
    assert "… and 11 more" in out  # 16 plays, 5 shown


def test_hint_uses_ranked_ply_attribute():
    # search engines' RankedPlay gains a `ply`; the game prints the ply of the ranked plays
    from types import SimpleNamespace

    class Plied(FixedRanker):
        name = "deep engine"

        def __call__(self, position, dice):
            return [SimpleNamespace(**{k: getattr(r, k) for k in ("rank", "play", "equity", "equity_loss", "probabilities")},
                                    ply=2) for r in super().__call__(position, dice)]

    code, out, _ = play("hint", "quit", ranker=Plied(), start=Position.start(), first_dice=(3, 1))
    assert "Hint from deep engine, 2-ply" in out


# ------------------------------------------------------------------ item 9: practise a position, game record
XG_EXAMPLE = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def test_position_practice_from_xgid_uses_its_dice_and_saves_record(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("8/5 6/5\nresign backgammon\ny\n"))
    code = main(["play", "--position", XG_EXAMPLE, "--opponent", "pubeval", "--seed", "4", "--save", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "white to play 3-1>" in out and "You play 8/5 6/5" in out
    saved = out.split("Game record saved to ")[1].strip()
    rec = read_record(saved)
    assert rec.start_position_id == "4HPwATDgc/ABMA" and rec.white == "human" and rec.seed == 4
    assert rec.turns[0].dice == (3, 1) and rec.turns[0].play == "8/5 6/5"
    assert rec.result == {"type": "result", "winner": "black", "points": 3, "how": "resign"}


def test_position_practice_with_dice_flag_and_black(tmp_path, capsys, monkeypatch):
    pid = "4HPwATDgc/ABMA"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    code = main(["play", "--position", pid, "--dice", "2-6", "--color", "black", "--opponent", "pubeval",
                 "--save", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "black to play 6-2>" in out and "Game record (unfinished) saved to" in out


def test_finished_game_board_names_no_side_on_roll(tmp_path):
    b = board({1: 1}, {24: 2, 20: 13})  # one checker left: any roll wins (a gammon)
    code, out, g = play("1/off", start=Position(b), first_dice=(2, 1), save_dir=tmp_path)
    final = out.split("  You play 1/off")[1]
    assert "Game over: White wins a gammon (2 points) by bearing off." in final and "On roll" not in final
    assert read_record(g.saved).result == {"type": "result", "winner": "white", "points": 2, "how": "gammon"}


@pytest.mark.parametrize("argv,flag", [
    (["play", "--seed", "-1"], "--seed must be >= 0"),
    (["play", "--dice", "31"], "--dice needs --position"),
    (["play", "--position", "4HPwATDgc/ABMA", "--opening-roll"], "--position and --opening-roll"),
    (["play", "--position", "XGID=junk"], "XGID"),
    (["match", "random", "random", "--games", "0"], "--games must be >= 1"),
    (["match", "random", "random", "--seed", "-1"], "--seed must be >= 0"),
    (["hint", "4HPwATDgc/ABMA", "31", "--top", "-2"], "--top must be >= 0"),
])
def test_errors_name_the_flag(argv, flag, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgrl: error: ") and flag in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["moves", "Z" * 5000, "31"],
    ["moves", "4HPwATDgc/ABMA", "7" * 5000],
    ["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", "a" * 3000],
    ["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", "/tmp/" + "b" * 200 + ".pt"],
    ["play", "--position", "XGID=" + "c" * 3000],
    ["play", "--opponent", "d" * 3000],
])
def test_long_input_echo_is_cut(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err) < 260 and "..." in err and err.count("\n") == 1


# ------------------------------------------------------------------ items 16, 17, 20: options and details
def test_version(capsys):
    from bgrl._version import __version__

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"bgrl {__version__}"


@pytest.mark.parametrize("command", ["moves", "hint", "play", "match"])
def test_every_option_help_shows_default(command):
    from bgrl.cli import build_parser
    from bgrl.cli._common import HelpFormatter as _Formatter

    parser = build_parser()
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)).choices[command]
    fmt = _Formatter(prog="bgrl")
    for action in sub._actions:
        if not action.option_strings or action.dest == "help":
            continue
        text = fmt._get_help_string(action) % {"default": action.default}
        assert "default" in text, (command, action.option_strings, text)


def test_help_agrees_with_readme_on_position_id_side_order(capsys):
    with pytest.raises(SystemExit):
        main(["moves", "-h"])
    out = " ".join(capsys.readouterr().out.split())
    assert "side on roll first" not in out and "opponent's checkers first" in out
    with pytest.raises(SystemExit):
        main(["play", "-h"])
    assert "docs/rules.md" in capsys.readouterr().out


def test_dice_high_first_everywhere(capsys):
    assert main(["moves", "4HPwATDgc/ABMA", "13", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"] == [3, 1]
    assert main(["moves", "4HPwATDgc/ABMA", "1-3"]) == 0
    assert "roll 3-1" in capsys.readouterr().out
    import gymnasium as gym

    import bgrl.env  # noqa: F401

    env = gym.make("bgrl/BackgammonSelfPlay-v0", notation=False)
    _, info = env.reset(seed=0)
    for _ in range(30):
        assert info["dice"][0] >= info["dice"][1]
        _, _, term, _, info = env.step(0)
        if term:
            _, info = env.reset()


def test_match_summary_names_agent_and_unpaired(capsys):
    assert main(["match", "random", "pubeval", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 unpaired game" in out and "points per game for random" in out and "random wins" in out
    assert main(["match", "random", "pubeval", "--games", "3"]) == 0
    assert "1 pair of games with shared dice and colours swapped, plus 1 unpaired game" in capsys.readouterr().out


def test_checkpoint_file_mode_matches_other_files(tmp_path):
    from bgrl.evaluation.networks import save_checkpoint
    from bgrl.evaluation.model import TDNet

    path = save_checkpoint(tmp_path / "x.pt", TDNet(202, 4), {"encoder": "td198r"})
    other = tmp_path / "config.json"
    other.write_text("{}")
    assert (os.stat(path).st_mode & 0o777) == (os.stat(other).st_mode & 0o777)


# ------------------------------------------------------------------ item 15: corrupt checkpoints
@pytest.mark.parametrize("kind,expect", [
    ("empty", "is empty (0 bytes)"),
    ("truncated", "is truncated or damaged"),
    ("text", "is a text file, not a checkpoint"),
    ("random", "is not a checkpoint: its 4,096 bytes are not a torch archive"),
])
def test_corrupt_checkpoint_one_sentence(kind, expect, tmp_path, capsys):
    from bgrl._resources import shipped_checkpoint

    path = tmp_path / f"{kind}.pt"
    good = shipped_checkpoint().read_bytes()
    data = {"empty": b"", "truncated": good[: len(good) // 3], "text": b"epoch 1 loss 0.3\nepoch 2 loss 0.2\n",
            "random": np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes()}[kind]
    path.write_bytes(data)
    assert main(["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err
    assert expect in err and err.count("\n") == 1 and "Error:" not in err and "Errno" not in err


def test_run_folder_as_checkpoint(tmp_path, capsys, tiny_checkpoint):
    assert main(["hint", "4HPwATDgc/ABMA", "31", "--checkpoint", str(tiny_checkpoint.parent), "--json", "--top", "3"]) == 0
    assert len(json.loads(capsys.readouterr().out)["plays"]) == 3


# ------------------------------------------------------------------ item 19: hint --top, lose column, --batch
def test_hint_top_lose_and_batch(capsys, monkeypatch):
    assert main(["hint", "BAAQhVJKKSkFAA", "11"]) == 0
    out = capsys.readouterr().out
    assert "2226 legal play(s)" in out and "… and 2216 more" in out and " lose " in out
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"4HPwATDgc/ABMA 31\n{XG_EXAMPLE}\nbad 31\n"))
    assert main(["hint", "--batch", "-", "--top", "2"]) == 1
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [len(r.get("plays", [])) for r in rows] == [2, 2, 0] and rows[1]["dice"] == [3, 1] and "error" in rows[2]


# ------------------------------------------------------------------ item 21: the rule book
def test_rule_book_in_repository():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "rules.md").read_text()
    for must in ("Maximum-dice", "bar", "Bearing off", "gammon", "backgammon", "13/10/5", "Position ID"):
        assert must.lower() in text.lower()
    assert "docs/rules.md" in (root / "README.md").read_text()


# ------------------------------------------------------------------ XGID
def test_xgid_example_and_start():
    from bgrl.rules.xgid import parse_xgid, read_position, to_xgid

    pos, dice = parse_xgid(XG_EXAMPLE)
    assert pos == Position.start() and dice == (3, 1)
    assert to_xgid(Position.start(), (1, 3)) == XG_EXAMPLE
    assert read_position("4HPwATDgc/ABMA") == (Position.start(), None)
    assert read_position(XG_EXAMPLE.replace(":31:", ":00:"))[1] is None
    assert read_position(XG_EXAMPLE[5:]) == (Position.start(), (3, 1))  # prefix optional


def test_xgid_side_on_roll():
    from bgrl.rules.xgid import parse_xgid, to_xgid

    b = board({6: 4, 8: 2, 13: 4, 24: 1}, {1: 2, 12: 3, 19: 5}, bar=1, opp_bar=1)  # asymmetric, both bars
    pos = Position(b)
    bottom = to_xgid(pos, (5, 2))
    top = to_xgid(pos, (5, 2), bottom_on_roll=False)
    assert ":1:52:" in bottom and ":-1:52:" in top and bottom != top
    assert parse_xgid(bottom)[0] == pos and parse_xgid(top)[0] == pos
    # the same position string with the other side on roll is the flipped board
    flipped = top.replace(":-1:", ":1:")
    assert parse_xgid(flipped)[0] == Position(flip(b))
    assert bottom[5:31][25] == "A" and bottom[5:31][0] == "a"  # bars: mover's last, opponent's first


def test_xgid_round_trips_random_games():
    from bgrl.agents.base import RandomAgent
    from bgrl.rules.xgid import parse_xgid, to_xgid

    rng = np.random.default_rng(5)
    agent = RandomAgent()
    pos = Position.start()
    seen = 0
    for _ in range(300):
        d = tuple(int(x) for x in rng.integers(1, 7, 2))
        for bottom in (True, False):
            x = to_xgid(pos, d, bottom_on_roll=bottom)
            p2, d2 = parse_xgid(x)
            assert p2 == pos and d2 == (max(d), min(d))
        seen += 1
        play = agent.choose_play(pos, d, rng)
        nxt = flip(play.after_state) if play else flip(pos.board)
        if play is not None and 15 - np.maximum(play.after_state, 0).sum() == 15:
            pos = Position.start()
        else:
            pos = Position(nxt)
    assert seen == 300


@pytest.mark.parametrize("text,expect", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31", "fields"),
    ("XGID=-b----E-C---eE---c-e---B-:0:0:1:31:0:0:0:0:10", "26 characters"),
    ("XGID=-b----E-C---eE---c-e---zB-:0:0:1:31:0:0:0:0:10", "'z'"),
    ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "top player's bar"),
    ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:31:0:0:0:0:10", "bottom player's bar"),
    ("XGID=-b----O-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "checkers; expected at most 15"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:2:31:0:0:0:0:10", "side on roll"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10", "dice"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10", "cube action"),
    ("XGID=-b----E-C---eE---c-e----B-:1:1:1:31:0:0:0:0:10", "without a doubling cube"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10", "money games only"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:x:31:0:0:0:0:10", "must be an integer"),
])
def test_bad_xgid_clear_errors(text, expect):
    from bgrl.rules.xgid import XGIDError, parse_xgid

    with pytest.raises(XGIDError, match=expect.replace("(", r"\(")):
        parse_xgid(text)


def test_xgid_through_moves_cli(capsys):
    assert main(["moves", XG_EXAMPLE, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["position_id"] == "4HPwATDgc/ABMA" and obj["dice"] == [3, 1] and len(obj["plays"]) == 16
    assert main(["moves", XG_EXAMPLE, "66", "--json"]) == 0  # DICE given overrides the XGID's
    assert json.loads(capsys.readouterr().out)["dice"] == [6, 6]


def test_play_hints_come_from_the_hint_default_never_the_opponents_level():
    # issue 41: the opponent's own level (a weak one, here a noisy 'expert' on a flat evaluator)
    # never gives the hints: bgrl play ranks with the one hint default of every surface
    from types import SimpleNamespace

    from bgrl.agents.levels import DEFAULT_HINT_LEVEL, Level, LevelAgent, load_level
    from bgrl.cli.play import play_ranker as _play_ranker

    calls = []

    def evaluator(boards):
        calls.append(len(boards))
        return np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(boards), 1))

    agent = LevelAgent(Level("expert", "default", 1, noise=0.05), evaluator)
    ranker = _play_ranker(SimpleNamespace(checkpoint=None, hint_level=None))(agent)
    assert DEFAULT_HINT_LEVEL == "world-class" and ranker.name.startswith("level world-class")
    rows = ranker(Position.start(), (3, 1))
    assert len(rows) == 16 and not calls
    assert [r.play.notation for r in rows] == [r.play.notation for r in load_level(DEFAULT_HINT_LEVEL).hint(Position.start(), (3, 1))]


def test_review_offered_at_game_end(tmp_path):
    """issue 7 item 6: `bgrl play` offers the review when a game ends; 'y' prints it, an
    empty answer skips it."""
    from bgrl.agents.hints import rank_plays
    from bgrl._resources import shipped_checkpoint
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.evaluator import NetEvaluator
    from bgrl.agents.hints import HintRanker

    net, meta = load_network(shipped_checkpoint())
    ranker = HintRanker(NetEvaluator(net, meta["encoder"]), 0, name="network default.pt")
    assert callable(rank_plays)
    b = board({1: 1, 2: 1}, {24: 2, 20: 13})
    code, out, g = play("2/off 1/off", "y", start=Position(b), first_dice=(2, 1), ranker=ranker, save_dir=tmp_path)
    assert code == 0 and "Review this game" in out
    assert "supernatural" in out and "2/off " in out  # the one decision, the alternative (compact) and the rating
    code, out2, _ = play("2/off 1/off", "", start=Position(b), first_dice=(2, 1), ranker=ranker, save_dir=tmp_path)
    assert "Review this game" in out2 and "supernatural" not in out2


def test_play_hint_level_flag():
    """issue 9 item 8: hints come from the level chosen with --hint-level (default: the one hint
    default of every surface, world-class, never the opponent's level: issue 41); an unknown
    level is a one-line error."""
    import subprocess
    import sys

    exe = [sys.executable, "-c", "import sys; from bgrl.cli import main; sys.exit(main())"]
    r = subprocess.run(exe + ["play", "--level", "casual", "--hint-level", "advanced", "--no-save", "--seed", "1"],
                       input="quit\n", capture_output=True, text=True, timeout=120)
    assert "Hints from level advanced (--hint-level), 0-ply" in r.stdout, r.stdout[-800:] + r.stderr[-800:]
    r = subprocess.run(exe + ["play", "--level", "casual", "--no-save", "--seed", "1"], input="quit\n",
                       capture_output=True, text=True, timeout=120)
    assert "Hints from level world-class (the hint default), 1-ply" in r.stdout, r.stdout[-800:]
    r = subprocess.run(exe + ["play", "--hint-level", "nosuch", "--no-save"], input="quit\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "unknown level 'nosuch'" in r.stderr and "Traceback" not in r.stderr


def test_play_save_to_a_file_is_refused_before_the_game(tmp_path):
    """adversarial check: --save naming a file must not let a game be played and then lost."""
    import subprocess
    import sys

    f = tmp_path / "afile"
    f.write_text("x")
    r = subprocess.run([sys.executable, "-c", "import sys; from bgrl.cli import main; sys.exit(main())", "play", "--save", str(f)],
                       input="quit\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--save" in r.stderr and "expected a folder" in r.stderr and "You play" not in r.stdout


@pytest.mark.parametrize("end, ranker", [("resign", FixedRanker(win=0.1)), ("draw", FixedRanker(win=0.6))])
def test_review_offered_after_resignation_or_draw_before_any_human_play(end, ranker):
    """A game that ends by an accepted resignation (or a draw) is offered the review like one
    played to its end, even when the human ends it on their first turn (the computer has
    played); the review shows the result, not "unfinished"."""
    code, out, g = play(end, "y", "y", human="black", ranker=ranker, seed=3)
    assert code == 0 and g.game.over is not None and g.game.over.how == end
    assert "Review this game" in out
    review = out[out.index("Review this game"):]
    assert "White (first-play)" in review and "unfinished" not in review
    assert ("wins by resignation (1 point)" if end == "resign" else "drawn by agreement") in review


def test_resignation_after_plays_offers_review_with_result():
    """The human plays, then resigns: the review is offered and names the resignation."""
    p = legal_plays(Position.start(), (3, 1))[0].shown(True)
    code, out, g = play(p, "resign", "y", "y", ranker=FixedRanker(win=0.1), first_dice=(3, 1), seed=3)
    assert g.game.over.how == "resign" and "Review this game" in out
    review = out[out.index("Review this game"):]
    assert "White (human)" in review and "wins by resignation (1 point)" in review and "unfinished" not in review
