"""Compiled inner loop of the fast trainer's weight update (optional: needs numba).

:func:`chain_update` computes, for the history rows of :mod:`bgrl.training.td`, the
weight changes that the torch fallback computes with two matrix products
(``dW1 = U^T X``, ``dW2 = C^T H``), but skips the rows whose weight is 0 (finished games)
and, for the first layer, works from the inputs' changes along each game:

Chains. The rows of one game slot with the same mover (every other ply) form a chain
x_1, x_2, ..., x_m (oldest first); x_l = x_{l-1} + d_l, and d_l (a play and the reply
change a few points: about 9 non-zero units against about 33 in x_l, measured on the
shipped network's self-play) is stored with the row (:func:`chain_diffs`). Then, with
P_l = U_1 + ... + U_l the prefix sums (summing by parts),

    sum_l x_l (x) U_l = x_m (x) P_m - sum_{l >= 2} d_l (x) P_{l-1},

so each row costs its changed units instead of all its non-zero ones, and the chain's
latest row its own once: the rows are taken oldest first, P accumulated per chain. A chain
starts afresh at a row whose predecessor has a weight of 0 (lambda^age underflowed: the
older rows drop out). The
sums are the same up to float32 association (the tests compare the trainer with the
dense-trace reference within 2e-6), in a fixed row order, so a run (and a resumed run)
is reproducible bit for bit.

``AVAILABLE`` is False when numba is not installed; :mod:`bgrl.training.td` then uses
torch (numba is a dependency of bgrl; the fallback serves platforms without it).
"""

from __future__ import annotations

import numpy as np

# njit from bgrl's numba module: its cache folder (a read-only install caches in the user's
# bgrl folder, and where nothing can be written the kernels compile at each start instead of
# numba refusing to decorate them).
from bgrl.evaluation._numba import AVAILABLE, njit

__all__ = ["AVAILABLE", "chain_diffs", "chain_update", "compact", "group_argmax", "history_update", "sparsify"]

NNZ_MAX = 48
"""Most non-zero input units of one encoded position (td198r has at most 39)."""

