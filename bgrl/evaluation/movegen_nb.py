"""Compiled (numba) move generator for one position: :func:`bgrl.rules.movegen.generate`'s twin.

:func:`generate_one` returns, for one ``(board, dice)``, exactly what the numpy generator
returns for a batch of that one position: the same after-states in the same order, the same
``dice_used``, and with ``paths`` the same move path of every after-state (tested on the
crosscheck cases and the rule book's cases, ``tests/test_compiled_movegen.py``). One call
costs a few microseconds where the numpy generator's fixed cost is about 0.1 ms.

The rules are the numpy generator's (RULES.md; :mod:`bgrl.rules.movegen` states them), on the
same bit masks: ``own`` (bit i: the mover has a checker on index i, 25 = the bar) and ``open``
(bit p: point p holds at most one opposing checker). A non-double plays the higher die first,
then the lower die first, skipping as second moves of the lower-die-first order the sources
the higher die could have moved at the start (their plays come from the higher-die-first
order too); only two-move plays are kept if any exists, else the higher die's one-move plays
if any, else the lower die's. A double moves each checker from a source no higher than the
previous move's (every play once), and only the plays of the most moves are kept.

Order contract. The rows are sorted as the numpy generator sorts one position's rows: by the
64-bit multiplicative hash of the 32-byte padded board (:func:`bgrl.rules.movegen` ``_MULT``,
then ``h ^= h >> 31``), shifted right by one bit, stably, so of several plays giving one board
the first in generation order names it (its path). Should two different boards share that key
(never seen; the numpy generator then sorts by the raw bytes), :func:`generate_one` returns
None and the caller runs the numpy generator.

Loading this module registers :func:`generate_one` with :mod:`bgrl.rules.movegen` (which may
import numpy only), so that afterwards ``generate`` of a single position, and with it
:func:`bgrl.rules.notation.legal_plays`, runs compiled, with the same results.
:func:`bgrl.evaluation.compiled.ensure` loads it when the compiled path is wanted.
"""

from __future__ import annotations

import numpy as np

from bgrl.evaluation._numba import AVAILABLE, njit
from bgrl.rules import movegen
from bgrl.rules.movegen import MAX_MOVES, AfterStates

__all__ = ["AVAILABLE", "generate_one", "register", "unregister"]

_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93], dtype=np.uint64)
_BAR = 25
_BAR_BIT = 1 << 25
_OUTSIDE_HOME = sum(1 << i for i in range(7, 26))  # bar and points 7..24
_ND_CAP = 512  # a non-double makes at most 2 x 15 x 15 = 450 rows (15 occupied points at most)
_DB_CAP = 1024  # doubles: grown when needed

