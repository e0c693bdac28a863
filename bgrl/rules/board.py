"""Board representation, validation, perspective flip and gnubg Position IDs.

One board encoding is used everywhere in the engine, always from the side on roll
(the *mover*):

``board``: ``numpy.ndarray`` of dtype ``int8`` and shape ``(26,)`` (or ``(B, 26)`` for a
batch, batch axis first).

=========  ==============================================================
index      meaning
=========  ==============================================================
0          opponent's checkers on the bar, stored as a **negative** count
1 .. 24    the mover's points in the mover's numbering; positive = mover's
           checkers, negative = opponent's checkers
25         mover's checkers on the bar, stored as a **positive** count
=========  ==============================================================

The opponent moves from the mover's 1-point towards the 24-point, so its bar sits
naturally "below" point 1 (index 0) and the mover's bar "above" point 24 (index 25).
Borne-off counts are derived: ``15 - checkers on the board``.  The same physical point
is point ``p`` for one side and ``25 - p`` for the other (docs/rules.md, "Board"), hence
``flip(board)[i] == -board[25 - i]``.

This module imports numpy only.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import numpy as np

__all__ = [
    "NUM_CHECKERS",
    "BOARD_SIZE",
    "MOVER_BAR",
    "OPP_BAR",
    "START_BOARD",
    "START_POSITION_ID",
    "illegal_boards",
    "deadlocked_boards",
    "DeadPositionError",
    "Position",
    "flip",
    "validate_board",
    "position_id",
    "position_ids",
    "board_from_position_id",
    "pip_counts",
    "borne_off",
]

NUM_CHECKERS = 15
BOARD_SIZE = 26
MOVER_BAR = 25
OPP_BAR = 0

START_POSITION_ID = "4HPwATDgc/ABMA"


def _start_board() -> np.ndarray:
    b = np.zeros(BOARD_SIZE, dtype=np.int8)
    # docs/rules.md "Start": 2 on the 24-point, 5 on the 13, 3 on the 8, 5 on the 6 (each side).
    for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        b[point] = n
        b[25 - point] = -n
    return b


START_BOARD = _start_board()
START_BOARD.setflags(write=False)


def flip(board: np.ndarray) -> np.ndarray:
    """Return the board seen from the other side (the opponent becomes the mover).

    Parameters
    ----------
    board : ndarray, int8, shape (26,) or (B, 26)

    Returns
    -------
    ndarray, same shape and dtype; a new array (the argument is not modified).
    ``flip(flip(b)) == b`` for every board.
    """
    return -board[..., ::-1]


def borne_off(board: np.ndarray) -> tuple[np.ndarray | int, np.ndarray | int]:
    """Checkers borne off, ``(mover, opponent)``, each in 0..15 (array for a batch)."""
    b = board.astype(np.int16, copy=False)
    mover = NUM_CHECKERS - np.maximum(b, 0).sum(axis=-1)
    opp = NUM_CHECKERS + np.minimum(b, 0).sum(axis=-1)
    return mover, opp


def pip_counts(board: np.ndarray) -> tuple[np.ndarray | int, np.ndarray | int]:
    """Pip counts ``(mover, opponent)`` in pips; a checker on the bar counts 25.

    The start position has 167 pips a side.
    """
    b = board.astype(np.int16, copy=False)
    idx = np.arange(BOARD_SIZE, dtype=np.int16)
    mover = (np.maximum(b, 0) * idx).sum(axis=-1)
    opp = (np.maximum(-b, 0) * (25 - idx)).sum(axis=-1)
    return mover, opp


class DeadPositionError(ValueError):
    """A position in which neither side can ever move (see :func:`deadlocked_boards`).

    A ValueError, so every reader that refuses a bad board refuses it too.
    """


_DEAD_MESSAGE = ("neither side can ever move: both sides have checkers on the bar against a closed "
                 "home board (all six points held by two or more); expected a position a game can go on from")


def deadlocked_boards(boards) -> np.ndarray:
    """Which boards of a batch are dead-locked: neither side can ever move again.

    boards : integer array-like (B, 26), bgrl's encoding. Returns bool (B,).

    A side on the bar may move no other checker until it has entered (docs/rules.md, "The bar"),
    so when both sides have a checker on the bar and each side's home board is closed (all six
    points held by two or more of its checkers), every roll of either side passes, forever.
    This is the only such position: a side not on the bar can always move on some roll (it
    holds its 6-point, so any die 1..5 moves a checker inside its home board). It cannot
    arise in play (the last checker to be hit entered onto the other's home board, which is
    therefore not closed), only in a set-up position.
    """
    b = np.asarray(boards).astype(np.int64)
    return ((b[:, MOVER_BAR] > 0) & (b[:, OPP_BAR] < 0)
            & (b[:, 1:7] >= 2).all(axis=1) & (b[:, 19:25] <= -2).all(axis=1))


def illegal_boards(boards) -> np.ndarray:
    """Which of a batch of boards :func:`validate_board` would refuse for their counts.

    boards : integer array-like (B, 26). Returns bool (B,): True where a count lies outside
    -15..15, the opponent's bar (index 0) is > 0, the mover's bar (index 25) is < 0, or a
    side has more than 15 checkers on the board, or neither side can ever move
    (:func:`deadlocked_boards`). Shapes and dtypes are the caller's to check.
    """
    raw = np.asarray(boards)
    # the range in the array's own dtype: a cast first could wrap a huge count (2**64 - 3, -2**63) into range
    out_of_range = ((raw < -NUM_CHECKERS) | (raw > NUM_CHECKERS)).any(axis=1)
    b = np.where(out_of_range[:, None], 0, raw).astype(np.int64)  # those rows are refused whatever they hold
    return (out_of_range | (b[:, OPP_BAR] > 0) | (b[:, MOVER_BAR] < 0)
            | (np.maximum(b, 0).sum(axis=1) > NUM_CHECKERS) | (np.maximum(-b, 0).sum(axis=1) > NUM_CHECKERS)
            | deadlocked_boards(b))


def validate_board(board) -> np.ndarray:
    """Check a single board and return it as a fresh int8 array of shape (26,).

    Raises
    ------
    TypeError
        if ``board`` is not array-like of integers.
    ValueError
        naming what was expected and what came: wrong shape, a side with more than
        15 checkers, a mover's checker on index 0 or an opponent's on index 25, or
        a count outside -15..15; :class:`DeadPositionError` (a ValueError) for a position
        where neither side can ever move (:func:`deadlocked_boards`).
    """
    arr = np.asarray(board)
    if arr.dtype.kind not in "iu":
        if not (arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            raise TypeError(f"board must hold integers, got dtype {arr.dtype}")
    if arr.shape != (BOARD_SIZE,):
        raise ValueError(f"board must have shape (26,), got {arr.shape}")
    # compared in the array's own dtype: a cast first could wrap a huge count (1e30, 2**63) into range
    if np.any((arr < -NUM_CHECKERS) | (arr > NUM_CHECKERS)):
        raise ValueError(f"board counts must lie in -15..15, got {arr.tolist()}")
    arr = arr.astype(np.int64)
    if arr[OPP_BAR] > 0:
        raise ValueError(f"index 0 is the opponent's bar and must be <= 0, got {int(arr[OPP_BAR])}")
    if arr[MOVER_BAR] < 0:
        raise ValueError(f"index 25 is the mover's bar and must be >= 0, got {int(arr[MOVER_BAR])}")
    a = arr.astype(np.int64)
    mover = int(np.maximum(a, 0).sum())
    opp = int(-np.minimum(a, 0).sum())
    if mover > NUM_CHECKERS:
        raise ValueError(f"the mover has {mover} checkers on the board; expected at most 15")
    if opp > NUM_CHECKERS:
        raise ValueError(f"the opponent has {opp} checkers on the board; expected at most 15")
    if a[MOVER_BAR] > 0 and a[OPP_BAR] < 0 and deadlocked_boards(a[None])[0]:
        raise DeadPositionError(_DEAD_MESSAGE)
    return a.astype(np.int8)


# --------------------------------------------------------------------------------------
# gnubg Position ID (GNU Backgammon manual, "A technical description of the Position ID").
# The 80-bit key holds, for each side, its 24 points (its own numbering, 1..24) and then
# its bar: n checkers are n one-bits followed by a zero-bit.  Bits are packed little-endian
# into 10 bytes; the ID is their base64 without padding.
# Side order: the manual's prose says "the player on roll" first, but GNU Backgammon itself
# encodes its board array in order (opponent, side on roll): with ID 4HPwAVDgc/ABMA gnubg
# 1.07 (`set board 4HPwAVDgc/ABMA`, `set dice 2 1`, `hint`) gives the side on roll the
# opening plays and the *opponent* the checker on the bar.  We follow the program, so IDs
# agree with what gnubg shows (tests/rules/test_board.py pins the example).
# --------------------------------------------------------------------------------------


def position_id(board) -> str:
    """gnubg Position ID (14 characters) of a board, the mover being the side on roll,
    exactly as GNU Backgammon shows it (opponent's checkers encoded first).

    Parameters
    ----------
    board : array-like, int, shape (26,); validated with :func:`validate_board`.
    """
    return position_ids(validate_board(board)[None])[0]


_KEY_BITS = np.arange(80)


def position_ids(boards) -> list[str]:
    """gnubg Position IDs of a batch of boards, in one pass of array operations.

    Parameters
    ----------
    boards : array-like, int, shape (B, 26)
        Valid boards (not checked here: see :func:`validate_board`), each from the side on
        roll. Pass ``flip(after_states)`` for the positions after a play, the opponent on roll.

    Returns
    -------
    list of B str, ``position_ids(boards)[i] == position_id(boards[i])``.
    """
    b = np.asarray(boards, dtype=np.int16)
    k = b.shape[0]
    if k == 0:
        return []
    # counts in gnubg's order: the opponent (its points 1..24 = our indices 24..1, its bar
    # our index 0), then the side on roll (points 1..24, bar 25)
    counts = np.empty((k, 50), dtype=np.int64)
    counts[:, :24] = np.maximum(-b[:, 24:0:-1], 0)
    counts[:, 24] = -b[:, OPP_BAR]
    counts[:, 25:49] = np.maximum(b[:, 1:25], 0)
    counts[:, 49] = b[:, MOVER_BAR]
    ends = np.cumsum(counts + 1, axis=1)  # one past each separating zero-bit
    bits = _KEY_BITS[None, :] < ends[:, -1:]  # every bit up to the last separator ...
    bits[np.repeat(np.arange(k), 50), (ends - 1).ravel()] = False  # ... less the separators
    key = np.zeros((k, 12), dtype=np.uint8)  # 10 key bytes + 2: 16 base64 characters a row
    key[:, :10] = np.packbits(bits, axis=1, bitorder="little")
    text = base64.b64encode(key.tobytes()).decode("ascii")
    return [text[i : i + 14] for i in range(0, len(text), 16)]


_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_CHARS = frozenset(_B64_ALPHABET)


def board_from_position_id(pid: str) -> np.ndarray:
    """Decode a gnubg Position ID into a board (int8, shape (26,)), side on roll = mover.

    Raises
    ------
    TypeError
        if ``pid`` is not a str.
    ValueError
        if it is not 14 base64 characters, or does not describe a valid position
        (more than 15 checkers a side, both sides on one point, too many bits).
    """
    if not isinstance(pid, str):
        raise TypeError(f"Position ID must be a str, got {type(pid).__name__}")
    s = pid.strip()
    pid = pid if len(pid) <= 40 else pid[:37] + "..."  # echoed in errors: keep it readable
    if len(s) != 14 or not set(s) <= _B64_CHARS:
        raise ValueError(
            f"Position ID must be 14 base64 characters (A-Z a-z 0-9 + /), e.g. {START_POSITION_ID!r}; got {pid!r}"
        )
    if _B64_ALPHABET.index(s[-1]) & 0x0F:
        raise ValueError(f"Position ID {pid!r} is malformed: its last character sets bits beyond the 80-bit key")
    try:
        key = base64.b64decode(s + "==", validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - guarded by the char check
        raise ValueError(f"Position ID {pid!r} is not valid base64: {exc}") from None
    if len(key) != 10:
        raise ValueError(f"Position ID {pid!r} does not decode to a 10-byte key")
    bits = [(key[k >> 3] >> (k & 7)) & 1 for k in range(80)]
    sides: list[list[int]] = []
    pos = 0
    for _ in range(2):
        counts = []
        for _ in range(25):
            n = 0
            while pos < 80 and bits[pos] == 1:
                n += 1
                pos += 1
            if pos >= 80:
                raise ValueError(f"Position ID {pid!r} is malformed: the key ends before 50 point separators")
            pos += 1  # the separating zero
            counts.append(n)
        sides.append(counts)
    if any(bits[pos:]):
        raise ValueError(f"Position ID {pid!r} is malformed: bits set after the last point")
    opp, mover = sides
    for name, side in (("side on roll", mover), ("opponent", opp)):
        total = sum(side)
        if total > NUM_CHECKERS:
            raise ValueError(f"Position ID {pid!r} gives the {name} {total} checkers; expected at most 15")
    return board_from_sides(mover, opp, f"Position ID {pid!r}").astype(np.int8)


def board_from_sides(mover: list[int], opp: list[int], what: str = "the board") -> np.ndarray:
    """Board (int64 (26,)) from per-side counts, each side in its own numbering: 25 ints,
    index 0..23 = its points 1..24, index 24 = its bar (gnubg's layout).

    Raises ValueError (naming ``what``) if both sides hold the same point.
    """
    b = np.zeros(BOARD_SIZE, dtype=np.int64)
    for p in range(1, 25):
        m, o = mover[p - 1], opp[24 - p]  # opponent's point 25-p is the mover's point p
        if m and o:
            raise ValueError(f"{what} puts checkers of both sides on the mover's {p}-point")
        b[p] = m - o
    b[MOVER_BAR] = mover[24]
    b[OPP_BAR] = -opp[24]
    return b


@dataclass(frozen=True, eq=False)
class Position:
    """A position from the side on roll (the mover). Immutable.

    Attributes
    ----------
    board : ndarray, int8, shape (26,), read-only. Layout in the module docstring.

    Build one with :meth:`from_id`, :meth:`from_board` or :meth:`start`.
    """

    board: np.ndarray

    def __post_init__(self):
        b = validate_board(self.board)
        b.setflags(write=False)
        object.__setattr__(self, "board", b)

    @classmethod
    def start(cls) -> "Position":
        """The starting position (docs/rules.md)."""
        return cls(START_BOARD.copy())

    @classmethod
    def from_id(cls, pid: str) -> "Position":
        """Parse a gnubg Position ID (the side on roll becomes the mover)."""
        return cls(board_from_position_id(pid))

    @classmethod
    def from_board(cls, board) -> "Position":
        return cls(board)

    @property
    def position_id(self) -> str:
        return position_id(self.board)

    def flipped(self) -> "Position":
        """The same position with the opponent on roll."""
        return Position(flip(self.board))

    @property
    def pips(self) -> tuple[int, int]:
        m, o = pip_counts(self.board)
        return int(m), int(o)

    @property
    def off(self) -> tuple[int, int]:
        m, o = borne_off(self.board)
        return int(m), int(o)

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and bool(np.array_equal(self.board, other.board))

    def __hash__(self) -> int:
        return hash(self.board.tobytes())

    def __repr__(self) -> str:
        return f"Position({self.position_id!r})"
