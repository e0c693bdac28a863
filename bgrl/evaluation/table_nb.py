"""Compiled (numba) forward pass of the table network evaluator (every batch on the CPU).

:func:`forward` is one kernel call for what :class:`bgrl.evaluation.table_np.NumpyTableEvaluator`
does in about thirty numpy calls: the table rows of every after-state, their sum, the td198g
features' product, both sigmoid layers, then the probability rules of
:mod:`bgrl.evaluation.probabilities` (the flip to the side that played, the outcomes it can no
longer reach, the consistency rules). Finished games and exact positions are left to the
caller (rare; it overwrites those rows and applies the same rules to them).

Values. The table rows are summed in the numpy evaluator's order, so the first layer's sums
equal it bit for bit; the features' product, the output layer's sums and the sigmoid's
``exp`` are float32 operations in another order (a BLAS kernel, numpy's vector ``exp``), so
the probabilities agree to float32 rounding: within 2e-6 (measured: a few 1e-7;
``tests/evaluation/test_compiled_table.py``), and a ranking differs only between plays whose equities lie
that close.

Speed. The kernels use numba's ``error_model="numpy"``: a float division by zero gives inf
instead of raising, so ``1 / (1 + e)`` has no zero test and the sigmoid's loop is vectorised
(2.6x faster at 320 units, the same bits). The rows that are not exact zeros are listed while
the points are read, without a branch (a third of the kernel's time at 80 units went to a
second pass over the 55 rows).
"""

from __future__ import annotations

import numpy as np

from bgrl.evaluation._numba import AVAILABLE, njit

__all__ = ["AVAILABLE", "forward", "warm", "TOLERANCE", "table_rows", "point_tables", "other_tables", "bag_rows", "table_bags", "ZERO_ROWS"]

#: Largest difference from the numpy evaluator's probabilities (float32 rounding), tested.
TOLERANCE = 2e-6

