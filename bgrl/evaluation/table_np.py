"""The table-lookup network evaluator in numpy alone (no torch): quick commands and small batches.

:class:`NumpyTableEvaluator` is the numpy half of
:class:`bgrl.evaluation.table.TableNetEvaluator`: the first-layer table (its layout, the
rows of a batch, the sums), the output layer and the probability rules. The torch class
inherits it and adds its torch path for large batches, so the two share one implementation
and give bit for bit the same values on batches of at most
:data:`bgrl.evaluation.table.SMALL_BATCH` positions (``tests/evaluation/test_table_np.py``). Larger
batches differ from the torch path by float32 rounding only (sigmoid and matrix-product
kernels differ between numpy and torch).

Where the compiled kernels run (:mod:`bgrl.evaluation.compiled`: numba already imported, as
by the torch evaluator, decided when the evaluator is made), :meth:`NumpyTableEvaluator.__call__`
is one kernel call (:func:`bgrl.evaluation.table_nb.forward`: the rows, the network and the
probability rules) instead of this module's numpy arithmetic: the same values to float32
rounding (within 2e-6), and both backends in one process still agree bit for bit on small
batches, as both run it.

Its weights come from a network's state dict as numpy arrays, or from the ``.npz`` twin
that ``scripts/tools/ship_checkpoint.py`` writes beside each shipped ``.pt``
(:func:`read_weights_npz`, read with ``allow_pickle=False``; the ``.pt`` itself is a torch
archive, which is read only through torch). :func:`bgrl.evaluation.networks.open_network`
with ``backend="numpy"`` (or ``"auto"`` while torch is not imported) gives one: ``bgrl
hint`` then starts without importing torch.

The table (see :mod:`bgrl.evaluation.table` for why a table): row 16*s + n holds the
first-layer pre-activations of n checkers on slot s, the slots being the side on roll's
points 1..24 (its numbering), then the other side's points 1..24; then 16 rows each for the
side on roll's bar and borne-off counts and the other side's; td198r/td198g: the race flag
(2 rows) and the two pip counts (0..375 each; the pip difference unit is split between them).
Each point row is the sum of four products weight x :data:`bgrl.evaluation.encoding.POINT_UNITS`
unit, accumulated with one rounding per step as a fused multiply-add gives (torch's einsum
on x86-64 does exactly this; computed here in float64 and rounded to float32 after each
step, which is exact: a float32 plus a product of a float32 by a half-integer up to 6 fits
float64's 53 bits whenever the smaller term can change the rounded sum).
"""

from __future__ import annotations

import json
import sys
from typing import Callable

import numpy as np

from bgrl.evaluation import compiled as _compiled
from bgrl.evaluation.encoding import POINT_UNITS, num_features
from bgrl.evaluation import bearoff as _bearoff
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.probabilities import bound_probs, flip_probs, make_consistent, terminal_probs
from bgrl.rules.board import flip
from bgrl.rules.outcome import game_results, is_race

__all__ = ["TABLE_ENCODERS", "NumpyTableEvaluator", "first_layer_tables", "read_weights_npz", "write_weights_npz",
           "NPZ_FORMAT", "WEIGHT_NAMES"]

#: Encoders whose first layer has a table (td198g: table + 18 dense features).
TABLE_ENCODERS = ("td198", "td198r", "td198g")

#: The ``format`` entry of a weights twin (:func:`write_weights_npz`).
NPZ_FORMAT = "bgrl-weights-npz/1"

#: The arrays of a twin: the :class:`bgrl.evaluation.model.TDNet` state dict's names.
WEIGHT_NAMES = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")

_SLOT_BASE = (np.arange(48, dtype=np.int64) * 16)[None, :]
_R_BAR_M, _R_OFF_M, _R_BAR_O, _R_OFF_O = 768, 784, 800, 816
_R_RACE, _R_PIP_M, _R_PIP_O = 832, 834, 834 + 376
_N_ROWS = {"td198": 832, "td198r": 834 + 2 * 376, "td198g": 834 + 2 * 376}
_PTS = np.arange(1, 25, dtype=np.int32)
_HALF_N = np.arange(16, dtype=np.float32)[:, None] / np.float32(2.0)  # bar units: n / 2
_N_15 = np.arange(16, dtype=np.float32)[:, None] / np.float32(15.0)  # borne-off units: n / 15
_PIP_167 = np.arange(376, dtype=np.float32)[:, None] / np.float32(167.0)  # pip units: pips / 167
_PIP_50 = np.arange(376, dtype=np.float32)[:, None] / np.float32(50.0)  # pip difference: (opponent - mover) / 50

