"""The terminal game against the computer (``bgrl play``): the dialogue, testable without a
terminal.

:class:`TerminalGame` holds the dialogue: it reads lines from an ``input`` callable and
writes to an ``output`` stream, so tests drive it with fake input. The conventions it
follows:

* The board is drawn and numbered from the human's side (as GNU Backgammon does); the
  computer's plays are shown in the human's numbering, and the text says so.
* Hints come from one function, the *hint ranker* ``ranker(position, dice) ->
  list[RankedPlay]`` (best first): a :class:`bgrl.agents.hints.HintRanker` chosen by
  :func:`play_ranker`. Its ``name`` and ``ply`` are printed with the hint.
* Resignations (:func:`resign_decision`): the computer accepts when the points offered are
  at least the equity it expects (cubeless, points per game), else declines and says its
  equity. Draws (:func:`draw_decision`): accepted only when the computer is behind (equity
  below zero). Both judge the position with the human's dice on the table: the computer's
  equity is minus the equity of the human's best play, by the *judge*: ``world-class``, the strongest
  1-ply level (:data:`bgrl.agents.levels.JUDGE_LEVEL`, :func:`judge_ranker`), whatever --hint-level or --checkpoint say, never the
  opponent's own level (a beginner that judged by its own weak network would accept a
  gammon resignation where a backgammon is likely). The judge also reviews the game at its end.
* The game record (``bgrl-game-1``, :mod:`bgrl.records.record`) is written when the game ends or
  is left, and the path is printed.
"""

from __future__ import annotations

import difflib
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bgrl.agents.hints import HintRanker
from bgrl.rules.board import Position
from bgrl._fileio import check_writable_dir
from bgrl.rules.dice import opening_roll, random_roll
from bgrl.rules.game import BLACK, RESIGN_VALUES, WHITE, Game
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation
from bgrl.records.record import GameRecord, write_record
from bgrl.agents.offers import KIND, draw_decision, resign_decision
from bgrl.rules.render import render
from bgrl.cli._common import RULES_NOTE, CLIError, HelpFormatter
from bgrl.cli.hint import evaluator_for
from bgrl._text import clip

__all__ = [
    "COMMANDS", "level_ranker", "play_ranker", "resign_decision", "draw_decision", "hint_table", "read_command",
    "TerminalGame", "default_games_dir",
]

COMMANDS = ("hint", "board", "resign", "draw", "help", "quit")
#: The commands asked to be confirmed (``y`` or ``yes``; anything else cancels).
CONFIRMED = ("resign", "draw", "quit")
_ALIASES = {"exit": "quit", "q": "quit", "?": "help"}
HOW = {1: "single", 2: "gammon", 3: "backgammon"}

HELP = """Commands:
  a play in your own numbering (the board is drawn in it), e.g. 13/10 10/5, 24/13,
      bar/22*, 6/off, 8/5(2); a span through a hit (8/4 for 8/5*/4) is accepted
  hint [N]          rank the legal plays with the hint engine (equities and probabilities); N rows (default 5, 0 = all),
                    then why the best play is best (blots and shots, points, primes, pips) against the second
  board             draw the board again
  resign [single|gammon|backgammon]
                    offer to resign at that value (default single); the computer accepts
                    when it is at least the points it expects to win (judged by the
                    judge level, world-class)
  draw              offer a draw; the computer accepts only when it is behind
  help              this text
  quit              leave without finishing (Ctrl-C too)
resign, draw and quit ask for confirmation: y or yes goes ahead, anything else cancels.
Rules: docs/rules.md in the repository."""


def default_games_dir() -> Path:
    """Where ``bgrl play`` saves game records unless ``--save DIR`` is given: the folder in
    the environment variable ``BGRL_GAMES_DIR`` if set, else ``~/.bgrl/games``."""
    import os

    env = os.environ.get("BGRL_GAMES_DIR")
    return Path(env).expanduser() if env else Path.home() / ".bgrl" / "games"