if AVAILABLE:

    @njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract", "arcp"})
    def _sigmoid_into(pre, bits, scale):  # pragma: no cover - compiled
        """pre[j] = 1 / (1 + exp(-pre[j])) in float32, with Cephes' expf (range reduction by
        ln 2, a degree-6 polynomial, 2^n from the exponent bits; within about 1 ulp of a
        correctly rounded exp): a loop the compiler vectorises, where a call of libm's expf per
        unit would not be (about 5x slower here).

        Inputs below -64 give sigmoid(-64) (1.6e-28) instead of a smaller value: below about
        -87 the exact one is a subnormal float32 (and so are its products with the output
        weights), and the CPU's slow path for subnormals made a 640-unit network's kernel 3x
        slower on real positions (saturated units). The change in an output's sum is below
        1e-24, far under float32 rounding.

        Compiled with fused multiply-adds (``fastmath`` contract and arcp): the polynomial in
        fewer roundings, 5-10% faster; the values stay within float32 rounding of numpy's
        (measured: at most 7e-7 on the 13 shipped networks)."""
        one = np.float32(1.0)
        for j in range(pre.shape[0]):
            x = -pre[j]
            x = min(max(x, np.float32(-87.0)), np.float32(64.0))
            n = np.floor(x * np.float32(1.44269504088896341) + np.float32(0.5))
            r = x - n * np.float32(0.693359375) - n * np.float32(-2.12194440e-4)
            p = np.float32(1.9875691500e-4)
            p = p * r + np.float32(1.3981999507e-3)
            p = p * r + np.float32(8.3334519073e-3)
            p = p * r + np.float32(4.1665795894e-2)
            p = p * r + np.float32(1.6666665459e-1)
            p = p * r + np.float32(5.0000001201e-1)
            p = p * r * r + r + one
            bits[j] = (np.int32(n) + np.int32(127)) << np.int32(23)
            pre[j] = p
        for j in range(pre.shape[0]):
            pre[j] = one / (one + pre[j] * scale[j])

    @njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
    def _dot(h, w):  # pragma: no cover - compiled
        """float32 dot product in any order (vectorised): BLAS's order is not numpy's either."""
        acc = np.float32(0.0)
        for j in range(h.shape[0]):
            acc += h[j] * w[j]
        return acc

    @njit(cache=True, nogil=True, error_model="numpy")
    def _row_sum(tab, nz, n, bias, pre):  # pragma: no cover - compiled
        """pre = (((tab[nz[0]] + tab[nz[1]]) + ...) + tab[nz[n-1]]) + bias, added strictly in that
        order (so the bits of a row-by-row sum), four rows a pass over the hidden units (a
        quarter of the loads and stores of ``pre``)."""
        h = pre.shape[0]
        for j in range(h):
            pre[j] = np.float32(0.0)
        k = 0
        while k + 4 <= n:
            t0, t1, t2, t3 = tab[nz[k]], tab[nz[k + 1]], tab[nz[k + 2]], tab[nz[k + 3]]
            for j in range(h):
                pre[j] = (((pre[j] + t0[j]) + t1[j]) + t2[j]) + t3[j]
            k += 4
        while k < n:
            t0 = tab[nz[k]]
            for j in range(h):
                pre[j] += t0[j]
            k += 1
        for j in range(h):
            pre[j] += bias[j]

    @njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
    def _feature_product(v, featw, dot):  # pragma: no cover - compiled
        """dot[j] = sum over f, in order, of v[f] * featw[f, j] (float32; a loop of its own, which
        the compiler vectorises over the hidden units): the first two features, then eight a
        pass over the units (a ninth of the loads and stores of ``dot`` that one a pass needs;
        td198g's 18 features are 2 + 8 + 8)."""
        h = dot.shape[0]
        nf = v.shape[0]
        f = 0
        if nf >= 2:
            x0, x1, w0, w1 = v[0], v[1], featw[0], featw[1]
            for j in range(h):
                dot[j] = x0 * w0[j] + x1 * w1[j]
            f = 2
        else:
            for j in range(h):
                dot[j] = np.float32(0.0)
        while f + 8 <= nf:
            w0, w1, w2, w3 = featw[f], featw[f + 1], featw[f + 2], featw[f + 3]
            w4, w5, w6, w7 = featw[f + 4], featw[f + 5], featw[f + 6], featw[f + 7]
            x0, x1, x2, x3, x4, x5, x6, x7 = v[f], v[f + 1], v[f + 2], v[f + 3], v[f + 4], v[f + 5], v[f + 6], v[f + 7]
            for j in range(h):
                d = (((dot[j] + x0 * w0[j]) + x1 * w1[j]) + x2 * w2[j]) + x3 * w3[j]
                dot[j] = (((d + x4 * w4[j]) + x5 * w5[j]) + x6 * w6[j]) + x7 * w7[j]
            f += 8
        while f < nf:
            x0, w0 = v[f], featw[f]
            for j in range(h):
                dot[j] += x0 * w0[j]
            f += 1


    @njit(cache=True, nogil=True, error_model="numpy")
    def _forward(a, tab, zero, bias, featw, feats, w2, b2, race_enc, out, on_p, on_o, race, cand):  # pragma: no cover
        m = a.shape[0]
        hidden = tab.shape[1]
        n_feat = feats.shape[1]
        rows = np.empty(55, dtype=np.int64)
        nz = np.empty(55, dtype=np.int64)
        onz = np.empty(24, dtype=np.int64)
        logit = np.empty(5, dtype=np.float32)
        lbits = np.empty(5, dtype=np.int32)
        lscale = lbits.view(np.float32)
        pre = np.empty(hidden, dtype=np.float32)
        dot = np.empty(hidden, dtype=np.float32)
        bits = np.empty(hidden, dtype=np.int32)
        scale = bits.view(np.float32)
        p = np.empty(5, dtype=np.float64)
        for r in range(m):
            bar_m = -np.int64(a[r, 0])  # the side on roll after the play: the opponent's bar
            bar_o = np.int64(a[r, 25])  # the side that played
            sum_m = np.int64(0)
            sum_o = np.int64(0)
            pip_m = np.int64(0)
            pip_o = np.int64(0)
            mover_back = 0
            opp_back = 25
            n_nz = 0  # the rows that are not exact zeros (an empty point's), in order: the side on roll's points in nz,
            n_onz = 0  # the player's in onz (appended below), without a branch (which points are empty is data)
            for i in range(24):
                x = np.int64(a[r, 24 - i])  # slot i: the side on roll's point i + 1
                mc = -x if x < 0 else 0
                y = np.int64(a[r, 1 + i])  # slot 24 + i: the player's point i + 1
                oc = y if y > 0 else 0
                nz[n_nz] = 16 * i + mc
                n_nz += np.int64(mc > 0)
                onz[n_onz] = 16 * (24 + i) + oc
                n_onz += np.int64(oc > 0)
                sum_m += mc
                sum_o += oc
                pip_m += mc * (i + 1)
                pip_o += oc * (i + 1)
                mover_back = max(mover_back, (i + 1) * np.int64(y > 0))  # without branches, as above
                opp_back = min(opp_back, i + 1 if y < 0 else 25)
            n_on_m = sum_m + bar_m
            n_on_o = sum_o + bar_o
            is_race = a[r, 25] == 0 and a[r, 0] == 0 and mover_back < opp_back
            rows[48] = 768 + bar_m
            rows[49] = 784 + 15 - n_on_m
            rows[50] = 800 + bar_o
            rows[51] = 816 + 15 - n_on_o
            n_rows = 52
            if race_enc:
                rows[52] = 832 + (1 if is_race else 0)
                rows[53] = 834 + pip_m + 25 * bar_m
                rows[54] = 834 + 376 + pip_o + 25 * bar_o
                n_rows = 55
            on_p[r] = n_on_o
            on_o[r] = n_on_m
            race[r] = is_race
            cand[r] = is_race or (n_on_m == 1 and n_on_o == 1)
            # first layer: the rows' sum in the numpy evaluator's order (rows of exact zeros left
            # out: adding one changes no bits but a zero's sign, whose sigmoid is the same), then the bias
            for k in range(n_onz):
                nz[n_nz + k] = onz[k]
            n_nz += n_onz
            for k in range(48, n_rows):
                t = rows[k]
                nz[n_nz] = t
                n_nz += 1 - np.int64(zero[t])
            _row_sum(tab, nz, n_nz, bias, pre)
            if n_feat > 0:  # the features' product first (each unit's sum over the features in order), then added
                _feature_product(feats[r], featw, dot)
                for j in range(hidden):
                    pre[j] += dot[j]
            _sigmoid_into(pre, bits, scale)
            for k in range(5):
                logit[k] = _dot(pre, w2[k]) + b2[k]
            _sigmoid_into(logit, lbits, lscale)
            for k in range(5):
                p[k] = np.float64(logit[k])
            # flip_probs: to the side that played
            q0 = 1.0 - p[0]
            q1 = p[3]
            q2 = p[4]
            q3 = p[1]
            q4 = p[2]
            # bound_probs: outcomes out of reach
            if n_on_m < 15:
                q1 = 0.0
                q2 = 0.0
            if n_on_o < 15:
                q3 = 0.0
                q4 = 0.0
            if is_race:
                opp_home = False
                for i in range(1, 7):
                    if a[r, i] < 0:
                        opp_home = True
                mover_far = False
                for i in range(19, 25):
                    if a[r, i] > 0:
                        mover_far = True
                if not opp_home:
                    q2 = 0.0
                if not mover_far:
                    q4 = 0.0
            # make_consistent
            q0 = min(max(q0, 0.0), 1.0)
            q1 = min(min(max(q1, 0.0), 1.0), q0)
            q2 = min(min(max(q2, 0.0), 1.0), q1)
            q3 = min(min(max(q3, 0.0), 1.0), 1.0 - q0)
            q4 = min(min(max(q4, 0.0), 1.0), q3)
            out[r, 0] = q0
            out[r, 1] = q1
            out[r, 2] = q2
            out[r, 3] = q3
            out[r, 4] = q4


