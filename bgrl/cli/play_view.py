"""The terminal game (``bgrl play``): a view of :class:`bgrl.session.game.GameSession`.

The game itself (the rolls, the computer's turns, forced plays and passes, the cube
exchange, resignations and draws valued with the cube, Crawford and post-Crawford games,
the match's end and the game records) is the session's, the same one the web board plays
(:mod:`bgrl.service.web`). :class:`TerminalGame` only renders the session's state and events
and passes the player's commands to it; with a store (:class:`bgrl.session.local.LocalGames`)
every change is saved, so ``bgrl play --resume`` and the web board's "My games" see it.

The dialogue reads lines from an ``input`` callable and writes to an ``output`` stream, so
tests drive it with fake input; the commands it reads, its help and its hint tables are
:mod:`bgrl.cli.terminal_text`. Its conventions:

* The board is drawn and numbered from the player's side (as GNU Backgammon does); the
  computer's plays are shown in the player's numbering, and the text says so.
* Hints come from the *hint ranker* ``ranker(position, dice) -> list[RankedPlay]`` (best
  first; ``bgrl play``: the one hint default :data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`,
  or --hint-level). With the cube the plays are ranked by cubeful equity, in a match by
  match winning chances (:func:`bgrl.agents.cube.cubeful_rank`), and at a cube decision a
  hint gives the cube advice (:func:`bgrl.agents.cube.cube_hint`), as on the web board.
* Resignations and draws are judged by the *judge* (``bgrl play``: world-class,
  :data:`bgrl.agents.levels.JUDGE_LEVEL`), with the dice on the table, never by the
  opponent's own level; a resignation scores cube x result. The judge also reviews the game
  at its end: with the cube every play at the cube and score of its turn, and every double,
  take and pass (:func:`bgrl.session.review.review_session`).
* The game record (``bgrl-game-1``) is written to ``save_dir`` when a game ends or is left.

With the cube (``rules``): before each of the player's rolls where a double is allowed, the
prompt ``... cube N>`` takes ``double``, Enter or ``roll``, ``hint``, ``board``, ``help``,
``quit``; when the computer doubles, the prompt takes ``take``, ``pass``, ``beaver`` (when
allowed), ``hint``, ``board``, ``help``, ``quit``; a money session goes on while the player
answers ``y`` to "Another game?", a match to N points.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import numpy as np

from bgrl._text import clip
from bgrl.agents.cube import cube_hint
from bgrl.agents.levels import DEFAULT_HINT_LEVEL
from bgrl.agents.offers import KIND
from bgrl.cli.terminal_text import (CONFIRMED, CUBE_HELP, CUBE_WORDS, HELP, cube_hint_text, cubeful_hint_table,
                                    hint_table, read_command)
from bgrl.records.record import write_record
from bgrl.records.review_report import format_review
from bgrl.rules.board import Position
from bgrl.rules.game import BLACK, RESIGN_VALUES, WHITE
from bgrl.rules.notation import IllegalPlayError, play_from_notation
from bgrl.rules.outcome import RESULT_TITLES
from bgrl.rules.render import render
from bgrl.session.game import MAX_SEED, GameSession
from bgrl.session.local import AgentEngine

__all__ = ["TerminalGame"]


def _s(n: int) -> str:
    return "" if abs(n) == 1 else "s"


class TerminalGame:
    """The terminal view of one :class:`GameSession` (module docstring).

    Parameters
    ----------
    agent : bgrl agent (``choose_play(position, dice, rng)``), the computer.
    human : ``"white"`` or ``"black"``.
    ranker : hint ranker ``(position, dice) -> list[RankedPlay]`` with ``name`` and ``ply``.
    rng : numpy Generator; with ``seed`` None the session's seed is drawn from it.
    input : callable returning the next line ('' at end of input), like ``sys.stdin.readline``.
    output : text stream.
    compact : show plays in gnubg's compact notation (``24/13``) instead of one move per die.
    start : optional Position to start from, the player on roll (practise a position).
    first_dice : optional dice for the first turn (with ``start``).
    opening_roll : docs/rules.md's opening roll (not with ``start``).
    save_dir : folder for the game records, or None for none.
    seed : the session's seed (dice and the computer's choices), written to the record.
    opponent_name : the computer's name in the records and the text.
    judge : ranker that judges resignations and draws and reviews the games (None = ``ranker``).
    rules : :class:`bgrl.rules.match.MatchRules`: play with the cube (None: cubeless).
    match : a :class:`bgrl.rules.match.Match` to continue (an XGID's cube and score).
    cube_engine : optional ``(evaluator, ply, name)`` of the cube hints (default: the hint
        ranker's evaluator and ply, else the computer's, else the judge's).
    session : a GameSession to continue (``bgrl play --resume``); the game options above are then its own.
    games : :class:`bgrl.session.local.LocalGames` that stores every change, or None.
    level : the opponent as the session names it (``bgrl play``: --opponent/--level, so a resumed
        game loads it again); default ``opponent_name``.
    hint_level : the hint level's name the session records (default the hint default).

    Raises
    ------
    ValueError (SessionError) for a colour other than white/black, a finished ``start``, dice
    without ``start``, ``start`` with ``opening_roll``.
    """

    def __init__(self, agent, human: str, ranker, rng=None, input=None, output=None, compact: bool = True,
                 start: Position | None = None, first_dice=None, opening_roll: bool = False,
                 save_dir: Path | None = None, seed: int | None = None, opponent_name: str = "computer", judge=None,
                 rules=None, match=None, cube_engine=None, session: GameSession | None = None, games=None,
                 level: str | None = None, hint_level: str | None = None):
        if session is None and human not in (WHITE, BLACK):
            raise ValueError(f"human must be 'white' or 'black', got {human!r}")
        self.agent = agent
        self.ranker = ranker
        self.judge = judge
        self.input = input or sys.stdin.readline
        self.out = output or sys.stdout
        self.compact = compact
        self.save_dir = save_dir
        self.saved: Path | None = None
        self.opponent_name = opponent_name
        self.cube_engine = cube_engine
        self.games = games
        self.engine = AgentEngine(agent, judge if judge is not None else ranker, ranker)
        self.resumed = session is not None
        if session is None:
            if seed is None:
                seed = int((rng if rng is not None else np.random.default_rng()).integers(0, MAX_SEED + 1))
            loose = first_dice is not None and start is None and not opening_roll
            session = GameSession.new(level=level or opponent_name, colour=human, seed=seed,
                                      hint_level=hint_level or DEFAULT_HINT_LEVEL, opening=opening_roll, start=start,
                                      first_dice=None if loose else first_dice, rules=rules if match is None else None,
                                      match=match, names=("human", opponent_name))
            if loose:  # the first roll of the game from the start position, whoever is on roll (a scripted game)
                session.first_dice = (max(first_dice), min(first_dice))
        self.session = session
        self.human = session.human
        self.computer = session.computer
        self._seen = session.event_seq  # events rendered so far
        self._saved_games: set[int] = set()  # games whose record file was written (a cube session's index)
        self._practice = session.set_up

    # ------------------------------------------------------------------ the session's state
    @property
    def game(self):
        """The game in play (:class:`bgrl.rules.game.Game`)."""
        return self.session.game

    @property
    def match(self):
        """The session's :class:`bgrl.rules.match.Match`, or None without the cube."""
        return self.session.match

    @property
    def record(self):
        """The game record of the game in play."""
        return self.session.record

    # ------------------------------------------------------------------ output helpers
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def _names(self) -> dict:
        return {self.human: "you", self.computer: self.opponent_name}

    def board_text(self, dice=None) -> str:
        g = self.game
        text = render(g.board, g.white_on_roll, dice, viewer=self.human)
        return text if self.match is None else self.match.describe_cube(names=self._names()) + "\n" + text

    def _ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.input()
        if line == "":
            self.say("\nEnd of input: game abandoned.")
            return None
        return line

    def _confirm(self, question: str) -> bool | None:
        """Ask ``question [y/N]``: True for ``y`` or ``yes`` (any case), False for anything
        else, None at end of input (the game is abandoned)."""
        line = self._ask(f"  {question} [y/N] ")
        if line is None:
            return None
        return line.strip().lower() in ("y", "yes")

    def _confirm_question(self, name: str, args) -> str:
        """The question :meth:`_confirm` asks before ``resign``, ``draw`` or ``quit``."""
        if name == "resign":
            pts = RESIGN_VALUES[args[0]] if args else 1
            cube = 1 if self.match is None else self.match.cube_value
            at = "" if cube == 1 else f" at a cube of {cube}"
            return f"Offer to resign a {KIND[pts]}{at} ({pts * cube} point{_s(pts * cube)})?"
        if name == "draw":
            return "Offer a draw?"
        return "Leave this game without finishing it?"

    # ------------------------------------------------------------------ the store and the records
    def _store(self) -> None:
        """Save the session's state in the store (after every change)."""
        if self.games is None:
            return
        try:
            self.games.save(self.session)
        except ValueError as exc:  # StoreError, ConflictError: one line, and the game goes on unsaved
            self.say(f"Could not save the game in the store: {clip(str(exc), 200)}. The game goes on without it.")
            self.games = None

    def _save(self) -> None:
        """Write the record of the game in play to ``save_dir`` (once per game)."""
        s = self.session
        n = 0 if s.match is None else len(s.records)
        if self.save_dir is None or n in self._saved_games:
            return
        self._saved_games.add(n)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        path = Path(self.save_dir).expanduser() / f"game-{stamp}.jsonl"
        k = 2
        while path.exists():
            path = path.with_name(f"game-{stamp}-{k}.jsonl")
            k += 1
        try:
            self.saved = write_record(s.record, path)
        except OSError as exc:
            self.say(f"Could not save the game record to {path}: {exc.strerror or exc}")
            return
        state = "" if s.record.result is not None or s.game.over is not None else " (unfinished)"
        self.say(f"Game record{state} saved to {self.saved}")

    # ------------------------------------------------------------------ the game
    def run(self) -> int:
        """Play until the session ends or the player leaves. Returns the exit status (0, or 130
        after Ctrl-C)."""
        try:
            status = self._loop()
        except KeyboardInterrupt:
            self.say("\nInterrupted (Ctrl-C): game abandoned.")
            status = 130
        if self.games is not None and not self.session.finished:
            self.say(f"Game {self.session.id} is kept in the store: bgrl play --resume {self.session.id} continues it.")
        self._save()
        return status

    def _say_wrapped(self, text: str) -> None:
        """A paragraph wrapped at words to the terminal's width (at most 100 columns)."""
        width = max(40, min(100, shutil.get_terminal_size((100, 24)).columns - 1))
        self.say(textwrap.fill(text, width=width, break_long_words=False, break_on_hyphens=False))

    def _greeting(self) -> None:
        h = self.human
        sym = "O" if h == WHITE else "X"
        self._say_wrapped(f"You play {h.capitalize()} ({sym}) against {self.opponent_name}.")
        self._say_wrapped(f"The board is drawn from your side and numbered in your ({h.capitalize()}'s) numbering: "
                          "you move 24 -> 1 and type plays in it; the computer's plays are shown in it too.")
        self._say_wrapped(f"Hints from {getattr(self.ranker, 'name', 'the hint engine')}, {getattr(self.ranker, 'ply', 0)}-ply. "
                          "Type 'help' for commands; rules: docs/rules.md.")
        if self.match is not None:
            self._say_wrapped(f"With the doubling cube: {self.match.rules.describe()}. Type 'double' at the cube prompt, "
                              "before you roll; 'help' lists the cube commands.")
            self._say_wrapped("The computer's plays are chosen by cubeful equity (at a score, by match winning chances); "
                              "'hint' at the play prompt ranks the plays the same way.")

    def _game_header(self) -> None:
        """The start of a game of a cube session: its number, the score, Crawford."""
        m = self.match
        self.say("")
        head = f"Game {m.game_number}"
        if m.rules.is_match:
            head += f" of a {m.rules.match_length}-point match: you {m.score[self.human]}, {self.opponent_name} {m.score[self.computer]}"
        self.say(head + ".")
        if m.crawford:
            leader = "you are" if m.away(self.human) == 1 else f"{self.opponent_name} is"
            self.say(f"This is the Crawford game ({leader} 1 point away): no doubling in this game.")
        elif m.post_crawford:
            self.say("Post-Crawford game: the cube is back in play.")

    def _first_mover(self) -> None:
        s = self.session
        if s.opening:
            return  # the opening roll's event says it
        if s.set_up and not s.records:
            self.say(f"From position {s.record.start_position_id}, you on roll.")
        elif s.record.start_position_id == Position.start().position_id:
            self.say(f"{s.record.start_on_roll.capitalize()} moves first.")

    def _loop(self) -> int:
        s = self.session
        self._greeting()
        if self.resumed:
            self.say(f"Resuming game {s.id} ({len(s.record.turns)} turns played).")
        else:
            if s.match is not None:
                self._game_header()
            self._first_mover()
            s.advance(self.engine)
            self._store()
        self._render_events()
        while True:
            if s.game.over is not None:
                if not self._game_over():
                    return 0
                continue
            if s.awaiting == "cube":
                done = self._cube_prompt()
            elif s.awaiting == "answer":
                done = self._answer_prompt()
            else:
                done = self._play_prompt()
            if not done:
                return 0
            self._store()
            self._render_events()

    def _render_events(self) -> None:
        """Print the session's events not printed yet: the computer's turns, the player's
        forced plays and passes, the opening roll (the commands print their own answers)."""
        for ev in self.session.events:
            seq = ev.get("seq", 0)
            if seq <= self._seen:
                continue
            self._seen = seq
            kind = ev.get("kind")
            if kind == "game" or "cube" in ev:
                continue
            if kind == "opening":
                for w, b in ev.get("throws", []):
                    self.say(f"Opening roll: White {w}, Black {b}" + ("  (tie: roll again)" if w == b else ""))
                self.say(ev["note"].split("; ", 1)[-1])
                continue
            dice = ev.get("dice")
            if dice is None:
                if ev.get("note"):
                    self.say(ev["note"])
                continue
            text = ev.get("play") if self.compact else ev.get("play_dice", ev.get("play"))
            if ev.get("who") == "computer":
                who = f"{self.computer.capitalize()} ({'O' if self.computer == WHITE else 'X'})"
                if text is None:
                    self.say(f"\n{who} rolls {dice[0]}-{dice[1]} and cannot move.")
                else:
                    self.say(f"\n{who} rolls {dice[0]}-{dice[1]} and plays {text}   (in your numbering, {self.human.capitalize()}'s)")
            elif ev.get("forced"):
                self.say(f"\nYou rolled {dice[0]}-{dice[1]}: one legal play.")
                self.say(f"  You play {text} (forced, played for you)")
            elif text is None:
                self.say(f"\nYou rolled {dice[0]}-{dice[1]} and cannot move: the turn passes.")

    # ------------------------------------------------------------------ the player's turn
    def _play_prompt(self) -> bool:
        """One roll of the player to play. False when the player leaves."""
        s = self.session
        g = s.game
        pos, dice = g.position, s.dice
        self.say("")
        self.say(self.board_text(dice))
        ranked = None

        def ranking():
            nonlocal ranked
            if ranked is None:
                ranked = self.ranker(pos, dice)
            return ranked

        while True:
            line = self._ask(f"{self.human} to play {dice[0]}-{dice[1]}> ")
            if line is None:
                return False
            word = line.strip().lower()
            if s.match is not None and word in CUBE_WORDS:
                if word == "double":
                    why = s.match.why_no_double(self.human)
                    self.say(f"  Cannot double: {why}." if why else "  You can double only before you roll, at the cube prompt.")
                else:
                    self.say(f"  Cannot {word}: no double was offered.")
                continue
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
                s.play(self.engine, play.position_id)
                return True
            _, name, args = kind
            if name == "draw" and s.match is not None and s.match.rules.is_match:
                self.say("  No draws in a match: play on, or resign.")
                continue
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
                self.say(HELP if s.match is None else HELP + "\n" + CUBE_HELP)
            elif name == "board":
                self.say(self.board_text(dice))
            elif name == "hint":
                top = args[0] if args else 5
                if s.match is not None:
                    self.say(self.cubeful_hint_text(pos, dice, top, ranking()))
                else:
                    self.say(hint_table(ranking(), getattr(self.ranker, "name", "the hint engine"),
                                        getattr(ranking()[0], "ply", getattr(self.ranker, "ply", 0)), top=top,
                                        compact=self.compact))
                    self.say(self._reasons(pos, ranking()))
            elif name in ("resign", "draw"):
                out = s.resign(self.engine, args[0] if args else "single") if name == "resign" else s.draw(self.engine)
                self.say(f"  {out['reason']}")
                if out["accepted"]:
                    return True

    def _reasons(self, pos, ranked) -> str:
        """Why the hint's best play is best: its facts and what differs from the second
        (:func:`bgrl.cli.hint.explain_text`), indented."""
        from bgrl.cli.hint import explain_text

        return "\n".join("  " + line for line in explain_text(pos, ranked, n=2, compact=self.compact).splitlines())

    def _illegal(self, text: str, exc: IllegalPlayError, ranked) -> None:
        self.say(f"  Illegal play {clip(text, 40)!r}: {exc.reason}.")
        top = 8
        self.say(f"  Legal plays, best first, with equities from {getattr(self.ranker, 'name', 'the hint engine')}:")
        for r in ranked[:top]:
            self.say(f"    {r.play.shown(self.compact):<22} {r.equity:+.3f}")
        if len(ranked) > top:
            self.say(f"    … and {len(ranked) - top} more")

    def cubeful_hint_text(self, pos, dice, top: int = 5, rows=None) -> str:
        """The hint table with the cube (:func:`bgrl.cli.terminal_text.cubeful_hint_table`): the
        hint engine's plays (``rows``, else ranked here) ranked with the cube of the side on roll."""
        rows = self.ranker(pos, dice) if rows is None else rows
        return cubeful_hint_table(rows, self.match.cube_for(self.game.on_roll),
                                  getattr(self.ranker, "name", "the hint engine"), getattr(self.ranker, "ply", 0),
                                  top, self.compact)

    # ------------------------------------------------------------------ the cube
    def _hint_engine(self):
        """``(evaluator, ply, name)`` of the cube hints: ``cube_engine``, else the hint ranker's,
        the computer's or the judge's evaluator (one engine for every hint of a game)."""
        if self.cube_engine is not None:
            return self.cube_engine
        return _engine_of(self.ranker, self.agent, self.judge)

    def _cube_hint_text(self) -> str:
        """The cube advice at the decision waiting (:meth:`GameSession.cube_question`)."""
        q = self.session.cube_question()
        eng = self._hint_engine()
        if q is None:
            return "  No cube decision waits."
        if eng is None:
            return "  No cube hint: the hint engine has no network."
        role, board, cube = q
        ev, ply, name = eng
        whose = "you on roll" if role == "double" else f"{self.opponent_name} on roll, your answer is its 'take'"
        from bgrl.agents.levels import reply_pruning  # every level's pruning, at 2-ply and deeper

        d, _ = cube_hint(ev, Position(board), cube, ply, prune=reply_pruning(ply))
        return cube_hint_text(d, cube, name, ply, whose)

    def _cube_prompt_word(self, word: str) -> str | None:
        """The words both cube prompts share: ``hint``, ``board``, ``help`` ("done"), and
        ``quit`` (also ``exit``, ``q``), confirmed with y/yes ("left", or "done" when
        cancelled; "left" too at the end of input). None for any other word."""
        if word == "hint":
            self.say(self._cube_hint_text())
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

    def _cube_prompt(self) -> bool:
        """The player's cube prompt before the roll: roll or double. False when the player leaves."""
        s, m, h = self.session, self.match, self.human
        self.say("")
        self.say(self.board_text())
        while True:
            line = self._ask(f"{h} on roll, cube {m.cube_value} ('double', or Enter to roll)> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word in ("", "roll", "r"):
                s.cube_action(self.engine, "roll")
                return True
            if word == "double":
                value, c = m.cube_value, self.opponent_name
                answer = s.cube_action(self.engine, "double")
                if answer == "pass":
                    self.say(f"  You double to {2 * value}. {c} passes.")
                elif answer == "beaver":
                    self.say(f"  You double to {2 * value}. {c} beavers: the cube is at {m.cube_value}, {c}'s.")
                else:
                    self.say(f"  You double to {m.cube_value}. {c} takes.")
                return True
            if word in ("take", "pass", "beaver"):
                self.say(f"  Cannot {word}: no double was offered.")
                continue
            done = self._cube_prompt_word(word)
            if done == "left":
                return False
            if done is None:
                self.say(f"  At the cube prompt: 'double', Enter to roll, 'hint', 'board', 'help' or 'quit' (got {clip(word, 40)!r}).")

    def _answer_prompt(self) -> bool:
        """The player's answer to the computer's double. False when the player leaves."""
        s, m, name = self.session, self.match, self.opponent_name
        self.say("")
        self.say(self.board_text())
        beaver_ok = m.why_no_beaver(self.human) is None
        words = "'take', 'pass'" + (", 'beaver'" if beaver_ok else "")
        self.say(f"{name} doubles to {2 * m.cube_value}.")
        while True:
            line = self._ask(f"{self.human}: {words} or 'hint'> ")
            if line is None:
                return False
            word = line.strip().lower()
            if word == "beaver" and not beaver_ok:
                self.say(f"  Cannot beaver: {m.why_no_beaver(self.human)}.")
                continue
            if word in ("take", "pass", "beaver"):
                s.cube_action(self.engine, word)
                if word == "pass":
                    gs = m.games[-1]
                    self.say(f"  You pass: {name} wins {gs.points} point{_s(gs.points)}.")
                else:
                    self.say(f"  You {word}: the cube is at {m.cube_value}, yours.")
                return True
            if word in ("double", "roll"):
                self.say("  A double is waiting for your answer: take or pass.")
                continue
            done = self._cube_prompt_word(word)
            if done == "left":
                return False
            if done is None:
                self.say(f"  Answer the double: {words} (or 'hint', 'board', 'help', 'quit'); got {clip(word, 40)!r}.")

    # ------------------------------------------------------------------ the end of a game
    def _game_over(self) -> bool:
        """The game in play has ended: its result, the review, the record; in a cube session
        the next game. False when the session is over or the player leaves."""
        s = self.session
        self._result()
        self._offer_review()
        self._save()
        m = s.match
        if m is None:
            return False
        if m.rules.is_match:
            if m.over:
                who = "You win" if m.winner == self.human else f"{self.opponent_name} wins"
                loser = BLACK if m.winner == WHITE else WHITE
                self.say(f"{who} the {m.rules.match_length}-point match, {m.score[m.winner]}-{m.score[loser]}.")
                return False
        else:
            self.say(f"Session: you {m.score[self.human]:+d} after {len(m.games)} game{_s(len(m.games))}.")
            self.say("Another game? [y/N]")
            answer = self.input()
            if not answer or answer.strip().lower() not in ("y", "yes"):
                return False
        s.next_game(self.engine)
        self._game_header()
        self._first_mover()
        self._store()
        self._render_events()
        return True

    def _result(self) -> None:
        s, g = self.session, self.game
        res = g.over
        if s.match is not None and s.match.games:
            return self._result_cube(s.match.games[-1])
        if res.how == "draw":
            self.say("Game drawn by agreement.")
        else:
            how = {"bear-off": "bearing off", "resign": "resignation"}[res.how]
            line = f"{res.winner.capitalize()} wins a {KIND[res.points]} ({res.points} point{_s(res.points)}) by {how}."
            self._final_board(res, line)
        self.say(f"Result for you: {res.points_for(self.human):+d}")

    def _final_board(self, res, line: str) -> None:
        if res.how == "bear-off":
            self.say("")
            self.say(render(self.game.board, res.winner == WHITE, None, show_ids=False, viewer=self.human,
                            status=f"Game over: {line}"))
        else:
            self.say(f"\n{line}")

    def _result_cube(self, gs) -> None:
        """A cube game's result: the points with the cube (cube x result, Jacoby counted) and the score."""
        if gs.how == "draw":
            self.say("Game drawn by agreement.")
        else:
            who = "You win" if gs.winner == self.human else f"{self.opponent_name} wins"
            pts = f"{gs.points} point{_s(gs.points)}"
            if gs.how == "pass":
                line = f"{who} {pts}: the double was passed (cube at {gs.cube})."
            else:
                how = "bearing off" if gs.how == "bear-off" else "resignation"
                jac = " (Jacoby rule: single, the cube was not turned)" if gs.points < gs.cube * gs.result else ""
                line = f"{who} a {RESULT_TITLES[gs.result]} by {how} with the cube at {gs.cube}: {pts}{jac}."
            self._final_board(self.game.over, line)
        self.say(f"Result for you: {gs.points_for(self.human):+d}")
        self.say(self.match.describe_cube(names=self._names()).split(" | ", 1)[-1])

    def _review_ranker(self):
        if self.judge is not None:
            return self.judge
        from bgrl.agents.hints import HintRanker
        from bgrl.agents.levels import LevelAgent

        return HintRanker.from_agent(self.agent) if isinstance(self.agent, LevelAgent) else self.ranker

    def _offer_review(self) -> None:
        """When a game has ended, offer its review by the judge (an empty answer or end of input
        skips). Offered whenever a turn was played, whoever played it."""
        s = self.session
        if s.game.over is None or not s.record.turns:
            return
        if s.match is None:
            self.say("Review this game (every play ranked by the judge, world-class, with your error rate)? [y/N]")
        else:
            by = "match winning chances at the score" if s.match.rules.is_match else "cubeful equity"
            self.say(f"Review this game (every play ranked by the judge, world-class, by {by}; every double, take and "
                     "pass judged; with your error rates)? [y/N]")
        answer = self.input()
        if not answer or answer.strip().lower() not in ("y", "yes"):
            return
        self.say(self.review_text())

    def review_text(self, game: int | None = None) -> str:
        """The text review of one game of the session (``game``: index into
        :meth:`GameSession.all_records`; None = the game in play), by the judge
        (:func:`bgrl.session.review.review_session`): with the cube every play ranked at its
        turn's cube and score, every cube decision judged, the points with the cube and the
        match score."""
        from bgrl.session.review import CUBEFUL_VALUES, MWC_VALUES, game_results, review_session

        s = self.session
        i = len(s.all_records()) - 1 if game is None else game
        ranker = self._review_ranker()
        cube_judge = None
        if s.match is not None:
            eng = _engine_of(self.judge, self.ranker, self.agent)
            if eng is not None:
                cube_judge = eng
        rv = review_session(s, ranker, cube_judge, games=[i])[0]
        rv.game = i + 1
        res = game_results(s)
        gs = res[i] if s.match is not None and i < len(res) else None
        if gs is not None and gs["how"] == "pass":
            rv.result = None  # the record format has no pass: named below
        text = format_review(rv, viewer=self.human)
        if s.match is None:
            return text
        values = MWC_VALUES if s.match.rules.is_match else CUBEFUL_VALUES
        text = text.replace("equity = cubeless equity after the play, opponent to roll (points per game)", f"equity = {values}")
        if gs is None:
            return text
        names = {self.human: "you", self.computer: self.opponent_name}
        w = gs["winner"]
        if gs["how"] == "pass":
            text = text.replace("; unfinished", f"; {w.capitalize()} ({names[w]}) wins {gs['points']} point{_s(gs['points'])}: "
                                "the double was passed", 1)
        lines = [text, "Result with the cube:"]
        if w is None:
            lines.append(f"  Game {i + 1}: drawn by agreement, no points")
        else:
            how = {"bear-off": f"a {gs['kind']} by bearing off", "resign": f"a {gs['kind']} by resignation",
                   "pass": "as the double was passed"}[gs["how"]]
            lines.append(f"  Game {i + 1}: {w.capitalize()} ({names[w]}) wins {how}, cube {gs['cube']}: "
                         f"{gs['points']} point{_s(gs['points'])}")
        sc = gs["score"]
        m = s.match
        if m.rules.is_match:
            lines.append(f"  Score of the {m.rules.match_length}-point match: White {sc['white']}, Black {sc['black']}")
            if m.over and i == len(res) - 1:
                loser = BLACK if m.winner == WHITE else WHITE
                lines.append(f"{m.winner.capitalize()} ({names[m.winner]}) wins the match {sc[m.winner]}-{sc[loser]}.")
        else:
            lines.append(f"  Session: White {sc['white']:+d}, Black {sc['black']:+d} after {i + 1} game{_s(i + 1)}")
        return "\n".join(lines)


def _engine_of(*sources):
    """``(evaluator, ply, name)`` of the first source with an evaluator (a HintRanker, a level
    agent, a network agent), or None."""
    for src in sources:
        ev = getattr(src, "evaluator", None)
        if ev is not None:
            ply = getattr(src, "ply", None)
            if ply is None:
                ply = getattr(getattr(src, "level", None), "ply", 0)
            return ev, int(ply), getattr(src, "name", "the hint engine")
    return None