def hint_table(ranked, engine: str, ply: int, top: int = 5, compact: bool = True, you: bool = True) -> str:
    """The hint text: engine and ply, the best ``top`` plays (0 = all) with equity, the
    difference to the best play and the outcome probabilities, "... and N more", and what
    the columns mean (addressed to the player, or with ``you=False`` to "the side playing")."""
    if not ranked:
        return "  no die can be played: the turn passes"
    from bgrl.agents.hints import with_shared_ranks
    from bgrl.cli._table import VALUE_HEADER, value_cells

    ranked = with_shared_ranks(ranked)  # ties share a rank
    shown = ranked[: top if top > 0 else len(ranked)]
    names = [r.play.shown(compact) for r in shown]
    width = max(8, max(len(n) for n in names))
    lines = [f"  Hint from {engine}, {ply}-ply; best first:",
             f"  {'#':>3}  {'play':<{width}}  {VALUE_HEADER}"]
    for r, name in zip(shown, names):
        lines.append(f"  {r.rank:3d}  {name:<{width}}  {value_cells(r)}")
    if len(ranked) > len(shown):
        lines.append(f"  … and {len(ranked) - len(shown)} more")
    who, whose = ("you expect", "your") if you else ("the side playing expects", "its")
    lines.append(f"  equity: points per game {who} after the play (cubeless: single 1, gammon 2, backgammon 3)")
    lines.append(f"  vs best: equity minus the best play's; win/wg/wbg: {whose} chances to win / win a gammon / win a")
    lines.append("  backgammon; lose/lg/lbg: to lose / lose a gammon / lose a backgammon (gammons include backgammons)")
    return "\n".join(lines)


def read_command(line: str):
    """Classify a typed line.

    Returns one of ``("empty",)``, ``("command", name, args)``, ``("play", text)`` or
    ``("unknown", text, suggestion_or_None)``. A line is read as a play only when it
    contains ``/`` (plays are written ``from/to``); a word that is not a command is never
    read as a play.
    """
    text = line.strip()
    if not text:
        return ("empty",)
    words = text.lower().split()
    first = _ALIASES.get(words[0], words[0])
    if first in COMMANDS:
        if first == "resign" and len(words) <= 2 and (len(words) == 1 or words[1] in RESIGN_VALUES):
            return ("command", first, words[1:])
        if first == "hint" and len(words) == 2 and words[1].isdigit():
            return ("command", first, [int(words[1])])
        if len(words) == 1:
            return ("command", first, [])
    elif "/" in text:
        return ("play", text)
    guess = difflib.get_close_matches(first, COMMANDS + tuple(_ALIASES), n=1, cutoff=0.5)
    suggestion = _ALIASES.get(guess[0], guess[0]) if guess else None
    if first in COMMANDS:
        suggestion = f"{first} single|gammon|backgammon" if first == "resign" else first
    return ("unknown", text, suggestion)