_NO_FEATURES = np.zeros((0, 1), dtype=np.float32)


def forward(a: np.ndarray, tab, bias, featw, feats, w2, b2, race_enc: bool):
    """The evaluator's probabilities of the side that played, float64 (M, 5), for after-states
    ``a`` int8 (M, 26) C-contiguous, before finished games and exact values: the network, the
    side flip, :func:`bgrl.evaluation.probabilities.bound_probs` and ``make_consistent``.

    tab float32 (rows, H), bias float32 (H,), featw float32 (18, H) or None, feats float32
    (M, 18) or None (td198g), w2 float32 (5, H), b2 float32 (5,), race_enc: the td198r/td198g
    race and pip rows. Returns ``(probs, on_player, on_opponent, race, maybe_exact)``: the
    checkers in play of the side that played and of the other side (int64 (M,)), the race
    flag, and bool (M,) where an exact value might exist (a race, or one checker a side).
    """
    m = a.shape[0]
    out = np.empty((m, 5), dtype=np.float64)
    on_p = np.empty(m, dtype=np.int64)
    on_o = np.empty(m, dtype=np.int64)
    race = np.empty(m, dtype=bool)
    cand = np.empty(m, dtype=bool)
    if feats is None:
        feats, featw = np.zeros((m, 0), dtype=np.float32), _NO_FEATURES
    _forward(a, tab, _zero_mask(tab.shape[0]), bias, featw, np.ascontiguousarray(feats), np.ascontiguousarray(w2), np.ascontiguousarray(b2),
             bool(race_enc), out, on_p, on_o, race, cand)
    return out, on_p, on_o, race, cand