#: Positions per block of a large batch: each block is one small batch (the products stay
#: below the size where numpy's BLAS starts threads, which on a shared machine cost more
#: than they save, and every block has the small-batch arithmetic).
_BLOCK = 64
#: Batches up to this many positions get their td198g features from the numpy reference
#: (no numba import, ~5 us a position); larger ones from the compiled kernel (same bits).
_NUMPY_FEATURES_MAX = 16384


_UNITS64 = POINT_UNITS.astype(np.float64)
#: Exact sources that know only races (no-contact bear-offs) and one checker a side: the
#: compiled rows kernel's ``maybe_exact`` rows are the only ones to look up.
_CANDIDATE_EXACT = (exact_probs, _bearoff.exact_probs)


def first_layer_tables(w1: np.ndarray, b1: np.ndarray, encoder: str):
    """The first layer as a table: ``(table float32 (rows, H), bias float32 (H,),
    features float32 (18, H) or None)`` for weights ``w1`` float32 (H, inputs) and bias
    ``b1`` float32 (H,) of a ``encoder`` network (:data:`TABLE_ENCODERS`). ``bias``
    includes the always-on turn unit 196; ``features`` are the td198g columns 202..219."""
    w1 = np.asarray(w1, dtype=np.float32)
    h = w1.shape[0]
    tab = np.empty((_N_ROWS[encoder], h), dtype=np.float32)
    race = encoder in ("td198r", "td198g")
    if _compiled.active():  # the compiled twins of the rows: the same bits, no (48, 16, H) temporaries
        from bgrl.evaluation.table_nb import other_tables, point_tables

        w1 = np.ascontiguousarray(w1)
        point_tables(w1, _UNITS64, tab)
        other_tables(w1, tab, _HALF_N, _N_15, _PIP_167, _PIP_50, race)
    else:
        pts = np.concatenate([w1[:, 0:96], w1[:, 98:194]], axis=1).reshape(h, 48, 4).transpose(1, 0, 2).astype(np.float64)
        units = _UNITS64
        acc = (pts[:, None, :, 0] * units[None, :, None, 0]).astype(np.float32)  # (48, 16, H)
        for j in range(1, 4):  # fused multiply-add, one rounding a step (module docstring)
            acc = (acc + pts[:, None, :, j] * units[None, :, None, j]).astype(np.float32)
        tab[:768] = acc.reshape(768, h)
        tab[_R_BAR_M : _R_BAR_M + 16] = _HALF_N * w1[:, 96]
        tab[_R_OFF_M : _R_OFF_M + 16] = _N_15 * w1[:, 97]
        tab[_R_BAR_O : _R_BAR_O + 16] = _HALF_N * w1[:, 194]
        tab[_R_OFF_O : _R_OFF_O + 16] = _N_15 * w1[:, 195]
        if race:
            tab[_R_RACE] = 0.0
            tab[_R_RACE + 1] = w1[:, 198]
            diff = _PIP_50 * w1[:, 201]
            tab[_R_PIP_M : _R_PIP_M + 376] = _PIP_167 * w1[:, 199] - diff
            tab[_R_PIP_O : _R_PIP_O + 376] = _PIP_167 * w1[:, 200] + diff
    bias = np.asarray(b1, dtype=np.float32) + w1[:, 196]
    features = np.ascontiguousarray(w1[:, 202:220].T) if encoder == "td198g" else None
    return tab, bias, features


def _features_auto(x: np.ndarray) -> np.ndarray:
    """The 18 td198g features of both sides, float32 (N, 18): the numpy reference for
    small batches while numba is not loaded, else the compiled kernel (identical values)."""
    if x.shape[0] <= _NUMPY_FEATURES_MAX and "bgrl.evaluation.features_nb" not in sys.modules:
        from bgrl.evaluation.features import both_sides
    else:
        from bgrl.evaluation.features_nb import both_sides
    return both_sides(x)


