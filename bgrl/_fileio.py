"""Atomic files (a crash leaves either the old file or the whole new one), checks of output
paths, and the one bounded reader of input files (game records, ``--batch`` files, ``--config``
files and recipes) with the one checked JSON parser (nesting and lone surrogates)."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_writer", "write_text_atomic", "output_file_problem", "check_writable_dir", "MAX_INPUT_BYTES",
           "MAX_JSON_DEPTH", "InputFileError", "read_input_bytes", "read_input_text", "not_a_regular_file",
           "loads_json", "check_parsed", "check_npz", "MAX_NPZ_BYTES", "MAX_NPY_HEADER"]

#: The most bytes read from one input file: a game record or ``.mat`` export (``bgrl review``),
#: a ``--batch`` file, a ``--config`` file or recipe. A larger file is refused before it is
#: read; a device, FIFO, socket or folder is refused before it is opened for reading.
MAX_INPUT_BYTES = 16 * 1024 * 1024

#: The deepest nesting of lists and tables (objects) accepted in a JSON or TOML input.
MAX_JSON_DEPTH = 64


class InputFileError(ValueError):
    """An input file that cannot be read as asked: missing, a folder, a device, FIFO or socket,
    larger than :data:`MAX_INPUT_BYTES`, not UTF-8, nested too deeply, or holding a lone
    surrogate. Its message is one line naming the file."""


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


def _limit_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit:,} bytes"


def not_a_regular_file(mode: int) -> str | None:
    """What a file of this ``st_mode`` is when it is not a regular file ("a folder", "a FIFO
    (named pipe)", "a character device", ...), else None."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_input_bytes(path, what: str = "input file", expected: str = "a file", limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the input file ``path``, at most ``limit`` (:data:`MAX_INPUT_BYTES`).

    ``what`` names the file in errors (``"game file"``, ``"--config"``, ``"--batch file"``),
    ``expected`` says what it should be. A FIFO or device is never opened for a blocking read
    (it is opened non-blocking, then checked), so ``/dev/zero`` or a pipe nobody writes to
    cannot hang or fill memory.

    Raises InputFileError (one line) for a missing file, a folder, a device, FIFO or socket,
    a file larger than ``limit``, or another OS error.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputFileError(f"cannot read {what} {p}: no such file; expected {expected}") from None
    except IsADirectoryError:
        raise InputFileError(f"{what} {p} is a folder; expected {expected}") from None
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        kind = not_a_regular_file(st.st_mode)
        if kind is not None:
            raise InputFileError(f"{what} {p} is {kind}, not a regular file; expected {expected}")
        too_big = f"{what} {p} is larger than the {_limit_text(limit)} limit on input files"
        if st.st_size > limit:
            raise InputFileError(f"{too_big} ({st.st_size:,} bytes); expected {expected}")
        chunks, n = [], 0
        while n <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - n))
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
        if n > limit:  # it grew while being read
            raise InputFileError(f"{too_big}; expected {expected}")
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_input_text(path, what: str = "input file", expected: str = "a UTF-8 text file", errors: str = "strict",
                    limit: int = MAX_INPUT_BYTES) -> str:
    """:func:`read_input_bytes` decoded as UTF-8 (a leading byte-order mark dropped). With
    ``errors="strict"`` bytes that are not UTF-8 are an InputFileError naming the offset;
    ``"replace"`` turns them into U+FFFD."""
    data = read_input_bytes(path, what, expected, limit)
    try:
        return data.decode("utf-8-sig", errors=errors)
    except UnicodeDecodeError as exc:
        raise InputFileError(f"{what} {Path(path)} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                             f"{exc.start:,}); expected {expected}") from None


def check_parsed(data, where: str, max_depth: int = MAX_JSON_DEPTH):
    """``data`` (parsed JSON or TOML) checked: lists and tables nested at most ``max_depth``
    deep, and no string or key holding a lone surrogate (JSON's ``\\ud800`` escapes can make
    one; it cannot be written as UTF-8). Returns ``data``; raises InputFileError naming
    ``where``. Walks without recursion."""
    stack = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, (dict, list)):
            if depth > max_depth:
                raise InputFileError(f"{where}: lists and tables nested more than {max_depth} deep; expected at most {max_depth}")
            items = obj.items() if isinstance(obj, dict) else ((None, v) for v in obj)
            for key, value in items:
                if isinstance(key, str):
                    stack.append((key, depth))
                stack.append((value, depth + 1))
        elif isinstance(obj, str) and not obj.isascii():
            try:
                obj.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputFileError(f"{where}: a string holds a lone surrogate (\\u{ord(obj[exc.start]):04x}); "
                                     "expected UTF-8 text") from None
    return data


