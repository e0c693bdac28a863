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
* The ``result`` line is absent from an unfinished game.
* ``turn`` numbers the turns 1, 2, 3, ... in file order (optional on reading; when present
  it must be that number); ``dice`` written low die first (``[1, 3]``) are refused.

A record is written atomically (temporary file, then rename): a crash leaves either the old
file or the whole new one, never half a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from bgrl.rules.board import Position
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation
from bgrl.rules.dice import parse_dice
from bgrl._fileio import InputFileError, loads_json, read_input_text, write_text_atomic
from bgrl.rules.outcome import game_results

__all__ = ["FORMAT", "RecordError", "Turn", "GameRecord", "read_record", "write_record"]

FORMAT = "bgrl-game-1"
PLAYERS = ("white", "black")
HOWS = ("single", "gammon", "backgammon", "resign", "draw")


class RecordError(ValueError):
    """A game record that cannot be read: names the file, the line and what was expected."""


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


@dataclass
class GameRecord:
    """A whole game: header fields, turns in order and the result (None while unfinished)."""

    white: str = "white"
    black: str = "black"
    start_position_id: str = "4HPwATDgc/ABMA"
    start_on_roll: str = "white"
    seed: int | None = None
    date: str | None = None
    turns: list[Turn] = field(default_factory=list)
    result: dict | None = None

    def add_turn(self, player: str, position, dice, play) -> None:
        """Append a turn; ``position`` a Position or Position ID, ``play`` a Play, notation or None."""
        pid = position.position_id if isinstance(position, Position) else str(position)
        text = None if play is None else getattr(play, "notation", play)
        self.turns.append(Turn(player, pid, tuple(int(d) for d in dice), text))

    def finish(self, winner: str | None, points: int, how: str) -> None:
        """Record the result (see the module docstring for ``how``)."""
        if how not in HOWS:
            raise ValueError(f"how must be one of {HOWS}, got {how!r}")
        self.result = {"type": "result", "winner": winner, "points": int(points), "how": how}

    def lines(self) -> list[dict]:
        head = {"type": "game", "format": FORMAT, "white": self.white, "black": self.black,
                "start_position_id": self.start_position_id, "start_on_roll": self.start_on_roll,
                "seed": self.seed, "date": self.date}
        out = [head] + [t.as_dict(i + 1) for i, t in enumerate(self.turns)]
        if self.result is not None:
            out.append(self.result)
        return out


def write_record(record: GameRecord, path) -> Path:
    """Write ``record`` to ``path`` atomically as JSON lines. Returns the path."""
    text = "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for line in record.lines())
    return write_text_atomic(path, text)


