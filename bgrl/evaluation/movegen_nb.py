"""Compiled (numba) move generator for one position: :func:`bgrl.rules.movegen.generate`'s twin.

:func:`generate_one` returns, for one ``(board, dice)``, exactly what the numpy generator
returns for a batch of that one position: the same after-states in the same order, the same
``dice_used``, and with ``paths`` the same move path of every after-state (tested on the
crosscheck cases and the rule book's cases, ``tests/evaluation/test_compiled_movegen.py``). One call
costs a few microseconds where the numpy generator's fixed cost is about 0.1 ms.

The rules are the numpy generator's (docs/rules.md; :mod:`bgrl.rules.movegen` states them), on the
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

Batches. :func:`generate_batch` is the twin of ``generate`` for two or more positions: the
same rows, ``parent``, ``offsets``, ``dice_used`` and paths, bit for bit, in the same order. The
numpy generator orders a position's rows by ``_unique_order``'s combined key, whose hash part
is the 64-bit hash shifted right by the bit length of the last position index of its chunk of
1,024 positions (not by one bit as for one position), so the kernel keys each chunk the same
way; should two different boards of one position share that key (never seen; the numpy
generator then sorts by bytes) it returns None and the numpy generator runs. A partial play is
its board packed in four uint64 words (the numpy generator's 32-byte row) beside its ``own``
mask; each position's rows are sorted by a stable counting sort on the top bits of their
(uniform) hash and an insertion sort of the almost sorted result; the buffers are reused
across positions (``tests/evaluation/test_compiled_movegen.py``: the crosscheck cases in batches, the
full 1,000,000 with ``-m slow``, chunk edges, hypothesis batches, test_movegen.py's batch tests
through it). About 2.2-2.4x the numpy generator at batch 1,024, 3.3-3.7x gnubg-nn's ``moves``
(``python scripts/bench/bench_hint.py --done-when``).

Loading this module registers :func:`generate_one` and :func:`generate_batch` with
:mod:`bgrl.rules.movegen` (which may import numpy only), so that afterwards ``generate``, and
with it :func:`bgrl.rules.notation.legal_plays`, the vector env, training, rollouts and search,
runs compiled, with the same results. :func:`bgrl.evaluation.compiled.ensure` loads it when
the compiled path is wanted (``generate`` of a batch calls it once numba is imported);
:func:`bgrl.evaluation.compiled.disabled` switches back to the numpy generator.
"""

from __future__ import annotations

import numpy as np

from bgrl.evaluation._numba import AVAILABLE, njit
from bgrl.rules import movegen
from bgrl.rules.movegen import MAX_MOVES, AfterStates

