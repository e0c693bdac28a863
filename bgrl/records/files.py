"""Reading game files by their content: a bgrl game record (``bgrl-game-1`` JSON lines,
:mod:`bgrl.records.record`, one game or several) or a Jellyfish ``.mat`` / ``.gam`` export as
GNU Backgammon writes it (:mod:`bgrl.records.matfile`). The one reader of ``bgrl review``'s
files and of the web board's uploads.

A long read can be called off: give ``stop`` (a callable returning True when the work must
stop, e.g. a ``threading.Event``'s ``is_set``); it is called every
:data:`bgrl.records.record.STOP_EVERY` lines, between games and between batches of rolls,
and :class:`bgrl.records.record.ReadStopped` (a RuntimeError) is raised when it says so.
"""

from __future__ import annotations

from pathlib import Path

from bgrl.records.matfile import CubeAction, looks_like_mat, parse_mat
from bgrl.records.record import FORMAT, GameRecord, ReadStopped, RecordError, parse_records
from bgrl.rules.board import Position
from bgrl.rules.notation import play_from_notation
from bgrl._fileio import InputFileError, read_input_text

__all__ = ["read_games", "read_games_text", "record_cube_info", "ReadStopped"]


def _cube_info(games) -> list[dict]:
    """Per ``.mat`` game, what :func:`bgrl.records.cube_review.review_cube` needs."""
    return [{"record": g.record, "actions": g.cube_actions, "match_length": g.match_length, "score": g.score,
             "crawford": g.crawford} for g in games]


def record_cube_info(rec: GameRecord) -> dict | None:
    """What :func:`bgrl.records.cube_review.review_cube` needs of a bgrl game record that
    holds the cube (its header's ``cube`` and its cube lines): ``{"record", "actions"
    (:class:`bgrl.records.matfile.CubeAction`, each with the doubler's position before its
    roll), "match_length", "score", "crawford", "jacoby"}``; None for a record without the
    cube, or one whose game began with the cube turned (a set-up position: the cube review
    starts from a centred cube at 1)."""
    head = rec.cube
    if head is None and not rec.cube_actions:
        return None
    head = head or {}
    if head.get("value", 1) != 1 or head.get("owner") is not None:
        return None
    actions, where = [], None
    for c in rec.cube_actions:
        if c.action == "double" or where is None:
            where = _position_before(rec, c.turn)
        actions.append(CubeAction(c.line, c.player, c.action, c.value, c.turn, where))
    return {"record": rec, "actions": actions, "match_length": int(head.get("match_length", 0)),
            "score": tuple(head.get("score", (0, 0))), "crawford": bool(head.get("crawford", False)),
            "jacoby": bool(head.get("jacoby", False))}


def _position_before(rec: GameRecord, turn: int) -> str:
    """The Position ID before the roll of turn index ``turn`` (after the last turn: the
    position it left, the other side on roll)."""
    if turn < len(rec.turns):
        return rec.turns[turn].position_id
    if not rec.turns:
        return rec.start_position_id
    last = rec.turns[-1]
    if last.play is None:
        return Position.from_id(last.position_id).flipped().position_id
    return play_from_notation(last.position_id, last.dice, last.play).position.position_id


def read_games_text(text: str, source: str = "<upload>", with_cube: bool = False, stop=None):
    """The games of a game file's text: (records, notes per record, kind ``'bgrl-game-1'``
    or ``'mat'``). ``source`` names the file in error messages. With ``with_cube`` a fourth
    item: per record the cube information for :func:`bgrl.records.cube_review.review_cube`
    (a ``.mat`` game's cube actions, match length, score, Crawford game; a bgrl game
    record's from its cube header and cube lines, :func:`record_cube_info`), None for a
    record without the cube.

    ``stop``: a callable returning True when the work must stop (see the module docstring),
    or None.

    Raises
    ------
    bgrl.records.record.RecordError (a ValueError)
        for text of neither format, or a corrupt record (every play is checked).
    bgrl.records.record.ReadStopped (a RuntimeError)
        when ``stop()`` returned True.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        recs = parse_records(text, source, stop=stop)
        out = recs, [[] for _ in recs], FORMAT
        return (*out, [record_cube_info(r) for r in recs]) if with_cube else out
    if looks_like_mat(text):
        games = parse_mat(text, source, stop)
        out = [g.record for g in games], [g.notes for g in games], "mat"
        return (*out, _cube_info(games)) if with_cube else out
    raise RecordError(f"{source}: not a game file; expected {_EXPECTED}")


_EXPECTED = f"a bgrl game record (JSON lines, format {FORMAT}) or a Jellyfish .mat export (' 0 point match', 'Game 1', ...)"


def read_games(path, with_cube: bool = False, stop=None):
    """:func:`read_games_text` of a file (errors name the file and line); a missing or
    unreadable file is a RecordError, a stopped read ReadStopped."""
    p = Path(path)
    try:  # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
        text = read_input_text(p, "game file", _EXPECTED, errors="replace")
        if "\ufffd" in text and text.lstrip().startswith("{"):
            # a bgrl record is JSON, so UTF-8: read it again strictly for the error naming the byte
            # (a .mat file may carry Latin-1 names, which are shown replaced)
            read_input_text(p, "game file", _EXPECTED, errors="strict")
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    return read_games_text(text, str(p), with_cube=with_cube, stop=stop)
