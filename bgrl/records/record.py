"""Game records: the project's own format, JSON lines (``.jsonl``), one object a line.

Written by ``bgrl play`` and ``bgrl match --save-games DIR``; read by ``bgrl review``.

Format ``bgrl-game-1``::

    {"type": "game", "format": "bgrl-game-1", "white": "human", "black": "expert",
     "start_position_id": "4HPwATDgc/ABMA", "start_on_roll": "white", "seed": 7, "date": "2026-11-30T12:00:00Z"}
    {"type": "turn", "turn": 1, "player": "white", "position_id": "4HPwATDgc/ABMA", "dice": [3, 1], "play": "8/5 6/5"}
    {"type": "turn", "turn": 2, "player": "black", "position_id": "...", "dice": [6, 6], "play": null}
    {"type": "result", "winner": "white", "points": 2, "how": "gammon"}

* ``position_id`` is the gnubg Position ID of the position *before* the play, seen from the
  side on roll (``player``); ``dice`` is ``[high, low]``; ``play`` is the play in the
  mover's own numbering (:mod:`bgrl.rules.notation`), or ``null`` when no die could be played.
* ``how`` is one of ``single``, ``gammon``, ``backgammon`` (played out), ``resign`` (then
  ``points`` is the value resigned) or ``draw`` (then ``winner`` is ``null``, points 0).
  ``points`` are the points the winner scored: with the cube, the result times the cube.
* The ``result`` line is absent from an unfinished game.
* ``turn`` numbers the turns 1, 2, 3, ... in file order (optional on reading; when present
  it must be that number); ``dice`` written low die first (``[1, 3]``) are refused.

A game played with the doubling cube (``bgrl play --cube``, the web board's cube sessions)
also carries (both optional, so a cubeless record is written as before):

* a header field ``"cube"``: the rules and the cube the game began with, ``{"match_length":
  0, "score": [0, 0], "crawford": false, "jacoby": false, "beavers": false, "max_value":
  32768, "value": 1, "owner": null}`` (``score`` [White, Black] before the game, 0-0 in
  money play; ``owner`` null for a centred cube, else ``"white"``/``"black"``);
* a line ``{"type": "cube", "player": "white", "action": "double", "value": 2}`` for every
  cube action, before the turn whose roll it precedes: ``action`` is ``double`` (``value``
  the cube offered), ``take`` (the new value), ``beaver`` (taken and redoubled at once: the
  new value, 4 times the old) or ``drop`` (the value of the cube before the double). A drop
  ends the game: the doubler wins the cube before the double, recorded as a single game
  resigned (``"how": "resign"``), as a ``.mat`` file's drop is read.

With that header the result's points must be exactly the cube times the result (a gammon or
backgammon counts single under the Jacoby rule while the cube is centred in money play).
A record without it (a cubeless game, or one ``bgrl play --cube`` wrote before records held
the cube) may score a played-out game or a resignation at any cube from 1 to
:data:`bgrl.rules.cube.DEFAULT_MAX_CUBE`.

Several games may follow one another in one file (``bgrl games export ID``): each begins
with its header line (:func:`read_records`).

A record is written atomically (temporary file, then rename): a crash leaves either the old
file or the whole new one, never half a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from bgrl.rules.board import Position
from bgrl.rules.cube import DEFAULT_MAX_CUBE
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation
from bgrl.rules.dice import parse_dice
from bgrl._fileio import InputFileError, loads_json, read_input_text, write_text_atomic
from bgrl.rules.outcome import game_results

__all__ = ["FORMAT", "RecordError", "ReadStopped", "Turn", "CubeEvent", "GameRecord", "read_record", "read_records",
           "parse_records", "write_record", "check_stop", "CUBE_ACTIONS", "STOP_EVERY"]

FORMAT = "bgrl-game-1"
PLAYERS = ("white", "black")
HOWS = ("single", "gammon", "backgammon", "resign", "draw")
#: The ``action`` of a record's cube line.
CUBE_ACTIONS = ("double", "take", "beaver", "drop")
#: Readers given ``stop`` call it every this many lines (and between games).
STOP_EVERY = 256
_CUBE_HEADER = {"match_length": 0, "score": [0, 0], "crawford": False, "jacoby": False, "beavers": False,
                "max_value": DEFAULT_MAX_CUBE, "value": 1, "owner": None}


class RecordError(ValueError):
    """A game record that cannot be read: names the file, the line and what was expected."""


class ReadStopped(RuntimeError):
    """Reading a game file was stopped by its caller (the ``stop`` callable returned True).

    A RuntimeError, not a :class:`RecordError`: the file may be fine, the work was called off."""


def check_stop(stop, where: str) -> None:
    """Raise :class:`ReadStopped` naming ``where`` when ``stop`` (a callable or None) says so."""
    if stop is not None and stop():
        raise ReadStopped(f"{where}: reading stopped")


@dataclass
class Turn:
    """One turn: ``player`` (white/black) on roll at ``position_id`` threw ``dice`` (high die
    first; the reader refuses ``[low, high]``) and played ``play`` (mover's notation; None = no legal play)."""

    player: str
    position_id: str
    dice: tuple[int, int]
    play: str | None

    def as_dict(self, number: int) -> dict:
        return {"type": "turn", "turn": number, "player": self.player, "position_id": self.position_id,
                "dice": [max(self.dice), min(self.dice)], "play": self.play}


@dataclass(frozen=True)
class CubeEvent:
    """One cube action of a record: ``player`` (white/black) made ``action`` (one of
    :data:`CUBE_ACTIONS`) with ``value`` (see the module docstring) before the roll of turn
    index ``turn`` (0-based; ``len(turns)`` after the last turn); ``line`` is the file's line
    (0 for a record built in memory)."""

    player: str
    action: str
    value: int
    turn: int
    line: int = 0

    def as_dict(self) -> dict:
        return {"type": "cube", "player": self.player, "action": self.action, "value": self.value}


@dataclass
class GameRecord:
    """A whole game: header fields, turns in order and the result (None while unfinished);
    a cube game's ``cube`` header (a dict, see the module docstring; None without the cube)
    and its ``cube_actions`` (:class:`CubeEvent`, in order)."""

    white: str = "white"
    black: str = "black"
    start_position_id: str = "4HPwATDgc/ABMA"
    start_on_roll: str = "white"
    seed: int | None = None
    date: str | None = None
    turns: list[Turn] = field(default_factory=list)
    result: dict | None = None
    cube: dict | None = None
    cube_actions: list[CubeEvent] = field(default_factory=list)

    def add_turn(self, player: str, position, dice, play) -> None:
        """Append a turn; ``position`` a Position or Position ID, ``play`` a Play, notation or None."""
        pid = position.position_id if isinstance(position, Position) else str(position)
        text = None if play is None else getattr(play, "notation", play)
        self.turns.append(Turn(player, pid, tuple(int(d) for d in dice), text))

    def add_cube(self, player: str, action: str, value: int) -> None:
        """Append a cube action before the next turn (see :class:`CubeEvent`). ValueError for
        an action not in :data:`CUBE_ACTIONS` or a player not white/black."""
        if action not in CUBE_ACTIONS or player not in PLAYERS:
            raise ValueError(f"a cube action is one of {CUBE_ACTIONS} by white or black, got {action!r} by {player!r}")
        self.cube_actions.append(CubeEvent(player, action, int(value), len(self.turns)))

    def finish(self, winner: str | None, points: int, how: str) -> None:
        """Record the result (see the module docstring for ``how``)."""
        if how not in HOWS:
            raise ValueError(f"how must be one of {HOWS}, got {how!r}")
        self.result = {"type": "result", "winner": winner, "points": int(points), "how": how}

    def lines(self) -> list[dict]:
        head = {"type": "game", "format": FORMAT, "white": self.white, "black": self.black,
                "start_position_id": self.start_position_id, "start_on_roll": self.start_on_roll,
                "seed": self.seed, "date": self.date}
        if self.cube is not None:
            head["cube"] = dict(self.cube)
        out = [head]
        cubes = sorted(self.cube_actions, key=lambda c: c.turn)  # stable: the order made within a turn
        k = 0
        for i, t in enumerate(self.turns):
            while k < len(cubes) and cubes[k].turn <= i:
                out.append(cubes[k].as_dict())
                k += 1
            out.append(t.as_dict(i + 1))
        out += [c.as_dict() for c in cubes[k:]]
        if self.result is not None:
            out.append(self.result)
        return out


def write_record(record: GameRecord, path) -> Path:
    """Write ``record`` to ``path`` atomically as JSON lines. Returns the path."""
    text = "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for line in record.lines())
    return write_text_atomic(path, text)


def read_record(path, check: bool = True) -> GameRecord:
    """Read a ``bgrl-game-1`` record of one game (:func:`read_records` reads a file of several).

    With ``check`` every turn's position, dice and play are validated: the play must be
    legal (or null exactly when no die can be played), and the game must hang together:
    the first turn is ``start_on_roll``'s at ``start_position_id``, players alternate, each
    turn's position is the one the previous play (or pass) left, nobody plays after the game
    is over, and a played-out result names the side that bore off and the points it won.
    Cube lines are always checked (see :func:`parse_records`).

    Raises
    ------
    RecordError
        naming the file and line for a missing file, bad JSON, a wrong format tag, a
        missing field, a bad Position ID or dice (or dice low die first), a turn number out
        of order, a cube line out of turn, a result line that does not add up (see
        :func:`_read_result`), an illegal play, or a second game in the file.
    """
    games = read_records(path, check)
    if len(games) > 1:
        raise RecordError(f"{path}: holds {len(games)} games; expected one (bgrl.records.record.read_records reads several)")
    return games[0]


def read_records(path, check: bool = True, stop=None) -> list[GameRecord]:
    """Read a file of one or more ``bgrl-game-1`` records (:func:`parse_records`).

    Raises
    ------
    RecordError
        for a missing or unreadable file (at most :data:`bgrl._fileio.MAX_INPUT_BYTES`; a
        folder, device or FIFO is refused) and everything :func:`parse_records` refuses.
    ReadStopped
        when ``stop()`` returned True.
    """
    path = Path(path)
    expected = f"a bgrl game record (JSON lines, format {FORMAT})"
    try:  # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
        text = read_input_text(path, "game record", expected)
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    return parse_records(text, str(path), check, stop)


def parse_records(text: str, source: str = "<record>", check: bool = True, stop=None) -> list[GameRecord]:
    """The games of ``bgrl-game-1`` text: each begins with its header line.

    Parameters
    ----------
    text : str
        JSON lines; blank lines are skipped.
    source : str
        names the file in error messages (``"{source}, line {n}: ..."``).
    check : bool
        validate every play and the sequence of turns (see :func:`read_record`).
    stop : callable returning bool, or None
        called every :data:`STOP_EVERY` lines; True stops the reading.

    Cube lines are checked as they come (see the module docstring): a double by the side
    about to roll, not by the side the cube is turned against, not in the Crawford game, not
    while another waits, to twice the cube and at most the header's ``max_value``; a take,
    beaver or drop by the doubler's opponent, at the value the double calls for; a beaver in
    money play with beavers on only; no roll while a double waits, nothing but the result
    after a drop.

    Returns
    -------
    list of GameRecord, in file order (at least one).

    Raises
    ------
    RecordError
        naming ``source`` and the line, as listed in :func:`read_record`.
    ReadStopped
        when ``stop()`` returned True.
    """
    raw = text.lstrip("\ufeff").splitlines()
    rows = [(i + 1, line) for i, line in enumerate(raw) if line.strip()]
    if not rows:
        raise RecordError(f"{source}: empty file; expected a bgrl game record (JSON lines, format {FORMAT})")

    def bad(n: int, what: str) -> RecordError:
        return RecordError(f"{source}, line {n}: {what}")

    games: list[list[tuple[int, dict]]] = []
    for k, (n, line) in enumerate(rows):
        if k % STOP_EVERY == 0:
            check_stop(stop, source)
        try:
            obj = loads_json(line, f"{source}, line {n}")  # nesting and lone surrogates refused
        except json.JSONDecodeError as exc:
            raise bad(n, f"not JSON ({exc.msg}); expected one JSON object per line") from None
        except InputFileError as exc:
            raise RecordError(str(exc)) from None
        if not isinstance(obj, dict):
            raise bad(n, f"expected a JSON object, got {type(obj).__name__}")
        if not games or obj.get("type") == "game":
            games.append([])  # the file's first line, or a header: a game begins
        games[-1].append((n, obj))
    out = []
    for objs in games:
        check_stop(stop, source)
        out.append(_read_game(objs, source, bad, check))
    return out


class _Cube:
    """The cube of a record as its lines are read (the header's start, then each action)."""

    def __init__(self, head: dict | None):
        h = dict(_CUBE_HEADER, **(head or {}))
        self.known = head is not None
        self.match_length, self.score, self.crawford = h["match_length"], h["score"], h["crawford"]
        self.jacoby, self.beavers, self.max_value = h["jacoby"], h["beavers"], h["max_value"]
        self.value, self.owner = h["value"], h["owner"]
        self.pending: tuple[str, int] | None = None  # (doubler, value offered)
        self.dropped: CubeEvent | None = None

    def points(self, result: int) -> int:
        """What a game won ``result`` (1..3) is worth now (the Jacoby rule counted)."""
        if self.jacoby and not self.match_length and self.owner is None:
            result = 1
        return self.value * result


def _check_cube_header(cube, bad) -> dict:
    """The header's ``cube`` object checked (keys of :data:`_CUBE_HEADER`, all optional)."""
    if not isinstance(cube, dict):
        raise bad(f"the header's cube must be an object like {json.dumps(_CUBE_HEADER)}, got {str(cube)[:40]!r}")
    extra = sorted(set(cube) - set(_CUBE_HEADER))
    if extra:
        raise bad(f"the header's cube has unknown field(s) {extra}; expected {sorted(_CUBE_HEADER)}")
    h = dict(_CUBE_HEADER, **cube)

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def power(v) -> bool:
        return whole(v) and v >= 1 and not v & (v - 1)

    n, sc = h["match_length"], h["score"]
    if not whole(n) or n < 0:
        raise bad(f"the header's cube match_length must be a whole number >= 0 (0 = money play), got {str(n)[:40]!r}")
    if not (isinstance(sc, list) and len(sc) == 2 and all(whole(x) for x in sc)):
        raise bad(f"the header's cube score must be [white, black], two whole numbers, got {str(sc)[:40]!r}")
    if n and not all(0 <= x < n for x in sc):
        raise bad(f"the header's cube score {sc} must be below the match length {n} on both sides")
    for key in ("crawford", "jacoby", "beavers"):
        if not isinstance(h[key], bool):
            raise bad(f"the header's cube {key} must be true or false, got {str(h[key])[:40]!r}")
    if n and (h["jacoby"] or h["beavers"]):
        raise bad("the Jacoby rule and beavers are money-game options, not for a match (header's cube)")
    if h["crawford"] and not (n and max(sc) == n - 1):
        raise bad(f"the header's cube says the Crawford game, but neither side is 1 point away in {sc} of {n}")
    if not power(h["max_value"]):
        raise bad(f"the header's cube max_value must be a power of 2, got {str(h['max_value'])[:40]!r}")
    if not power(h["value"]) or h["value"] > h["max_value"]:
        raise bad(f"the header's cube value must be a power of 2 up to max_value {h['max_value']}, got {str(h['value'])[:40]!r}")
    if h["owner"] not in (None, *PLAYERS):
        raise bad(f"the header's cube owner must be null (centred), 'white' or 'black', got {str(h['owner'])[:40]!r}")
    return cube


def _read_game(objs: list[tuple[int, dict]], source: str, bad_at, check: bool) -> GameRecord:
    n0, head = objs[0]
    if head.get("type") != "game" or head.get("format") != FORMAT:
        raise bad_at(n0, f"expected a header {{\"type\": \"game\", \"format\": \"{FORMAT}\"}}, got {str(head)[:80]}")
    if head.get("start_on_roll", "white") not in PLAYERS:
        raise bad_at(n0, f"start_on_roll must be 'white' or 'black', got {str(head.get('start_on_roll'))[:40]!r}")
    cube_head = None if head.get("cube") is None else _check_cube_header(head["cube"], lambda what: bad_at(n0, what))
    rec = GameRecord(white=str(head.get("white", "white")), black=str(head.get("black", "black")),
                     start_position_id=str(head.get("start_position_id", "4HPwATDgc/ABMA")),
                     start_on_roll=str(head.get("start_on_roll", "white")), seed=head.get("seed"), date=head.get("date"),
                     cube=cube_head)
    cube = _Cube(cube_head)
    for n, obj in objs[1:]:
        kind = obj.get("type")
        if rec.result is not None:
            raise bad_at(n, "nothing may follow the result line")
        if kind == "result":
            rec.result = _read_result(obj, lambda what: bad_at(n, what), cube)
            continue
        if kind == "cube":
            _read_cube(rec, obj, cube, lambda what: bad_at(n, what), n, check)
            continue
        if kind != "turn":
            raise bad_at(n, f"expected type 'turn', 'cube' or 'result', got {kind!r}")
        missing = [k for k in ("player", "position_id", "dice", "play") if k not in obj]
        if missing:
            raise bad_at(n, f"turn lacks {missing}")
        if "turn" in obj and (isinstance(obj["turn"], bool) or not isinstance(obj["turn"], int)):
            raise bad_at(n, f"turn must be an integer, got {str(obj['turn'])[:40]!r}")
        if "turn" in obj and obj["turn"] != len(rec.turns) + 1:
            raise bad_at(n, f"turn number {obj['turn']}, expected {len(rec.turns) + 1} (turns are numbered 1, 2, 3, ... in order)")
        if obj["player"] not in PLAYERS:
            raise bad_at(n, f"player must be 'white' or 'black', got {obj['player']!r}")
        if cube.pending is not None:
            raise bad_at(n, f"{obj['player']} rolls while {cube.pending[0]}'s double to {cube.pending[1]} waits for its "
                            "answer (expected a cube line take, beaver or drop)")
        if cube.dropped is not None:
            raise bad_at(n, f"a turn after the double was dropped (line {cube.dropped.line}); the drop ends the game")
        try:
            pos = Position.from_id(str(obj["position_id"]))
            d = obj["dice"]
            if not (isinstance(d, list) and len(d) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in d)):
                raise ValueError(f"dice must be a list of two integers 1..6, got {str(d)[:40]}")
            dice = parse_dice(f"{d[0]}{d[1]}")
            if d[0] < d[1]:
                raise ValueError(f"dice {d} are written low die first; expected the high die first, [{d[1]}, {d[0]}]")
        except ValueError as exc:
            raise bad_at(n, str(exc)) from None
        play = obj["play"]
        if play is not None and not isinstance(play, str):
            raise bad_at(n, f"play must be a string or null, got {type(play).__name__}")
        if check:
            if play is None:
                if legal_plays(pos, dice):
                    raise bad_at(n, "play is null but the roll can be played")
            else:
                try:
                    play = play_from_notation(pos, dice, play).notation
                except IllegalPlayError as exc:
                    raise bad_at(n, f"illegal play {play!r}: {exc}") from None
        if check:
            _check_sequence(rec, obj["player"], pos, bad_at(n, "").args[0])
        rec.turns.append(Turn(obj["player"], pos.position_id, dice, play))
    if check:
        _check_result(rec, source, cube)
    return rec