if AVAILABLE:

    @njit(cache=True, nogil=True)
    def _legal(own, opn, die, max_src):  # pragma: no cover - compiled
        """Bit mask of the legal sources of one checker move of ``die`` (movegen._bit_step)."""
        if own & _BAR_BIT:
            cand = np.int64(_BAR_BIT)  # a bar checker must enter first
        else:
            cand = own
        legal = (opn << die) & cand
        if own & _OUTSIDE_HOME == 0:  # all home: bearing off
            low6 = (own >> 1) & 63
            high = 0
            while low6:
                high += 1
                low6 >>= 1
            bear = own & (np.int64(1) << die)
            if high < die:
                bear |= np.int64(1) << high
            legal |= bear & ~np.int64(1)
        return legal & ((np.int64(2) << max_src) - 1)

    @njit(cache=True, nogil=True)
    def _move(before, after, own, src, die):  # pragma: no cover - compiled
        """``after`` = ``before`` with one checker moved from ``src`` by ``die`` (a blot hit
        goes to the opponent's bar). Returns (the new own mask, hit 0/1)."""
        for i in range(26):
            after[i] = before[i]
        after[src] -= 1
        dst = src - die
        if after[src] == 0:
            own &= ~(np.int64(1) << src)
        hit = 0
        if dst >= 1:
            if after[dst] == -1:
                after[dst] = 1
                after[0] -= 1
                hit = 1
            else:
                after[dst] += 1
            own |= np.int64(1) << dst
        return own, hit

    @njit(cache=True, nogil=True)
    def _grow(rows, paths):  # pragma: no cover - compiled
        cap = rows.shape[0]
        r2 = np.zeros((2 * cap, 32), dtype=np.int8)
        p2 = np.zeros((2 * cap, MAX_MOVES, 3), dtype=np.int16)
        r2[:cap] = rows
        p2[:cap] = paths
        return r2, p2

    @njit(cache=True, nogil=True)
    def _set_move(paths, r, k, src, die, hit):  # pragma: no cover - compiled
        paths[r, k, 0] = src
        paths[r, k, 1] = src - die
        paths[r, k, 2] = hit

    @njit(cache=True, nogil=True)
    def _non_double(board, own0, opn, hi, lo):  # pragma: no cover - compiled
        """Rows int8 (cap, 32), paths int16 (cap, 4, 3), row count and dice used of a non-double."""
        rows = np.zeros((_ND_CAP, 32), dtype=np.int8)
        paths = np.zeros((_ND_CAP, MAX_MOVES, 3), dtype=np.int16)
        c_board = np.empty((50, 26), dtype=np.int8)  # first moves: the higher die's, then the lower die's
        c_own = np.empty(50, dtype=np.int64)
        c_src = np.empty(50, dtype=np.int64)
        c_hit = np.empty(50, dtype=np.int64)
        c_die = np.empty(50, dtype=np.int64)
        legal_hi = _legal(own0, opn, hi, _BAR)
        n1 = 0
        n_hi = 0
        for first in range(2):
            die = hi if first == 0 else lo
            legal = legal_hi if first == 0 else _legal(own0, opn, lo, _BAR)
            for s in range(1, 26):
                if (legal >> s) & 1:
                    o, h = _move(board, c_board[n1], own0, s, die)
                    c_own[n1] = o
                    c_hit[n1] = h
                    c_src[n1] = s
                    c_die[n1] = die
                    n1 += 1
            if first == 0:
                n_hi = n1
        n = 0
        for c in range(n1):
            second = lo if c < n_hi else hi
            excl = np.int64(0) if c < n_hi else legal_hi
            legal = _legal(c_own[c], opn, second, _BAR) & ~excl
            for s in range(1, 26):
                if (legal >> s) & 1:
                    _own, hit = _move(c_board[c], rows[n], c_own[c], s, second)
                    _set_move(paths, n, 0, c_src[c], c_die[c], c_hit[c])
                    _set_move(paths, n, 1, s, second, hit)
                    n += 1
        if n > 0:
            return rows, paths, n, 2
        if n1 == 0:
            for i in range(26):
                rows[0, i] = board[i]
            return rows, paths, 1, 0
        lo_c, hi_c = (0, n_hi) if n_hi > 0 else (0, n1)  # only one die: the higher one if it can be played
        for c in range(lo_c, hi_c):
            for i in range(26):
                rows[n, i] = c_board[c, i]
            _set_move(paths, n, 0, c_src[c], c_die[c], c_hit[c])
            n += 1
        return rows, paths, n, 1

    @njit(cache=True, nogil=True)
    def _double(board, own0, opn, die, cap):  # pragma: no cover - compiled
        """Rows, paths, row count and dice used of a double: each move from a source no higher
        than the previous one's, only the plays of the most moves kept."""
        rows = np.zeros((cap, 32), dtype=np.int8)
        paths = np.zeros((cap, MAX_MOVES, 3), dtype=np.int16)
        lvl_board = np.empty((MAX_MOVES + 1, 26), dtype=np.int8)
        lvl_own = np.empty(MAX_MOVES + 1, dtype=np.int64)
        lvl_src = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_hit = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_legal = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_next = np.zeros(MAX_MOVES + 1, dtype=np.int64)  # the next source to try at each level
        for i in range(26):
            lvl_board[0, i] = board[i]
        lvl_own[0] = own0
        lvl_src[0] = _BAR
        lvl_legal[0] = _legal(own0, opn, die, _BAR)
        lvl_next[0] = 1
        best = 0
        n = 0
        k = 0  # the level whose children are being tried
        while k >= 0:
            s = lvl_next[k]
            while s <= 25 and not ((lvl_legal[k] >> s) & 1):
                s += 1
            if s > 25:
                k -= 1
                continue
            lvl_next[k] = s + 1
            c = k + 1
            o, h = _move(lvl_board[k], lvl_board[c], lvl_own[k], s, die)
            lvl_own[c] = o
            lvl_hit[c] = h
            lvl_src[c] = s
            if c > best:
                best = c
                n = 0
            if c == best:
                if n == rows.shape[0]:
                    rows, paths = _grow(rows, paths)
                for i in range(26):
                    rows[n, i] = lvl_board[c, i]
                for j in range(MAX_MOVES):
                    if j < c:
                        _set_move(paths, n, j, lvl_src[j + 1], die, lvl_hit[j + 1])
                    else:
                        paths[n, j, 0] = 0
                        paths[n, j, 1] = 0
                        paths[n, j, 2] = 0
                n += 1
            if c < MAX_MOVES:
                lvl_legal[c] = _legal(lvl_own[c], opn, die, s)
                lvl_next[c] = 1
                k = c
        if best == 0:
            for i in range(26):
                rows[0, i] = board[i]
            return rows, paths, 1, 0
        return rows, paths, n, best

    @njit(cache=True, nogil=True)
    def _generate_one(board, d1, d2, mult, cap):  # pragma: no cover - compiled
        """(boards int8 (k, 26), paths int16 (k, 4, 3), dice used, ok) of one position, rows in
        the numpy generator's order; ok False when two boards share a sort key."""
        own = np.int64(0)
        opn = np.int64(0)
        for i in range(1, 26):
            if board[i] > 0:
                own |= np.int64(1) << i
            if i <= 24 and board[i] >= -1:
                opn |= np.int64(1) << i
        if d1 == d2:
            rows, paths, n, used = _double(board, own, opn, d1, cap)
        else:
            rows, paths, n, used = _non_double(board, own, opn, max(d1, d2), min(d1, d2))
        keys = np.empty(n, dtype=np.uint64)
        for r in range(n):
            h = np.uint64(0)
            for j in range(4):
                w = np.uint64(0)
                for b in range(8):
                    w |= np.uint64(np.uint8(rows[r, 8 * j + b])) << np.uint64(8 * b)
                h += w * mult[j]
            h ^= h >> np.uint64(31)
            keys[r] = h >> np.uint64(1)
        order = np.argsort(keys, kind="mergesort")  # stable: the first of equal boards is kept
        keep = np.empty(n, dtype=np.int64)
        k = 0
        ok = True
        for i in range(n):
            r = order[i]
            if k > 0 and keys[r] == keys[keep[k - 1]]:
                q = keep[k - 1]
                for j in range(26):
                    if rows[r, j] != rows[q, j]:
                        ok = False
                continue
            keep[k] = r
            k += 1
        out = np.empty((k, 26), dtype=np.int8)
        out_paths = np.empty((k, MAX_MOVES, 3), dtype=np.int16)
        for i in range(k):
            r = keep[i]
            for j in range(26):
                out[i, j] = rows[r, j]
            out_paths[i] = paths[r]
        return out, out_paths, used, ok