if AVAILABLE:

    @njit(cache=True, nogil=True)
    def sparsify(X, cols, vals, nnz):  # pragma: no cover - compiled
        """Non-zero units of each row of X (N, I) into cols int16 (N, NNZ_MAX), vals
        float32 (N, NNZ_MAX) and nnz int16 (N,)."""
        n, I = X.shape
        width = cols.shape[1]
        for r in range(n):
            q = 0
            for i in range(I):
                v = X[r, i]
                if v != 0.0:
                    if q >= width:
                        raise ValueError("more non-zero inputs than the sparse row holds")
                    cols[r, q] = i
                    vals[r, q] = v
                    q += 1
            nnz[r] = q

    @njit(cache=True, nogil=True)
    def chain_diffs(cols, vals, nnz, n0, n1, owner, k, alive, last, t, dcols, dvals, dnnz, pk):  # pragma: no cover - compiled
        """Link the new history rows n0..n1-1 to their chains and store their differences
        (module docstring, "Chains"), from the rows' non-zero inputs cols/vals/nnz
        (:func:`sparsify`: columns ascending).

        A row's predecessor is ``last[owner, t & 1]``, the game's latest earlier row with the
        same mover, if it is still a row of this game (below n0, same owner, alive, same
        parity); then dcols/dvals/dnnz hold ``x_row - x_predecessor``'s non-zero units and
        pk the predecessor's step, otherwise x_row's non-zero units and pk = -1. ``last``
        (G, 2) int64 is updated to the new rows."""
        width = dcols.shape[1]
        par = t & 1
        for r in range(n0, n1):
            g = owner[r]
            p = last[g, par]
            linked = p >= 0 and p < n0 and owner[p] == g and alive[p] and (k[p] & 1) == par
            q = 0
            a = 0
            b = 0
            na = nnz[r]
            nb = nnz[p] if linked else 0
            while a < na or b < nb:  # merge the two ascending column lists
                ia = cols[r, a] if a < na else 1 << 30
                ib = cols[p, b] if b < nb else 1 << 30
                if ia < ib:
                    i, v = ia, vals[r, a]
                    a += 1
                elif ib < ia:
                    i, v = ib, -vals[p, b]
                    b += 1
                else:
                    i, v = ia, vals[r, a] - vals[p, b]
                    a += 1
                    b += 1
                if v != 0.0:
                    if q >= width:
                        raise ValueError("more changed inputs than the difference row holds")
                    dcols[r, q] = i
                    dvals[r, q] = v
                    q += 1
            dnnz[r] = q
            pk[r] = k[p] if linked else -1
            last[g, par] = r

    @njit(cache=True, nogil=True)
    def compact(n, alive, Hh, gy, B, k, owner, cols, vals, nnz, dcols, dvals, dnnz, pk, moved):  # pragma: no cover
        """Move the alive rows among the first n of every history array to the front, in
        order (in place); ``moved`` int64 (n,) gets each row's new index (-1: dropped).
        Returns the number of rows kept. The same result as numpy's ``arr[:m] = arr[:n][keep]``."""
        m = 0
        for r in range(n):
            if not alive[r]:
                moved[r] = -1
                continue
            moved[r] = m
            if m != r:
                Hh[m, :] = Hh[r, :]
                gy[m, :] = gy[r, :]
                B[m, :] = B[r, :]
                k[m] = k[r]
                owner[m] = owner[r]
                alive[m] = True
                q = nnz[r]
                cols[m, :q] = cols[r, :q]
                vals[m, :q] = vals[r, :q]
                nnz[m] = q
                q = dnnz[r]
                dcols[m, :q] = dcols[r, :q]
                dvals[m, :q] = dvals[r, :q]
                dnnz[m] = q
                pk[m] = pk[r]
            m += 1
        return m

    @njit(cache=True, nogil=True, error_model="numpy")
    def group_argmax(p, offsets, best):  # pragma: no cover - compiled
        """best[i] = the index of the largest cubeless equity (2 p0 - 1 + p1 - p3 + p2 - p4, in
        float64 as :func:`bgrl.evaluation.probabilities.equity`) among rows offsets[i] ..
        offsets[i+1]-1 of p float64 (M, 5); ties to the first and NaN never chosen (as :func:`bgrl.agents.base.group_argmax`)."""
        for i in range(offsets.shape[0] - 1):
            b = offsets[i]
            e_best = -np.inf
            found = False
            for r in range(offsets[i], offsets[i + 1]):
                e = 2.0 * p[r, 0] - 1.0 + p[r, 1] - p[r, 3] + p[r, 2] - p[r, 4]
                if e != e:  # NaN: never chosen while the group holds a number
                    continue
                if not found or e > e_best:
                    e_best = e
                    b = r
                    found = True
            best[i] = b

    @njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
    def _chain_update(cols, vals, nnz, dcols, dvals, dnnz, pk, k, owner, alive, t, lam_pow, G, R, Hh, gy, both, ring,
                      dW1t, db1, dW2, db2):  # pragma: no cover - compiled
        n, H = Hh.shape
        u = np.empty(H, dtype=np.float32)
        c = np.empty(5, dtype=np.float32)
        n_chains = 2 * G
        acc = np.zeros((n_chains, H), dtype=np.float32)  # per chain: the sum of u over its rows so far
        last = np.full(n_chains, -1, dtype=np.int64)  # per chain: its latest row
        for r in range(n):  # oldest first (about 2.5x faster here than newest first)
            if not alive[r]:
                continue
            age = t - k[r]
            wr = np.float32(lam_pow[age])  # lambda^(t-k)
            if wr == 0.0:
                alive[r] = False  # underflowed weights stay 0 from here on
                continue
            s = owner[r] + G * (age & 1)  # the game's delta in the row's mover frame
            rr = k[r] % R
            ch = 2 * owner[r] + (k[r] & 1)
            # a chain starts at a row without a predecessor, or whose predecessor's weight is 0 (dropped out)
            root = pk[r] < 0 or np.float32(lam_pow[t - pk[r]]) == 0.0
            for o in range(5):
                c[o] = both[s, o] * gy[r, o] * wr
                db2[o] += c[o]
            c0, c1, c2, c3, c4 = c[0], c[1], c[2], c[3], c[4]
            g0, g1, g2, g3, g4 = ring[rr, 0], ring[rr, 1], ring[rr, 2], ring[rr, 3], ring[rr, 4]
            for j in range(H):  # the five outputs in one pass over the hidden units
                hj = Hh[r, j]
                u[j] = (((c0 * g0[j] + c1 * g1[j]) + c2 * g2[j]) + c3 * g3[j]) + c4 * g4[j]
                dW2[0, j] += c0 * hj
                dW2[1, j] += c1 * hj
                dW2[2, j] += c2 * hj
                dW2[3, j] += c3 * hj
                dW2[4, j] += c4 * hj
            last[ch] = r
            if root:  # the chain starts here: its sum starts afresh
                for j in range(H):
                    acc[ch, j] = np.float32(0.0)
            else:  # - d_l (x) (u_1 + ... + u_{l-1})
                for q in range(dnnz[r]):
                    i = dcols[r, q]
                    v = dvals[r, q]
                    for j in range(H):
                        dW1t[i, j] -= v * acc[ch, j]
            for j in range(H):
                hj = Hh[r, j]
                u[j] *= hj * (np.float32(1.0) - hj)
                db1[j] += u[j]
                acc[ch, j] += u[j]
        for ch in range(n_chains):  # + x_m (x) (u_1 + ... + u_m), x_m the chain's latest row
            r = last[ch]
            if r >= 0:
                for q in range(nnz[r]):
                    i = cols[r, q]
                    v = vals[r, q]
                    for j in range(H):
                        dW1t[i, j] += v * acc[ch, j]

    @njit(cache=True, nogil=True)
    def _history_update(cols, vals, nnz, Hh, gy, w, sel, ringrow, both, ring, dW1t, db1, dW2, db2):  # pragma: no cover
        n, H = Hh.shape
        u = np.empty(H, dtype=np.float32)
        c = np.empty(5, dtype=np.float32)
        for r in range(n):
            wr = w[r]
            if wr == 0.0:
                continue
            s = sel[r]
            rr = ringrow[r]
            for o in range(5):
                c[o] = both[s, o] * gy[r, o] * wr
                db2[o] += c[o]
            for j in range(H):
                u[j] = np.float32(0.0)
            for o in range(5):
                co = c[o]
                for j in range(H):
                    u[j] += co * ring[rr, o, j]
                    dW2[o, j] += co * Hh[r, j]
            for j in range(H):
                hj = Hh[r, j]
                u[j] *= hj * (np.float32(1.0) - hj)
                db1[j] += u[j]
            for q in range(nnz[r]):
                i = cols[r, q]
                v = vals[r, q]
                for j in range(H):
                    dW1t[i, j] += v * u[j]