class TerminalGame:
    """One game in the terminal between a human and an agent.

    Parameters
    ----------
    agent : bgrl agent (``choose_play(position, dice, rng)``), the computer.
    human : ``"white"`` or ``"black"``.
    ranker : hint ranker ``(position, dice) -> list[RankedPlay]`` with ``name`` and ``ply``.
    judge : ranker that judges resignations and draws and reviews the game at its end
        (``bgrl play``: the judge level, world-class, unless --hint-level or --checkpoint chooses the
        engine; None = ``ranker``), never the opponent's own level by default.
    rng : numpy Generator for the dice.
    input : callable returning the next line ('' at end of input), like ``sys.stdin.readline``.
    output : text stream.
    compact : show plays in gnubg's compact notation (``24/13``) instead of one move per die.
    start : optional Position to start from, the human on roll (practice a position).
    first_dice : optional dice for the first turn.
    opening_roll : use RULES.md's opening roll (not with ``start``).
    save_dir : folder for the game record, or None for no record.
    seed : the dice seed, written to the record.
    opponent_name : the computer's name in the record and the greeting.
    """

    def __init__(self, agent, human: str, ranker, rng, input=None, output=None, compact: bool = True,
                 start: Position | None = None, first_dice=None, opening_roll: bool = False,
                 save_dir: Path | None = None, seed: int | None = None, opponent_name: str = "computer", judge=None):
        if human not in (WHITE, BLACK):
            raise ValueError(f"human must be 'white' or 'black', got {human!r}")
        self.agent = agent
        self.human = human
        self.judge = judge
        self.computer = BLACK if human == WHITE else WHITE
        self.ranker = ranker
        self.rng = rng
        self.input = input or sys.stdin.readline
        self.out = output or sys.stdout
        self.compact = compact
        self.opening = opening_roll
        self.first_dice = None if first_dice is None else (max(first_dice), min(first_dice))
        self.save_dir = save_dir
        self.saved: Path | None = None
        self.opponent_name = opponent_name
        if start is not None:
            self.game = Game(start.board, white_on_roll=(human == WHITE))
        else:
            self.game = Game()
        self.record = GameRecord(
            white="human" if human == WHITE else opponent_name,
            black="human" if human == BLACK else opponent_name,
            start_position_id=self.game.position.position_id,
            start_on_roll=self.game.on_roll,
            seed=seed,
            date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )

    # ------------------------------------------------------------------ output helpers
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def board_text(self, dice=None) -> str:
        return render(self.game.board, self.game.white_on_roll, dice, viewer=self.human)

    def _roll(self):
        if self.first_dice is not None:
            d, self.first_dice = self.first_dice, None
            return d
        a, b = random_roll(self.rng)
        return (max(a, b), min(a, b))

    # ------------------------------------------------------------------ the game
    def run(self) -> int:
        """Play until the game ends or the human leaves. Returns the exit status (0, or 130
        after Ctrl-C)."""
        try:
            status = self._loop()
        except KeyboardInterrupt:
            self.say("\nInterrupted (Ctrl-C): game abandoned.")
            status = 130
        self._save()
        return status

    def _finish_record(self) -> None:
        """Write the game's result into the record (once the game is over)."""
        if self.game.over is not None and self.record.result is None:
            res = self.game.over
            how = HOW[res.points] if res.how == "bear-off" else res.how
            self.record.finish(res.winner, res.points, how)

    def _save(self) -> None:
        if self.save_dir is None:
            return
        self._finish_record()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        path = Path(self.save_dir).expanduser() / f"game-{stamp}.jsonl"
        n = 2
        while path.exists():
            path = path.with_name(f"game-{stamp}-{n}.jsonl")
            n += 1
        try:
            self.saved = write_record(self.record, path)
        except OSError as exc:
            self.say(f"Could not save the game record to {path}: {exc.strerror or exc}")
            return
        state = "" if self.record.result is not None else " (unfinished)"
        self.say(f"Game record{state} saved to {self.saved}")

    def _greeting(self) -> None:
        h = self.human
        sym = "O" if h == WHITE else "X"
        name = self.opponent_name
        self.say(f"You play {h.capitalize()} ({sym}) against {name}.")
        self.say(f"The board is drawn from your side and numbered in your ({h.capitalize()}'s) numbering: "
                 "you move 24 -> 1 and type plays in it; the computer's plays are shown in it too.")
        self.say(f"Hints from {getattr(self.ranker, 'name', 'the hint engine')}, {getattr(self.ranker, 'ply', 0)}-ply. "
                 "Type 'help' for commands; rules: docs/rules.md.")

    def _loop(self) -> int:
        g = self.game
        self._greeting()
        if self.opening:
            white_first, dice, throws = opening_roll(self.rng)
            g.white_on_roll = white_first
            self.record.start_on_roll = g.on_roll
            for w, b in throws:
                self.say(f"Opening roll: White {w}, Black {b}" + ("  (tie: roll again)" if w == b else ""))
            self.say(f"{g.on_roll.capitalize()} moves first with {dice[0]}-{dice[1]}.")
            self.first_dice = dice
        elif self.record.start_position_id == Position.start().position_id and self.first_dice is None:
            self.say("White moves first.")
        while g.over is None:
            dice = self._roll()
            if g.on_roll == self.computer:
                self._computer_turn(dice)
                continue
            if not self._human_turn(dice):
                return 0
        self._result()
        self._finish_record()  # so the review shows the result, not "unfinished"
        self._offer_review()
        return 0

    def _offer_review(self) -> None:
        """When a game has ended (played out, resigned or drawn), offer a review of the human's
        and the computer's checker plays (bgrl.records.review) by the hint engine; an empty answer or
        end of input skips. Offered whenever a turn was played, whoever played it (a game the
        human resigns or draws before their first play still has the computer's plays)."""
        if self.game.over is None or not self.record.turns:
            return
        self.say("Review this game (every play ranked by the judge, world-class, with your error rate)? [y/N]")
        answer = self.input()
        if not answer or answer.strip().lower() not in ("y", "yes"):
            return
        from bgrl.agents.levels import LevelAgent
        from bgrl.records.review import format_review, review_record

        if self.judge is not None:
            ranker = self.judge
        else:
            ranker = HintRanker.from_agent(self.agent) if isinstance(self.agent, LevelAgent) else self.ranker
        self.say(format_review(review_record(self.record, ranker), viewer=self.human))

    def _computer_play(self, pos, dice):
        """The computer's play of ``dice`` in ``pos`` (None when it cannot move); the cubeful
        game overrides it (bgrl.cli.play_cube)."""
        return self.agent.choose_play(pos, dice, self.rng)

    def _computer_turn(self, dice) -> None:
        g = self.game
        pos = g.position
        play = self._computer_play(pos, dice)
        self.record.add_turn(g.on_roll, pos, dice, play)
        who = f"{self.computer.capitalize()} ({'O' if self.computer == WHITE else 'X'})"
        if play is None:
            self.say(f"\n{who} rolls {dice[0]}-{dice[1]} and cannot move.")
            g.apply(g.board, dice)
            return
        self.say(f"\n{who} rolls {dice[0]}-{dice[1]} and plays {play.shown(self.compact, other_side=True)}"
                 f"   (in your numbering, {self.human.capitalize()}'s)")
        g.apply(play.after_state, dice)

    def _ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.input()
        if line == "":
            self.say("\nEnd of input: game abandoned.")
            return None
        return line

    def _human_turn(self, dice) -> bool:
        """One turn of the human. Returns False when the human leaves."""
        g = self.game
        pos = g.position
        self.say("")
        self.say(self.board_text(dice))
        plays = legal_plays(pos, dice)
        if not plays:
            self.say(f"You rolled {dice[0]}-{dice[1]} and cannot move: the turn passes. (press Enter)")
            if self._ask("") is None:
                return False
            self.record.add_turn(g.on_roll, pos, dice, None)
            g.apply(g.board, dice)
            return True
        ranked = None
        judged = None

        def ranking():
            nonlocal ranked
            if ranked is None:
                ranked = self.ranker(pos, dice)
            return ranked

        def judging():
            """The judge's ranking of this roll (the hint ranker's when no judge is set)."""
            nonlocal judged
            if self.judge is None:
                return ranking()
            if judged is None:
                judged = self.judge(pos, dice)
            return judged

        while True:
            line = self._ask(f"{self.human} to play {dice[0]}-{dice[1]}> ")
            if line is None:
                return False
            kind = read_command(line)
            if kind[0] == "empty":
                continue
            if kind[0] == "unknown":
                _, text, guess = kind
                hint = f" Did you mean '{guess}'?" if guess else ""
                self.say(f"  Unknown command {clip(text, 40)!r}.{hint} Type 'help' for the commands, or a play like 13/10 10/5.")
                continue
            if kind[0] == "play":
                try:
                    play = play_from_notation(pos, dice, kind[1])
                except IllegalPlayError as exc:
                    self._illegal(kind[1], exc, ranking())
                    continue
                self.say(f"  You play {play.shown(self.compact)}")
                self.record.add_turn(g.on_roll, pos, dice, play)
                g.apply(play.after_state, dice)
                return True
            _, name, args = kind
            if name in CONFIRMED:
                answer = self._confirm(self._confirm_question(name, args))
                if answer is None:
                    return False
                if not answer:
                    self.say(f"  Cancelled: no {name}; you are still to play {dice[0]}-{dice[1]}.")
                    continue
            if name == "quit":
                self.say("Game abandoned.")
                return False
            if name == "help":
                self.say(HELP)
            elif name == "board":
                self.say(self.board_text(dice))
            elif name == "hint":
                self.say(hint_table(ranking(), getattr(self.ranker, "name", "the hint engine"),
                                    getattr(ranking()[0], "ply", getattr(self.ranker, "ply", 0)), top=args[0] if args else 5,
                                    compact=self.compact))
                self.say(self._reasons(pos, ranking()))
            elif name == "resign":
                pts = RESIGN_VALUES[args[0]] if args else 1
                ok, text = resign_decision(-judging()[0].equity, pts)
                self.say(f"  {text}")
                if ok:
                    g.resign(self.human, pts)
                    return True
            elif name == "draw":
                ok, text = draw_decision(-judging()[0].equity)
                self.say(f"  {text}")
                if ok:
                    g.agree_draw()
                    return True

    def _reasons(self, pos, ranked) -> str:
        """Why the hint's best play is best: its facts and what differs from the second
        (:func:`bgrl.cli.hint.explain_text`, :mod:`bgrl.agents.explain`), indented."""
        from bgrl.cli.hint import explain_text

        return "\n".join("  " + line for line in explain_text(pos, ranked, n=2, compact=self.compact).splitlines())

    def _confirm_question(self, name: str, args) -> str:
        """The question :meth:`_confirm` asks before ``resign``, ``draw`` or ``quit``."""
        if name == "resign":
            pts = RESIGN_VALUES[args[0]] if args else 1
            return f"Offer to resign a {KIND[pts]} ({pts} point{'s' if pts > 1 else ''})?"
        if name == "draw":
            return "Offer a draw?"
        return "Leave this game without finishing it?"

    def _confirm(self, question: str) -> bool | None:
        """Ask ``question [y/N]``: True for ``y`` or ``yes`` (any case), False for anything
        else, None at end of input (the game is abandoned)."""
        line = self._ask(f"  {question} [y/N] ")
        if line is None:
            return None
        return line.strip().lower() in ("y", "yes")

    def _illegal(self, text: str, exc: IllegalPlayError, ranked) -> None:
        self.say(f"  Illegal play {clip(text, 40)!r}: {exc.reason}.")
        top = 8
        self.say(f"  Legal plays, best first, with equities from {getattr(self.ranker, 'name', 'the hint engine')}:")
        for r in ranked[:top]:
            self.say(f"    {r.play.shown(self.compact):<22} {r.equity:+.3f}")
        if len(ranked) > top:
            self.say(f"    … and {len(ranked) - top} more")

    def _result(self) -> None:
        g = self.game
        res = g.over
        if res.how == "draw":
            self.say("Game drawn by agreement.")
        else:
            kind = KIND[res.points]
            how = {"bear-off": "bearing off", "resign": "resignation"}[res.how]
            line = f"{res.winner.capitalize()} wins a {kind} ({res.points} point{'s' if res.points > 1 else ''}) by {how}."
            if res.how == "bear-off":
                self.say("")
                self.say(render(g.board, res.winner == WHITE, None, show_ids=False, viewer=self.human,
                                status=f"Game over: {line}"))
            else:
                self.say(f"\n{line}")
        self.say(f"Result for you: {res.points_for(self.human):+d}")


