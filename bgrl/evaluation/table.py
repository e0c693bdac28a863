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
rounding, ``tests/evaluation/test_fasteval.py`` and ``tests/training/test_training.py``), the project's habit
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

from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.features_nb import both_sides
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.table_np import TABLE_ENCODERS, NumpyTableEvaluator

#: Networks of at least this many hidden units sum only the table rows that are not exact zeros
#: on the torch path, once the compiled kernels run (the same bits; below it torch's fixed-size
#: bags are faster than the variable ones).
BAG_HIDDEN = 256

__all__ = ["TableNetEvaluator", "TABLE_ENCODERS", "SMALL_BATCH", "supports", "network_evaluator",
           "FastNetEvaluator", "best_evaluator"]

#: Default of ``small_batch``: where the compiled kernels do not run, batches up to this many
#: positions are computed in numpy (lower fixed cost than torch's), larger ones in torch. Where
#: they run, every CPU batch goes through the compiled forward pass.
SMALL_BATCH = 64


class TableNetEvaluator(NumpyTableEvaluator, NetEvaluator):
    """:class:`NetEvaluator` with a table-lookup first layer: same protocol, same values.

    ``evaluator(after_states)`` maps int8 (M, 26) after-states, each from the side that has
    just played, to float64 (M, 5) outcome probabilities of that side (the
    :mod:`bgrl.evaluation.evaluator` protocol); :meth:`position_probs` values positions from
    the side on roll.

    The table layout, the rows of a batch, the numpy arithmetic of small batches and the
    probability rules are :class:`bgrl.evaluation.table_np.NumpyTableEvaluator`'s (torch-free,
    the evaluator of ``bgrl hint``); this class adds the torch path of large batches.

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
        Where the compiled kernels run (:mod:`bgrl.evaluation.compiled`), every batch on the
        CPU goes through the compiled forward pass (:meth:`compiled_max`) and this does not
        apply. Elsewhere batches of at most this many positions are computed in numpy (the
        same values up to float32 rounding, at a lower fixed cost), larger ones in torch; 0:
        always torch. The trainers use 0, so that every batch of a run, however few games
        are left in flight, goes through one arithmetic (the kernel's, or torch's without
        numba), which their runs are reproduced with.
    device : str or torch.device, default "cpu"
        Where the torch path runs. On a CUDA device every batch goes through torch there
        (``small_batch`` does not apply): the table rows (int32) and features go to the
        device, the probabilities come back; the board work (rows, features, exact values)
        stays on the CPU. Used for search targets on a machine with a GPU
        (``scripts/train/search_targets.py``); the values equal the CPU path's to float32 rounding.

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

    def __init__(self, net: TDNet, encoder: str, exact: bool | Callable | None = True, small_batch: int = SMALL_BATCH,
                 device="cpu"):
        if not supports(net, encoder):
            raise ValueError(f"TableNetEvaluator supports a TDNet on {'/'.join(TABLE_ENCODERS)} inputs, "
                             f"got encoder {encoder!r} with {getattr(net, 'n_inputs', '?')} inputs")
        NumpyTableEvaluator.__init__(self, None, encoder, exact, features=both_sides)
        self.net = net.eval()
        self.device = torch.device(device)
        self.small_batch = int(small_batch) if self.device.type == "cpu" else -1
        self.refresh()

    def _bags_wanted(self, m: int) -> bool:
        """Bags of the non-zero table rows for the torch path on the CPU at
        :data:`BAG_HIDDEN` hidden units or more (the compiled kernels running)."""
        return m > self.small_batch and self.device.type == "cpu" and self.net.hidden >= BAG_HIDDEN

    def compiled_max(self) -> int:
        """The largest batch the compiled forward pass takes (where the kernels run; see
        :class:`bgrl.evaluation.table_np.NumpyTableEvaluator`): any, on the CPU, as it costs
        less CPU time than torch's path at every batch size and width measured (after-states
        of 2-ply searches, one thread: 0.38 / 1.73 / 3.07 us a position at 80 / 320 / 640
        hidden units against torch's 0.85 / 2.05 / 3.82); none on another device.
        ``small_batch`` applies where the kernels do not run."""
        return (1 << 62) if self.device.type == "cpu" else -1

    @torch.no_grad()
    def refresh(self) -> None:
        """Rebuild the first-layer table from the network's current weights.

        Call after every change of ``net``'s weights; until then the evaluator values
        positions with the first layer it saw last. Costs one small product (rows x hidden).
        """
        fc1, fc2 = self.net.fc1, self.net.fc2
        # numpy tables (bgrl.evaluation.table_np.first_layer_tables); the output layer's
        # arrays are views that follow the network's weights
        self._set_tables(fc1.weight.detach().numpy(), fc1.bias.detach().numpy(),
                         fc2.weight.detach().numpy(), fc2.bias.detach().numpy())
        self._table = torch.from_numpy(self._np_table)
        self._table_bias = None  # the table with the bias as its last row, built at the first bag
        self._bias = torch.from_numpy(self._np_bias)
        self._features = None if self._np_features is None else torch.from_numpy(self._np_features)  # (18, H)
        if self.device.type != "cpu":  # copies on the device (the CPU path reads the network's own tensors)
            self._table, self._bias = self._table.to(self.device), self._bias.to(self.device)
            if self._features is not None:
                self._features = self._features.to(self.device)
        self._out_w = fc2.weight.detach().T.to(self.device, copy=True)  # a snapshot, as the table
        self._out_b = fc2.bias.detach().to(self.device, copy=True)

    @torch.no_grad()
    def _network(self, a: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The network's probabilities float64 (M, 5) of the side on roll after ``a``."""
        features = self._features_of(a)
        if a.shape[0] <= self.small_batch:
            return self._numpy_network(rows, features)
        if self.device.type != "cpu":
            return self._device_network(rows, features)
        net = self.net
        if isinstance(rows, tuple):
            # bags (bgrl.evaluation.table_nb.table_bags): the rows that are not exact zeros (about
            # 16 of 55), then the bias as the table's last row: the same sums bit for bit, 2-3x
            # faster at 320-640 hidden units
            flat, offsets = rows
            if self._table_bias is None:
                self._table_bias = torch.cat([self._table, self._bias[None]])
            pre = F.embedding_bag(torch.from_numpy(flat), self._table_bias, torch.from_numpy(offsets), mode="sum")
        else:
            pre = F.embedding_bag(torch.from_numpy(rows), self._table, mode="sum").add_(self._bias)
        if features is not None:
            pre.addmm_(torch.from_numpy(features), self._features)
        h = pre.sigmoid_()  # in place: the same values, no second (M, H) array
        return torch.sigmoid(torch.addmm(net.fc2.bias, h, net.fc2.weight.T)).numpy().astype(np.float64)

    @torch.no_grad()
    def _device_network(self, rows: np.ndarray, features) -> np.ndarray:
        """:meth:`_network`'s torch path on ``self.device``: float64 (M, 5)."""
        dev = self.device
        idx = torch.from_numpy(rows.astype(np.int32)).to(dev, non_blocking=False)
        pre = F.embedding_bag(idx, self._table, mode="sum").add_(self._bias)
        if features is not None:
            pre.addmm_(torch.from_numpy(np.ascontiguousarray(features)).to(dev), self._features)
        h = torch.sigmoid_(pre)
        return torch.sigmoid(torch.addmm(self._out_b, h, self._out_w)).cpu().numpy().astype(np.float64)