__all__ = ["AVAILABLE", "generate_one", "generate_one_rows", "generate_batch", "register", "unregister"]

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
        r2 = np.empty((2 * cap, 32), dtype=np.int8)  # rows are finished as they are written
        p2 = np.empty((2 * cap, MAX_MOVES, 3), dtype=np.int16)
        r2[:cap] = rows
        p2[:cap] = paths
        return r2, p2

    @njit(cache=True, nogil=True)
    def _finish_row(rows, paths, r, moves):  # pragma: no cover - compiled
        """Zero what row ``r`` does not write itself: its padding bytes 26..31 (read by the sort
        key) and its path's moves from ``moves`` on (the buffers are not zeroed up front)."""
        for i in range(26, 32):
            rows[r, i] = 0
        for j in range(moves, MAX_MOVES):
            paths[r, j, 0] = 0
            paths[r, j, 1] = 0
            paths[r, j, 2] = 0

    @njit(cache=True, nogil=True)
    def _set_move(paths, r, k, src, die, hit):  # pragma: no cover - compiled
        paths[r, k, 0] = src
        paths[r, k, 1] = src - die
        paths[r, k, 2] = hit

    @njit(cache=True, nogil=True)
    def _non_double(board, own0, opn, hi, lo):  # pragma: no cover - compiled
        """Rows int8 (cap, 32), paths int16 (cap, 4, 3), row count and dice used of a non-double."""
        rows = np.empty((_ND_CAP, 32), dtype=np.int8)  # each row finished as written (_finish_row)
        paths = np.empty((_ND_CAP, MAX_MOVES, 3), dtype=np.int16)
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
                    _finish_row(rows, paths, n, 2)
                    n += 1
        if n > 0:
            return rows, paths, n, 2
        if n1 == 0:
            for i in range(26):
                rows[0, i] = board[i]
            _finish_row(rows, paths, 0, 0)
            return rows, paths, 1, 0
        lo_c, hi_c = (0, n_hi) if n_hi > 0 else (0, n1)  # only one die: the higher one if it can be played
        for c in range(lo_c, hi_c):
            for i in range(26):
                rows[n, i] = c_board[c, i]
            _set_move(paths, n, 0, c_src[c], c_die[c], c_hit[c])
            _finish_row(rows, paths, n, 1)
            n += 1
        return rows, paths, n, 1

    @njit(cache=True, nogil=True)
    def _double(board, own0, opn, die, cap):  # pragma: no cover - compiled
        """Rows, paths, row count and dice used of a double: each move from a source no higher
        than the previous one's, only the plays of the most moves kept."""
        rows = np.empty((cap, 32), dtype=np.int8)  # each row finished as written (_finish_row)
        paths = np.empty((cap, MAX_MOVES, 3), dtype=np.int16)
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
                for j in range(c):
                    _set_move(paths, n, j, lvl_src[j + 1], die, lvl_hit[j + 1])
                _finish_row(rows, paths, n, c)
                n += 1
            if c < MAX_MOVES:
                lvl_legal[c] = _legal(lvl_own[c], opn, die, s)
                lvl_next[c] = 1
                k = c
        if best == 0:
            for i in range(26):
                rows[0, i] = board[i]
            _finish_row(rows, paths, 0, 0)
            return rows, paths, 1, 0
        return rows, paths, n, best

    @njit(cache=True, nogil=True)
    def _one_sorted(board, d1, d2, mult, cap):  # pragma: no cover - compiled
        """The plays of one position before the copy out: (rows int8, paths int16, keep int64,
        k, dice used, ok): rows ``keep[:k]`` of ``rows`` (and ``paths``) in the numpy generator's
        order; ok False when two boards share a sort key."""
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
        return rows, paths, keep, k, used, ok

    @njit(cache=True, nogil=True)
    def _generate_one(board, d1, d2, mult, cap):  # pragma: no cover - compiled
        """(boards int8 (k, 26), paths int16 (k, 4, 3), dice used, ok) of one position, rows in
        the numpy generator's order; ok False when two boards share a sort key."""
        rows, paths, keep, k, used, ok = _one_sorted(board, d1, d2, mult, cap)
        out = np.empty((k, 26), dtype=np.int8)
        out_paths = np.empty((k, MAX_MOVES, 3), dtype=np.int16)
        for i in range(k):
            r = keep[i]
            for j in range(26):
                out[i, j] = rows[r, j]
            out_paths[i] = paths[r]
        return out, out_paths, used, ok

    @njit(cache=True, nogil=True)
    def _generate_one_rows(board, d1, d2, mult, cap):  # pragma: no cover - compiled
        """:func:`_generate_one` without the move paths: (boards int8 (k, 26), dice used, ok)
        (one array fewer to build and hand to Python: the single environments' step)."""
        rows, _paths, keep, k, used, ok = _one_sorted(board, d1, d2, mult, cap)
        out = np.empty((k, 26), dtype=np.int8)
        for i in range(k):
            r = keep[i]
            for j in range(26):
                out[i, j] = rows[r, j]
        return out, used, ok

    # ------------------------------------------------------------------ the batch generator
    # One partial play is its board packed in four uint64 words (the numpy generator's 32-byte
    # row: byte i = index i, bytes 26..31 zero) beside the ``own`` mask, so copying a board is
    # four words and hashing it (the numpy generator's sort key) reads them directly.
    _FF = np.uint64(0xFF)

    # Rows are passed as (array, row index), never as slices: a slice is a new array object
    # whose reference counting costs more than the move itself.
    @njit(cache=True, nogil=True, inline="always")
    def _wget(w, r, i):  # pragma: no cover - compiled
        """Signed byte i of the packed board ``w[r]`` (uint64 (4,))."""
        v = np.int64((w[r, i >> 3] >> np.uint64((i & 7) * 8)) & _FF)
        return v - 256 if v >= 128 else v

    @njit(cache=True, nogil=True, inline="always")
    def _wput(w, r, i, v):  # pragma: no cover - compiled
        sh = np.uint64((i & 7) * 8)
        w[r, i >> 3] = (w[r, i >> 3] & ~(_FF << sh)) | (np.uint64(v & 0xFF) << sh)

    @njit(cache=True, nogil=True, inline="always")
    def _wmove(before, rb, after, ra, own, src, die):  # pragma: no cover - compiled
        """_move on packed boards: ``after[ra]`` = ``before[rb]`` with one checker moved from
        ``src`` by ``die``. Returns (the new own mask, hit 0/1). Byte arithmetic in the words:
        the source holds 1..15 (no borrow), an open destination -1..14 (-1 -> 1 by xor, else
        +1 with no carry), the opponent's bar (byte 0) 0..-15 (0 -> -1 by or, else -1)."""
        for j in range(4):
            after[ra, j] = before[rb, j]
        sh = np.uint64((src & 7) * 8)
        ws = src >> 3
        if (after[ra, ws] >> sh) & _FF == 1:
            own &= ~(np.int64(1) << src)
        after[ra, ws] -= np.uint64(1) << sh
        hit = 0
        dst = src - die
        if dst >= 1:
            sh = np.uint64((dst & 7) * 8)
            wd = dst >> 3
            if (after[ra, wd] >> sh) & _FF == _FF:
                after[ra, wd] ^= np.uint64(0xFE) << sh
                if after[ra, 0] & _FF == 0:
                    after[ra, 0] |= _FF
                else:
                    after[ra, 0] -= np.uint64(1)
                hit = 1
            else:
                after[ra, wd] += np.uint64(1) << sh
            own |= np.int64(1) << dst
        return own, hit

    @njit(cache=True, nogil=True)
    def _wnon_double(bw, own0, opn, hi, lo, rows, paths, want, c_w, c_own, c_src, c_hit, c_die):  # pragma: no cover
        """:func:`_non_double` into the caller's buffers (packed rows): returns (rows, dice used)."""
        legal_hi = _legal(own0, opn, hi, _BAR)
        n1 = 0
        n_hi = 0
        for first in range(2):
            die = hi if first == 0 else lo
            legal = legal_hi if first == 0 else _legal(own0, opn, lo, _BAR)
            s = 1
            legal >>= 1
            while legal:
                if legal & 1:
                    o, h = _wmove(bw, 0, c_w, n1, own0, s, die)
                    c_own[n1] = o
                    c_hit[n1] = h
                    c_src[n1] = s
                    c_die[n1] = die
                    n1 += 1
                legal >>= 1
                s += 1
            if first == 0:
                n_hi = n1
        n = 0
        for c in range(n1):
            second = lo if c < n_hi else hi
            excl = np.int64(0) if c < n_hi else legal_hi
            legal = _legal(c_own[c], opn, second, _BAR) & ~excl
            s = 1
            legal >>= 1
            while legal:
                if legal & 1:
                    _own, hit = _wmove(c_w, c, rows, n, c_own[c], s, second)
                    if want:
                        _set_move(paths, n, 0, c_src[c], c_die[c], c_hit[c])
                        _set_move(paths, n, 1, s, second, hit)
                        for j in range(2, MAX_MOVES):
                            paths[n, j, 0] = 0
                            paths[n, j, 1] = 0
                            paths[n, j, 2] = 0
                    n += 1
                legal >>= 1
                s += 1
        if n > 0:
            return n, 2
        if n1 == 0:
            for j in range(4):
                rows[0, j] = bw[0, j]
            if want:
                paths[0] = 0
            return 1, 0
        hi_c = n_hi if n_hi > 0 else n1  # only one die: the higher one if it can be played
        for c in range(hi_c):
            for j in range(4):
                rows[n, j] = c_w[c, j]
            if want:
                paths[n] = 0
                _set_move(paths, n, 0, c_src[c], c_die[c], c_hit[c])
            n += 1
        return n, 1

    @njit(cache=True, nogil=True)
    def _wdouble(bw, own0, opn, die, rows, paths, want, lvl_w, lvl_own, lvl_src, lvl_hit, lvl_legal, lvl_next):  # pragma: no cover
        """:func:`_double` into the caller's buffers: returns (n, used), or (-1, 0) when ``rows`` is
        full (the caller grows the buffers and calls again; kept out of here, as a buffer replaced
        inside the loop slows every access to it)."""
        for j in range(4):
            lvl_w[0, j] = bw[0, j]
        lvl_own[0] = own0
        lvl_legal[0] = _legal(own0, opn, die, _BAR)
        lvl_next[0] = 1
        best = 0
        n = 0
        k = 0
        while k >= 0:
            s = lvl_next[k]
            rest = lvl_legal[k] >> s
            while rest and not (rest & 1):
                rest >>= 1
                s += 1
            if rest == 0:
                k -= 1
                continue
            lvl_next[k] = s + 1
            c = k + 1
            o, h = _wmove(lvl_w, k, lvl_w, c, lvl_own[k], s, die)
            lvl_own[c] = o
            lvl_hit[c] = h
            lvl_src[c] = s
            if c > best:
                best = c
                n = 0
            if c == best:
                if n == rows.shape[0]:
                    return -1, 0
                for j in range(4):
                    rows[n, j] = lvl_w[c, j]
                if want:
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
            for j in range(4):
                rows[0, j] = bw[0, j]
            if want:
                paths[0] = 0
            return 1, 0
        return n, best

    @njit(cache=True, nogil=True)
    def _emit(rows, paths, n, want, keys, sk, si, counts, mult, kb, out_w, out_par, out_paths, m, p):  # pragma: no cover
        """Hash the n rows of position p, sort them stably by key (``_unique_order``'s order),
        drop repeated boards, append the rest to the output from row m. Returns (rows now in
        the output, ok); ok False when two different boards share a key.

        The sort: the hash is uniform, so a stable counting sort on its top bits (about one
        row a bucket) and an insertion sort of the almost sorted result take linear time,
        with few mispredicted branches (a comparison sort of random keys is most of the time).
        """
        m0, m1, m2, m3 = mult[0], mult[1], mult[2], mult[3]
        s31 = np.uint64(31)
        bbits = 1
        while (1 << bbits) < n:
            bbits += 1
        nb = 1 << bbits
        shift = np.uint64(64 - bbits)
        for i in range(nb + 1):
            counts[i] = 0
        for r in range(n):
            h = rows[r, 0] * m0 + rows[r, 1] * m1 + rows[r, 2] * m2 + rows[r, 3] * m3
            h ^= h >> s31
            keys[r] = h >> kb
            counts[np.int64(h >> shift) + 1] += 1
        for i in range(nb):
            counts[i + 1] += counts[i]
        for r in range(n):
            k = keys[r]
            g = np.int64((k << kb) >> shift)
            at = counts[g]
            counts[g] = at + 1
            sk[at] = k
            si[at] = r
        for i in range(1, n):  # stable: equal keys keep their order
            kv = sk[i]
            if sk[i - 1] <= kv:
                continue
            v = si[i]
            j = i
            while j > 0 and sk[j - 1] > kv:
                sk[j] = sk[j - 1]
                si[j] = si[j - 1]
                j -= 1
            sk[j] = kv
            si[j] = v
        ok = True
        start = m
        for i in range(n):
            r = si[i]
            if m > start and sk[i] == sk[i - 1]:
                q = si[i - 1]
                if (rows[r, 0] != rows[q, 0] or rows[r, 1] != rows[q, 1] or rows[r, 2] != rows[q, 2]
                        or rows[r, 3] != rows[q, 3]):
                    ok = False
                continue
            out_w[m, 0] = rows[r, 0]
            out_w[m, 1] = rows[r, 1]
            out_w[m, 2] = rows[r, 2]
            out_w[m, 3] = rows[r, 3]
            out_par[m] = p
            if want:
                for j in range(MAX_MOVES):
                    out_paths[m, j, 0] = paths[r, j, 0]
                    out_paths[m, j, 1] = paths[r, j, 1]
                    out_paths[m, j, 2] = paths[r, j, 2]
            m += 1
        return m, ok

    @njit(cache=True, nogil=True)
    def _generate_batch(b, d, mult, want, chunk, cap):  # pragma: no cover - compiled
        """The numpy generator's result for a batch, in its order: (packed boards uint64 (cap, 4),
        parent, paths, dice used, offsets, rows, ok). Positions are ordered inside each chunk of
        ``chunk`` positions as ``_unique_order`` orders them (by the 64-bit hash shifted right by
        the bit length of the chunk's last index); ok False when two different boards of one
        position share that key (the numpy generator then sorts by bytes: the caller runs it).
        The per-position work is in called functions: the buffers replaced here when they fill
        up would slow every access inside a loop."""
        n_pos = b.shape[0]
        cap_out = n_pos * 40 + 64
        out_w = np.empty((cap_out, 4), dtype=np.uint64)
        out_par = np.empty(cap_out, dtype=np.int64)
        out_paths = np.empty((cap_out if want else 0, MAX_MOVES, 3), dtype=np.int16)
        used_all = np.zeros(n_pos, dtype=np.int8)
        offsets = np.zeros(n_pos + 1, dtype=np.int64)
        nd_rows = np.zeros((_ND_CAP, 4), dtype=np.uint64)  # a non-double's rows: 450 at most
        nd_paths = np.zeros((_ND_CAP if want else 1, MAX_MOVES, 3), dtype=np.int16)
        db_rows = np.zeros((cap, 4), dtype=np.uint64)  # a double's: grown when full
        db_paths = np.zeros((cap if want else 1, MAX_MOVES, 3), dtype=np.int16)
        keys = np.empty(_ND_CAP, dtype=np.uint64)
        sk = np.empty(_ND_CAP, dtype=np.uint64)
        si = np.empty(_ND_CAP, dtype=np.int64)
        counts = np.empty(2 * _ND_CAP + 1, dtype=np.int64)
        c_w = np.empty((64, 4), dtype=np.uint64)
        c_own = np.empty(64, dtype=np.int64)
        c_src = np.empty(64, dtype=np.int64)
        c_hit = np.empty(64, dtype=np.int64)
        c_die = np.empty(64, dtype=np.int64)
        lvl_w = np.empty((MAX_MOVES + 1, 4), dtype=np.uint64)
        lvl_own = np.empty(MAX_MOVES + 1, dtype=np.int64)
        lvl_src = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_hit = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_legal = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        lvl_next = np.zeros(MAX_MOVES + 1, dtype=np.int64)
        bw = np.zeros((1, 4), dtype=np.uint64)
        M = 0
        ok = True
        kb = np.uint64(1)
        for p in range(n_pos):
            if p % chunk == 0:
                last = min(chunk, n_pos - p) - 1
                bits = 0
                while last:
                    bits += 1
                    last >>= 1
                kb = np.uint64(max(bits, 1))
            own, opn = _pack(b, p, bw)
            d1 = np.int64(d[p, 0])
            d2 = np.int64(d[p, 1])
            dbl = d1 == d2
            if dbl:
                n, used = _wdouble(bw, own, opn, d1, db_rows, db_paths, want, lvl_w, lvl_own, lvl_src, lvl_hit, lvl_legal,
                                   lvl_next)
                while n < 0:  # the buffers are full: twice the rows, and again
                    db_rows = np.zeros((2 * db_rows.shape[0], 4), dtype=np.uint64)
                    if want:
                        db_paths = np.zeros((db_rows.shape[0], MAX_MOVES, 3), dtype=np.int16)
                    n, used = _wdouble(bw, own, opn, d1, db_rows, db_paths, want, lvl_w, lvl_own, lvl_src, lvl_hit,
                                       lvl_legal, lvl_next)
            else:
                n, used = _wnon_double(bw, own, opn, max(d1, d2), min(d1, d2), nd_rows, nd_paths, want, c_w, c_own,
                                       c_src, c_hit, c_die)
            used_all[p] = used
            if n > keys.shape[0]:
                keys = np.empty(2 * n, dtype=np.uint64)
                sk = np.empty(2 * n, dtype=np.uint64)
                si = np.empty(2 * n, dtype=np.int64)
                counts = np.empty(4 * n + 1, dtype=np.int64)
            if M + n > cap_out:
                cap_out = 2 * cap_out + n
                out_w, out_par, out_paths = _grow_out(out_w, out_par, out_paths, M, cap_out, want)
            if dbl:
                M, good = _emit(db_rows, db_paths, n, want, keys, sk, si, counts, mult, kb, out_w, out_par, out_paths,
                                M, p)
            else:
                M, good = _emit(nd_rows, nd_paths, n, want, keys, sk, si, counts, mult, kb, out_w, out_par, out_paths,
                                M, p)
            ok &= good
            offsets[p + 1] = M
        return out_w, out_par, out_paths, used_all, offsets, M, ok

    @njit(cache=True, nogil=True)
    def _pack(b, p, bw):  # pragma: no cover - compiled
        """Board p of ``b`` packed into bw[0]; returns its (own, open) masks."""
        own = np.int64(0)
        opn = np.int64(0)
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        w2 = np.uint64(0)
        w3 = np.uint64(0)
        for i in range(26):
            v = b[p, i]
            u = np.uint64(np.uint8(v)) << np.uint64((i & 7) * 8)
            if i < 8:
                w0 |= u
            elif i < 16:
                w1 |= u
            elif i < 24:
                w2 |= u
            else:
                w3 |= u
            if i >= 1:
                if v > 0:
                    own |= np.int64(1) << i
                if i <= 24 and v >= -1:
                    opn |= np.int64(1) << i
        bw[0, 0] = w0
        bw[0, 1] = w1
        bw[0, 2] = w2
        bw[0, 3] = w3
        return own, opn

    @njit(cache=True, nogil=True)
    def _grow_out(out_w, out_par, out_paths, m, cap, want):  # pragma: no cover - compiled
        w2 = np.empty((cap, 4), dtype=np.uint64)
        w2[:m] = out_w[:m]
        p2 = np.empty(cap, dtype=np.int64)
        p2[:m] = out_par[:m]
        q2 = np.empty((cap if want else 0, MAX_MOVES, 3), dtype=np.int16)
        if want:
            q2[:m] = out_paths[:m]
        return w2, p2, q2


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
    boards, mp, used, ok = _generate_one(b[0], int(d[0, 0]), int(d[0, 1]), _MULT, max(int(cap), 1))  # 0 would never grow
    if not ok:  # pragma: no cover - no such collision is known
        return None
    k = boards.shape[0]
    return AfterStates(boards=boards, parent=np.zeros(k, dtype=np.int64), dice_used=np.array([used], dtype=np.int8),
                       offsets=np.array([0, k], dtype=np.int64), positions=b, paths=mp if paths else None, dice=d)


