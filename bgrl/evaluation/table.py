"""A faster network evaluator for search: the first layer as a table lookup (torch).

The ``td198``/``td198r`` inputs of a point depend only on the signed checker count on it,
and the first layer is linear, so its output is a sum, over the 24 points, of one row of a
precomputed table (point, count -> hidden pre-activations, any hidden size) plus a few dense features
(bars, borne-off, race flag and pip counts). For ``td198g`` the 18 hand-made features
(:mod:`bgrl.evaluation.features`, computed by the compiled :func:`bgrl.evaluation.features_nb.both_sides`) join
the dense features. :class:`FastNetEvaluator` computes exactly
:class:`bgrl.evaluation.evaluator.NetEvaluator`'s probabilities (up to float32 rounding, tested) with
one ``embedding_bag`` instead of building the (N, 202) input matrix; in a 2-ply search that
is most of the time. The tables are a snapshot of the network's weights when the
evaluator is built: build a new one after training changes them.
"""

from __future__ import annotations

import numpy as np
import torch

from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.features_nb import both_sides
from bgrl.evaluation.model import TDNet

__all__ = ["FastNetEvaluator", "supports", "best_evaluator"]

#: Batches up to this many positions are computed in numpy (lower fixed cost), larger ones in torch.
SMALL_BATCH = 64

_UNITS = np.zeros((16, 4), dtype=np.float64)
for _n in range(16):
    _UNITS[_n] = [_n >= 1, _n >= 2, _n >= 3, max(_n - 3, 0) / 2.0]