def _read_cube(rec: GameRecord, obj: dict, cube: _Cube, bad, n: int, check: bool) -> None:
    """One cube line, checked against the cube so far (module docstring) and appended."""
    player, action, value = obj.get("player"), obj.get("action"), obj.get("value")
    if player not in PLAYERS:
        raise bad(f"cube player must be 'white' or 'black', got {str(player)[:40]!r}")
    if action not in CUBE_ACTIONS:
        raise bad(f"cube action must be one of {', '.join(CUBE_ACTIONS)}, got {str(action)[:40]!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(f"cube value must be an integer, got {str(value)[:40]!r}")
    if cube.dropped is not None:
        raise bad(f"{player} {action}s after the double was dropped (line {cube.dropped.line}); the drop ends the game")
    other = PLAYERS[1 - PLAYERS.index(player)]
    if action == "double":
        on_roll = rec.start_on_roll if not rec.turns else PLAYERS[1 - PLAYERS.index(rec.turns[-1].player)]
        if cube.pending is not None:
            raise bad(f"{player} doubles while {cube.pending[0]}'s double to {cube.pending[1]} waits for its answer")
        if player != on_roll:
            raise bad(f"{player} doubles, but only the side about to roll may double ({on_roll})")
        if cube.crawford:
            raise bad(f"{player} doubles in the Crawford game (no doubling in it)")
        if cube.owner == other:
            raise bad(f"{player} doubles, but {other} owns the cube")
        if value != 2 * cube.value:
            raise bad(f"{player} doubles to {value}: expected {2 * cube.value} (twice the cube at {cube.value})")
        if value > cube.max_value:
            raise bad(f"{player} doubles to {value}, above the cube's cap {cube.max_value}")
        if check and rec.turns:
            after, _ = _after(rec.turns[-1])
            if after is not None and game_results(after[None])[0]:
                raise bad(f"{player} doubles after the game was over")
        cube.pending = (player, value)
    else:
        if cube.pending is None:
            raise bad(f"{player} {'drops' if action == 'drop' else action + 's'} but no double was offered")
        doubler, offered = cube.pending
        if player == doubler:
            raise bad(f"{player} answers its own double: expected {other}'s take, beaver or drop")
        want = {"take": offered, "beaver": 2 * offered, "drop": cube.value}[action]
        if value != want:
            what = {"take": "the value offered", "beaver": "twice the value offered",
                    "drop": "the cube before the double"}[action]
            raise bad(f"{player} {action}s with value {value}: expected {want} ({what})")
        if action == "beaver" and (cube.match_length or (cube.known and not cube.beavers)):
            raise bad(f"{player} beavers, but beavers are not played here (money play with beavers only)")
        cube.pending = None
        if action == "drop":
            cube.dropped = CubeEvent(player, action, value, len(rec.turns), n)
        else:
            cube.value, cube.owner = value, player
    rec.cube_actions.append(CubeEvent(player, action, value, len(rec.turns), n))


def _multiples(base: int) -> str:
    return f"{base} point(s) times the cube (a power of 2 up to {DEFAULT_MAX_CUBE})"


def _at_some_cube(points: int, results) -> bool:
    """Whether ``points`` is one of ``results`` times a cube 1, 2, 4, ... DEFAULT_MAX_CUBE."""
    c = 1
    while c <= DEFAULT_MAX_CUBE:
        if points % c == 0 and points // c in results:
            return True
        c *= 2
    return False


def _read_result(obj: dict, bad, cube: _Cube | None = None) -> dict:
    """The result line checked on its own and against the cube: ``how`` one of :data:`HOWS`;
    a played-out game (single/gammon/backgammon) has a winner and its 1/2/3 points times
    the cube; a resignation has a winner and 1-3 points (single, gammon or backgammon
    resigned: RULES, docs/rules.md) times the cube; a draw has winner null and 0 points.
    With the header's cube (``cube.known``) the cube is the one the cube lines leave, and a
    drop must be followed by the doubler's resignation of a single game at the cube before
    the double; without it the cube may be any power of 2 up to
    :data:`bgrl.rules.cube.DEFAULT_MAX_CUBE` (records written before they held the cube),
    and a gammon or backgammon worth 1 point (the Jacoby rule) is allowed. ``bad(what)``
    builds the error to raise."""
    cube = cube or _Cube(None)
    winner, how, points = obj.get("winner"), obj.get("how"), obj.get("points")
    if how not in HOWS:
        raise bad(f"result how must be one of {', '.join(HOWS)}, got {str(how)[:40]!r}")
    if isinstance(points, bool) or not isinstance(points, int):
        raise bad(f"result points must be an integer, got {str(points)[:40]!r}")
    if how == "draw":
        if winner is not None or points != 0:
            raise bad(f"a draw has winner null and 0 points, got winner {str(winner)[:40]!r} and {points} points")
        if cube.match_length:
            raise bad("a game of a match cannot end in a draw")
        if cube.dropped is not None:
            raise bad(f"a draw after the double was dropped (line {cube.dropped.line}); the doubler wins")
    elif winner not in PLAYERS:
        raise bad(f"result winner must be 'white' or 'black' (null only for a draw), got {str(winner)[:40]!r}")
    elif cube.dropped is not None:
        doubler = PLAYERS[1 - PLAYERS.index(cube.dropped.player)]
        if (winner, points, how) != (doubler, cube.value, "resign"):
            raise bad(f"after the drop (line {cube.dropped.line}) the result is {doubler}'s single game at the cube "
                      f"before the double: winner {doubler!r}, {cube.value} point(s), how 'resign'; got winner "
                      f"{winner!r}, {points} point(s), how {how!r}")
    elif cube.known:
        if how == "resign" and points not in [cube.value * r for r in (1, 2, 3)]:
            raise bad(f"a resignation is worth 1, 2 or 3 points (single, gammon or backgammon) times the cube at "
                      f"{cube.value}: {cube.value}, {2 * cube.value} or {3 * cube.value}, got {points}")
        if how in HOWS[:3] and points != cube.points(HOWS.index(how) + 1):
            jac = " (the Jacoby rule: the cube is centred)" if cube.points(2) == cube.value else ""
            raise bad(f"a {how} with the cube at {cube.value} is worth {cube.points(HOWS.index(how) + 1)} point(s){jac}, "
                      f"got {points}")
    elif how == "resign" and not _at_some_cube(points, (1, 2, 3)):
        raise bad(f"a resignation is worth 1, 2 or 3 points (single, gammon or backgammon) times the cube "
                  f"(a power of 2 up to {DEFAULT_MAX_CUBE}), got {points}")
    elif how in HOWS[:3] and not (_at_some_cube(points, (HOWS.index(how) + 1,)) or (points == 1 and how != "single")):
        raise bad(f"a {how} is worth {_multiples(HOWS.index(how) + 1)}"
                  + (", or 1 point under the Jacoby rule" if how != "single" else "") + f", got {points}")
    return {"type": "result", "winner": winner, "points": points, "how": how}


def _after(turn: Turn):
    """(after-state of the mover or None for a pass, the next position with the opponent on roll)."""
    pos = Position.from_id(turn.position_id)
    if turn.play is None:
        return None, pos.flipped()
    p = play_from_notation(pos, turn.dice, turn.play)
    return p.after_state, p.position


def _check_sequence(rec: GameRecord, player: str, pos: Position, where: str) -> None:
    if not rec.turns:
        if player != rec.start_on_roll:
            raise RecordError(f"{where}the first turn is {player}'s, but the header says {rec.start_on_roll} starts")
        if pos.position_id != rec.start_position_id:
            raise RecordError(f"{where}the first position {pos.position_id} is not the header's start_position_id {rec.start_position_id}")
        m_off, o_off = pos.off
        if m_off == 15 or o_off == 15:
            raise RecordError(f"{where}the start position {pos.position_id} is already a finished game")
        return
    prev = rec.turns[-1]
    if player == prev.player:
        raise RecordError(f"{where}{player} plays twice in a row; turns must alternate")
    after, nxt = _after(prev)
    if after is not None and game_results(after[None])[0]:
        raise RecordError(f"{where}the game was over after the previous turn; nothing may be played after it")
    if pos.position_id != nxt.position_id:
        raise RecordError(f"{where}position {pos.position_id} is not the one the previous turn left ({nxt.position_id})")


def _check_result(rec: GameRecord, source: str, cube: _Cube) -> None:
    if not rec.turns:
        if rec.result is not None and rec.result["how"] in HOWS[:3]:
            raise RecordError(f"{source}: the result says the game was played out ({rec.result['how']}), but no turn was played")
        return
    last = rec.turns[-1]
    after, _ = _after(last)
    result = int(game_results(after[None])[0]) if after is not None else 0
    res = rec.result
    if result:
        how = HOWS[result - 1]
        want = {"winner": last.player, "how": how}
        if cube.known:
            want["points"] = cube.points(result)
        ok = res is not None and all(res[k] == v for k, v in want.items())
        if not ok:
            worth = f"{want['points']} point(s) with the cube at {cube.value}" if cube.known else _multiples(result)
            raise RecordError(f"{source}: the last play bears off {last.player}'s last checker ({how}, {worth}), "
                              f"but the result line says {None if res is None else {k: res[k] for k in ('winner', 'points', 'how')}}")
    elif res is not None and res["how"] in HOWS[:3]:
        raise RecordError(f"{source}: the result says the game was played out ({res['how']}), but no side has borne off all its checkers")
