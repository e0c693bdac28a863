"""Atomic files (a crash leaves either the old file or the whole new one) and checks of output paths."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_writer", "write_text_atomic", "output_file_problem", "check_writable_dir"]


@contextmanager
def atomic_writer(path, binary: bool = True):
    """Open ``path`` for writing through a temporary file in the same folder (created if
    needed); on a clean exit the file is flushed, fsynced and renamed over ``path``, on an
    error the temporary file is removed and ``path`` is untouched. The file gets the mode
    ``open`` would give (0666 less the umask), not mkstemp's 0600. Yields a binary file
    object, or a UTF-8 text one when ``binary`` is false. Raises OSError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_writer`); creates the
    folder. Returns the path. Raises OSError."""
    with atomic_writer(path, binary=False) as f:
        f.write(text)
    return Path(path)


def output_file_problem(flag: str, path, what: str = "a file path") -> str | None:
    """Why a file cannot be written at ``path`` given by option ``flag`` (``what`` names the
    expected kind of path), or None when it looks writable: checked *before* long work,
    without creating anything."""
    path = Path(path)
    if path.is_dir():
        return f"{flag} {path} is a folder; expected {what}"
    if path.exists() and not path.is_file():
        return f"{flag} {path} is not a regular file (a device, pipe or socket); expected {what}"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{flag} {path}: {parent} is not a folder; expected {what} in a writable folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{flag} {path}: folder {parent} is not writable"
    return None


def check_writable_dir(path) -> Path:
    """Create the folder ``path`` (and its parents) if needed and prove files can be written
    in it, by creating and removing a temporary file; for checking an output folder *before*
    long work. Returns the path. Raises OSError (not a folder, cannot create, cannot write)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".bgrl-write-check.", suffix=".tmp", dir=path)
    os.close(fd)
    os.unlink(tmp)
    return path
