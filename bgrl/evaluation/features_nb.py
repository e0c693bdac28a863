"""Compiled (numba) :func:`bgrl.evaluation.features.both_sides`: the 18 td198g features in one kernel.

:func:`both_sides` returns exactly (bit for bit) the float32 values of the numpy reference
:func:`bgrl.evaluation.features.both_sides` (tested), one pass over the batch with no per-call Python
loop over positions: about 1 us per position and almost no fixed cost, where the numpy
version's dozens of whole-array operations cost ~0.6 ms even for a few positions.

Every feature is an integer count divided by a constant (float64 division, then rounded to
float32, as numpy does), so the values do not depend on summation order.

``AVAILABLE`` is False when numba cannot be imported; :func:`both_sides` then calls the
numpy reference (numba is a core dependency; the fallback serves platforms without it).
"""

from __future__ import annotations

import numpy as np

from bgrl.evaluation import features as _ref

from bgrl.evaluation._numba import AVAILABLE, njit  # numba, its cache folder chosen first

__all__ = ["AVAILABLE", "both_sides", "both_sides_into"]

_ESC = np.ascontiguousarray(_ref._ESCAPE_BY_SHIFT, dtype=np.int64)  # (4096,) escapes by shifted pattern
_POP6 = np.ascontiguousarray(_ref._POP6, dtype=np.int64)

if AVAILABLE:

    @njit(cache=True, nogil=True, inline="always")
    def _bit(x, p):  # pragma: no cover - compiled
        return (x >> p) & 1

    @njit(cache=True, nogil=True)
    def _reach(d, max_k, sources, blot, opn):  # pragma: no cover - compiled
        path = sources
        for _ in range(max_k):
            path = path >> d
            if (path & blot) != 0:
                return True
            path = path & opn
        return False

    @njit(cache=True, nogil=True)
    def _hits(src, blot, opn, bar):  # pragma: no cover - compiled
        """Weighted count (of 36) of hitting rolls (features._hits_no_bar / _hits_from_bar)."""
        total = 0
        if blot == 0:  # nothing to hit (common): every test below ands with blot
            return total
        if bar == 0:
            for a in range(1, 7):
                for c in range(1, a + 1):
                    if a != c:
                        m = (src >> a) | (src >> c) | (((src >> a) & opn) >> c) | (((src >> c) & opn) >> a)
                        if (m & blot) != 0:
                            total += 2
                    elif _reach(a, 4, src, blot, opn):
                        total += 1
            return total
        for a in range(1, 7):
            ok_a = _bit(opn, 25 - a) != 0
            eh_a = ok_a and _bit(blot, 25 - a) != 0
            dir_a = ((src >> a) & blot) != 0
            for c in range(1, a + 1):
                ok_c = _bit(opn, 25 - c) != 0
                eh_c = ok_c and _bit(blot, 25 - c) != 0
                dir_c = ((src >> c) & blot) != 0
                if a != c:
                    far = _bit(blot, 25 - a - c) != 0
                    h1 = (ok_a and (dir_c or far)) or (ok_c and (dir_a or far))
                    if eh_a or eh_c or (bar == 1 and h1):
                        total += 2
                else:
                    hit = eh_a
                    if not hit and ok_a and bar <= 3:
                        s2 = src | (np.int64(1) << (25 - a))
                        hit = _reach(a, 4 - bar, s2, blot, opn)
                    if hit:
                        total += 1
        return total

    @njit(cache=True, nogil=True)
    def _side(v, esc_table, pop6, out, r, c0):  # pragma: no cover - compiled
        """The 9 side features of board v (int64 (26,), mover on roll) into out[r, c0:c0 + 9]."""
        blot = np.int64(0)
        opn = np.int64(0)
        src = np.int64(0)
        made = np.int64(0)
        blocked = np.int64(0)
        timing = np.int64(0)
        top_src = np.int64(0)  # highest point holding a checker of this side (0: none)
        top_made = np.int64(0)  # highest point it holds with two or more (0: none)
        low_theirs = np.int64(25)  # lowest point holding an opposing checker (25: none)
        for p in range(1, 25):  # without branches: which points hold what is data (a branch mispredicts)
            x = v[p]
            own = np.int64(x > 0)
            two = np.int64(x >= 2)
            src |= own << p
            opn |= np.int64(x >= -1) << p  # own, empty or an opposing blot
            made |= two << p
            blot |= np.int64(x == -1) << p
            blocked |= np.int64(x <= -2) << p
            top_src = max(top_src, own * p)
            top_made = max(top_made, two * p)
            low_theirs = min(low_theirs, p if x < 0 else np.int64(25))
            timing += max(x, np.int64(0)) * max(p - 6, 0)
        bar = v[25]
        opn2 = opn | np.int64(1) | (np.int64(1) << 25)
        out[r, c0] = _hits(src, blot, opn2, bar) / 36.0
        shifted = blocked << 12
        # escapes from points 13..24 (columns 12..23 of features._escapes)
        lo = np.int64(36)
        for p in range(13, 25):
            e = esc_table[(shifted >> p) & 0xFFF]
            if e < lo:
                lo = e
        back = np.int64(25) if bar > 0 else top_src
        if back > 0:
            bp = min(back, 24)
            back_esc = esc_table[(shifted >> bp) & 0xFFF]
        else:
            back_esc = np.int64(36)
        out[r, c0 + 1] = back_esc / 36.0
        out[r, c0 + 2] = (36 - lo) / 36.0
        out[r, c0 + 3] = back / 25.0
        out[r, c0 + 4] = top_made / 24.0
        out[r, c0 + 5] = (timing + bar * 19) / 285.0
        their_back = np.int64(0) if v[0] < 0 else low_theirs
        brk = np.int64(0)
        for p in range(max(their_back, 1), 25):  # points p with p - their_back + 1 > 0
            brk += max(v[p], np.int64(0)) * (p - their_back + 1)
        brk += bar * max(26 - their_back, 0)
        out[r, c0 + 6] = brk / 375.0
        d = pop6[(blocked >> 19) & 63] / 6.0
        out[r, c0 + 7] = d * d
        out[r, c0 + 8] = pop6[(made >> 1) & 63] / 6.0

    @njit(cache=True, nogil=True)
    def _both_sides(boards, esc_table, pop6, out, c0):  # pragma: no cover - compiled
        v = np.empty(26, dtype=np.int64)
        w = np.empty(26, dtype=np.int64)
        for r in range(boards.shape[0]):
            for i in range(26):
                v[i] = boards[r, i]
            for i in range(26):
                w[i] = -v[25 - i]
            _side(v, esc_table, pop6, out, r, c0)
            _side(w, esc_table, pop6, out, r, c0 + 9)


