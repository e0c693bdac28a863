"""``bgrl play --cube [--match N] [--jacoby] [--beavers] [--cube-cap V]``: the terminal game with
the doubling cube, a money session or an N-point match (docs/cube.md).

:class:`CubefulTerminalGame` extends :class:`bgrl.cli.play.TerminalGame` (same board, plays,
hints, resignations, records) with the cube; the rules of the cube and the score are
:class:`bgrl.rules.match.Match`'s, the computer's cube actions and its cubeful checker play
are :mod:`bgrl.agents.cube`'s (its level's cubeless evaluation through Janowski's model; at
a score by match winning chances from the Kazaross-XG2 table).

The dialogue:

* before each of the player's rolls, when the player may double, the prompt ``... cube N>``
  takes ``double``, Enter or ``roll`` (roll the dice), ``hint`` (the cube decision of the
  hint engine), ``board``, ``help``, ``quit``;
* when the computer doubles, the prompt takes ``take``, ``pass``, ``beaver`` (when beavers
  are allowed), ``hint``, ``board``, ``help``, ``quit``;
* ``take``/``pass``/``beaver`` with no double offered, or ``double`` after the roll, gets a
  one-line message and the prompt again;
* every board shows the cube (value and owner) and the score in its header;
* a money session goes on while the player answers ``y`` to "Another game?"; a match goes
  on to N points, announcing the Crawford game and the post-Crawford games. The first
  game is White's to start, then the side to start alternates (unless --opening-roll).
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from bgrl.agents.cube import answer_double, cube_decisions, cube_hint, cubeful_choose_play, wants_double
from bgrl.cli import play as _play
from bgrl.cli.play import TerminalGame
from bgrl.records.record import GameRecord
from bgrl.rules.dice import opening_roll
from bgrl.rules.game import BLACK, WHITE, Game, GameOver
from bgrl.rules.match import Match, MatchRules, other

__all__ = ["CubefulTerminalGame", "cubeful_game", "cmd_play", "add_parser", "CUBE_HELP", "CUBE_WORDS"]

CUBE_WORDS = ("double", "take", "pass", "beaver")
_HOW = {1: "single game", 2: "gammon", 3: "backgammon"}

CUBE_HELP = """Cube commands:
  double            before you roll (at the 'cube' prompt): offer the computer a double
  Enter or roll     roll the dice
  take / pass       answer the computer's double (pass: you lose the current stake)
  beaver            (money play with --beavers) take and redouble at once, keeping the cube
  hint              at a cube prompt: the cube decision of the hint engine
