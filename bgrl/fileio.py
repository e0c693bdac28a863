"""Atomic text files: a crash leaves either the old file or the whole new one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_text_atomic", "check_writable_dir"]


def write_text_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder,
    fsync and rename; creates the folder. Returns the path. Raises OSError."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


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