def generate_one(b: np.ndarray, d: np.ndarray, paths: bool = False, cap: int = _DB_CAP) -> AfterStates | None:
    """:func:`bgrl.rules.movegen.generate` of one checked position, compiled.

    b : int8 (1, 26), a valid board (not checked here); d : int8 (1, 2), dice 1..6.
    Returns the AfterStates the numpy generator gives (same rows, order, ``dice_used`` and,
    with ``paths``, move paths), or None when the numpy generator must run instead (two
    boards sharing a sort key; see the module docstring). ``cap``: the rows a double's buffer
    starts with (it doubles when full; small values test that).
    """
    if not AVAILABLE:  # pragma: no cover - numba missing
        return None
    boards, mp, used, ok = _generate_one(b[0], int(d[0, 0]), int(d[0, 1]), _MULT, int(cap))
    if not ok:  # pragma: no cover - no such collision is known
        return None
    k = boards.shape[0]
    return AfterStates(boards=boards, parent=np.zeros(k, dtype=np.int64), dice_used=np.array([used], dtype=np.int8),
                       offsets=np.array([0, k], dtype=np.int64), positions=b, paths=mp if paths else None, dice=d)


#: The starting position, int8 (26,): what :func:`warm` generates from.
START = np.array([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0], dtype=np.int8)


def warm() -> None:
    """Compile (or read from numba's cache) the generator for both kinds of roll."""
    for roll in ((3, 1), (3, 3)):
        generate_one(START[None], np.array([roll], dtype=np.int8))


def register() -> None:
    """Route :func:`bgrl.rules.movegen.generate` of one position through :func:`generate_one`."""
    if AVAILABLE:
        movegen.set_one_position_kernel(generate_one)


def unregister() -> None:
    """Back to the numpy generator for every batch (e.g. to time or test it)."""
    movegen.set_one_position_kernel(None)


register()