def read_record(path, check: bool = True) -> GameRecord:
    """Read a ``bgrl-game-1`` record.

    With ``check`` every turn's position, dice and play are validated: the play must be
    legal (or null exactly when no die can be played), and the game must hang together:
    the first turn is ``start_on_roll``'s at ``start_position_id``, players alternate, each
    turn's position is the one the previous play (or pass) left, nobody plays after the game
    is over, and a played-out result names the side that bore off and the points it won.

    Raises
    ------
    RecordError
        naming the file and line for a missing file, bad JSON, a wrong format tag, a
        missing field, a bad Position ID or dice (or dice low die first), a turn number out
        of order, a result line that does not add up (see :func:`_read_result`), or an
        illegal play.
    """
    path = Path(path)
    expected = f"a bgrl game record (JSON lines, format {FORMAT})"
    try:  # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
        raw = read_input_text(path, "game record", expected).splitlines()
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    rows = [(i + 1, line) for i, line in enumerate(raw) if line.strip()]
    if not rows:
        raise RecordError(f"{path}: empty file; expected a bgrl game record (JSON lines, format {FORMAT})")

    def bad(n: int, what: str) -> RecordError:
        return RecordError(f"{path}, line {n}: {what}")

    objs = []
    for n, line in rows:
        try:
            obj = loads_json(line, f"{path}, line {n}")  # nesting and lone surrogates refused
        except json.JSONDecodeError as exc:
            raise bad(n, f"not JSON ({exc.msg}); expected one JSON object per line") from None
        except InputFileError as exc:
            raise RecordError(str(exc)) from None
        if not isinstance(obj, dict):
            raise bad(n, f"expected a JSON object, got {type(obj).__name__}")
        objs.append((n, obj))
    n0, head = objs[0]
    if head.get("type") != "game" or head.get("format") != FORMAT:
        raise bad(n0, f"expected a header {{\"type\": \"game\", \"format\": \"{FORMAT}\"}}, got {str(head)[:80]}")
    if head.get("start_on_roll", "white") not in PLAYERS:
        raise bad(n0, f"start_on_roll must be 'white' or 'black', got {str(head.get('start_on_roll'))[:40]!r}")
    rec = GameRecord(white=str(head.get("white", "white")), black=str(head.get("black", "black")),
                     start_position_id=str(head.get("start_position_id", "4HPwATDgc/ABMA")),
                     start_on_roll=str(head.get("start_on_roll", "white")), seed=head.get("seed"), date=head.get("date"))
    for n, obj in objs[1:]:
        kind = obj.get("type")
        if rec.result is not None:
            raise bad(n, "nothing may follow the result line")
        if kind == "result":
            rec.result = _read_result(obj, lambda what: bad(n, what))
            continue
        if kind != "turn":
            raise bad(n, f"expected type 'turn' or 'result', got {kind!r}")
        missing = [k for k in ("player", "position_id", "dice", "play") if k not in obj]
        if missing:
            raise bad(n, f"turn lacks {missing}")
        if "turn" in obj and (isinstance(obj["turn"], bool) or not isinstance(obj["turn"], int)):
            raise bad(n, f"turn must be an integer, got {str(obj['turn'])[:40]!r}")
        if "turn" in obj and obj["turn"] != len(rec.turns) + 1:
            raise bad(n, f"turn number {obj['turn']}, expected {len(rec.turns) + 1} (turns are numbered 1, 2, 3, ... in order)")
        if obj["player"] not in PLAYERS:
            raise bad(n, f"player must be 'white' or 'black', got {obj['player']!r}")
        try:
            pos = Position.from_id(str(obj["position_id"]))
            d = obj["dice"]
            if not (isinstance(d, list) and len(d) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in d)):
                raise ValueError(f"dice must be a list of two integers 1..6, got {str(d)[:40]}")
            dice = parse_dice(f"{d[0]}{d[1]}")
            if d[0] < d[1]:
                raise ValueError(f"dice {d} are written low die first; expected the high die first, [{d[1]}, {d[0]}]")
        except ValueError as exc:
            raise bad(n, str(exc)) from None
        play = obj["play"]
        if play is not None and not isinstance(play, str):
            raise bad(n, f"play must be a string or null, got {type(play).__name__}")
        if check:
            if play is None:
                if legal_plays(pos, dice):
                    raise bad(n, "play is null but the roll can be played")
            else:
                try:
                    play = play_from_notation(pos, dice, play).notation
                except IllegalPlayError as exc:
                    raise bad(n, f"illegal play {play!r}: {exc}") from None
        if check:
            _check_sequence(rec, obj["player"], pos, bad(n, "").args[0])
        rec.turns.append(Turn(obj["player"], pos.position_id, dice, play))
    if check:
        _check_result(rec, path)
    return rec


def _read_result(obj: dict, bad) -> dict:
    """The result line checked on its own: ``how`` one of :data:`HOWS`; a played-out game
    (single/gammon/backgammon) has a winner and 1/2/3 points; a resignation has a winner
    and 1-3 points (single, gammon or backgammon resigned: RULES, docs/rules.md); a draw
    has winner null and 0 points. ``bad(what)`` builds the error to raise."""
    winner, how, points = obj.get("winner"), obj.get("how"), obj.get("points")
    if how not in HOWS:
        raise bad(f"result how must be one of {', '.join(HOWS)}, got {str(how)[:40]!r}")
    if isinstance(points, bool) or not isinstance(points, int):
        raise bad(f"result points must be an integer, got {str(points)[:40]!r}")
    if how == "draw":
        if winner is not None or points != 0:
            raise bad(f"a draw has winner null and 0 points, got winner {str(winner)[:40]!r} and {points} points")
    elif winner not in PLAYERS:
        raise bad(f"result winner must be 'white' or 'black' (null only for a draw), got {str(winner)[:40]!r}")
    elif how == "resign" and points not in (1, 2, 3):
        raise bad(f"a resignation is worth 1, 2 or 3 points (single, gammon or backgammon), got {points}")
    elif how in HOWS[:3] and points != HOWS.index(how) + 1:
        raise bad(f"a {how} is worth {HOWS.index(how) + 1} point(s), got {points}")
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


def _check_result(rec: GameRecord, path: Path) -> None:
    if not rec.turns:
        if rec.result is not None and rec.result["how"] in HOWS[:3]:
            raise RecordError(f"{path}: the result says the game was played out ({rec.result['how']}), but no turn was played")
        return
    last = rec.turns[-1]
    after, _ = _after(last)
    points = int(game_results(after[None])[0]) if after is not None else 0
    res = rec.result
    if points:
        want = {"winner": last.player, "points": points, "how": HOWS[points - 1]}
        if res is None or any(res[k] != v for k, v in want.items()):
            raise RecordError(f"{path}: the last play bears off {last.player}'s last checker ({HOWS[points - 1]}, {points} point(s)), "
                              f"but the result line says {None if res is None else {k: res[k] for k in want}}")
    elif res is not None and res["how"] in HOWS[:3]:
        raise RecordError(f"{path}: the result says the game was played out ({res['how']}), but no side has borne off all its checkers")