def warm() -> None:
    """Compile (or read from numba's cache) the kernel, on a tiny network."""
    h = 4
    a = np.zeros((1, 26), dtype=np.int8)
    a[0, 6], a[0, 19] = 2, -2
    forward(a, np.zeros((1586, h), dtype=np.float32), np.zeros(h, dtype=np.float32), np.zeros((18, h), dtype=np.float32),
            np.zeros((1, 18), dtype=np.float32), np.zeros((5, h), dtype=np.float32), np.zeros(5, dtype=np.float32), True)
    table_rows(a, True)
    point_tables(np.zeros((h, 202), dtype=np.float32), np.zeros((16, 4)), np.zeros((1586, h), dtype=np.float32))
    col16, col376 = np.zeros((16, 1), dtype=np.float32), np.zeros((376, 1), dtype=np.float32)
    other_tables(np.zeros((h, 202), dtype=np.float32), np.zeros((1586, h), dtype=np.float32), col16, col16, col376, col376, True)


if AVAILABLE:

    @njit(cache=True, nogil=True, error_model="numpy")
    def _rows_kernel(a, race_enc, rows, on_p, on_o, race, cand):  # pragma: no cover - compiled
        """:meth:`bgrl.evaluation.table_np.NumpyTableEvaluator._rows` (and ``cand``) per row."""
        for r in range(a.shape[0]):
            bar_m = -np.int64(a[r, 0])
            bar_o = np.int64(a[r, 25])
            sum_m = np.int64(0)
            sum_o = np.int64(0)
            pip_m = np.int64(0)
            pip_o = np.int64(0)
            mover_back = 0
            opp_back = 25
            for i in range(24):
                x = np.int64(a[r, 24 - i])
                mc = -x if x < 0 else 0
                y = np.int64(a[r, 1 + i])
                oc = y if y > 0 else 0
                rows[r, i] = 16 * i + mc
                rows[r, 24 + i] = 16 * (24 + i) + oc
                sum_m += mc
                sum_o += oc
                pip_m += mc * (i + 1)
                pip_o += oc * (i + 1)
                if y > 0:
                    mover_back = i + 1
                if y < 0 and opp_back == 25:
                    opp_back = i + 1
            n_on_m = sum_m + bar_m
            n_on_o = sum_o + bar_o
            is_race = a[r, 25] == 0 and a[r, 0] == 0 and mover_back < opp_back
            rows[r, 48] = 768 + bar_m
            rows[r, 49] = 784 + 15 - n_on_m
            rows[r, 50] = 800 + bar_o
            rows[r, 51] = 816 + 15 - n_on_o
            if race_enc:
                rows[r, 52] = 832 + (1 if is_race else 0)
                rows[r, 53] = 834 + pip_m + 25 * bar_m
                rows[r, 54] = 834 + 376 + pip_o + 25 * bar_o
            on_p[r] = n_on_o
            on_o[r] = n_on_m
            race[r] = is_race
            cand[r] = is_race or (n_on_m == 1 and n_on_o == 1)

    @njit(cache=True, nogil=True, error_model="numpy")
    def _tables_kernel(w1t, units, tab):  # pragma: no cover - compiled
        """The 48 point slots of :func:`bgrl.evaluation.table_np.first_layer_tables` (rows
        0..767) from ``w1t`` = w1's transpose (inputs, H): each unit's products added in
        float64 and rounded to float32 after each step, as the numpy code does (so the same
        bits); the hidden units innermost, contiguous (vectorised)."""
        h = w1t.shape[1]
        for s in range(48):
            base = 4 * s if s < 24 else 98 + 4 * (s - 24)
            for n in range(16):
                row = 16 * s + n
                u0, u1, u2, u3 = units[n, 0], units[n, 1], units[n, 2], units[n, 3]
                for c in range(h):
                    acc = np.float32(np.float64(w1t[base, c]) * u0)
                    acc = np.float32(np.float64(acc) + np.float64(w1t[base + 1, c]) * u1)
                    acc = np.float32(np.float64(acc) + np.float64(w1t[base + 2, c]) * u2)
                    tab[row, c] = np.float32(np.float64(acc) + np.float64(w1t[base + 3, c]) * u3)

