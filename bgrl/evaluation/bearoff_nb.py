"""Compiled (numba) twin of the bear-off lookup of :mod:`bgrl.evaluation.bearoff`.

:func:`probs` is one kernel call for what ``bearoff._probs`` does in about forty numpy calls
(the :func:`bgrl.evaluation.bearoff.is_bearoff` mask, both sides' database indices by
``searchsorted``, the gathered rows, three sums of products, the two-sided table): per board,
the mask, each side's index (a combinatorial rank, :data:`RANK`), then the three sums.
Measured (2-core CPU): 7 us for 128 boards of random games against numpy's 136 us (20x), 76 us
for 2,000 race boards (a quarter of them bear-offs) against 596 us (7.8x). :func:`known` is
the mask alone.

Values. The ``known`` mask and the errors are those of the numpy code exactly. Each
probability is a sum of products of the database's float64 entries; the products are the
same, and the sums are added in numpy's own order for a contiguous row sum (eight partial
sums, then the remainder: :func:`_pairwise`), so with numpy 2.x they agree bit for bit
(measured on every tested board); :data:`TOLERANCE` is the bound promised and tested,
should a numpy version sum in another order.

:mod:`bgrl.evaluation.bearoff` calls :func:`probs` (and :func:`known`) while
:func:`bgrl.evaluation.compiled.active` is true; ``compiled.ensure`` calls :func:`warm`.

``AVAILABLE`` is False when numba cannot be imported; callers then use the numpy code.
"""

from __future__ import annotations

from math import comb

import numpy as np

from bgrl.evaluation._numba import AVAILABLE, njit  # numba, its cache folder chosen first

__all__ = ["AVAILABLE", "TOLERANCE", "RANK", "probs", "known", "position_index", "warm"]

#: Largest difference from the numpy code's probabilities promised (and tested): float64 sums
#: of at most 31 products of numbers in [0, 1] in another order differ by a few 1e-16.
TOLERANCE = 1e-12

# The layout of bgrl.evaluation.bearoff (not imported here: bearoff imports this module);
# tests/evaluation/test_bearoff_nb.py checks these against it.
_NP = 6  # bearoff.N_POINTS: home points
_NC = 15  # bearoff.NUM_CHECKERS
N_POSITIONS = comb(_NC + _NP, _NP)  # bearoff.N_POSITIONS: 54,264 one-sided positions


def _rank_table() -> np.ndarray:
    """``RANK[j, s, d]``: how many bear-off positions precede, in database order, those whose
    point ``6 - j`` holds ``d`` checkers, among those that agree on points ``6 .. 7 - j`` and
    have ``s`` checkers left for points ``6 - j .. 1``.

    The database is sorted by :func:`bgrl.evaluation.bearoff._keys` (base-16 digits, point 6
    the most significant), so a position's index is ``sum_j RANK[j, s_j, counts[5 - j]]``
    (``s_0 = 15``, ``s_{j+1} = s_j - counts[5 - j]``). At most ``c`` checkers fill ``k = 5 - j``
    lower points in ``C(c + k, k)`` ways, so ``RANK[j, s, d] = sum_{v < d, v <= s} C(s - v + k, k)``.
    """
    t = np.zeros((_NP, _NC + 1, _NC + 1), dtype=np.int64)
    for j in range(_NP):
        k = _NP - 1 - j
        for s in range(_NC + 1):
            acc = 0
            for d in range(_NC + 1):
                t[j, s, d] = acc
                if d <= s:
                    acc += comb(s - d + k, k)
    t.setflags(write=False)
    return t


