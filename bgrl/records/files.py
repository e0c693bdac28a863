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

__all__ = ["read_games", "read_games_text"]


def read_games_text(text: str, source: str = "<upload>") -> tuple[list, list[list[str]], str]:
    """The games of a game file's text: (records, notes per record, kind ``'bgrl-game-1'``
    or ``'mat'``). ``source`` names the file in error messages.

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
        return [rec], [[]], FORMAT
    if looks_like_mat(text):
        games = parse_mat(text, source)
        return [g.record for g in games], [g.notes for g in games], "mat"
    raise RecordError(f"{source}: not a game file; expected a bgrl game record (JSON lines, format {FORMAT}) "
                      "or a Jellyfish .mat export (' 0 point match', 'Game 1', ...)")


def read_games(path) -> tuple[list, list[list[str]], str]:
    """:func:`read_games_text` of a file; a missing or unreadable file is a RecordError."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise RecordError(f"cannot read game file {p}: {exc.strerror or exc}") from None
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):  # read by path, so errors name the file and line as read_record does
        return [read_record(p)], [[]], FORMAT
    return read_games_text(text, str(p))