def table_rows(a: np.ndarray, race_enc: bool):
    """The table rows of after-states ``a`` int8 (M, 26) C-contiguous, as
    :meth:`bgrl.evaluation.table_np.NumpyTableEvaluator._rows` computes them (the same
    integers), plus where an exact value might exist: ``(rows int64 (M, 52 or 55),
    on_player, on_opponent, race, maybe_exact)``."""
    m = a.shape[0]
    rows = np.empty((m, 55 if race_enc else 52), dtype=np.int64)
    on_p = np.empty(m, dtype=np.int64)
    on_o = np.empty(m, dtype=np.int64)
    race = np.empty(m, dtype=bool)
    cand = np.empty(m, dtype=bool)
    _rows_kernel(a, bool(race_enc), rows, on_p, on_o, race, cand)
    return rows, on_p, on_o, race, cand


if AVAILABLE:

    @njit(cache=True, nogil=True, error_model="numpy")
    def _other_kernel(w1, tab, half_n, n_15, pip_167, pip_50, race):  # pragma: no cover - compiled
        """Rows 768.. of the table: each a float32 product (the pip rows two, then their
        difference), no fused multiply-add, as numpy computes them (so the same bits)."""
        h = w1.shape[0]
        for n in range(16):
            a, b = half_n[n, 0], n_15[n, 0]
            for c in range(h):
                tab[768 + n, c] = a * w1[c, 96]
                tab[784 + n, c] = b * w1[c, 97]
                tab[800 + n, c] = a * w1[c, 194]
                tab[816 + n, c] = b * w1[c, 195]
        if race:
            for c in range(h):
                tab[832, c] = np.float32(0.0)
                tab[833, c] = w1[c, 198]
            for q in range(376):
                p1, p5 = pip_167[q, 0], pip_50[q, 0]
                for c in range(h):
                    diff = p5 * w1[c, 201]
                    tab[834 + q, c] = p1 * w1[c, 199] - diff
                    tab[834 + 376 + q, c] = p1 * w1[c, 200] + diff


def other_tables(w1: np.ndarray, tab: np.ndarray, half_n, n_15, pip_167, pip_50, race: bool) -> None:
    """Rows 768.. of the first-layer table into ``tab`` (bar, borne-off, and with ``race`` the
    race flag and pip rows) from ``w1`` float32 (H, inputs) and the units of
    :mod:`bgrl.evaluation.table_np` (float32 columns (16, 1) and (376, 1)): the bits of
    :func:`bgrl.evaluation.table_np.first_layer_tables`' numpy code."""
    _other_kernel(w1, tab, half_n, n_15, pip_167, pip_50, bool(race))


def point_tables(w1: np.ndarray, units: np.ndarray, tab: np.ndarray) -> None:
    """Rows 0..767 of the first-layer table into ``tab`` float32 (rows, H), from ``w1``
    float32 (H, inputs) C-contiguous and the point units float64 (16, 4): the bits of
    :func:`bgrl.evaluation.table_np.first_layer_tables`' numpy code."""
    _tables_kernel(np.ascontiguousarray(w1[:, :194].T), units, tab)


#: Table rows that hold exact zeros whatever the weights (a point slot, bar, borne-off count, race
#: flag or pip count of 0: each a product with a zero unit): :func:`bag_rows` leaves them out.
ZERO_ROWS = tuple(16 * s for s in range(48)) + (768, 784, 800, 816, 832, 834, 834 + 376)

if AVAILABLE:

    @njit(cache=True, nogil=True, error_model="numpy")
    def _bag_kernel(rows, zero, flat, offsets):  # pragma: no cover - compiled
        m, k = rows.shape
        q = 0
        for r in range(m):
            offsets[r] = q
            for c in range(k):
                t = rows[r, c]
                if not zero[t]:
                    flat[q] = t
                    q += 1
        return q