def run_from_args(args, load_ranker, cubeful=None) -> int:
    """``bgrl play``: build the game from parsed arguments and run it.

    ``load_ranker(agent)`` returns the hint ranker (the CLI decides which engine).
    Raises ValueError with the flag named for bad arguments.
    """
    from bgrl.agents.registry import load_agent
    from bgrl.rules.dice import parse_dice
    from bgrl.rules.xgid import read_position

    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    start, dice = None, None
    cube = _wants_cube(args)  # the cube reads --position/--dice itself (bgrl.cli.play_cube)
    if args.position is not None and not cube:
        if args.opening_roll:
            raise ValueError("--position and --opening-roll exclude each other: in a practised position you are on roll")
        start, dice = read_position(args.position)
        m_off, o_off = start.off
        if m_off == 15 or o_off == 15:
            raise ValueError(f"--position {start.position_id}: the game is over (a side has borne off all 15 checkers)")
    if args.dice is not None and not cube:
        if args.position is None:
            raise ValueError("--dice needs --position (the first roll of a practised position)")
        dice = parse_dice(args.dice)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**32))
    agent = load_agent(args.opponent)
    ranker = load_ranker(agent)
    judge = judge_ranker()
    save_dir = None if args.no_save else (Path(args.save).expanduser() if args.save else default_games_dir())
    if save_dir is not None:  # refuse an unusable folder before the game, not after it
        if save_dir.exists() and not save_dir.is_dir():
            raise ValueError(f"--save {clip(str(save_dir), 40)}: that is a file; expected a folder for game records")
        try:
            check_writable_dir(save_dir)
        except OSError as exc:
            raise ValueError(f"--save {clip(str(save_dir), 40)}: cannot create or write in the folder "
                             f"({exc.strerror or exc}); expected a writable folder, or --no-save") from None
    if cube:  # the game with the doubling cube: bgrl.cli.play_cube, which builds on this module
        if cubeful is None:
            raise ValueError("the cube options need the cubeful game (bgrl.cli.play_cube.cmd_play)")
        return cubeful(args, agent, ranker, seed, save_dir, judge).run()
    game = TerminalGame(agent, args.color, ranker, np.random.default_rng(seed), compact=(args.notation == "compact"),
                        start=start, first_dice=dice, opening_roll=args.opening_roll, save_dir=save_dir, seed=seed,
                        opponent_name=getattr(agent, "name", str(args.opponent)), judge=judge)
    return game.run()