class NumpyTableEvaluator:
    """A one-hidden-layer sigmoid network on td198/td198r/td198g inputs, evaluated with a
    table-lookup first layer in numpy.

    ``evaluator(after_states)`` maps int8 (M, 26) after-states, each from the side that has
    just played, to float64 (M, 5) outcome probabilities of that side (the
    :mod:`bgrl.evaluation.evaluator` protocol: finished games get their result, exact
    values where :func:`bgrl.evaluation.exact.exact_probs` knows them, then the bounds and
    consistency rules of :mod:`bgrl.evaluation.probabilities`); :meth:`position_probs`
    values positions from the side on roll.

    Parameters
    ----------
    weights : dict of str -> float32 array
        ``fc1.weight`` (H, inputs), ``fc1.bias`` (H,), ``fc2.weight`` (5, H), ``fc2.bias`` (5,).
    encoder : {"td198", "td198r", "td198g"}
    exact : bool or callable, default True
        As :class:`bgrl.evaluation.table.TableNetEvaluator`.
    features : callable or None
        td198g only: boards int8 (N, 26) -> float32 (N, 18); None: the numpy reference for
        batches up to 16,384 positions unless numba is loaded, the compiled kernel otherwise.
    compiled : bool or None
        Whether :meth:`__call__` runs the compiled forward pass
        (:func:`bgrl.evaluation.table_nb.forward`, the same values to float32 rounding) on
        batches of at most :meth:`compiled_max` positions. None (default): where
        :func:`bgrl.evaluation.compiled.wanted` says so when the evaluator is made (numba
        already imported, or ``BGRL_COMPILED=1``), fixed for the evaluator's life.

    Raises
    ------
    ValueError
        for another encoder or weights of the wrong shapes.

    Read-only after construction: safe to call from several threads.
    """

    def __init__(self, weights: dict, encoder: str, exact: bool | Callable | None = True, features: Callable | None = None,
                 compiled: bool | None = None):
        if encoder not in TABLE_ENCODERS:
            raise ValueError(f"NumpyTableEvaluator supports {'/'.join(TABLE_ENCODERS)} inputs, got encoder {encoder!r}")
        if exact is True:
            exact = exact_probs
        self.encoder = encoder
        self.exact = bool(exact)
        self.exact_values = exact or None
        self.compiled = _compiled.wanted() if compiled is None else bool(compiled)
        self._kernel = None
        self._race = encoder in ("td198r", "td198g")
        self._gnubg = encoder == "td198g"
        self._feature_fn = features
        if weights is not None:
            w = {k: np.asarray(weights[k], dtype=np.float32) for k in WEIGHT_NAMES}
            _check_shapes(w, encoder)
            self._set_tables(w["fc1.weight"], w["fc1.bias"], w["fc2.weight"], w["fc2.bias"])

    def _set_tables(self, w1, b1, w2, b2) -> None:
        """Build the tables from numpy float32 weights (``w2``/``b2`` may be views that
        follow a network's weights)."""
        self._np_table, self._np_bias, self._np_features = first_layer_tables(w1, b1, self.encoder)
        self._np_w2 = w2
        self._np_b2 = b2

    def _rows(self, a: np.ndarray):
        """Table rows of the positions after ``a`` (the other side on roll).

        a : int8 (M, 26) after-states. Returns rows int64 (M, 52 or 55), then the player's
        (the side that played) and the opponent's checkers in play, int64 (M,) each, and
        the race flag bool (M,).
        """
        if _compiled.active():  # the same integers from the compiled kernel
            from bgrl.evaluation.table_nb import table_rows

            rows, on_p, on_o, race, _ = table_rows(np.ascontiguousarray(a, dtype=np.int8), self._race)
            return rows, on_p, on_o, race
        m = a.shape[0]
        oc = np.maximum(a[:, 1:25], 0)  # the player's checkers: the "other side" once flipped
        mc = np.maximum(-a[:, 24:0:-1], 0)  # the side on roll after the play, its numbering
        bar_m = -a[:, 0].astype(np.int64)
        bar_o = a[:, 25].astype(np.int64)
        on_m = mc.sum(axis=1, dtype=np.int64) + bar_m
        on_o = oc.sum(axis=1, dtype=np.int64) + bar_o
        race = is_race(a)
        rows = np.empty((m, 55 if self._race else 52), dtype=np.int64)
        rows[:, :24] = mc
        rows[:, 24:48] = oc
        rows[:, :48] += _SLOT_BASE
        rows[:, 48] = _R_BAR_M + bar_m
        rows[:, 49] = _R_OFF_M + 15 - on_m
        rows[:, 50] = _R_BAR_O + bar_o
        rows[:, 51] = _R_OFF_O + 15 - on_o
        if self._race:
            rows[:, 52] = _R_RACE + race
            rows[:, 53] = _R_PIP_M + (mc @ _PTS) + 25 * bar_m
            rows[:, 54] = _R_PIP_O + (oc @ _PTS) + 25 * bar_o
        return rows, on_o, on_m, race

    def _bags_wanted(self, m: int) -> bool:
        """Whether :meth:`__call__` gives :meth:`_network` bags of table rows (a torch path's
        :func:`bgrl.evaluation.table_nb.table_bags`) instead of the rows: never here."""
        return False

    def _features_of(self, a: np.ndarray):
        """td198g features float32 (M, 18) of the positions after ``a``, else None."""
        if not self._gnubg:
            return None
        x = np.ascontiguousarray(flip(a))
        return (self._feature_fn or _features_auto)(x)

    def _numpy_network(self, rows: np.ndarray, features) -> np.ndarray:
        """float64 (M, 5) from table rows int64 (M, R) and features float32 (M, 18) or None."""
        tab = self._np_table
        pre = tab[rows[:, 0]]  # the rows' sum, added one column at a time: the bits of
        for k in range(1, rows.shape[1]):  # tab[rows].sum(axis=1), without its (M, R, H) gather
            pre += tab[rows[:, k]]
        pre += self._np_bias
        if features is not None:
            pre += features @ self._np_features
        with np.errstate(over="ignore"):  # exp overflows to inf for very negative inputs: sigmoid 0, as torch gives
            h = 1.0 / (1.0 + np.exp(-pre))
            return (1.0 / (1.0 + np.exp(-(h @ self._np_w2.T + self._np_b2)))).astype(np.float64)

    def _network(self, a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The network's probabilities float64 (M, 5) of the side on roll after ``a``
        (in blocks of 64 positions)."""
        features = self._features_of(a)
        m = a.shape[0]
        if m <= _BLOCK:
            return self._numpy_network(rows, features)
        return np.concatenate([self._numpy_network(rows[i : i + _BLOCK], None if features is None else features[i : i + _BLOCK])
                               for i in range(0, m, _BLOCK)])

    def compiled_max(self) -> int:
        """Largest batch the compiled forward pass takes (here: any; the torch evaluator's
        own path takes batches above its ``small_batch``)."""
        return 1 << 62

    def _forward_kernel(self):
        """(:func:`bgrl.evaluation.table_nb.forward`, the td198g features' function), loaded
        on first use; the features are the compiled kernel's unless the caller gave its own."""
        if self._kernel is None:
            from bgrl.evaluation import features_nb, table_nb

            _compiled.ensure()
            self._kernel = (table_nb.forward, self._feature_fn or features_nb.both_sides)
        return self._kernel

    def _compiled_call(self, a: np.ndarray) -> np.ndarray:
        """:meth:`__call__` through the compiled forward pass (see the class docstring)."""
        forward, features = self._forward_kernel()
        feats = features(np.ascontiguousarray(flip(a))) if self._gnubg else None
        out, on_player, on_opp, race, cand = forward(
            a, self._np_table, self._np_bias, self._np_features, feats, self._np_w2, self._np_b2, self._race)
        over = on_player == 0
        fix = over
        if over.any():
            out[over] = terminal_probs(game_results(a[over]))
        if self.exact_values is not None:
            look = np.flatnonzero((cand if self.exact_values is exact_probs else True) & ~over)
            if look.size:
                known, ex = self.exact_values(flip(a[look]))
                if known.any():
                    rows = look[known]
                    out[rows] = flip_probs(ex[known])
                    fix = over.copy()
                    fix[rows] = True
        if fix.any():  # the probability rules again on the replaced rows, as the numpy path applies them
            out[fix] = make_consistent(bound_probs(a[fix], out[fix], race=race[fix], on_board=(on_player[fix], on_opp[fix])))
        return out

    def __call__(self, after_states: np.ndarray) -> np.ndarray:
        """Probabilities float64 (M, 5) of the side that has just played, for after-states
        int8 (M, 26) (finished games included)."""
        a = np.ascontiguousarray(after_states, dtype=np.int8)
        if self.compiled and a.shape[0] <= self.compiled_max() and not _compiled.is_disabled():
            return self._compiled_call(a)
        cand = None
        if _compiled.active():  # the same rows from the compiled kernel, and where exact values may exist
            from bgrl.evaluation import table_nb

            if self._bags_wanted(a.shape[0]):  # rows = (flat, offsets): see TableNetEvaluator._network
                rows, on_player, on_opp, race, cand = table_nb.table_bags(a, self._race, self._np_table.shape[0])
            else:
                rows, on_player, on_opp, race, cand = table_nb.table_rows(a, self._race)
        else:
            rows, on_player, on_opp, race = self._rows(a)
        out = flip_probs(self._network(a, rows))
        over = on_player == 0
        if over.any():
            out[over] = terminal_probs(game_results(a[over]))
        if self.exact_values is not None:
            if cand is not None and self.exact_values in _CANDIDATE_EXACT:
                # these know only races and one checker a side: look those rows up only (the same values)
                look = np.flatnonzero(cand & ~over)
                if look.size:
                    known, ex = self.exact_values(flip(a[look]))
                    if known.any():
                        out[look[known]] = flip_probs(ex[known])
            else:
                known, ex = self.exact_values(flip(a))
                known &= ~over
                if known.any():
                    out[known] = flip_probs(ex[known])
        return make_consistent(bound_probs(a, out, race=race, on_board=(on_player, on_opp)))

    def position_probs(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities float64 (N, 5) of the side on roll for positions int8 (N, 26) (not
        over): exact where known (if ``self.exact``), the network elsewhere."""
        b = np.ascontiguousarray(boards, dtype=np.int8)
        known = np.zeros(b.shape[0], dtype=bool)
        if self.exact_values is not None:
            known, out = self.exact_values(b)
            if known.all():
                return out
        a = np.ascontiguousarray(flip(b[~known]))
        net_out = self._network(a, self._rows(a)[0])
        if not known.any():
            return net_out
        out[~known] = net_out
        return out


def _check_shapes(w: dict, encoder: str) -> None:
    """ValueError unless ``w`` holds a (inputs of ``encoder``)-H-5 network."""
    n_in = num_features(encoder)
    h = w["fc1.weight"].shape[0] if w["fc1.weight"].ndim == 2 else -1
    want = {"fc1.weight": (h, n_in), "fc1.bias": (h,), "fc2.weight": (5, h), "fc2.bias": (5,)}
    for k, shape in want.items():
        if h < 1 or w[k].shape != shape:
            raise ValueError(f"weights do not fit a {n_in}-H-5 network on {encoder!r}: {k} has shape {w[k].shape}")


def write_weights_npz(path, weights: dict, meta: dict, source_sha256: str):
    """Write a network's weights twin: an uncompressed ``.npz`` of float32 arrays
    (:data:`WEIGHT_NAMES`), its meta as JSON text (``meta``), the sha256 of the ``.pt`` it
    mirrors (``source_sha256``) and ``format`` (:data:`NPZ_FORMAT`), written atomically.
    ``weights`` maps names to float arrays (a state dict converted with ``.numpy()``).
    Returns the path."""
    from pathlib import Path

    from bgrl._fileio import atomic_writer

    arrays = {k: np.ascontiguousarray(np.asarray(weights[k], dtype=np.float32)) for k in WEIGHT_NAMES}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    arrays["source_sha256"] = np.array(str(source_sha256))
    arrays["format"] = np.array(NPZ_FORMAT)
    path = Path(path)
    with atomic_writer(path) as fh:
        np.savez(fh, **arrays)
    return path


def read_weights_npz(path) -> tuple[dict, dict, str]:
    """Read a weights twin (:func:`write_weights_npz`) without unpickling anything
    (``np.load(allow_pickle=False)``). Returns ``(weights float32 by name, meta dict,
    source sha256 hex str)``.

    Raises
    ------
    ValueError
        if the file is not such a twin: missing or extra arrays, another format, not
        float32, wrong shapes for its meta's encoder, or NaN/infinite weights.
    OSError
        if it cannot be read.
    """
    import zipfile

    want = set(WEIGHT_NAMES) | {"meta", "source_sha256", "format"}
    try:
        with np.load(path, allow_pickle=False) as z:
            if set(z.files) != want:
                raise ValueError(f"{path}: expected the arrays {sorted(want)}, got {sorted(z.files)}")
            if str(z["format"]) != NPZ_FORMAT:
                raise ValueError(f"{path}: expected format {NPZ_FORMAT!r}, got {str(z['format'])!r}")
            meta = json.loads(str(z["meta"]))
            source = str(z["source_sha256"])
            weights = {k: z[k] for k in WEIGHT_NAMES}
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: not a readable .npz archive ({exc})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("encoder"), str):
        raise ValueError(f"{path}: its meta lacks the encoder name")
    for k, v in weights.items():
        if v.dtype != np.float32:
            raise ValueError(f"{path}: {k} must be float32, got {v.dtype}")
        if not np.isfinite(v).all():
            raise ValueError(f"{path}: {k} holds NaN or infinite values")
    _check_shapes(weights, meta["encoder"])
    return weights, meta, source
