"""Jellyfish ``.mat`` match files (as GNU Backgammon exports them): reader and writer.

The ``.mat`` text format is not formally specified; this module follows what GNU
Backgammon 1.07 writes with ``export match mat`` (and reads with ``import mat``), checked
against files it exported (``tests/data/gnubg_*.mat``)::

     0 point match                      <- match length; 0 = a money session

     Game 1
     alice : 0                      bob : 0          <- names and the score before the game
      1)                             21: 13/11 24/23  <- left player (alice), right player (bob)
      2) 52: 13/8 24/22              63: 8/5 11/5
     ...
     12) 66:                          Doubles => 2    <- 66 and no play: no die could be played
     13)  Drops                       Wins 1 point

* Each numbered row holds one action of the left player and then one of the right player;
  an empty column means that player did nothing in that row (the right player opened).
* An action is a roll and its play (``52: 13/8 24/22``; the dice may come in either
  order), a cube action (``Doubles => 2``, ``Takes``, ``Drops``, also ``Passes``,
  ``Beavers``, ``Raccoons``) or the end (``Wins 1 point``, also on its own line in the
  winner's column).
* Plays are written in the mover's own numbering (both players count from their own home
  board), one checker move per die, ``25`` for the bar and ``0`` for off; ``bar``, ``off``,
  ``*`` marks, ``(2)`` repeats and chains (``13/8/5``) are accepted too (the parser of
  :mod:`bgrl.rules.notation`). Every play is checked against the legal plays of the position.
* Lines starting with ``;`` are comments (gnubg writes ``; [EventDate "..."]``).
  A ``.gam`` file (one game, names without scores, no match header) is read as game 1.

Mapping to bgrl's game record (:mod:`bgrl.records.record`): the left player is White and the right
player Black; ``start_on_roll`` is whoever rolls first. The record holds the checker plays;
the cube actions go to :attr:`MatGame.cube_actions` (:class:`CubeAction`, in order), checked
as they are read: a take, pass or beaver needs a double offered, a double needs the doubler
on roll, not owning-out (the opponent owns the cube), no double pending, not the Crawford
game, and ``=> N`` twice the cube value; a roll may not follow a pending double. The Crawford
game is the first game of a match whose header score has a side at N-1. A game that
ends with ``Wins N points`` before anyone has borne off (a resignation or a dropped double)
is recorded as ``how="resign"`` with points ``N / cube`` clipped to 1..3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from bgrl.evaluation import compiled
from bgrl.evaluation.match_equity import default_met
from bgrl.rules.board import START_BOARD, Position, position_ids
from bgrl.rules.movegen import generate
from bgrl.rules.notation import IllegalPlayError, board_after_hops, format_moves, legal_plays, parse_play, play_from_notation
from bgrl.rules.dice import parse_dice
from bgrl.records.record import STOP_EVERY, GameRecord, RecordError, Turn, check_stop
from bgrl.rules.outcome import RESULT_NAMES, game_result
from bgrl._fileio import InputFileError, read_input_text, write_text_atomic

__all__ = ["MatError", "MatGame", "CubeAction", "read_mat", "parse_mat", "mat_text", "write_mat", "looks_like_mat"]

SIDES = ("white", "black")  # left column, right column
HOW = RESULT_NAMES  # bgrl.rules.outcome


class MatError(RecordError):
    """A ``.mat`` file that cannot be read: names the file, the line and what was expected."""


@dataclass
class MatGame:
    """One game of a ``.mat`` file.

    number : the game's number in the file; record : the game as a bgrl game record (left
    player = White; its result's points are cubeless, see the module docstring); notes : what
    was skipped or interpreted (cube actions, how the game ended); match_length : 0 for money
    play, else the match length in points; cube_actions : :class:`CubeAction` in order; score
    : (left, right) before the game; crawford : whether it is the Crawford game; points : the
    points the file's ``Wins N points`` gives the winner (with the cube), None without it.
    """

    number: int
    record: GameRecord
    notes: list[str] = field(default_factory=list)
    match_length: int = 0
    cube_actions: list = field(default_factory=list)
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    points: int | None = None


@dataclass(frozen=True)
class CubeAction:
    """One cube action of a ``.mat`` game.

    line : the file's line; player : 'white' / 'black', who acted; action : 'double',
    'take', 'drop' or 'beaver' (a raccoon is read as a beaver); value : the cube value after
    the action (the value offered for a double, the new value for a beaver, the value held
    for a take or drop); turn : the 0-based index in the record's turns of the doubler's
    roll that follows (``len(turns)`` when the game ended by the drop); position_id : the
    doubler's position before its roll (the position the cube decision is about).
    """

    line: int
    player: str
    action: str
    value: int
    turn: int
    position_id: str


_MATCH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_NAMES_SCORES_RE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_NAMES_ONLY_RE = re.compile(r"^\s*(\S.*?)\s{2,}(\S.*?)\s*$")
_NAME_ONE_RE = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s*$")  # some programs put each player on its own line
_ROW_RE = re.compile(r"^\s*(\d+)\)(.*)$")
_ITEM_RE = re.compile(
    r"(?<!\S)(?:[1-6][1-6]:|(?:doubles?|takes?|drops?|pass(?:es)?|beavers?|raccoons?|wins?)(?![a-z]))",
    re.IGNORECASE,
)
_WINS_RE = re.compile(r"^wins?\s+(\d+)\s+points?\b", re.IGNORECASE)
_DOUBLE_RE = re.compile(r"^(?:doubles?|beavers?|raccoons?)\s*(?:=>\s*(\d+))?", re.IGNORECASE)
_CUBE_WORD_RE = re.compile(r"^(?:(?:doubles?|beavers?|raccoons?)(?:\s*=>\s*\d+)?|takes?|drops?|pass(?:es)?)\s*$", re.IGNORECASE)
_BAD_MATCH_RE = re.compile(r"^\s*\S+\s+point\s+match\b", re.IGNORECASE)  # a header whose length is not a number >= 0
_RIGHT_OFFSET = 12  # a lone action this far right of ")" (or of the line start + 8) is the right player's


@dataclass
class _Action:
    line: int
    side: int  # 0 left (White), 1 right (Black)
    text: str


def _items(segment: str, start_col: int, threshold: int, line: int, bad) -> list[_Action]:
    starts = [m.start() for m in _ITEM_RE.finditer(segment)]
    if not starts:
        if segment.strip():
            raise bad(line, f"cannot read {segment.strip()!r}: expected a roll and play like '52: 13/8 24/22', "
                            "'Doubles => 2', 'Takes', 'Drops' or 'Wins 1 point'")
        return []
    if segment[: starts[0]].strip():
        raise bad(line, f"cannot read {segment[: starts[0]].strip()!r} before {segment[starts[0]:].strip()!r}")
    if len(starts) > 2:
        raise bad(line, f"more than two actions in one row: {segment.strip()!r}")
    texts = [segment[s:e].strip() for s, e in zip(starts, starts[1:] + [len(segment)])]
    if len(texts) == 2:
        return [_Action(line, 0, texts[0]), _Action(line, 1, texts[1])]
    side = 1 if start_col + starts[0] >= threshold else 0
    return [_Action(line, side, texts[0])]


def looks_like_mat(text: str) -> bool:
    """Whether ``text`` looks like a Jellyfish match or game file (a ``N point match``
    header, a ``Game N`` line, or a numbered row with a roll)."""
    for line in text.splitlines()[:40]:
        if _MATCH_RE.match(line) or _GAME_RE.match(line) or re.match(r"^\s*\d+\)\s+[1-6][1-6]:", line):
            return True
    return False


def parse_mat(text: str, source: str = "<mat>", stop=None) -> list[MatGame]:
    """Parse ``.mat`` (or ``.gam``) text into games; see the module docstring.

    The rolls of all games are checked together: each play is read as the checker moves it
    writes and the results are looked up among the legal plays of one batched move
    generation (:func:`bgrl.rules.movegen.generate`, compiled where
    :func:`bgrl.evaluation.compiled.ensure` loads it); a game where that does not find
    every play is read again play by play (:func:`bgrl.rules.notation.play_from_notation`),
    which gives the same games and names the first error of the file.

    Parameters
    ----------
    text : str
    source : str, names the file in error messages
    stop : callable returning bool, or None
        called every :data:`bgrl.records.record.STOP_EVERY` lines, between games and
        between batches of rolls; True stops the work.

    Raises
    ------
    MatError
        naming ``source`` and the line: no game found, an unreadable row, plays out of
        turn, an illegal play (with the position and the legal plays), a roll written
        without a play although one die could be played, anything after the game ended.
    bgrl.records.record.ReadStopped
        when ``stop()`` returned True.
    """

    def bad(n: int, what: str) -> MatError:
        return MatError(f"{source}, line {n}: {what}")

    text = text.lstrip("\ufeff")
    match_length = 0
    has_header = False
    extra_match = None
    raw_games: list[dict] = []
    cur: dict | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        if n % STOP_EVERY == 0:
            check_stop(stop, source)
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        m = _MATCH_RE.match(line)
        if m is None and cur is None and _BAD_MATCH_RE.match(line):
            raise bad(n, f"cannot read the match length in {stripped[:60]!r}: expected ' N point match' with N a whole "
                         "number >= 0 (0 = a money session)")
        if m and cur is None:
            match_length = int(m.group(1))
            try:
                default_met().check_length(match_length)
            except ValueError as exc:
                raise bad(n, f"{exc}; bgrl reads matches of up to that length (0 = a money session)") from None
            has_header = True
            continue
        if m:  # a second match in the same file (some programs append them): read the first only
            extra_match = n
            break
        m = _GAME_RE.match(line)
        if m:
            cur = {"number": int(m.group(1)), "line": n, "names": None, "actions": []}
            raw_games.append(cur)
            continue
        row = _ROW_RE.match(line)
        if cur is None or cur["names"] is None:
            if row:
                raise bad(n, "a numbered row before the players' names: expected 'Game N' and a line 'NAME : SCORE   NAME : SCORE'")
            m = _NAMES_SCORES_RE.match(line)
            one = _NAME_ONE_RE.match(line) if m is None and cur is not None else None
            if one:
                if cur.get("first") is None:
                    cur["first"] = one.groups()
                    continue
                g = (*cur["first"], *one.groups())
                cur["names"], cur["scores"] = (g[0], g[2]), (int(g[1]), int(g[3]))
                continue
            if m is None and not has_header:  # a .gam file names the players without scores
                m = _NAMES_ONLY_RE.match(line)
            if m is None:
                if cur is None:
                    continue  # header text before the first game
                raise bad(n, f"expected the players' names 'NAME : SCORE   NAME : SCORE', got {stripped[:60]!r}")
            if cur is None:  # a .gam file: one game, no "Game N" line
                cur = {"number": 1, "line": n, "names": None, "actions": []}
                raw_games.append(cur)
            g = m.groups()
            cur["names"] = (g[0], g[2]) if len(g) == 4 else (g[0], g[1])
            cur["scores"] = (int(g[1]), int(g[3])) if len(g) == 4 else (0, 0)
            continue
        if row:
            paren = line.index(")") + 1
            cur["actions"] += _items(line[paren:], 0, _RIGHT_OFFSET, n, bad)
        else:
            cur["actions"] += _items(line, 0, 20, n, bad)
    if not raw_games:
        raise MatError(f"{source}: no game found; expected a Jellyfish .mat file (' 0 point match', 'Game 1', "
                       "the players' names, then numbered rows like ' 1) 52: 13/8 24/22   63: 8/5 11/5')")
    setups = []  # (raw game, Crawford game, the error its score is)
    crawford_seen = False
    for g in raw_games:
        at_point = bool(match_length) and g.get("scores") is not None and max(g["scores"]) == match_length - 1
        err = None
        if match_length and g.get("scores") is not None and max(g["scores"]) >= match_length:
            err = bad(g["line"], f"score {g['scores'][0]}-{g['scores'][1]} is at or above the match length {match_length}")
        crawford = at_point and not crawford_seen
        crawford_seen = crawford_seen or at_point
        setups.append((g, crawford, err))
    plies = _Plies()
    fast: list = []  # per game (MatGame, its first roll, its last roll + 1) or None
    for g, crawford, err in setups:  # every game read fast; its plays checked below, all together
        check_stop(stop, source)
        if err is not None:
            break
        board = _FastBoard(plies)
        try:
            fast.append((_replay(g, match_length, bad, crawford, board), board.first, len(plies.before)))
        except (MatError, _ReadSlowly):
            fast.append(None)
    plies.resolve(stop, source)
    games = []
    for i, (g, crawford, err) in enumerate(setups):  # in file order, so the first error found is the file's first
        if err is not None:
            raise err
        got = fast[i] if i < len(fast) else None
        game = None if got is None else got[0]
        if got is None or not plies.fill(*got):
            check_stop(stop, source)
            game = _replay(g, match_length, bad, crawford)
        games.append(game)
    if extra_match is not None:
        games[-1].notes.append(f"line {extra_match}: another match follows; only the first match of the file is "
                               "read (as GNU Backgammon does)")
    return games


class _ReadSlowly(Exception):
    """A play :class:`_FastBoard` cannot take as written: the game is read play by play."""


class _Board:
    """The board of a game being read, each roll checked as it comes (the reference reader)."""

    def __init__(self):
        self.pos = Position.start()

    def position_id(self) -> str:
        return self.pos.position_id

    def roll(self, rec: GameRecord, side: str, dice, moves: str, fail) -> int:
        """``side`` rolled ``dice`` and played ``moves`` (may be empty): the turn appended to
        ``rec``; returns the game's result (0 while it goes on). ``fail(what)`` builds the error."""
        pos = self.pos
        if not moves:
            if legal_plays(pos, dice):
                raise fail(f" rolled {dice[0]}{dice[1]} and wrote no play, but the roll can be played in position "
                           f"{pos.position_id}")
            rec.add_turn(side, pos, dice, None)
            self.pos = pos.flipped()
            return 0
        try:
            play = play_from_notation(pos, dice, moves)
        except IllegalPlayError as exc:
            raise fail(f", roll {dice[0]}{dice[1]} in position {pos.position_id}: {exc}") from None
        rec.add_turn(side, pos, dice, play)
        self.pos = play.position
        return game_result(play.after_state)