def _wants_cube(args) -> bool:
    """Whether ``bgrl play`` was given --cube or one of its options."""
    return bool(getattr(args, "cube", False)
                or any(getattr(args, f, None) not in (None, False) for f in ("jacoby", "beavers"))
                or any(getattr(args, f, None) is not None for f in ("match", "cube_cap")))  # --match 0 counts too


# ----------------------------------------------------------------------------- the command
def judge_ranker() -> HintRanker:
    """The judge of ``bgrl play``'s resignations, draws and end-of-game review: the strongest
    level (:data:`bgrl.agents.levels.JUDGE_LEVEL`), whatever the opponent and the hint
    engine (--hint-level, --checkpoint) are."""
    from bgrl.agents.levels import JUDGE_LEVEL, load_level

    return level_ranker(load_level(JUDGE_LEVEL), "the judge")


def level_ranker(agent, whose: str = "the opponent's") -> HintRanker:
    """The hint ranker of a level agent (:class:`bgrl.agents.levels.LevelAgent`): its
    noise-free search at its ply, named ``level <name> (<whose>)``."""
    return HintRanker.from_agent(agent, name=f"level {agent.name} ({whose})")


def play_ranker(args):
    """The hint engine of ``bgrl play``, a :class:`bgrl.agents.hints.HintRanker`:
    --hint-level's search, else --checkpoint at 0-ply, else the hint default's search
    (:data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`, the same on every surface; never the
    opponent's own level).

    Returns ``load(agent) -> HintRanker``. Raises CLIError when --hint-level and
    --checkpoint are both given."""
    def load(agent):

        evaluator = getattr(agent, "evaluator", None)
        if getattr(args, "hint_level", None) is not None:
            from bgrl.agents.levels import load_level
            from bgrl.cli.levels import check_level

            if args.checkpoint is not None:
                raise CLIError("--hint-level and --checkpoint exclude each other: both choose the hint engine")
            return level_ranker(load_level(check_level(args.hint_level)), "--hint-level")
        if args.checkpoint is None:  # the one hint default everywhere, never the opponent's own level
            from bgrl.agents.levels import DEFAULT_HINT_LEVEL, load_level

            return level_ranker(load_level(DEFAULT_HINT_LEVEL), "the hint default")
        if evaluator is None or args.checkpoint is not None:
            evaluator, path = evaluator_for(args.checkpoint)
            return HintRanker(evaluator, 0, name=f"network {path.name}")
        return HintRanker(evaluator, 0, name=f"network {getattr(agent, 'name', 'opponent')} (the opponent's)")

    return load


