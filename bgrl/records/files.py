"""Reading game files by their content: a bgrl game record (``bgrl-game-1`` JSON lines,
:mod:`bgrl.records.record`) or a Jellyfish ``.mat`` / ``.gam`` export as GNU Backgammon
writes it (:mod:`bgrl.records.matfile`). The one reader of ``bgrl review``'s files and of
the web board's uploads.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bgrl.records.matfile import looks_like_mat, parse_mat
from bgrl.records.record import FORMAT, RecordError, read_record
from bgrl._fileio import InputFileError, read_input_text

__all__ = ["read_games", "read_games_text"]


def _cube_info(games) -> list[dict]:
    """Per ``.mat`` game, what :func:`bgrl.records.cube_review.review_cube` needs."""
    return [{"record": g.record, "actions": g.cube_actions, "match_length": g.match_length, "score": g.score,
             "crawford": g.crawford} for g in games]


def read_games_text(text: str, source: str = "<upload>", with_cube: bool = False):
    """The games of a game file's text: (records, notes per record, kind ``'bgrl-game-1'``
    or ``'mat'``). ``source`` names the file in error messages. With ``with_cube`` a fourth
    item: per record the cube information for :func:`bgrl.records.cube_review.review_cube` (the
    ``.mat`` game's cube actions, match length, score, Crawford game), None for a bgrl game
    record (which holds no cube actions).

    Raises
    ------
    bgrl.records.record.RecordError (a ValueError)
        for text of neither format, or a corrupt record (every play is checked).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        fd, tmp = tempfile.mkstemp(suffix=".jsonl", prefix="bgrl-upload-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            try:
                rec = read_record(tmp)
            except RecordError as exc:
                raise RecordError(str(exc).replace(tmp, source)) from None
        finally:
            os.unlink(tmp)
        return ([rec], [[]], FORMAT, [None]) if with_cube else ([rec], [[]], FORMAT)
    if looks_like_mat(text):
        games = parse_mat(text, source)
        out = [g.record for g in games], [g.notes for g in games], "mat"
        return (*out, _cube_info(games)) if with_cube else out
    raise RecordError(f"{source}: not a game file; expected {_EXPECTED}")


_EXPECTED = f"a bgrl game record (JSON lines, format {FORMAT}) or a Jellyfish .mat export (' 0 point match', 'Game 1', ...)"


def read_games(path, with_cube: bool = False):
    """:func:`read_games_text` of a file; a missing or unreadable file is a RecordError."""
    p = Path(path)
    try:  # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
        text = read_input_text(p, "game file", _EXPECTED, errors="replace")
    except InputFileError as exc:
        raise RecordError(str(exc)) from None
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):  # read by path, so errors name the file and line as read_record does
        out = [read_record(p)], [[]], FORMAT
        return (*out, [None]) if with_cube else out
    return read_games_text(text, str(p), with_cube=with_cube)