class _FastBoard:
    """The board of a game being read fast: each play is the board after moving each checker
    from its source straight to its destination (hitting where it lands), as
    :func:`bgrl.rules.notation.play_from_notation` tries first; that it is a legal play, and
    its notation and the Position IDs, come later for all games at once (:class:`_Plies`).
    Anything else (a play written so that the straight moves are not possible) raises
    :class:`_ReadSlowly`."""

    def __init__(self, plies: "_Plies"):
        self.plies = plies
        self.board = [int(x) for x in START_BOARD]
        self.pid: str | None = None
        self.first = len(plies.before)

    def position_id(self) -> str:
        if self.pid is None:
            self.pid = self.plies.position(self.board)
        return self.pid

    def roll(self, rec: GameRecord, side: str, dice, moves: str, fail) -> int:
        before, pid = self.board, self.position_id()
        after, result = None, 0
        if moves:
            after = board_after_hops(before, self.plies.hops(moves))
            if after is None:
                raise _ReadSlowly(moves)
            if not any(v > 0 for v in after):
                result = game_result(np.array(after, dtype=np.int8))
        turn = Turn(side, pid, tuple(int(d) for d in dice), None)
        rec.turns.append(turn)
        self.plies.add(turn, before, dice, after)
        b = before if after is None else after
        self.board, self.pid = [-x for x in reversed(b)], None
        return result