def cmd_play(args, cubeful=None) -> int:
    """``bgrl play``; ``cubeful`` makes the game of the cube options (``bgrl play`` is
    registered by :func:`bgrl.cli.play_cube.add_parser`, which passes it)."""
    if args.level is not None:
        from bgrl.cli.levels import check_level

        if args.opponent != "default":
            raise CLIError("--level and --opponent exclude each other: --level LEVEL is --opponent LEVEL")
        args.opponent = check_level(args.level)
    return run_from_args(args, play_ranker(args), cubeful)


def add_parser(sub) -> None:
    pl = sub.add_parser("play", help="play a game against the computer in the terminal", formatter_class=HelpFormatter,
                        description="A money game (no cube; --cube adds it, --match N plays a match) against the computer in the terminal. The board is drawn "
                        f"and numbered from your side; type 'help' in the game for its commands. {RULES_NOTE}")
    pl.add_argument("--color", "--colour", choices=["white", "black"], default="white",
                    help="your colour; White moves first (default: %(default)s)")
    pl.add_argument("--opponent", default="default", help="random, pubeval, a level name, default (the shipped network), a "
                    "checkpoint file or a run folder (default: %(default)s)")
    pl.add_argument("--level", default=None, help="play against this level (see bgrl levels); the same as --opponent LEVEL")
    pl.add_argument("--seed", type=int, default=None, help="seed of the dice, >= 0 (default: a fresh random seed, "
                    "written to the game record)")
    pl.add_argument("--opening-roll", action="store_true", help="RULES.md option: each side throws one die, the "
                    "higher moves first with both (default: off)")
    pl.add_argument("--hint-level", metavar="LEVEL", default=None, help="level whose noise-free search gives the hints "
                    "(default: the opponent's level; see bgrl levels); resignations, draws and the end-of-game review are "
                    "always judged by world-class, the strongest 1-ply level")
    pl.add_argument("--checkpoint", metavar="PATH", help="network that gives the hints at 0-ply "
                    "(default: the opponent's network, or the shipped one when the opponent has none)")
    pl.add_argument("--position", metavar="ID", help="practise a position: start from this Position ID or XGID with "
                    "you on roll (default: the start position)")
    pl.add_argument("--dice", metavar="D", help="your first roll with --position, e.g. 31 (default: the XGID's dice, "
                    "else a random roll)")
    pl.add_argument("--notation", choices=["compact", "dice"], default="compact", help="how plays are shown: "
                    "'compact' = gnubg style (24/13, 6/5(2)), 'dice' = one move per die (default: %(default)s)")
    pl.add_argument("--save", metavar="DIR", help="folder for the game record, bgrl-game-1 JSON lines "
                    "(default: $BGRL_GAMES_DIR, else ~/.bgrl/games)")
    pl.add_argument("--no-save", action="store_true", help="do not save a game record (default: off)")
    _add_cube_flags(pl)
    pl.set_defaults(func=cmd_play)


def _add_cube_flags(pl) -> None:
    """``bgrl play``'s cube options (bgrl.cli.play_cube; docs/cube.md)."""
    pl.add_argument("--cube", action="store_true", help="play with the doubling cube: type 'double' before you roll, "
                    "'take'/'pass' when the computer doubles; a money session, or a match with --match (default: off)")
    pl.add_argument("--match", type=int, metavar="N", default=None, help="with --cube: play an N-point match "
                    "(Crawford rule) (default: money play)")
    pl.add_argument("--jacoby", action="store_true", help="with --cube, money: the Jacoby rule (default: off)")
    pl.add_argument("--beavers", action="store_true", help="with --cube, money: beavers allowed (default: off)")
    pl.add_argument("--cube-cap", type=int, metavar="V", default=None, help="with --cube: the largest cube value, a "
                    "power of 2 (default: 32768)")