The board header shows the cube (value, owner) and the score."""


class CubefulTerminalGame(TerminalGame):
    """The terminal game with the doubling cube (module docstring).

    Parameters
    ----------
    rules : bgrl.rules.match.MatchRules (money play or an N-point match).
    cube_engine : optional ``(evaluator, ply, name)`` for the player's cube hints (default:
        the hint ranker's evaluator and ply, else the computer's).
    match : optional :class:`bgrl.rules.match.Match` to continue (e.g. from an XGID's cube and
        score with ``start``; default a new one of ``rules``).
    The other parameters are :class:`bgrl.cli.play.TerminalGame`'s; with ``start`` the first
    game starts from that position, the player on roll (``first_dice``: already rolled, so no
    cube prompt on that turn).
    """

    def __init__(self, agent, human, ranker, rng, rules: MatchRules | None = None, cube_engine=None, match: Match | None = None,
                 **kw):
        super().__init__(agent, human, ranker, rng, **kw)
        self.match = match if match is not None else Match(rules or MatchRules())
        self._practice = kw.get("start") is not None
        self.cube_engine = cube_engine
        self._record_saved = False
        self._passed: GameOver | None = None
        self._dice = None

    # ------------------------------------------------------------------ helpers
    def _names(self) -> dict:
        return {self.human: "you", self.computer: self.opponent_name}

    def board_text(self, dice=None) -> str:
        return self.match.describe_cube(names=self._names()) + "\n" + super().board_text(dice)

    def _cube(self, colour):
        return self.match.cube_for(colour)

    def _hint_engine(self):
        if self.cube_engine is not None:
            return self.cube_engine
        for src in (self.ranker, self.agent, self.judge):  # the hint engine first: one engine for every hint of a game
            ev = getattr(src, "evaluator", None)
            if ev is not None:
                ply = getattr(src, "ply", None)
                if ply is None:
                    ply = getattr(getattr(src, "level", None), "ply", 0)
                return ev, int(ply), getattr(src, "name", "the hint engine")
        return None

    def _cube_hint_text(self, board, cube, whose: str) -> str:
        eng = self._hint_engine()
        if eng is None:
            return "  No cube hint: the hint engine has no network."
        ev, ply, name = eng
        from bgrl.rules.board import Position

        d, _ = cube_hint(ev, Position(board), cube, ply)
        e = d.as_dict()["equities"]
        take = "take" if d.take else "pass"
        return (f"  Cube hint from {name}, {ply}-ply ({whose}): {d.decision}; the answer to a double: {take}"
                + (" (beaver)" if d.beaver else "") + "\n"
                f"  cubeful equities of the side on roll: no double {e['no_double']:+.3f}, double/take "
                f"{e['double_take']:+.3f}, double/pass {e['double_pass']:+.3f}")

    def _read(self, prompt: str) -> str | None:
        """A line from the player, without the cube-word filter of :meth:`_ask`."""
        return TerminalGame._ask(self, prompt)

    def _ask(self, prompt: str) -> str | None:
        """The checker-play prompt: cube words get a message (the cube is used before the roll)."""
        while True:
            line = self._read(prompt)
            if line is None:
                return None
            word = line.strip().lower()
            if word == "double":
                why = self.match.why_no_double(self.human) if self.game.on_roll == self.human else "it is not your turn"
                self.say(f"  Cannot double: {why}." if why else "  You can double only before you roll, at the cube prompt.")
            elif word in ("take", "pass", "beaver"):
                self.say(f"  Cannot {word}: no double was offered.")
            elif word == "draw" and self.match.rules.is_match:
                self.say("  No draws in a match: play on, or resign.")
            elif self._dice is not None and self._cubeful_hint_asked(word):
                pass
            else:
                return line

    def _human_turn(self, dice) -> bool:
        self._dice = dice
        try:
            return super()._human_turn(dice)
        finally:
            self._dice = None

    def _cubeful_hint_asked(self, word: str) -> bool:
        """``hint`` / ``hint N`` at the play prompt: the plays ranked by cubeful equity (at a
        score by match winning chances) with the current cube. True when it was shown."""
        words = word.split()
        if not words or words[0] != "hint" or len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
            return False
        top = int(words[1]) if len(words) == 2 else 5
        self.say(self.cubeful_hint_text(self.game.position, self._dice, top))
        return True

    def cubeful_hint_text(self, pos, dice, top: int = 5) -> str:
        """The hint table with the cube: the hint engine's plays (its ply) ranked by
        :func:`bgrl.agents.cube.cubeful_values` with the cube of the side on roll; money:
        cubeful equity per unit of the cube, a match: match winning chances too."""
        from bgrl.agents.cube import cubeful_rank

        rows = self.ranker(pos, dice)
        if not rows:
            return "  no die can be played: the turn passes"
        cube = self._cube(self.game.on_roll)
        ranked, vals = cubeful_rank(rows, cube)
        rows, order = ranked, list(range(len(ranked)))
        shown = order[: top if top > 0 else len(order)]
        names = [rows[i].play.shown(self.compact) for i in shown]
        width = max(8, max(len(n) for n in names))
        match = cube.is_match
        head = f"  {'#':>3}  {'play':<{width}}  {'cubeful':>8}  {'vs best':>8}" + ("  {:>6}".format("MWC") if match else "") + \
            f"  {'cubeless':>8}  {'win':>6}  {'wg':>6}  {'lg':>6}"
        lines = [f"  Hint with the cube from {getattr(self.ranker, 'name', 'the hint engine')}, "
                 f"{getattr(rows[0], 'ply', getattr(self.ranker, 'ply', 0))}-ply; best first (cube {cube.value}):", head]
        best = vals[order[0]]
        for k, (i, name) in enumerate(zip(shown, names)):
            r = rows[i]
            p = r.probabilities
            cells = f"  {k + 1:3d}  {name:<{width}}  {vals[i]:+8.3f}  {vals[i] - best:+8.3f}"
            if match:
                cells += f"  {100 * _mwc(vals[i], cube):5.1f}%"
            cells += f"  {r.equity:+8.3f}  {p.win:6.3f}  {p.win_gammon:6.3f}  {p.lose_gammon:6.3f}"
            lines.append(cells)
        if len(order) > len(shown):
            lines.append(f"  … and {len(order) - len(shown)} more")
        scale = ("match winning chances on the equity scale of the cube (+1 = winning the cube's points)"
                 if match else "equity per unit of the cube, after the opponent's best cube action (Janowski)")
        lines.append(f"  cubeful: {scale}; cubeless: points per game without the cube; win/wg/lg: your chances to win, "
                     "win a gammon, lose a gammon")
        return "\n".join(lines)

    def _save(self) -> None:
        if self._record_saved:
            return
        super()._save()
        self._record_saved = True

    def _finish_record(self) -> None:
        if self._passed is not None:  # a game ended by a pass: the record holds the checker plays only
            return
        super()._finish_record()

    # ------------------------------------------------------------------ the session
    def _start_game(self, first: bool = False) -> None:
        m = self.match
        n = m.game_number
        if not first:
            self.game = Game()
            self.record = GameRecord(
                white="human" if self.human == WHITE else self.opponent_name,
                black="human" if self.human == BLACK else self.opponent_name,
                start_position_id=self.game.position.position_id, start_on_roll=self.game.on_roll,
                seed=self.record.seed, date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
            self._record_saved = False
        self._passed = None
        if not self.opening and not (first and self._practice):
            self.game.white_on_roll = (n % 2 == 1)
            self.record.start_on_roll = self.game.on_roll
        self.say("")
        head = f"Game {n}"
        if m.rules.is_match:
            head += f" of a {m.rules.match_length}-point match: you {m.score[self.human]}, {self.opponent_name} {m.score[self.computer]}"
        self.say(head + ".")
        if m.crawford:
            leader = "you are" if m.away(self.human) == 1 else f"{self.opponent_name} is"
            self.say(f"This is the Crawford game ({leader} 1 point away): no doubling in this game.")
        elif m.post_crawford:
            self.say("Post-Crawford game: the cube is back in play.")

    def _loop(self) -> int:
        self._greeting()
        self.say(f"With the doubling cube: {self.match.rules.describe()}. Type 'double' at the cube prompt, before you "
                 "roll; 'help' lists the cube commands.")
        self.say("The computer's plays are chosen by cubeful equity (at a score, by match winning chances); "
                 "'hint' at the play prompt ranks the plays the same way.")
        first = True
        while True:
            self._start_game(first)
            first_game, first = first, False
            if first_game and self._practice:
                self.say(f"From position {self.game.position.position_id}, you on roll.")
            elif self.opening:
                white_first, dice, throws = opening_roll(self.rng)
                self.game.white_on_roll = white_first
                self.record.start_on_roll = self.game.on_roll
                for w, b in throws:
                    self.say(f"Opening roll: White {w}, Black {b}" + ("  (tie: roll again)" if w == b else ""))
                self.say(f"{self.game.on_roll.capitalize()} moves first with {dice[0]}-{dice[1]}.")
                self.first_dice = dice
            else:
                self.say(f"{self.game.on_roll.capitalize()} moves first.")
            if not self._play_game():
                return 0
            self._score_game()
            self._finish_record()
            self._offer_review()
            self._save()
            m = self.match
            if m.rules.is_match:
                if m.over:
                    who = "You win" if m.winner == self.human else f"{self.opponent_name} wins"
                    self.say(f"{who} the {m.rules.match_length}-point match, {m.score[m.winner]}-{m.score[other(m.winner)]}.")
                    return 0
            else:
                self.say(f"Session: you {m.score[self.human]:+d} after {len(m.games)} game{'s' if len(m.games) > 1 else ''}.")
                self.say("Another game? [y/N]")
                answer = self.input()
                if not answer or answer.strip().lower() not in ("y", "yes"):
                    return 0
            m.next_game()

    def _play_game(self) -> bool:
        """Play the game in progress to its end. False when the player leaves."""
        g = self.game
        while g.over is None:
            if g.on_roll == self.computer:
                r = self._computer_cube()
            else:
                r = self._human_cube()
            if r == "left":
                return False
            if r == "over":
                break
            dice = self._roll()
            if g.on_roll == self.computer:
                self._computer_turn(dice)
            elif not self._human_turn(dice):
                return False
        return True

    def _score_game(self):
        g, m = self.game, self.match
        if self._passed is not None:
            gs = m.games[-1]
        elif g.over.how == "draw":
            gs = m.end_game(None, 0, "draw")
        else:
            gs = m.end_game(g.over.winner, g.over.points, g.over.how)
        self._result_cube(gs)
        return gs

    def _result_cube(self, gs) -> None:
        g = self.game
        if gs.how == "draw":
            self.say("Game drawn by agreement.")
        else:
            who = "You win" if gs.winner == self.human else f"{self.opponent_name} wins"
            pts = f"{gs.points} point{'s' if gs.points != 1 else ''}"
            if gs.how == "pass":
                line = f"{who} {pts}: the double was passed (cube at {gs.cube})."
            else:
                how = "bearing off" if gs.how == "bear-off" else "resignation"
                kind = _HOW[gs.result]
                jac = " (Jacoby rule: single, the cube was not turned)" if gs.points < gs.cube * gs.result else ""
                line = f"{who} a {kind} by {how} with the cube at {gs.cube}: {pts}{jac}."
            if gs.how == "bear-off":
                from bgrl.rules.render import render

                self.say("")
                self.say(render(g.board, gs.winner == WHITE, None, show_ids=False, viewer=self.human, status=f"Game over: {line}"))
            else:
                self.say(f"\n{line}")
        self.say(f"Result for you: {gs.points_for(self.human):+d}")
        self.say(self.match.describe_cube(names=self._names()).split(" | ", 1)[-1])

    # ------------------------------------------------------------------ cube turns
    def _human_cube(self) -> str | None:
        """The player's cube prompt before the roll. Returns None (roll), "over" or "left"."""
        m, h = self.match, self.human
        if not m.may_double(h) or self.first_dice is not None:  # a roll already on the table (--dice, an XGID's dice)
            return None
        board = self.game.board
        self.say("")
        self.say(self.board_text())
        while True:
            line = self._read(f"{h} on roll, cube {m.cube_value} ('double', or Enter to roll)> ")
            if line is None:
                return "left"
            word = line.strip().lower()
            if word in ("", "roll", "r"):
                return None
            if word == "double":
                cube = self._cube(h)
                m.double(h)
                answer = answer_double(self.agent, board, cube)
                c = self.opponent_name
                if answer == "pass":
                    self.say(f"  You double to {2 * cube.value}. {c} passes.")
                    gs = m.drop(self.computer)
                    self._passed = self.game.over = GameOver(h, gs.result, "pass")
                    return "over"
                if answer == "beaver":
                    m.beaver(self.computer)
                    self.say(f"  You double to {2 * cube.value}. {c} beavers: the cube is at {m.cube_value}, {c}'s.")
                else:
                    m.take(self.computer)
                    self.say(f"  You double to {m.cube_value}. {c} takes.")
                return None
            if word in ("take", "pass", "beaver"):
                self.say(f"  Cannot {word}: no double was offered.")
                continue
            done = self._cube_prompt_word(word, board, self._cube(h), "you on roll")
            if done == "left":
                return "left"
            if done is None:
                self.say(f"  At the cube prompt: 'double', Enter to roll, 'hint', 'board', 'help' or 'quit' (got {word[:40]!r}).")

    def _computer_cube(self) -> str | None:
        """The computer's cube action before its roll, and the player's answer."""
        m, c = self.match, self.computer
        if not m.may_double(c):
            return None
        board = self.game.board
        cube = self._cube(c)
        d = cube_decisions(self.agent, board[None], [cube])[0]
        if not wants_double(d, cube):
            return None
        m.double(c)
        name = self.opponent_name
        self.say("")
        self.say(self.board_text())
        beaver_ok = m.why_no_beaver(self.human) is None
        words = "'take', 'pass'" + (", 'beaver'" if beaver_ok else "")
        self.say(f"{name} doubles to {2 * cube.value}.")
        while True:
            line = self._read(f"{self.human}: {words} or 'hint'> ")
            if line is None:
                return "left"
            word = line.strip().lower()
            if word == "take":
                m.take(self.human)
                self.say(f"  You take: the cube is at {m.cube_value}, yours.")
                return None
            if word == "pass":
                gs = m.drop(self.human)
                self.say(f"  You pass: {name} wins {gs.points} point{'s' if gs.points != 1 else ''}.")
                self._passed = self.game.over = GameOver(c, gs.result, "pass")
                return "over"
            if word == "beaver":
                why = m.why_no_beaver(self.human)
                if why is not None:
                    self.say(f"  Cannot beaver: {why}.")
                    continue
                m.beaver(self.human)
                self.say(f"  You beaver: the cube is at {m.cube_value}, yours.")
                return None
            if word == "double":
                self.say("  A double is waiting for your answer: take or pass.")
                continue
            done = self._cube_prompt_word(word, board, cube, f"{name} on roll, your answer is its 'take'")
            if done == "left":
                return "left"
            if done is None:
                self.say(f"  Answer the double: {words} (or 'hint', 'board', 'help', 'quit'); got {word[:40]!r}.")

    def _cube_prompt_word(self, word: str, board, cube, hint_note: str) -> str | None:
        """The words both cube prompts share: ``hint``, ``board``, ``help`` ("done"), and
        ``quit`` (also ``exit``, ``q``), confirmed with y/yes as at the play prompt ("left",
        or "done" when cancelled; "left" too at the end of input). None for any other word."""
        if word == "hint":
            self.say(self._cube_hint_text(board, cube, hint_note))
        elif word == "board":
            self.say(self.board_text())
        elif word == "help":
            self.say(CUBE_HELP)
        elif word in ("quit", "exit", "q"):
            answer = self._confirm(self._confirm_question("quit", ()))
            if answer is None or answer:
                self.say("Game abandoned.")
                return "left"
            self.say("  Cancelled: the game goes on.")
        else:
            return None
        return "done"

    def _computer_play(self, pos, dice):
        """Cubeful checker play with the cube as it stands (bgrl.agents.cube.cubeful_choose_play)."""
        return cubeful_choose_play(self.agent, pos, dice, self._cube(self.game.on_roll), self.rng)