class _Plies:
    """The rolls of the games :class:`_FastBoard` read, checked together: one batched move
    generation, each play looked up among its position's legal after-states, the notation
    of the ones found (the generator's path, as :func:`bgrl.rules.notation.legal_plays`
    names it) and the Position IDs asked for."""

    CHUNK = 4096  # rolls per generator call (a stop check between calls)

    def __init__(self):
        self.before: list[list] = []
        self.dice: list = []
        self.after: list = []
        self.turns: list[Turn] = []
        self.positions: list[list] = []
        self._hops: dict = {}
        self.ok = np.zeros(0, dtype=bool)
        self.notation: list = []
        self.pids: list = []

    def hops(self, moves: str):
        got = self._hops.get(moves)
        if got is None:
            try:
                got = parse_play(moves)
            except IllegalPlayError:
                raise _ReadSlowly(moves) from None
            self._hops[moves] = got
        return got

    def position(self, board: list) -> str:
        """A placeholder for the Position ID of ``board`` (filled in by :meth:`fill`)."""
        self.positions.append(board)
        return f"\0{len(self.positions) - 1}"

    def add(self, turn: Turn, before: list, dice, after: list | None) -> None:
        self.turns.append(turn)
        self.before.append(before)
        self.dice.append((max(dice), min(dice)))
        self.after.append(after)

    def resolve(self, stop, source: str) -> None:
        """Check every roll: a play must be a legal after-state of its position, a roll
        without a play a position where no die can be played."""
        n = len(self.before)
        self.ok = np.zeros(n, dtype=bool)
        self.notation = [None] * n
        if n == 0:
            return
        compiled.ensure()  # the compiled generator where numba is loaded anyway (the service, a review)
        names: dict = {}
        empty = [0] * 26
        for lo in range(0, n, self.CHUNK):
            check_stop(stop, source)
            hi = min(n, lo + self.CHUNK)
            try:
                res = generate(np.array(self.before[lo:hi], dtype=np.int8), np.array(self.dice[lo:hi], dtype=np.int8),
                               paths=True)
            except ValueError:  # a board no game could reach: those games are read play by play
                continue
            want = np.array([empty if a is None else a for a in self.after[lo:hi]], dtype=np.int8)
            has = np.array([a is not None for a in self.after[lo:hi]])
            used = res.dice_used.astype(np.int64)
            hit = np.flatnonzero((res.boards == want[res.parent]).all(axis=1))
            row = np.full(hi - lo, -1, dtype=np.int64)
            row[res.parent[hit]] = hit
            good = np.where(has, (row >= 0) & (used > 0), used == 0)
            self.ok[lo:hi] = good
            for j in np.flatnonzero(good & has).tolist():
                path = res.paths[row[j], : used[j]]
                key = path.tobytes()
                text = names.get(key)
                if text is None:
                    text = names[key] = format_moves(tuple((s, d, h == 1) for s, d, h in path.tolist()))
                self.notation[lo + j] = text
        self.pids = []
        for lo in range(0, len(self.positions), self.CHUNK):
            check_stop(stop, source)
            self.pids += list(position_ids(np.array(self.positions[lo:lo + self.CHUNK], dtype=np.int8)))

    def fill(self, game: MatGame, first: int, last: int) -> bool:
        """Complete a game :class:`_FastBoard` read, its rolls ``first`` to ``last`` (excluded):
        the plays' notation and the Position IDs; False when one of its rolls was not found
        legal (then the game is to be read play by play)."""
        if not self.ok[first:last].all():
            return False
        for j in range(first, last):
            t = self.turns[j]
            t.play, t.position_id = self.notation[j], self.pids[int(t.position_id[1:])]
        game.cube_actions = [replace(a, position_id=self.pids[int(a.position_id[1:])]) for a in game.cube_actions]
        return True