#: int64 (6, 16, 16): the combinatorial rank table of :func:`_rank_table`.
RANK = _rank_table()


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous view (one kernel signature whatever the caller's flags)."""
    v = np.ascontiguousarray(a).view()
    v.setflags(write=False)
    return v


if AVAILABLE:

    @njit(cache=True, nogil=True)
    def _known_row(b, r):  # pragma: no cover - compiled
        """is_bearoff of row ``r``: nothing of the side on roll on 7..24 or its bar (25), nothing
        of the opponent on 1..18 (its 7..24) or its bar (0), and something on the board."""
        for i in range(7, 26):
            if b[r, i] > 0:
                return False
        for i in range(0, 19):
            if b[r, i] < 0:
                return False
        for i in range(26):
            if b[r, i] != 0:
                return True
        return False

    @njit(cache=True, nogil=True)
    def _known_kernel(b, known):  # pragma: no cover - compiled
        for r in range(b.shape[0]):
            known[r] = _known_row(b, r)

    @njit(cache=True, nogil=True)
    def _index_kernel(counts, rank, out):  # pragma: no cover - compiled
        """Database index of each row of counts int64 (M, 6); -1 where not a bear-off position."""
        for r in range(counts.shape[0]):
            s = _NC
            idx = 0
            for j in range(_NP):
                d = counts[r, _NP - 1 - j]
                if d < 0 or d > s:
                    idx = -1
                    break
                idx += rank[j, s, d]
                s -= d
            out[r] = idx

    @njit(cache=True, nogil=True)
    def _pairwise(a, n):  # pragma: no cover - compiled
        """Sum of a[0:n] in the order of numpy's pairwise sum of a contiguous row (n <= 128:
        eight partial sums over whole blocks of eight, combined as a tree, then the rest one by
        one; longer rows are split in two, the first part a multiple of eight)."""
        if n < 8:
            res = 0.0
            for i in range(n):
                res += a[i]
            return res
        if n <= 128:
            r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
            r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
            i = 8
            stop = n - n % 8
            while i < stop:
                r0 += a[i]
                r1 += a[i + 1]
                r2 += a[i + 2]
                r3 += a[i + 3]
                r4 += a[i + 4]
                r5 += a[i + 5]
                r6 += a[i + 6]
                r7 += a[i + 7]
                i += 8
            res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
            while i < n:
                res += a[i]
                i += 1
            return res
        n2 = n // 2
        n2 -= n2 % 8
        return _pairwise(a[:n2], n2) + _pairwise(a[n2:], n - n2)

    @njit(cache=True, nogil=True)
    def _probs_kernel(b, off, off_ge, first_ge, two, small_map, rank, two_sided, known, probs):  # pragma: no cover
        """Fill ``known`` bool (N,) and ``probs`` float64 (N, 5) from boards int8 (N, 26) as
        ``bearoff._probs`` does; return 1 (and stop) at a known board with more than 15
        checkers on one side's home points (``position_index``'s ValueError), else 0."""
        n_rows = b.shape[0]
        L = off.shape[1]
        w1 = min(L, first_ge.shape[1])  # P(first_b >= n) for n < w1, then 0
        w3 = min(L, first_ge.shape[1] - 1)  # P(first_a > m) = first_ge[a, m + 1] for m < w3
        t0 = np.empty(L)
        t1 = np.empty(L)
        t3 = np.empty(L)
        ca = np.empty(_NP, dtype=np.int64)
        cb = np.empty(_NP, dtype=np.int64)
        for r in range(n_rows):
            k = _known_row(b, r)
            known[r] = k
            if not k:
                for c in range(5):
                    probs[r, c] = np.nan
                continue
            na = 0
            nb = 0
            for i in range(_NP):
                x = np.int64(b[r, 1 + i])  # the side on roll's point i + 1
                y = -np.int64(b[r, 24 - i])  # the opponent's point i + 1 (our 24 - i)
                ca[i] = x if x > 0 else 0
                cb[i] = y if y > 0 else 0
                na += ca[i]
                nb += cb[i]
            if na > _NC or nb > _NC:
                return 1
            ia = 0
            ib = 0
            sa = _NC
            sb = _NC
            for j in range(_NP):
                da = ca[_NP - 1 - j]
                db = cb[_NP - 1 - j]
                ia += rank[j, sa, da]
                ib += rank[j, sb, db]
                sa -= da
                sb -= db
            for m in range(L):
                pa = off[ia, m]
                pb = off[ib, m]
                t0[m] = pa * off_ge[ib, m]
                t1[m] = pa * (first_ge[ib, m] if m < w1 else 0.0)
                t3[m] = pb * (first_ge[ia, m + 1] if m < w3 else 0.0)
            win = _pairwise(t0, L)
            wg = _pairwise(t1, L) if nb == _NC else 0.0
            lg = _pairwise(t3, L) if na == _NC else 0.0
            if two_sided:
                xa = small_map[ia]
                xb = small_map[ib]
                if xa >= 0 and xb >= 0 and (xa > 0 or xb > 0):
                    win = two[xa, xb]
            probs[r, 0] = min(max(win, 0.0), 1.0)
            probs[r, 1] = min(max(wg, 0.0), 1.0)
            probs[r, 2] = 0.0
            probs[r, 3] = min(max(lg, 0.0), 1.0)
            probs[r, 4] = 0.0
        return 0


_ARRAYS: list = [None, None]  # [database, its arrays as the kernel takes them]


def _db_arrays(db, small_map: np.ndarray) -> tuple:
    if _ARRAYS[0] is not db:
        _ARRAYS[1] = (_readonly(db.off), _readonly(db.off_ge), _readonly(db.first_ge), _readonly(db.two_sided),
                      _readonly(small_map), RANK)
        _ARRAYS[0] = db
    return _ARRAYS[1]


def known(boards: np.ndarray) -> np.ndarray:
    """:func:`bgrl.evaluation.bearoff.is_bearoff` of boards int8 (N, 26): bool (N,)."""
    b = _readonly(boards)
    out = np.empty(b.shape[0], dtype=np.bool_)
    _known_kernel(b, out)
    return out


def probs(boards: np.ndarray, two_sided: bool, loaded, load, small_map: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``bearoff._probs(boards, two_sided)`` for boards int8 (N, 26) (validated by the caller):
    ``(known bool (N,), probs float64 (N, 5))``, NaN rows where not known.

    ``loaded`` is the database already loaded (``bearoff._DB``, or None), ``load`` the function
    that loads it (``bearoff.database``), called only where some board is a bear-off (as the
    numpy code does); ``small_map`` int64 (N_POSITIONS,) is ``bearoff._SMALL_MAP`` (the two-sided
    table's index of each one-sided position, -1 outside it).
    Raises ValueError as :func:`bgrl.evaluation.bearoff.position_index` does for a known board
    with more than 15 checkers on one side's home points.
    """
    b = _readonly(boards)
    n = b.shape[0]
    k = np.empty(n, dtype=np.bool_)
    p = np.empty((n, 5))
    db = loaded
    if db is None:  # not loaded yet: load it only if needed
        _known_kernel(b, k)
        if not k.any():
            p.fill(np.nan)
            return k, p
        db = load()
    if _probs_kernel(b, *_db_arrays(db, small_map), bool(two_sided), k, p):
        raise ValueError("counts must be >= 0 with at most 15 checkers in all")
    return k, p


def position_index(counts: np.ndarray) -> np.ndarray:
    """The compiled index of one-sided positions, counts int (M, 6) -> int64 (M,), -1 where
    not a bear-off position (for tests: :func:`bgrl.evaluation.bearoff.position_index`)."""
    c = _readonly(np.asarray(counts, dtype=np.int64))
    out = np.empty(c.shape[0], dtype=np.int64)
    _index_kernel(c, RANK, out)
    return out


def warm() -> None:
    """Compile (or load from numba's cache) the kernels on tiny inputs of the types real calls
    use (read-only arrays), without loading the database."""
    if not AVAILABLE:  # pragma: no cover
        return
    b = np.zeros((1, 26), dtype=np.int8)
    b[0, 1] = 1
    _known_kernel(_readonly(b), np.empty(1, dtype=np.bool_))
    L = 4
    off = np.zeros((2, L))
    off[:, 0] = 1.0
    ge = np.zeros((2, L + 1))
    ge[:, 0] = 1.0
    small = np.zeros(N_POSITIONS, dtype=np.int64)  # any index the rank gives stays in range
    arrays = (_readonly(off), _readonly(ge), _readonly(ge[:, :3]), _readonly(np.ones((1, 1))), _readonly(small), RANK)
    zero = np.zeros((1, 26), dtype=np.int8)  # not a bear-off: the kernel reads no table row
    _probs_kernel(_readonly(zero), *arrays, True, np.empty(1, dtype=np.bool_), np.empty((1, 5)))
    position_index(np.zeros((1, 6), dtype=np.int64))