def generate_one_rows(board: np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, int] | None:
    """The after-states of one position as :func:`generate_one` gives them, without the
    :class:`~bgrl.rules.movegen.AfterStates` around them (whose arrays cost more than the
    kernel for one position): the single environments' hot path
    (:func:`bgrl.env.common.plays_of_one`).

    board : int8 (26,), C-contiguous, a valid board from the mover's side (not checked here);
    d1, d2 : the dice, ints 1..6, either order. Returns ``(rows, dice_used)``: ``rows`` int8
    (k, 26), a fresh array holding ``generate(board[None], [[d1, d2]]).boards`` in its order
    (a roll with no legal play: one row, the board unchanged), and ``dice_used`` the int
    ``dice_used[0]``. Returns None when the numpy generator must run instead: numba is
    missing, :func:`generate_one` is not the one-position generator registered with
    :mod:`bgrl.rules.movegen` (after :func:`unregister`), or two boards share a sort key.
    """
    if not AVAILABLE or movegen.one_position_kernel() is not generate_one:
        return None
    rows, used, ok = _generate_one_rows(board, d1, d2, _MULT, _DB_CAP)
    return (rows, int(used)) if ok else None


def generate_batch(b: np.ndarray, d: np.ndarray, paths: bool = False, cap: int = _ND_CAP) -> AfterStates | None:
    """:func:`bgrl.rules.movegen.generate` of a checked batch, compiled.

    b : int8 (B, 26) valid boards (not checked here); d : int8 (B, 2), dice 1..6.
    Returns the AfterStates the numpy generator gives for the same batch (same rows, order,
    ``parent``, ``offsets``, ``dice_used`` and, with ``paths``, move paths; its chunks of
    1,024 positions included), or None when the numpy generator must run instead (two boards
    of one position sharing a sort key; never seen). ``cap``: the rows a double's buffer starts
    with (it doubles when full; small values test that).
    """
    if not AVAILABLE:  # pragma: no cover - numba missing
        return None
    b = np.ascontiguousarray(b, dtype=np.int8)
    d = np.ascontiguousarray(d, dtype=np.int8)
    out_w, par, mp, used, offsets, m, ok = _generate_batch(b, d, _MULT, bool(paths), movegen._CHUNK, max(int(cap), 1))
    if not ok:  # pragma: no cover - no such collision is known
        return None
    boards = np.ascontiguousarray(out_w[:m].view(np.int8)[:, :26])
    return AfterStates(boards=boards, parent=par[:m], dice_used=used, offsets=offsets, positions=b,
                       paths=mp[:m] if paths else None, dice=d)


#: The starting position, int8 (26,): what :func:`warm` generates from.
START = np.array([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0], dtype=np.int8)


def warm() -> None:
    """Compile (or read from numba's cache) the generator for both kinds of roll."""
    for roll in ((3, 1), (3, 3)):
        generate_one(START[None], np.array([roll], dtype=np.int8))
        _generate_one_rows(START, *roll, _MULT, _DB_CAP)
    for paths in (False, True):
        generate_batch(np.stack([START, START]), np.array([(3, 1), (3, 3)], dtype=np.int8), paths)


def register() -> None:
    """Route :func:`bgrl.rules.movegen.generate` of one position through :func:`generate_one`,
    and of a batch through :func:`generate_batch`."""
    if AVAILABLE:
        movegen.set_one_position_kernel(generate_one)
        movegen.set_batch_kernel(generate_batch)


def unregister() -> None:
    """Back to the numpy generator for every batch (e.g. to time or test it)."""
    movegen.set_one_position_kernel(None)
    movegen.set_batch_kernel(None)


register()