def supports(net, encoder: str) -> bool:
    """Whether :class:`TableNetEvaluator` can stand in for ``NetEvaluator(net, encoder)``.

    True for a :class:`bgrl.evaluation.model.TDNet` exactly (one sigmoid hidden layer, any
    width) on :data:`TABLE_ENCODERS` inputs.
    """
    return type(net) is TDNet and encoder in TABLE_ENCODERS and getattr(net, "n_inputs", None) == num_features(encoder)


def network_evaluator(net, encoder: str, exact: bool = True, device="cpu") -> NetEvaluator:
    """The evaluator of a network: a :class:`TableNetEvaluator` where :func:`supports`
    says so, else a :class:`NetEvaluator`. Both give the same values (to float32
    rounding); the first is faster.

    ``device`` other than the CPU needs a network the table evaluator supports (ValueError
    otherwise)."""
    if supports(net, encoder):
        return TableNetEvaluator(net, encoder, exact, device=device)
    if torch.device(device).type != "cpu":
        raise ValueError(f"device {device}: only a TDNet on {'/'.join(TABLE_ENCODERS)} inputs can be evaluated there")
    return NetEvaluator(net, encoder, exact)


#: Deprecated names (before the table evaluator served training too): use
#: :class:`TableNetEvaluator` and :func:`network_evaluator`.
FastNetEvaluator = TableNetEvaluator
best_evaluator = network_evaluator