def both_sides_into(boards: np.ndarray, out: np.ndarray, col: int = 0) -> None:
    """Write :func:`both_sides` of ``boards`` into ``out[:, col:col + 18]`` in place.

    boards: int8 (N, 26) (:mod:`bgrl.rules.board` encoding, mover on roll); out: float32 (N, >= col + 18),
    C-contiguous. ValueError if the shapes or dtypes do not fit.
    """
    b = np.ascontiguousarray(boards, dtype=np.int8)
    if b.ndim != 2 or b.shape[1] != 26:
        raise ValueError(f"boards must have shape (N, 26), got {b.shape}")
    if out.dtype != np.float32 or out.ndim != 2 or out.shape[0] != b.shape[0] or out.shape[1] < col + 18 or col < 0:
        raise ValueError(f"out must be float32 (N, >= col + 18) for N = {b.shape[0]}, col = {col}; got {out.dtype} {out.shape}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if AVAILABLE:
        _both_sides(b, _ESC, _POP6, out, col)
    else:  # pragma: no cover - numba missing
        out[:, col : col + 18] = _ref.both_sides(b)


def both_sides(boards: np.ndarray) -> np.ndarray:
    """Mover's then opponent's :data:`bgrl.evaluation.features.SIDE_FEATURES`: float32 (N, 18),
    equal bit for bit to :func:`bgrl.evaluation.features.both_sides` (boards int8 (N, 26))."""
    b = np.ascontiguousarray(boards, dtype=np.int8)
    out = np.empty((b.shape[0], 18), dtype=np.float32)
    both_sides_into(b, out)
    return out