def chain_update(cols, vals, nnz, dcols, dvals, dnnz, pk, k, owner, alive, t, lam_pow, G, R, Hh, gy, both, ring, n_inputs):
    """Weight changes (before the step size) from history rows, through their chains (module docstring).

    cols/vals/nnz: the non-zero inputs of each row (:func:`sparsify`); dcols/dvals/dnnz and
    pk int64 (N,): the row's differences from its chain predecessor and that one's step
    (-1: none; :func:`chain_diffs`); k int64 (N,) each row's step, owner int64 (N,) its game
    slot (< G), alive bool (N,) (rows whose weight lambda^(t-k) is 0 are set False here);
    t the current step, lam_pow float64 powers of lambda (at least t - min(k, pk) + 1 of
    them); Hh float32 (N, H) hidden activations, gy float32 (N, 5) = y(1-y), both float32
    (2G, 5) each game's delta in both frames, ring float32 (R, 5, H) the output weights at
    step k in row k % R. Returns (dW1 (H, I), db1 (H,), dW2 (5, H), db2 (5,)), float32.
    """
    H = Hh.shape[1]
    dW1t = np.zeros((n_inputs, H), dtype=np.float32)
    db1 = np.zeros(H, dtype=np.float32)
    dW2 = np.zeros((5, H), dtype=np.float32)
    db2 = np.zeros(5, dtype=np.float32)
    _chain_update(cols, vals, nnz, dcols, dvals, dnnz, pk, k, owner, alive, t, lam_pow, G, R, Hh, gy, both, ring,
                  dW1t, db1, dW2, db2)
    return dW1t.T, db1, dW2, db2


def history_update(cols, vals, nnz, Hh, gy, w, sel, ringrow, both, ring, n_inputs):
    """Weight changes (before the step size) from history rows, each row's inputs in full:
    :func:`chain_update`'s reference, and the trainer's update as it was before issue 39
    (it runs inside :func:`bgrl.evaluation.compiled.disabled`, for tests and benchmarks).

    cols/vals/nnz: the non-zero inputs of each row (:func:`sparsify`), Hh float32 (N, H)
    hidden activations, gy float32 (N, 5) = y(1-y), w float32 (N,) lambda^(t-k) (0 = skip
    the row), sel int64 (N,) row of ``both`` (the game's delta in the row's frame),
    ringrow int64 (N,) row of ``ring`` (output weights at the row's step), both float32
    (2G, 5), ring float32 (R, 5, H).
    Returns (dW1 (H, I), db1 (H,), dW2 (5, H), db2 (5,)), float32 numpy arrays.
    """
    H = Hh.shape[1]
    dW1t = np.zeros((n_inputs, H), dtype=np.float32)
    db1 = np.zeros(H, dtype=np.float32)
    dW2 = np.zeros((5, H), dtype=np.float32)
    db2 = np.zeros(5, dtype=np.float32)
    _history_update(cols, vals, nnz, Hh, gy, w, sel, ringrow, both, ring, dW1t, db1, dW2, db2)
    return dW1t.T, db1, dW2, db2