def _mwc(eq: float, cube) -> float:
    """The side on roll's match winning chance of a value on gnubg's equity scale at ``cube``."""
    from bgrl.agents.cube import value_mwc

    return float(value_mwc([eq], cube)[0])


def cubeful_game(args, agent, ranker, seed, save_dir, judge) -> CubefulTerminalGame:
    """The cubeful game of ``bgrl play --cube ...`` from parsed arguments. ValueError naming
    the flag for a bad combination (exit status 2)."""
    from bgrl.cli.match import cube_rules

    rules = cube_rules(args)
    start, dice, match = _cube_start(args, rules)
    return CubefulTerminalGame(agent, args.color, ranker, np.random.default_rng(seed), rules=rules, match=match,
                               start=start, first_dice=dice,
                               compact=(args.notation == "compact"), opening_roll=args.opening_roll,
                               save_dir=save_dir, seed=seed, opponent_name=getattr(agent, "name", str(args.opponent)),
                               judge=judge)


def _cube_start(args, rules: MatchRules):
    """``(start, dice, match)`` of ``bgrl play --cube --position ID [--dice D]``, or Nones.

    The position may carry the cube and the score (an XGID's cube fields, or gnubg's
    ``PositionID:MatchID``): they are the state of the first game, the player on roll, and
    ``--match`` must then agree with the XGID's match length. ValueError naming the flag
    (exit status 2) for a finished game, --opening-roll with --position, --dice without
    --position, or a match length that differs."""
    from bgrl.rules.cube import CubeState
    from bgrl.rules.dice import parse_dice
    from bgrl.rules.xgid import read_position_cube

    if args.position is None:
        if args.dice is not None:
            raise ValueError("--dice needs --position (the first roll of a practised position)")
        return None, None, None
    if args.opening_roll:
        raise ValueError("--position and --opening-roll exclude each other: in a practised position you are on roll")
    try:
        start, dice, cube = read_position_cube(args.position)
    except ValueError as exc:
        raise ValueError(f"--position: {exc}") from None
    if 15 in start.off:
        raise ValueError(f"--position {start.position_id}: the game is over (a side has borne off all 15 checkers)")
    if args.dice is not None:
        dice = parse_dice(args.dice)
    plain = CubeState()
    if (cube.value, cube.owner, cube.match_length, cube.crawford, cube.jacoby, cube.beavers) == (
            plain.value, plain.owner, plain.match_length, plain.crawford, plain.jacoby, plain.beavers):
        return start, dice, None  # no cube fields: the flags' rules
    if args.match is not None and args.match != cube.match_length:
        raise ValueError(f"--match {args.match} differs from the position's match length {cube.match_length or '0 (money)'}")
    if args.cube_cap is not None:
        from dataclasses import replace

        cube = replace(cube, max_value=rules.max_value)
    match = Match.from_cube_state(cube, args.color)
    return start, dice, match


def cmd_play(args) -> int:
    """``bgrl play``, with or without the cube: :func:`bgrl.cli.play.cmd_play` with this
    module's cubeful game for the cube options."""
    return _play.cmd_play(args, cubeful=cubeful_game)


def add_parser(sub) -> None:
    """Register ``bgrl play`` (:func:`bgrl.cli.play.add_parser`'s flags) with :func:`cmd_play`,
    so that the plain game's module never imports the cubeful one."""
    _play.add_parser(sub)
    sub.choices["play"].set_defaults(func=cmd_play)