def _replay(g: dict, match_length: int, bad, crawford: bool = False, board=None) -> MatGame:
    """One game of the file from its actions; ``board`` plays the rolls (:class:`_Board`,
    the default, or :class:`_FastBoard`)."""
    if g["names"] is None:
        raise bad(g["line"], "game without the players' names")
    names = g["names"]
    rec = GameRecord(white=names[0], black=names[1])
    game = MatGame(g["number"], rec, [], match_length, score=tuple(g["scores"]), crawford=crawford)
    if match_length:
        game.notes.append(f"match play to {match_length} points (score {g['scores'][0]}-{g['scores'][1]}"
                          f"{', the Crawford game' if crawford else ''}): cube decisions judged by match equity, "
                          "checker plays by cubeless money equity")
    board = board or _Board()
    owner: int | None = None  # side owning the cube (0 left, 1 right), None centred
    pending: tuple[int, int] | None = None  # (doubler side, value offered) while a double waits for an answer
    on_roll: int | None = None
    cube = 1
    ended_by: tuple[int, str] | None = None  # (line, what) once the game is over
    played_out = 0  # result of a bear-off
    dropped = False
    for act in g["actions"]:
        who = f"{names[act.side]} ({SIDES[act.side]})"
        if ended_by is not None and not _WINS_RE.match(act.text):
            raise bad(act.line, f"{act.text!r} after the game ended ({ended_by[1]}, line {ended_by[0]})")
        if act.text[0].isdigit():  # a roll and its play
            if on_roll is None:
                on_roll = act.side
                rec.start_on_roll = SIDES[act.side]
            elif act.side != on_roll:
                raise bad(act.line, f"{who} rolls {act.text[:2]} but it is {names[on_roll]}'s turn")
            if pending is not None:
                raise bad(act.line, f"{who} rolls {act.text[:2]} while a double to {pending[1]} waits for an answer "
                                    "(expected 'Takes' or 'Drops')")
            res = board.roll(rec, SIDES[act.side], parse_dice(act.text[:2]), act.text[3:].strip(),
                             lambda what: bad(act.line, f"{who}{what}"))
            if res:
                played_out = res
                ended_by = (act.line, f"{names[act.side]} bore off the last checker")
                rec.finish(SIDES[act.side], res, HOW[res])
            on_roll = 1 - act.side
            continue
        word = act.text.split()[0].lower()
        m = _WINS_RE.match(act.text)
        if m:
            pts = int(m.group(1))
            game.points = pts if game.points is None else game.points
            if played_out:
                if SIDES[act.side] != rec.result["winner"]:
                    raise bad(act.line, f"{who} wins, but {rec.result['winner']} bore off all checkers")
                if pts != played_out * cube:
                    game.notes.append(f"line {act.line}: the file scores {pts} points (cube at {cube}); "
                                      f"cubeless the game is worth {played_out}")
                continue
            if ended_by is not None and rec.result is not None:
                raise bad(act.line, f"a second result after {ended_by[1]} (line {ended_by[0]})")
            if dropped and pts != cube and not match_length:
                raise bad(act.line, f"{who} wins {pts} point(s) after a dropped double: expected 'Wins {cube} point"
                                    f"{'s' if cube > 1 else ''}' (the cube at {cube} before the double)")
            if not dropped and (pts % cube or not 1 <= pts // cube <= 3) and not match_length:
                raise bad(act.line, f"{who} wins {pts} point(s) by resignation with the cube at {cube}: expected "
                                    f"{cube}, {2 * cube} or {3 * cube} (a single game, gammon or backgammon times the cube)")
            value = min(3, max(1, pts // cube))
            if dropped:
                value = 1
                game.notes.append(f"line {act.line}: {names[act.side]} wins {pts} point(s) because the double was "
                                  "dropped; recorded as a single game resigned")
            else:
                game.notes.append(f"line {act.line}: {names[1 - act.side]} resigned; {names[act.side]} wins {pts} "
                                  f"point(s) (cube at {cube}); recorded as a resignation worth {value}")
            rec.finish(SIDES[act.side], value, "resign")
            ended_by = (act.line, f"{names[act.side]} won by resignation")
            continue
        # a cube action, checked and kept for the cube review
        if not _CUBE_WORD_RE.match(act.text):
            raise bad(act.line, f"cannot read the cube action {act.text!r}: expected 'Doubles => N' (N a whole number), "
                                "'Takes', 'Drops', 'Beavers => N' or 'Raccoons => N'")
        side = SIDES[act.side]
        d = _DOUBLE_RE.match(act.text)
        stated = int(d.group(1)) if d and d.group(1) else None
        if word.startswith(("double",)):
            if crawford:
                raise bad(act.line, f"{who} doubles in the Crawford game (no doubling in it)")
            if pending is not None:
                raise bad(act.line, f"{who} doubles while a double to {pending[1]} waits for an answer")
            if on_roll is None and not rec.turns:  # a game not begun by the opening roll: its first player may double first
                on_roll = act.side
                rec.start_on_roll = SIDES[act.side]
            if on_roll is None or act.side != on_roll:
                raise bad(act.line, f"{who} doubles, but only the player about to roll may double"
                          + ("" if on_roll is None else f" ({names[on_roll]})"))
            if owner is not None and owner != act.side:
                raise bad(act.line, f"{who} doubles, but {names[owner]} owns the cube")
            value = 2 * cube
            if stated is not None and stated != value:
                raise bad(act.line, f"{who} doubles to {stated}: expected 'Doubles => {value}' (twice the cube at {cube})")
            pending = (act.side, value)
            game.cube_actions.append(CubeAction(act.line, side, "double", value, len(rec.turns), board.position_id()))
        elif word.startswith("raccoon") and pending is None:
            last = game.cube_actions[-1] if game.cube_actions else None
            if last is None or last.action != "beaver" or last.player == side or last.turn != len(rec.turns):
                raise bad(act.line, f"{who}: {act.text!r} but no beaver was made to it (a raccoon answers a beaver at once)")
            value = 2 * cube
            if stated is not None and stated != value:
                raise bad(act.line, f"{who} raccoons to {stated}: expected '=> {value}' (twice the beaver at {cube})")
            cube, owner = value, act.side
            game.cube_actions.append(CubeAction(act.line, side, "beaver", cube, len(rec.turns), last.position_id))
        else:
            if pending is None:
                raise bad(act.line, f"{who}: {act.text!r} but no double was offered")
            if act.side == pending[0]:
                raise bad(act.line, f"{who} answers its own double: expected the opponent's 'Takes' or 'Drops'")
            doubler_pos = game.cube_actions[-1].position_id
            if word.startswith(("drop", "pass")):
                dropped = True
                ended_by = (act.line, f"{names[act.side]} dropped the double")
                game.cube_actions.append(CubeAction(act.line, side, "drop", cube, len(rec.turns), doubler_pos))
            elif word.startswith("take"):
                cube, owner = pending[1], act.side
                game.cube_actions.append(CubeAction(act.line, side, "take", cube, len(rec.turns), doubler_pos))
            else:  # a beaver (or raccoon): taken and redoubled at once, the cube kept
                value = 2 * pending[1]
                if stated is not None and stated != value:
                    raise bad(act.line, f"{who} beavers to {stated}: expected '=> {value}' (twice the double to {pending[1]})")
                cube, owner = value, act.side
                game.cube_actions.append(CubeAction(act.line, side, "beaver", cube, len(rec.turns), doubler_pos))
            pending = None
    if game.cube_actions:
        game.notes.append(f"{len(game.cube_actions)} cube action(s) read; the cube review judges them")
    return game


def read_mat(path, stop=None) -> list[MatGame]:
    """Read a Jellyfish ``.mat`` / ``.gam`` file (see :func:`parse_mat`, and ``stop`` there).

    Raises MatError for a file that cannot be read or parsed, ReadStopped when ``stop()``
    returned True.
    """
    path = Path(path)
    try:  # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
        text = read_input_text(path, ".mat file", "a Jellyfish .mat or .gam export", errors="replace")
    except InputFileError as exc:
        raise MatError(str(exc)) from None
    return parse_mat(text, str(path), stop)


# ----------------------------------------------------------------------------- writer
def _mat_moves(notation: str) -> str:
    """bgrl notation -> .mat: 25 for the bar, 0 for off, repeats written out."""
    out = []
    for tok in notation.split():
        m = re.match(r"^(.*?)(?:\((\d)\))?$", tok)
        body, rep = m.group(1), int(m.group(2) or 1)
        body = re.sub(r"\bbar\b", "25", body.lower())
        body = re.sub(r"\boff\b", "0", body)
        out += [body] * rep
    return " ".join(out)


_CUBE_TEXT = {"double": " Doubles => {}", "take": " Takes", "drop": " Drops", "beaver": " Beavers => {}"}


def mat_text(records, match_length: int = 0) -> str:
    """Jellyfish ``.mat`` text of one or more :class:`bgrl.records.record.GameRecord` in GNU
    Backgammon's layout (White in the left column). Scores in each game header are the
    points won in the games before it (a match's: the score its record's cube header gives,
    where it has one). ``match_length`` 0 = a money session.

    A record's cube actions (:attr:`GameRecord.cube_actions`) are written where they were
    made, in the acting player's column, as gnubg writes them: `` Doubles => 2``,
    `` Takes``, `` Drops``, `` Beavers => 4``; the result as ``Wins N points`` with the
    record's points (with the cube), so :func:`parse_mat` reads back the same cube actions
    and :attr:`MatGame.points`.
    """
    recs = [records] if isinstance(records, GameRecord) else list(records)
    lines = [f" {match_length} point match", ""]
    score = {"white": 0, "black": 0}
    for gi, rec in enumerate(recs, start=1):
        if match_length and rec.cube is not None and "score" in rec.cube:
            score = {"white": int(rec.cube["score"][0]), "black": int(rec.cube["score"][1])}
        lines += [f" Game {gi}", f" {rec.white} : {score['white']}".ljust(32) + f"{rec.black} : {score['black']}"]
        actions: list[tuple[str, str]] = []  # (player, text) in the order made
        cubes = sorted(rec.cube_actions, key=lambda c: c.turn)
        k = 0
        for i, t in enumerate(rec.turns):
            while k < len(cubes) and cubes[k].turn <= i:
                actions.append((cubes[k].player, _CUBE_TEXT[cubes[k].action].format(cubes[k].value)))
                k += 1
            text = f"{max(t.dice)}{min(t.dice)}: " + ("" if t.play is None else _mat_moves(t.play))
            actions.append((t.player, text.rstrip() if t.play is None else text))
        actions += [(c.player, _CUBE_TEXT[c.action].format(c.value)) for c in cubes[k:]]
        rows: list[list[str]] = []
        for player, text in actions:
            if player == "white" or not rows or rows[-1][1]:
                rows.append(["", ""])
            rows[-1][0 if player == "white" else 1] = text
        for i, (left, right) in enumerate(rows, start=1):
            lines.append((f"{i:3d}) " + left.ljust(27) + " " + right).rstrip())
        res = rec.result
        if res is not None and res.get("winner") in score:
            pts = int(res["points"])
            wins = f"Wins {pts} point{'s' if pts != 1 else ''}"
            lines.append(" " * 6 + wins if res["winner"] == "white" else " " * 33 + wins)
            score[res["winner"]] += pts
        lines.append("")
    return "\n".join(lines) + "\n"


def write_mat(records, path, match_length: int = 0) -> Path:
    """Write :func:`mat_text` to ``path`` atomically (temporary file, then rename)."""

    return write_text_atomic(path, mat_text(records, match_length))
