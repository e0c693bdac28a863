"""Compiled inner loop of the fast trainer's weight update (optional: needs numba).

:func:`history_update` computes, for the history rows of :mod:`bgrl.training.td`, the
weight changes that the torch fallback computes with two matrix products, but skips the
zero inputs of each row (an encoded position has about 40 non-zero units of 202) and the
rows whose weight is 0 (finished games), which makes it several times faster. It is
exact in the same sense as the fallback: the same sums, in a fixed row order (so a run
is reproducible bit for bit), rounded differently only by float32 association.

``AVAILABLE`` is False when numba is not installed; :mod:`bgrl.training.td` then uses
torch (numba is a dependency of bgrl; the fallback serves platforms without it).
"""

from __future__ import annotations

import numpy as np

try:  # pragma: no cover - depends on the optional extra
    from numba import njit

    AVAILABLE = True
except ImportError:  # pragma: no cover
    AVAILABLE = False

__all__ = ["AVAILABLE", "history_update"]

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


def history_update(cols, vals, nnz, Hh, gy, w, sel, ringrow, both, ring, n_inputs):
    """Weight changes (before the step size) from history rows.

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
