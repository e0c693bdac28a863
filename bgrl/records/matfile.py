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
player Black; ``start_on_roll`` is whoever rolls first. bgrl plays without a doubling cube
by default, so cube actions are skipped and listed in :attr:`MatGame.notes`. A game that
ends with ``Wins N points`` before anyone has borne off (a resignation or a dropped double)
is recorded as ``how="resign"`` with points ``N / cube`` clipped to 1..3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from bgrl.rules.board import Position
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation
from bgrl.rules.dice import parse_dice
from bgrl.records.record import GameRecord, RecordError
from bgrl.rules.outcome import game_result

__all__ = ["MatError", "MatGame", "read_mat", "parse_mat", "mat_text", "write_mat", "looks_like_mat"]

SIDES = ("white", "black")  # left column, right column
HOW = {1: "single", 2: "gammon", 3: "backgammon"}


class MatError(RecordError):
    """A ``.mat`` file that cannot be read: names the file, the line and what was expected."""


@dataclass
class MatGame:
    """One game of a ``.mat`` file.

    number : the game's number in the file; record : the game as a bgrl game record (left
    player = White); notes : what was skipped or interpreted (cube actions, how the game
    ended); match_length : 0 for money play, else the match length in points.
    """

    number: int
    record: GameRecord
    notes: list[str] = field(default_factory=list)
    match_length: int = 0


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


def parse_mat(text: str, source: str = "<mat>") -> list[MatGame]:
    """Parse ``.mat`` (or ``.gam``) text into games; see the module docstring.

    Raises
    ------
    MatError
        naming ``source`` and the line: no game found, an unreadable row, plays out of
        turn, an illegal play (with the position and the legal plays), a roll written
        without a play although one die could be played, anything after the game ended.
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
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        m = _MATCH_RE.match(line)
        if m and cur is None:
            match_length = int(m.group(1))
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
    games = [_replay(g, match_length, bad) for g in raw_games]
    if extra_match is not None:
        games[-1].notes.append(f"line {extra_match}: another match follows; only the first match of the file is "
                               "read (as GNU Backgammon does)")
    return games


def _replay(g: dict, match_length: int, bad) -> MatGame:
    if g["names"] is None:
        raise bad(g["line"], "game without the players' names")
    names = g["names"]
    rec = GameRecord(white=names[0], black=names[1])
    game = MatGame(g["number"], rec, [], match_length)
    if match_length:
        game.notes.append(f"match play to {match_length} points (score {g['scores'][0]}-{g['scores'][1]}): "
                          "reviewed as cubeless money play")
    pos = Position.start()
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
            dice = parse_dice(act.text[:2])
            moves = act.text[3:].strip()
            if not moves:
                if legal_plays(pos, dice):
                    raise bad(act.line, f"{who} rolled {dice[0]}{dice[1]} and wrote no play, but the roll can be "
                                        f"played in position {pos.position_id}")
                rec.add_turn(SIDES[act.side], pos, dice, None)
                pos = pos.flipped()
            else:
                try:
                    play = play_from_notation(pos, dice, moves)
                except IllegalPlayError as exc:
                    raise bad(act.line, f"{who}, roll {dice[0]}{dice[1]} in position {pos.position_id}: {exc}") from None
                rec.add_turn(SIDES[act.side], pos, dice, play)
                res = game_result(play.after_state)
                if res:
                    played_out = res
                    ended_by = (act.line, f"{names[act.side]} bore off the last checker")
                    rec.finish(SIDES[act.side], res, HOW[res])
                pos = play.position
            on_roll = 1 - act.side
            continue
        word = act.text.split()[0].lower()
        m = _WINS_RE.match(act.text)
        if m:
            pts = int(m.group(1))
            if played_out:
                if SIDES[act.side] != rec.result["winner"]:
                    raise bad(act.line, f"{who} wins, but {rec.result['winner']} bore off all checkers")
                if pts != played_out * cube:
                    game.notes.append(f"line {act.line}: the file scores {pts} points (cube at {cube}); "
                                      f"cubeless the game is worth {played_out}")
                continue
            if ended_by is not None and rec.result is not None:
                raise bad(act.line, f"a second result after {ended_by[1]} (line {ended_by[0]})")
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
        # a cube action: skipped (no cube in bgrl's default rules)
        d = _DOUBLE_RE.match(act.text)
        if d and d.group(1):
            cube = int(d.group(1))
        if word.startswith(("drop", "pass")):
            dropped = True
            ended_by = (act.line, f"{names[act.side]} dropped the double")
        game.notes.append(f"line {act.line}: cube action skipped ({names[act.side]}: {act.text}); "
                          "bgrl reviews checker plays only, without the cube")
    return game


def read_mat(path) -> list[MatGame]:
    """Read a Jellyfish ``.mat`` / ``.gam`` file (see :func:`parse_mat`).

    Raises MatError for a file that cannot be read or parsed.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise MatError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_mat(text, str(path))


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


def mat_text(records, match_length: int = 0) -> str:
    """Jellyfish ``.mat`` text of one or more :class:`bgrl.records.record.GameRecord` in GNU
    Backgammon's layout (White in the left column). Scores in each game header are the
    points won in the games before it. ``match_length`` 0 = a money session.
    """
    recs = [records] if isinstance(records, GameRecord) else list(records)
    lines = [f" {match_length} point match", ""]
    score = {"white": 0, "black": 0}
    for gi, rec in enumerate(recs, start=1):
        lines += [f" Game {gi}", f" {rec.white} : {score['white']}".ljust(32) + f"{rec.black} : {score['black']}"]
        rows: list[list[str]] = []
        for t in rec.turns:
            text = f"{max(t.dice)}{min(t.dice)}: " + ("" if t.play is None else _mat_moves(t.play))
            if t.player == "white" or not rows or rows[-1][1]:
                rows.append(["", ""])
            rows[-1][0 if t.player == "white" else 1] = text.rstrip() if t.play is None else text
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

    from bgrl._fileio import write_text_atomic

    return write_text_atomic(path, mat_text(records, match_length))