def loads_json(text: str, where: str, max_depth: int = MAX_JSON_DEPTH):
    """``json.loads(text)`` that refuses, with an InputFileError naming ``where``, nesting
    deeper than ``max_depth`` (also where the parser itself would exhaust the stack) and
    strings with a lone surrogate. A syntax error is json.JSONDecodeError, as from json.loads."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputFileError(f"{where}: lists and tables nested more than {max_depth} deep; expected at most {max_depth}") from None
    return check_parsed(data, where, max_depth)


#: The most bytes the arrays of an ``.npz`` input (``bgrl benchmark --file``) may hold once
#: decompressed; the shipped benchmark holds about 6 MB.
MAX_NPZ_BYTES = 1024 * 1024 * 1024

#: numpy's own bound on an ``.npy`` array header (``np.load``'s ``max_header_size``).
MAX_NPY_HEADER = 10_000


def check_npz(path, what: str = "file", expected: str = "an .npz archive of arrays", max_bytes: int = MAX_NPZ_BYTES) -> None:
    """Check an ``.npz`` before ``np.load`` reads it: a regular file (a device, FIFO or folder
    is named as such), a whole zip archive (a truncated one is named), and every ``.npy``
    member with an array header of at most :data:`MAX_NPY_HEADER` bytes, no pickled objects,
    and exactly the bytes its header's shape and dtype call for (so a lying or cut member
    cannot make numpy allocate more than the file holds); at most ``max_bytes`` in all.

    Raises InputFileError (one line naming the file and the member)."""
    import zipfile
    import zlib

    import numpy as np

    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputFileError(f"cannot read {what} {p}: no such file; expected {expected}") from None
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    kind = not_a_regular_file(st.st_mode)
    if kind is not None:
        raise InputFileError(f"{what} {p} is {kind}, not a regular file; expected {expected}")
    member = None
    try:
        with zipfile.ZipFile(p) as zf:
            infos = zf.infolist()
            total = sum(i.file_size for i in infos)
            if total > max_bytes:
                raise InputFileError(f"{what} {p} would hold {total:,} bytes once decompressed, over the "
                                     f"{_limit_text(max_bytes)} limit; expected {expected}")
            for info in infos:
                member = info.filename
                if not member.endswith(".npy"):
                    continue
                with zf.open(info) as f:
                    head = f.read(12)
                if len(head) < 10 or head[:6] != b"\x93NUMPY":
                    raise InputFileError(f"{what} {p}: member {member} is not a numpy array (.npy); expected {expected}")
                major = head[6]
                hlen = int.from_bytes(head[8:10], "little") if major == 1 else int.from_bytes(head[8:12], "little")
                if hlen > MAX_NPY_HEADER:
                    raise InputFileError(f"{what} {p}: member {member} has an array header of {hlen:,} bytes, over "
                                         f"numpy's {MAX_NPY_HEADER:,}-byte limit; expected {expected}")
                with zf.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    reader = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                    shape, _, dtype = reader(f, max_header_size=MAX_NPY_HEADER)
                    offset = f.tell()
                if dtype.hasobject:
                    raise InputFileError(f"{what} {p}: member {member} holds Python objects, which bgrl never unpickles; "
                                         f"expected {expected}")
                need = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if offset + need != info.file_size:
                    raise InputFileError(f"{what} {p}: member {member} declares a {dtype} array of shape {tuple(shape)} "
                                         f"({need:,} bytes) but holds {info.file_size - offset:,}; expected {expected}")
            member = None
            bad = zf.testzip()  # every member's data against its CRC
            if bad is not None:
                raise InputFileError(f"{what} {p}: member {bad} is damaged (its checksum differs); expected {expected}")
    except InputFileError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, NotImplementedError) as exc:
        where = f"member {member} " if member else ""
        text = " ".join(str(getattr(exc, "strerror", None) or exc).split())[:200]
        raise InputFileError(f"{what} {p}: {where}cannot be read as a whole .npz archive ({type(exc).__name__}: {text}); "
                             f"truncated or damaged? expected {expected}") from None