def bag_rows(rows: np.ndarray, n_table: int):
    """``(flat int64, offsets int64 (M,))``: each row's table rows in order, those of
    :data:`ZERO_ROWS` left out, for ``torch.nn.functional.embedding_bag(flat, table, offsets,
    mode="sum")``. The sums are those of the full rows bit for bit: adding an exact zero
    changes nothing but the sign of a zero sum (whose sigmoid is the same), and the other rows
    are added in the same order. A position's bag is 15 to 30 rows instead of 52 to 55."""
    zero = _zero_mask(n_table)
    m = rows.shape[0]
    flat = np.empty(rows.size, dtype=np.int64)
    offsets = np.empty(m, dtype=np.int64)
    q = _bag_kernel(np.ascontiguousarray(rows), zero, flat, offsets)
    return flat[:q], offsets


_ZERO_MASKS: dict = {}


if AVAILABLE:

    @njit(cache=True, nogil=True, error_model="numpy")
    def _bags_kernel(a, race_enc, zero, bias_row, flat, offsets, on_p, on_o, race, cand):  # pragma: no cover
        """:func:`_rows_kernel` and :func:`_bag_kernel` in one pass, each bag ending with ``bias_row``."""
        rows = np.empty(55, dtype=np.int64)
        q = 0
        for r in range(a.shape[0]):
            bar_m = -np.int64(a[r, 0])
            bar_o = np.int64(a[r, 25])
            sum_m = np.int64(0)
            sum_o = np.int64(0)
            pip_m = np.int64(0)
            pip_o = np.int64(0)
            mover_back = 0
            opp_back = 25
            for i in range(24):
                x = np.int64(a[r, 24 - i])
                mc = -x if x < 0 else 0
                y = np.int64(a[r, 1 + i])
                oc = y if y > 0 else 0
                rows[i] = 16 * i + mc
                rows[24 + i] = 16 * (24 + i) + oc
                sum_m += mc
                sum_o += oc
                pip_m += mc * (i + 1)
                pip_o += oc * (i + 1)
                if y > 0:
                    mover_back = i + 1
                if y < 0 and opp_back == 25:
                    opp_back = i + 1
            n_on_m = sum_m + bar_m
            n_on_o = sum_o + bar_o
            is_race = a[r, 25] == 0 and a[r, 0] == 0 and mover_back < opp_back
            rows[48] = 768 + bar_m
            rows[49] = 784 + 15 - n_on_m
            rows[50] = 800 + bar_o
            rows[51] = 816 + 15 - n_on_o
            k = 52
            if race_enc:
                rows[52] = 832 + (1 if is_race else 0)
                rows[53] = 834 + pip_m + 25 * bar_m
                rows[54] = 834 + 376 + pip_o + 25 * bar_o
                k = 55
            offsets[r] = q
            for c in range(k):
                t = rows[c]
                if not zero[t]:
                    flat[q] = t
                    q += 1
            flat[q] = bias_row
            q += 1
            on_p[r] = n_on_o
            on_o[r] = n_on_m
            race[r] = is_race
            cand[r] = is_race or (n_on_m == 1 and n_on_o == 1)
        return q


def table_bags(a: np.ndarray, race_enc: bool, n_table: int):
    """:func:`table_rows` as bags for ``embedding_bag(flat, table_and_bias, offsets, mode="sum")``:
    ``((flat, offsets), on_player, on_opponent, race, maybe_exact)``, each bag the rows of
    :func:`bag_rows` then row ``n_table`` (the first layer's bias, appended to the table as its
    last row: added last, as ``pre + bias`` adds it, so the same bits)."""
    zero = _zero_mask(n_table)
    m = a.shape[0]
    flat = np.empty(m * 56, dtype=np.int64)
    offsets = np.empty(m, dtype=np.int64)
    on_p = np.empty(m, dtype=np.int64)
    on_o = np.empty(m, dtype=np.int64)
    race = np.empty(m, dtype=bool)
    cand = np.empty(m, dtype=bool)
    q = _bags_kernel(a, bool(race_enc), zero, n_table, flat, offsets, on_p, on_o, race, cand)
    return (flat[:q], offsets), on_p, on_o, race, cand


def _zero_mask(n_table: int) -> np.ndarray:
    zero = _ZERO_MASKS.get(n_table)
    if zero is None:
        zero = np.zeros(n_table + 1, dtype=np.bool_)  # the bias row (n_table) is never left out
        zero[[z for z in ZERO_ROWS if z < n_table]] = True
        _ZERO_MASKS[n_table] = zero
    return zero
