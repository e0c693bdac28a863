"""The network evaluator with a table-lookup first layer (torch): search, levels and training.

Why a table. Every ``td198``/``td198r`` input unit is a function of one small integer
of the board: a point's checker count (:data:`bgrl.evaluation.encoding.POINT_UNITS`), a
bar or borne-off count, a pip count, the race flag. The first layer is linear, so its
pre-activations are a sum of rows of one table (integer -> hidden pre-activations, any
hidden size), one row per such integer: 52 rows a position for ``td198``, 55 for
``td198r``, summed by one ``torch.nn.functional.embedding_bag`` instead of building the
(N, 202) input matrix and multiplying it. ``td198g`` adds its 18 hand-made features
(:mod:`bgrl.evaluation.features`, from the compiled
:func:`bgrl.evaluation.features_nb.both_sides`) as a dense (N, 18) product.

Why one class here, beside :class:`bgrl.evaluation.evaluator.NetEvaluator`. Search,
levels and the trainers (:mod:`bgrl.training.td`, :mod:`bgrl.training.rounds`) all use
:class:`TableNetEvaluator`. ``NetEvaluator`` stays the plain, general evaluator (any
encoder, any network) and the reference this one is tested equal to (to float32
rounding, ``tests/test_fasteval.py`` and ``tests/test_training.py``), the project's habit
of a fast path with a reference twin. :func:`network_evaluator` picks between them.

Both share the probability rules of :mod:`bgrl.evaluation.probabilities` (side flip,
terminal values, unreachable outcomes, consistency) and the game results of
:func:`bgrl.rules.outcome.game_results`. The counts the table rows need (checkers in play,
the race flag) are computed once per batch and handed to
:func:`~bgrl.evaluation.probabilities.bound_probs`, so training pays nothing for using them.

The tables are a snapshot of the first layer: call :meth:`TableNetEvaluator.refresh`
after every change of the weights (the trainers do after each step). The output layer is
read from the network at each call.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from bgrl.evaluation.encoding import POINT_UNITS, num_features
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.features_nb import both_sides
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import bound_probs, flip_probs, make_consistent, terminal_probs
from bgrl.rules.board import flip
from bgrl.rules.outcome import game_results, is_race

__all__ = ["TableNetEvaluator", "TABLE_ENCODERS", "SMALL_BATCH", "supports", "network_evaluator",
           "FastNetEvaluator", "best_evaluator"]

#: Encoders whose first layer has a table (td198g: table + 18 dense features).
TABLE_ENCODERS = ("td198", "td198r", "td198g")

#: Default of ``small_batch``: batches up to this many positions are computed in numpy
#: (lower fixed cost than torch's), larger ones in torch.
SMALL_BATCH = 64

# Table layout: rows of one (rows, hidden) float32 table. Row 16*s + n: n checkers on
# slot s, the slots being the side on roll's points 1..24 (its numbering), then the other
# side's points 1..24 (that side's numbering); then 16 rows each for the side on roll's
# bar and borne-off counts and the other side's; td198r/td198g: the race flag (2 rows) and
# the two pip counts (0..375 each; the pip difference unit is split between them).
_SLOT_BASE = (np.arange(48, dtype=np.int64) * 16)[None, :]
_R_BAR_M, _R_OFF_M, _R_BAR_O, _R_OFF_O = 768, 784, 800, 816
_R_RACE, _R_PIP_M, _R_PIP_O = 832, 834, 834 + 376
_N_ROWS = {"td198": 832, "td198r": 834 + 2 * 376, "td198g": 834 + 2 * 376}
_PTS = np.arange(1, 25, dtype=np.int32)
# weight-independent factors of the table rows, float32 columns
_UNITS_T = torch.from_numpy(POINT_UNITS.copy())  # (16, 4)
_HALF_N = torch.arange(16, dtype=torch.float32)[:, None] / 2.0  # bar units: n / 2
_N_15 = torch.arange(16, dtype=torch.float32)[:, None] / 15.0  # borne-off units: n / 15
_PIP_167 = torch.arange(376, dtype=torch.float32)[:, None] / 167.0  # pip units: pips / 167
_PIP_50 = torch.arange(376, dtype=torch.float32)[:, None] / 50.0  # pip difference: (opponent - mover) / 50


class TableNetEvaluator(NetEvaluator):
    """:class:`NetEvaluator` with a table-lookup first layer: same protocol, same values.

    ``evaluator(after_states)`` maps int8 (M, 26) after-states, each from the side that has
    just played, to float64 (M, 5) outcome probabilities of that side (the
    :mod:`bgrl.evaluation.evaluator` protocol); :meth:`position_probs` values positions from
    the side on roll.

    Parameters
    ----------
    net : TDNet
        A :class:`bgrl.evaluation.model.TDNet` exactly (one sigmoid hidden layer, any
        width) with ``encoder``'s number of inputs (:func:`supports`).
    encoder : {"td198", "td198r", "td198g"}
    exact : bool or callable, default True
        True: exact values where :func:`bgrl.evaluation.exact.exact_probs` knows them (as
        ``NetEvaluator(net, encoder)``); False or None: the network everywhere (as
        ``NetEvaluator(net, encoder, exact=False)``); a callable
        ``f(boards int8 (N, 26)) -> (known bool (N,), probs float64 (N, 5))`` valuing
        positions from the side on roll (e.g. :func:`bgrl.evaluation.bearoff.exact_probs`).
    small_batch : int, default :data:`SMALL_BATCH`
        Batches of at most this many positions are computed in numpy (the same values up
        to float32 rounding, at a lower fixed cost). 0: always torch; the trainers use 0,
        so that every batch of a run, however few games are left in flight, goes through
        the one arithmetic their runs are reproduced with.

    Attributes
    ----------
    exact : bool
        Whether exact values are used (read by :func:`bgrl.agents.search.exact_rows`).
    exact_values : callable or None
        The function that gives them.

    Raises
    ------
    ValueError
        For a network or encoder :func:`supports` rejects.

    Read-only between :meth:`refresh` calls: safe to call from several threads.
    """

    def __init__(self, net: TDNet, encoder: str, exact: bool | Callable | None = True, small_batch: int = SMALL_BATCH):
        if not supports(net, encoder):
            raise ValueError(f"TableNetEvaluator supports a TDNet on {'/'.join(TABLE_ENCODERS)} inputs, "
                             f"got encoder {encoder!r} with {getattr(net, 'n_inputs', '?')} inputs")
        if exact is True:
            exact = exact_probs
        super().__init__(net, encoder, exact=bool(exact))
        self.exact_values = exact or None
        self.small_batch = int(small_batch)
        self._race = encoder in ("td198r", "td198g")
        self._gnubg = encoder == "td198g"  # + the 18 features of bgrl.evaluation.features at [202, 220)
        self.refresh()

    @torch.no_grad()
    def refresh(self) -> None:
        """Rebuild the first-layer table from the network's current weights.

        Call after every change of ``net``'s weights; until then the evaluator values
        positions with the first layer it saw last. Costs one small product (rows x hidden).
        """
        W1 = self.net.fc1.weight  # (H, I) float32
        H = W1.shape[0]
        tab = torch.empty(_N_ROWS[self.encoder], H)
        pts = torch.cat([W1[:, 0:96], W1[:, 98:194]], dim=1).view(H, 48, 4)
        tab[:768] = torch.einsum("hsj,nj->snh", pts, _UNITS_T).reshape(768, H)
        torch.mul(_HALF_N, W1[:, 96], out=tab[_R_BAR_M : _R_BAR_M + 16])
        torch.mul(_N_15, W1[:, 97], out=tab[_R_OFF_M : _R_OFF_M + 16])
        torch.mul(_HALF_N, W1[:, 194], out=tab[_R_BAR_O : _R_BAR_O + 16])
        torch.mul(_N_15, W1[:, 195], out=tab[_R_OFF_O : _R_OFF_O + 16])
        if self._race:
            tab[_R_RACE] = 0.0
            tab[_R_RACE + 1] = W1[:, 198]
            diff = _PIP_50 * W1[:, 201]
            torch.mul(_PIP_167, W1[:, 199], out=tab[_R_PIP_M : _R_PIP_M + 376]).sub_(diff)
            torch.mul(_PIP_167, W1[:, 200], out=tab[_R_PIP_O : _R_PIP_O + 376]).add_(diff)
        self._table = tab
        self._bias = self.net.fc1.bias + W1[:, 196]  # turn unit 196 is always 1
        self._features = W1[:, 202:220].T.contiguous() if self._gnubg else None  # (18, H)
        # numpy views for small batches (the output layer's follow the network's weights)
        self._np_table = tab.numpy()
        self._np_bias = self._bias.numpy()
        self._np_features = None if self._features is None else self._features.numpy()
        self._np_w2 = self.net.fc2.weight.detach().numpy()
        self._np_b2 = self.net.fc2.bias.detach().numpy()

    def _rows(self, a: np.ndarray):
        """Table rows of the positions after ``a`` (the other side on roll).

        a : int8 (M, 26) after-states. Returns rows int64 (M, 52 or 55), then the player's
        (the side that played) and the opponent's checkers in play, int64 (M,) each, and
        the race flag bool (M,).
        """
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

    @torch.no_grad()
    def _network(self, a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The network's probabilities float64 (M, 5) of the side on roll after ``a``."""
        features = both_sides(np.ascontiguousarray(flip(a))) if self._gnubg else None
        if a.shape[0] <= self.small_batch:
            pre = self._np_table[rows].sum(axis=1) + self._np_bias
            if features is not None:
                pre += features @ self._np_features
            with np.errstate(over="ignore"):  # exp overflows to inf for very negative inputs: sigmoid 0, as torch gives
                h = 1.0 / (1.0 + np.exp(-pre))
                return (1.0 / (1.0 + np.exp(-(h @ self._np_w2.T + self._np_b2)))).astype(np.float64)
        net = self.net
        pre = F.embedding_bag(torch.from_numpy(rows), self._table, mode="sum").add_(self._bias)
        if features is not None:
            pre.addmm_(torch.from_numpy(features), self._features)
        h = torch.sigmoid(pre)
        return torch.sigmoid(torch.addmm(net.fc2.bias, h, net.fc2.weight.T)).numpy().astype(np.float64)

    def __call__(self, after_states: np.ndarray) -> np.ndarray:
        """Probabilities float64 (M, 5) of the side that has just played, for after-states
        int8 (M, 26) (finished games included): the values of ``NetEvaluator.__call__``."""
        a = np.ascontiguousarray(after_states, dtype=np.int8)
        rows, on_player, on_opp, race = self._rows(a)
        out = flip_probs(self._network(a, rows))
        over = on_player == 0
        if over.any():
            out[over] = terminal_probs(game_results(a[over]))
        if self.exact_values is not None:
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


def supports(net, encoder: str) -> bool:
    """Whether :class:`TableNetEvaluator` can stand in for ``NetEvaluator(net, encoder)``.

    True for a :class:`bgrl.evaluation.model.TDNet` exactly (one sigmoid hidden layer, any
    width) on :data:`TABLE_ENCODERS` inputs.
    """
    return type(net) is TDNet and encoder in TABLE_ENCODERS and getattr(net, "n_inputs", None) == num_features(encoder)


def network_evaluator(net, encoder: str, exact: bool = True) -> NetEvaluator:
    """The evaluator of a network: a :class:`TableNetEvaluator` where :func:`supports`
    says so, else a :class:`NetEvaluator`. Both give the same values (to float32
    rounding); the first is faster."""
    return TableNetEvaluator(net, encoder, exact) if supports(net, encoder) else NetEvaluator(net, encoder, exact)


#: Deprecated names (before the table evaluator served training too): use
#: :class:`TableNetEvaluator` and :func:`network_evaluator`.
FastNetEvaluator = TableNetEvaluator
best_evaluator = network_evaluator
