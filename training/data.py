"""The distillation data files: the one reader, writer and checker of their format.

A data file is an npz archive (never pickled) holding ``boards`` (int8 (N, 26), bgrl's board
encoding from the side on roll), ``targets`` (float32 (N, 5), the outcome probabilities of
:mod:`bgrl.evaluation.probabilities`, each in [0, 1]), ``teacher`` (str, what made the targets)
and ``ply`` (int, the search depth of the targets). ``bgrl train --config`` recipes
(:mod:`bgrl.training.pipeline`) and the scripts under ``scripts/train/`` (``distill.py``,
``search_targets.py``, ``rollout_targets.py``) and ``scripts/experiments/target_accuracy.py``
read and write them through this module.

The target scripts also write resumable *part files*: npz archives of one chunk's ``boards``,
its results and a ``settings`` string; :func:`read_part` is their one reader.

Errors go through a ``fail(msg)`` callback (a script passes its own, which prints one line and
exits 2); by default they raise :class:`DataFileError`, a ValueError.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from bgrl._fileio import atomic_writer
from bgrl.evaluation.phase import PHASE_NAMES
from bgrl.rules.board import illegal_boards

__all__ = ["DATA_FORMAT", "MIN_POSITIONS", "DataFileError", "check_phases_and_files", "load_data", "read_part", "write_data"]

#: Fewest positions :func:`bgrl.training.distill.fit` is given.
MIN_POSITIONS = 100
DATA_FORMAT = ("expected an npz archive of distillation data (bgrl.training.data) with boards int8 (N, 26), "
               "targets float32 (N, 5) in [0, 1], teacher and ply")


class DataFileError(ValueError):
    """A distillation data file or part file that cannot be read or breaks the format."""


def _raise(msg: str):
    raise DataFileError(msg)


def write_data(path, boards: np.ndarray, targets: np.ndarray, teacher: str, ply: int) -> None:
    """Write one data file atomically (compressed npz; :data:`DATA_FORMAT`).

    boards : int (N, 26); targets : float (N, 5) in [0, 1]; teacher : str; ply : int >= 0.
    Raises ValueError for arrays of other shapes, OSError when the file cannot be written.
    """
    b = np.asarray(boards)
    t = np.asarray(targets)
    if b.ndim != 2 or b.shape[1] != 26 or t.shape != (b.shape[0], 5):
        raise ValueError(f"data: boards {b.shape} and targets {t.shape}; expected (N, 26) and (N, 5)")
    with atomic_writer(Path(path)) as f:
        np.savez_compressed(f, boards=b.astype(np.int8), targets=t.astype(np.float32), teacher=str(teacher), ply=int(ply))


def read_part(part: Path, settings: str, boards: np.ndarray, fields: tuple[str, ...], *, fail=None, redo: str,
              pattern: str, chosen_by: str, what: str = "part file") -> dict | None:
    """Read one resumable part file of the target scripts (``search_targets.py``,
    ``rollout_targets.py``, ``target_accuracy.py``): the arrays ``fields`` of ``part``, or None
    when it is not there yet. A part that is not a file, cannot be read, or was made from other
    positions (``boards``) or ``settings`` (its ``settings`` string) ends the run through
    ``fail(msg)`` with one line naming it and which of the two differs; ``redo`` says what
    removing it does ("value its positions again"), ``pattern`` names the part files to remove
    for other settings, ``chosen_by`` the calling script's flags that choose and cut its
    positions ("--positions, --seed or --workers"). A ``targets`` field must hold float32
    outcome probabilities, one row of 5 in [0, 1] per board. The default ``fail`` raises
    :class:`DataFileError`."""
    fail = fail or _raise
    if not part.exists():
        return None
    if not part.is_file():
        fail(f"{what} {part} is not a file; remove it or choose another --out")
    try:
        z = np.load(part, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise ValueError("a single .npy array, not an npz archive")
        with z:
            theirs = str(z["settings"]) if "settings" in z.files else "none"
            theirs_boards = z["boards"]
            got = {k: z[k] for k in fields}
    except (OSError, ValueError, KeyError, EOFError, MemoryError, TypeError, zipfile.BadZipFile, zlib.error) as exc:
        fail(f"{what} {part} cannot be read ({exc}); remove it to {redo}")
    if theirs != settings:
        fail(f"{what} {part} was made with other settings ({theirs}) than these ({settings}); "
             f"remove the {pattern} files or choose another --out")
    if not np.array_equal(theirs_boards, boards):
        n = len(theirs_boards) if getattr(theirs_boards, "ndim", 0) else 0
        fail(f"{what} {part} holds other positions ({n} of them, {len(boards)} expected here: the input "
             f"data or {chosen_by} changed); remove the {pattern} files or choose another --out")
    t = got.get("targets")
    if t is not None and (t.shape != (len(boards), 5) or t.dtype != np.float32 or not np.all((t >= 0) & (t <= 1))):
        why = (f"of shape {t.shape}" if t.shape != (len(boards), 5) else
               f"of dtype {t.dtype}" if t.dtype != np.float32 else "outside [0, 1] or NaN")
        fail(f"{what} {part} holds targets {why}; expected float32 ({len(boards)}, 5) probabilities in [0, 1]: "
             f"remove it to {redo}")
    return got


def load_data(path: str, max_ply: int, fail=None) -> tuple[np.ndarray, np.ndarray, str, int]:
    """Read and check one distillation data file (:data:`DATA_FORMAT`).

    path : the file; max_ply : the deepest ply its targets may come from.
    Returns (boards int8 (N, 26), targets float32 (N, 5), teacher str, ply int).
    A file that cannot be read or breaks the format calls ``fail(msg)`` with one line naming
    the file and what was expected; the default ``fail`` raises :class:`DataFileError`.
    """
    _fail = fail or _raise
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, MemoryError, zipfile.BadZipFile, zlib.error) as exc:
        why = "it holds pickled objects" if "pickle" in str(exc) else (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)
        _fail(f"--data {path} cannot be read ({why}); {DATA_FORMAT}")
    if not isinstance(z, np.lib.npyio.NpzFile):
        _fail(f"--data {path} is a single .npy array, not an npz archive; {DATA_FORMAT}")
    with z:
        missing = [k for k in ("boards", "targets", "teacher", "ply") if k not in z.files]
        if missing:
            _fail(f"--data {path} lacks {', '.join(missing)} (it has {', '.join(z.files) or 'no arrays'}); {DATA_FORMAT}")
        try:
            boards, targets, teacher, ply = (z[k] for k in ("boards", "targets", "teacher", "ply"))
        except (OSError, ValueError, EOFError, MemoryError, zipfile.BadZipFile, zlib.error) as exc:
            why = "it holds pickled objects" if "pickle" in str(exc) else (str(exc) or type(exc).__name__)
            _fail(f"--data {path} is damaged ({why}); {DATA_FORMAT}")
    if boards.ndim != 2 or boards.shape[1] != 26 or boards.dtype.kind not in "iu":
        _fail(f"--data {path}: boards is {boards.dtype} {boards.shape}; expected int8 (N, 26)")
    if boards.size and (boards.min() < -15 or boards.max() > 15):
        _fail(f"--data {path}: boards hold counts outside -15..15; expected int8 (N, 26) boards of bgrl.rules.board")
    if boards.size:
        bad = illegal_boards(boards)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"--data {path}: board {i} is not a legal board ({boards[i].tolist()}); expected at most 15 checkers a side, "
                  "the opponent's bar (index 0) <= 0 and the mover's bar (index 25) >= 0 (bgrl.rules.board.validate_board)")
    if targets.ndim != 2 or targets.shape[1] != 5 or targets.dtype.kind != "f":
        _fail(f"--data {path}: targets is {targets.dtype} {targets.shape}; expected float32 (N, 5)")
    if targets.shape[0] != boards.shape[0]:
        _fail(f"--data {path}: {boards.shape[0]} boards but {targets.shape[0]} targets; expected one target row per board")
    if not np.isfinite(targets).all() or (targets < 0).any() or (targets > 1).any():
        _fail(f"--data {path}: targets outside [0, 1]; expected outcome probabilities in [0, 1]")
    if teacher.ndim != 0 or teacher.dtype.kind not in "US":
        _fail(f"--data {path}: teacher is {teacher.dtype} {teacher.shape}; expected a string")
    if ply.ndim != 0 or ply.dtype.kind not in "iu" or not 0 <= int(ply) <= max_ply:
        _fail(f"--data {path}: ply is {ply!r}; expected an integer 0..{max_ply}")
    return boards.astype(np.int8), targets.astype(np.float32), str(teacher), int(ply)


def check_phases_and_files(phases, paths, fail=None, flag: str = "") -> None:
    """Exit through ``fail(msg)`` for an unknown phase name (bgrl.evaluation.phase) among
    ``phases`` (or None) or a file given twice among ``paths`` (``flag`` prefixes its name);
    the default ``fail`` raises :class:`DataFileError`."""
    fail = fail or _raise

    bad = [ph for ph in phases or () if ph not in PHASE_NAMES]
    if bad:
        fail(f"--phases: unknown phase {bad[0]!r}; expected some of {', '.join(PHASE_NAMES)}")
    seen = {}
    for d in paths:
        key = Path(d).resolve()
        if key in seen:
            fail(f"{flag}{d} is given twice (also as {seen[key]}); expected distinct files")
        seen[key] = d