class FastNetEvaluator(NetEvaluator):
    """:class:`NetEvaluator` with a table-lookup first layer (same protocol and results).

    Parameters
    ----------
    net : TDNet whose first layer takes ``encoder``'s inputs (one hidden layer, sigmoid)
    encoder : ``"td198"``, ``"td198r"`` or ``"td198g"``

    Read-only after construction: safe to call from several threads.
    """

    def __init__(self, net: TDNet, encoder: str, exact: bool = True):  # noqa: D107
        super().__init__(net, encoder, exact)
        if not supports(net, encoder):
            raise ValueError(f"FastNetEvaluator supports td198/td198r/td198g networks, got encoder {encoder!r} with {net.n_inputs} inputs")
        with torch.no_grad():
            w1 = net.fc1.weight.detach().double().numpy()  # (H, F)
            b1 = net.fc1.bias.detach().double().numpy()
        hidden = w1.shape[0]
        # columns: hidden pre-activations, then mover pips, opponent pips, mover and
        # opponent checkers on points 1..24, and bit masks of the points each side holds
        # (sums of distinct powers of two below 2**24: exact in float32)
        table = np.zeros((24, 31, hidden + 6))
        for i in range(1, 25):  # board index i = mover's point i = opponent's point 25 - i
            m = w1[:, 4 * (i - 1) : 4 * i]
            o = w1[:, 98 + 4 * (24 - i) : 98 + 4 * (25 - i)]
            for v in range(1, 16):
                table[i - 1, 15 + v, :hidden] = m @ _UNITS[v]
                table[i - 1, 15 - v, :hidden] = o @ _UNITS[v]
                table[i - 1, 15 + v, hidden:] = [v * i, 0, v, 0, 2.0 ** (i - 1), 0]
                table[i - 1, 15 - v, hidden:] = [0, v * (25 - i), 0, v, 0, 2.0 ** (i - 1)]
        self._hidden = hidden
        self._race = encoder in ("td198r", "td198g")
        self._gnubg = encoder == "td198g"  # + the 18 features of bgrl.evaluation.features at [202, 220)
        cols = [96, 97, 194, 195] + ([198, 199, 200, 201] if self._race else []) + (list(range(202, 220)) if self._gnubg else [])
        self._table = torch.from_numpy(table.reshape(24 * 31, hidden + 6).astype(np.float32))
        self._dense = torch.from_numpy(w1[:, cols].T.astype(np.float32).copy())  # (D, H)
        self._bias = torch.from_numpy((b1 + w1[:, 196]).astype(np.float32))  # turn unit 196 = 1
        self._point_base = torch.arange(24, dtype=torch.int64) * 31 + 15
        # numpy copies for small batches (torch's per-call overhead dominates below ~100 rows)
        self._np_table = self._table.numpy()
        self._np_dense = self._dense.numpy()
        self._np_bias = self._bias.numpy()
        self._np_w2 = net.fc2.weight.detach().numpy().T.copy()
        self._np_b2 = net.fc2.bias.detach().numpy().copy()
        self._np_base = np.arange(24, dtype=np.intp) * 31 + 15

    def _small(self, b: np.ndarray) -> np.ndarray:
        """The same computation in numpy (float32), for small batches."""
        out = self._np_table[b[:, 1:25].astype(np.intp) + self._np_base].sum(axis=1)
        hd = self._hidden
        bar_m = b[:, 25].astype(np.float32)
        bar_o = -b[:, 0].astype(np.float32)
        feats = [bar_m / 2.0, (15 - out[:, hd + 2] - bar_m) / 15.0, bar_o / 2.0, (15 - out[:, hd + 3] - bar_o) / 15.0]
        if self._race:
            pm = out[:, hd] + 25 * bar_m
            po = out[:, hd + 1] + 25 * bar_o
            mask_m = out[:, hd + 4].astype(np.int64)
            mask_o = out[:, hd + 5].astype(np.int64)
            race = (bar_m == 0) & (bar_o == 0) & ((mask_o == 0) | (mask_m < (mask_o & -mask_o)))
            feats += [race.astype(np.float32), pm / 167.0, po / 167.0, (po - pm) / 50.0]
        dense = np.stack(feats, 1).astype(np.float32)
        if self._gnubg:
            dense = np.concatenate([dense, both_sides(b)], axis=1)
        with np.errstate(over="ignore"):  # exp overflows to inf for very negative inputs: sigmoid 0, as torch gives
            h = 1.0 / (1.0 + np.exp(-(out[:, :hd] + dense @ self._np_dense + self._np_bias)))
            return (1.0 / (1.0 + np.exp(-(h @ self._np_w2 + self._np_b2)))).astype(np.float64)

    def position_probs(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities (N, 5) of the side on roll for positions int8 (N, 26) (not over):
        exact where known (if ``self.exact``, as :class:`NetEvaluator`), the network elsewhere."""
        b = np.ascontiguousarray(boards, dtype=np.int8)
        if self.exact:
            from bgrl.evaluation.exact import exact_probs

            known, out = exact_probs(b)
            if known.all():
                return out
            if known.any():
                out[~known] = self._net_probs(b[~known])
                return out
        return self._net_probs(b)

    def _net_probs(self, b: np.ndarray) -> np.ndarray:
        """The network's probabilities (N, 5) for positions int8 (N, 26)."""
        if b.shape[0] <= SMALL_BATCH:
            return self._small(b)
        with torch.inference_mode():
            bt = torch.from_numpy(b)
            out = torch.nn.functional.embedding_bag(bt[:, 1:25].long() + self._point_base, self._table, mode="sum")
            hd = self._hidden
            bar_m = bt[:, 25].float()
            bar_o = -bt[:, 0].float()
            feats = [bar_m / 2.0, (15 - out[:, hd + 2] - bar_m) / 15.0, bar_o / 2.0, (15 - out[:, hd + 3] - bar_o) / 15.0]
            if self._race:
                pm = out[:, hd] + 25 * bar_m
                po = out[:, hd + 1] + 25 * bar_o
                mask_m = out[:, hd + 4].int()
                mask_o = out[:, hd + 5].int()
                # race: no bar checkers and every mover checker below the opponent's lowest point
                race = (bar_m == 0) & (bar_o == 0) & ((mask_o == 0) | (mask_m < (mask_o & -mask_o)))
                feats += [race.float(), pm / 167.0, po / 167.0, (po - pm) / 50.0]
            dense = torch.stack(feats, 1)
            if self._gnubg:
                dense = torch.cat([dense, torch.from_numpy(both_sides(b))], 1)
            h = torch.sigmoid(out[:, :hd] + dense @ self._dense + self._bias)
            return torch.sigmoid(self.net.fc2(h)).numpy().astype(np.float64)


def supports(net, encoder: str) -> bool:
    """Whether :class:`FastNetEvaluator` can stand in for ``NetEvaluator(net, encoder)``:
    a :class:`TDNet` exactly (one sigmoid hidden layer, any width) on td198/td198r/td198g inputs."""
    return type(net) is TDNet and encoder in ("td198", "td198r", "td198g") and getattr(net, "n_inputs", None) == num_features(encoder)


def best_evaluator(net, encoder: str) -> NetEvaluator:
    """A :class:`FastNetEvaluator` where :func:`supports` says so, else a NetEvaluator."""
    return FastNetEvaluator(net, encoder) if supports(net, encoder) else NetEvaluator(net, encoder)
