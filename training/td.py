"""TD(lambda) self-play with eligibility traces, many games in lockstep (fast trainer).

Algorithm: Sutton (1988) "Learning to predict by the methods of temporal differences";
applied to backgammon by Tesauro (1992, 1995, TD-Gammon). Backward view with accumulating
eligibility traces, updated online after every play:

    e_t     = lambda * P(e_{t-1}) + grad_w V(s_t)     (mover's frame)
    delta_t = F(V(s_{t+1})) - V(s_t)            (or outcome - V(s_t) at the end)
    w      += alpha * sum_o delta_t[o] * e_t[o]

V(s) are the five outcome probabilities for the side on roll in s (bgrl.evaluation.probabilities.OUTPUTS).
Consecutive states belong to alternating sides, so the next state's value is put in the
current mover's frame by F (bgrl.evaluation.probabilities.flip_probs), and the trace is carried across the
change of side by P, the Jacobian of F (sign flip of the win unit, gammon units swapped).
The maths is that of the dense-trace reference trainer kept with the tests
(``tests/reference_td.py``, ``DenseTraceTDLambda``, tested equal step by step); only the
way the traces are stored differs.

How the traces are stored (the speed-up of issue 8). A dense first-layer trace holds
5 x hidden x inputs floats per game (323 KB at 202-80-5); with hundreds of games in
lockstep it lives in main memory and every step must stream it in and out twice, which
bounds the dense trainer. Here the trace is never formed. Unrolling the recursion,

    sum_o delta_t[o] e_t[o] = sum_{k <= t} lambda^(t-k) sum_o (P^(t-k) delta_t)[o] grad V_o(s_k),

and for the one-hidden-layer net ``grad_{W1} V_o(s_k) = (gy_k[o] W2_k[o] * gh_k) x_k^T``
(gy = y(1-y), gh = h(1-h), W2_k the output weights at step k). So the update of all four
weight tensors over all games is, with one row r per earlier state of every game in
flight and ``C_r = lambda^(t-k_r) * gy_r * (P^(t-k_r) delta_t(game of r))`` (5 numbers):

    dW2 = alpha C^T H        db2 = alpha sum_r C_r
    U_r = gh_r * (C_r W2_{k_r})                     (hidden, one row per state)
    dW1 = alpha U^T X        db1 = alpha sum_r U_r

two matrix products over the "history" rows (x, h, gy of every state of the games in
flight, and the output weights of the last steps). A row costs 287 floats instead of a
trace's 80,800 per game; the history of a game averages about 30 rows.

The after-states are valued by :class:`bgrl.evaluation.table.TableNetEvaluator`, the
evaluator search and the levels use: its first layer is a sum of table rows
(``torch.nn.functional.embedding_bag``) instead of a product with input vectors, and the
learner calls its ``refresh()`` after each update to rebuild the table from W1. It is
built with ``small_batch=0``: one arithmetic for every batch, however few games are in flight
(the compiled forward pass where the kernels run, torch's without numba; the two agree to
float32 rounding). In :data:`TIMING_PARTS` its time counts as
"forward"; "encoding" is the input vectors of the current positions.

Exact values: with ``exact`` (:func:`bgrl.evaluation.exact.exact_probs`: no-contact bear-offs and
one checker a side), a position with a known exact value is never valued by the network: such
after-states get their exact probabilities (so plays and TD targets there are exact),
and such current positions use the exact value in delta and add no gradient (V does
not depend on the weights there).

Threads: call ``torch.set_num_threads(1)`` (``bgrl train`` does). The per-step tensors
are small; with two threads on a loaded 2-core machine each op waits for the other
thread to be scheduled and a step can be 100x slower.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from bgrl.rules.board import START_BOARD
from bgrl.agents.base import group_argmax
from bgrl.evaluation import compiled as _compiled
from bgrl.evaluation.encoding import encode
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity
from bgrl.evaluation.table import TableNetEvaluator
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results
from bgrl.training import _kernels

__all__ = ["TDLambda", "TIMING_PARTS", "SPARSE_ENCODERS"]

_PERM = torch.tensor([0, 3, 4, 1, 2])
_SIGN = torch.tensor([-1.0, 1.0, 1.0, 1.0, 1.0])
TIMING_PARTS = ("generator", "encoding", "forward", "trace update", "other")
#: Encoders whose input vectors have at most :data:`bgrl.training._kernels.NNZ_MAX` non-zero
#: units (stored sparse for the compiled update); others are stored dense.
SPARSE_ENCODERS = ("td198", "td198r")


class TDLambda:
    """Lockstep self-play learner (fast; same maths as the dense reference).

    Parameters
    ----------
    net : TDNet (modified in place)
    encoder : str, ``"td198"`` or ``"td198r"``
    n_games : int, number of games played at once (G)
    alpha : float, step size (each game's update is added, so one step moves the weights
        by the sum of G updates)
    lam : float in [0, 1], trace decay lambda
    rng : numpy Generator for the dice (the only randomness)
    exact : optional callable ``boards -> (known, probs)`` valuing exact positions from the
        side on roll (:func:`bgrl.evaluation.exact.exact_probs`); None = the network everywhere.
    kernel : use the compiled update (:mod:`bgrl.training._kernels`, needs numba) when
        available (None = when installed); False = torch matrix products. The compiled update
        works through each game's chain of input changes (``chain_update``), or inside
        :func:`bgrl.evaluation.compiled.disabled` from each row's inputs in full
        (``history_update``, the update as before issue 39): the same sums up to float32 association.

    ``timings`` accumulates seconds per part (:data:`TIMING_PARTS`); :meth:`state_dict`
    and :meth:`load_state_dict` save and restore everything a step depends on (games in
    flight, their histories, the dice generator), so a resumed run continues bit for bit.
    """

    def __init__(self, net: TDNet, encoder: str, n_games: int, alpha: float, lam: float, rng: np.random.Generator,
                 exact: Callable | None = None, kernel: bool | None = None):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must lie in [0, 1], got {lam}")
        if n_games < 1:
            raise ValueError(f"n_games must be >= 1, got {n_games}")
        self.net = net
        self.encoder = encoder
        self.G = n_games
        self.alpha = alpha
        self.lam = lam
        self.rng = rng
        self.exact = exact
        if kernel and not _kernels.AVAILABLE:
            raise ValueError("the compiled trainer kernel needs numba, a core dependency of bgrl that cannot be imported here: reinstall bgrl")
        self.use_kernel = _kernels.AVAILABLE if kernel is None else bool(kernel)
        self.learn = True  # False: play only (benchmarks), the weights do not change
        # the compiled batch generator, table rows and table build (bgrl.evaluation.compiled: the
        # same after-states, rows and table bits as the numpy code, so a run is the same either way)
        _compiled.ensure()
        self.after = TableNetEvaluator(net, encoder, exact, small_batch=0)
        self.timings = dict.fromkeys(TIMING_PARTS, 0.0)
        self.positions_evaluated = 0
        self.boards = np.repeat(START_BOARD[None], n_games, axis=0)
        self.plies = np.zeros(n_games, dtype=np.int64)
        self.t = 0  # global step count
        self._last = np.full((n_games, 2), -1, dtype=np.int64)  # latest history row of each (slot, mover): its chain's end
        self._alloc(max(64 * n_games, 1024), 256)
        self._lam_pow = np.array([1.0])

    # ------------------------------------------------------------------ history storage
    def _alloc(self, cap: int, ring: int):
        H, I = self.net.hidden, self.net.n_inputs
        self._cap = cap
        self._n = 0
        self._X = torch.zeros(0 if self.use_kernel else cap, I)  # dense inputs: the torch update's (the kernels' are sparse)
        self._B = np.zeros((cap, 26), dtype=np.int8)
        self._Hh = torch.zeros(cap, H)
        self._gy = torch.zeros(cap, 5)
        self._k = np.zeros(cap, dtype=np.int64)
        self._owner = np.zeros(cap, dtype=np.int64)
        self._alive = np.zeros(cap, dtype=bool)
        width = _kernels.NNZ_MAX if self.encoder in SPARSE_ENCODERS else I  # td198/td198r: at most 39 non-zero units
        self._cols = np.zeros((cap, width), dtype=np.int16)
        self._vals = np.zeros((cap, width), dtype=np.float32)
        self._nnz = np.zeros(cap, dtype=np.int16)
        # the compiled update's chains (bgrl.training._kernels): the change from the row's predecessor, its step
        dwidth = min(2 * width, I)
        self._dcols = np.zeros((cap, dwidth), dtype=np.int16)
        self._dvals = np.zeros((cap, dwidth), dtype=np.float32)
        self._dnnz = np.zeros(cap, dtype=np.int16)
        self._pk = np.full(cap, -1, dtype=np.int64)
        self._R = ring
        self._ring = torch.zeros(ring, 5, H)

    def _resize(self, cap: int):
        n = self._n
        old = self._arrays()
        ring, R = self._ring, self._R
        self._alloc(cap, R)
        self._ring = ring
        for new, o in zip(self._arrays(), old):
            new[:n] = o[:n]
        self._n = n

    def _arrays(self):
        return (self._X, self._B, self._Hh, self._gy, self._k, self._owner, self._alive, self._cols, self._vals, self._nnz,
                self._dcols, self._dvals, self._dnnz, self._pk)

    def _compact(self):
        n = self._n
        if self.use_kernel and not _compiled.is_disabled():  # one pass over the rows (the same arrays)
            moved = np.empty(n + 1, dtype=np.int64)
            moved[n] = -1
            self._n = _kernels.compact(n, self._alive, self._Hh.numpy(), self._gy.numpy(), self._B, self._k, self._owner,
                                       self._cols, self._vals, self._nnz, self._dcols, self._dvals, self._dnnz, self._pk, moved)
            self._last = moved[np.where(self._last < n, self._last, n)]
            return
        keep = np.flatnonzero(self._alive[:n])
        m = keep.shape[0]
        kt = torch.from_numpy(keep)
        for arr in (self._Hh, self._gy) if self.use_kernel else (self._X, self._Hh, self._gy):
            arr[:m] = arr[:n].index_select(0, kt)
        for arr in (self._B, self._k, self._owner, self._alive, self._cols, self._vals, self._nnz, self._dcols, self._dvals,
                    self._dnnz, self._pk):
            arr[:m] = arr[:n][keep]
        self._n = m
        moved = np.full(n + 1, -1, dtype=np.int64)  # old row -> new row (-1: dropped, or no row)
        moved[keep] = np.arange(m)
        self._last = moved[np.where(self._last < n, self._last, n)]

    def _make_room(self, rows: int):
        n = self._n
        dead = n - int(np.count_nonzero(self._alive[:n]))
        if n + rows > self._cap or 8 * dead > n:
            self._compact()
        if self._n + rows > (3 * self._cap) // 4:
            self._resize(2 * self._cap)
        # ring of output weights: must cover every step still referenced
        n = self._n
        if n:
            kmin = int(self._k[int(np.argmax(self._alive[:n]))]) if self._alive[:n].any() else self.t
            need = self.t - kmin + 1
            if need > self._R:
                R = self._R
                while R < need:
                    R *= 2
                ring = torch.zeros(R, 5, self.net.hidden)
                ks = torch.arange(kmin, self.t)
                ring[ks % R] = self._ring[ks % self._R]
                self._ring, self._R = ring, R

    # ------------------------------------------------------------------ one step
    def _grads(self, x: torch.Tensor):
        """Forward pass with closed-form per-game Jacobians of the 5 outputs (reference
        for tests; the step itself never forms them)."""
        W1, b1 = self.net.fc1.weight, self.net.fc1.bias
        W2, b2 = self.net.fc2.weight, self.net.fc2.bias
        h = torch.sigmoid(x @ W1.T + b1)
        y = torch.sigmoid(h @ W2.T + b2)
        gy = y * (1 - y)
        gh = h * (1 - h)
        eye = torch.eye(gy.shape[1])
        db2 = gy[:, :, None] * eye
        dW2 = db2[:, :, :, None] * h[:, None, None, :]
        db1 = gy[:, :, None] * W2[None] * gh[:, None, :]
        return y, db1, dW2, db2, h

    @torch.no_grad()
    def _observe(self, boards: np.ndarray, idle: np.ndarray | None = None):
        """Value the positions ``boards`` (G, 26) on roll, one per game slot, and record one
        history row per slot that learns here (not exact, not ``idle``); returns ``(y, clock)``:
        the (G, 5) values (exact ones where known) and the time at the end (for
        :data:`TIMING_PARTS`). ``idle`` (bool, G): slots without a game (the replay learner of
        :mod:`bgrl.training.rounds`); their rows are not recorded."""
        clock = time.perf_counter  # process_time is a system call: far too slow per part
        tm = self.timings
        G, t = self.G, self.t
        net = self.net
        W1, b1 = net.fc1.weight, net.fc1.bias
        W2, b2 = net.fc2.weight, net.fc2.bias
        c0 = clock()
        x_np = encode(boards, self.encoder)
        x = torch.from_numpy(x_np)
        c1 = clock()
        tm["encoding"] += c1 - c0
        h = torch.sigmoid(torch.addmm(b1, x, W1.T))
        y = torch.sigmoid(torch.addmm(b2, h, W2.T))
        learn = None
        if self.exact is not None:
            known, ex = self.exact(boards)
            if known.any():
                y = y.clone()
                y[torch.from_numpy(known)] = torch.from_numpy(ex[known].astype(np.float32))
                learn = np.flatnonzero(~known)
        if idle is not None and idle.any():
            learn = np.flatnonzero(~idle if learn is None else ~idle & ~known)
        c2 = clock()
        tm["forward"] += c2 - c0 - (c1 - c0)

        # Record this step's states (one history row per game that learns here).
        rows = G if learn is None else learn.shape[0]
        if not self.learn:
            rows, learn = 0, np.zeros(0, dtype=np.int64)
        self._make_room(rows)
        n0, n1 = self._n, self._n + rows
        if learn is None:
            if not self.use_kernel:
                self._X[n0:n1] = x
            self._B[n0:n1] = boards
            self._Hh[n0:n1] = h
            self._gy[n0:n1] = y * (1 - y)
            self._owner[n0:n1] = np.arange(G)
        else:
            lt = torch.from_numpy(learn)
            if not self.use_kernel:
                self._X[n0:n1] = x[lt]
            self._B[n0:n1] = boards[learn]
            hl, yl = h[lt], y[lt]
            self._Hh[n0:n1] = hl
            self._gy[n0:n1] = yl * (1 - yl)
            self._owner[n0:n1] = learn
        self._k[n0:n1] = t
        self._alive[n0:n1] = True
        if self.use_kernel:
            _kernels.sparsify(x_np if learn is None else x_np[learn], self._cols[n0:n1], self._vals[n0:n1], self._nnz[n0:n1])
            _kernels.chain_diffs(self._cols, self._vals, self._nnz, n0, n1, self._owner, self._k, self._alive, self._last, t,
                                 self._dcols, self._dvals, self._dnnz, self._pk)
        self._n = n1
        self._ring[t % self._R] = W2
        c3 = clock()
        tm["trace update"] += c3 - c2
        return y, c3

    @torch.no_grad()
    def step(self) -> dict:
        """Play one ply in every game and apply the TD(lambda) update.

        Returns a dict with ``finished`` (results of games that ended this step, int array
        of points won by the side that moved last, each in 1..3), ``lengths`` (their plies),
        ``delta`` (mean squared TD error this step).
        """
        clock = time.perf_counter  # process_time is a system call: far too slow per part
        tm = self.timings
        G, t = self.G, self.t
        boards = self.boards
        y, c3 = self._observe(boards)

        # Choose greedily among the after-states (0-ply, the network being trained).
        dice = self.rng.integers(1, 7, size=(G, 2)).astype(np.int8)
        aft = generate(boards, dice, validate=False)
        c4 = clock()
        tm["generator"] += c4 - c3
        ab = aft.boards
        probs = self.after(ab)
        self.positions_evaluated += ab.shape[0]
        c6 = clock()
        tm["forward"] += c6 - c4
        if self.use_kernel and not _compiled.is_disabled():  # the compiled twin (the same choices)
            best = np.empty(G, dtype=np.int64)
            _kernels.group_argmax(probs, aft.offsets, best)
        else:
            best = group_argmax(equity(probs), aft.offsets)
        chosen = ab[best]
        results = game_results(chosen)
        over = results != 0
        target = probs[best]
        delta = torch.from_numpy(target.astype(np.float32)) - y  # (G, 5), mover's frame
        td_err = float((delta**2).mean())
        c7 = clock()
        tm["other"] += c7 - c6

        # w += alpha * sum over history rows (module docstring).
        if self.learn:
            self._update(delta)
        c8 = clock()
        tm["trace update"] += c8 - c7

        self.plies += 1
        res = results[over]
        lengths = self.plies[over].copy()
        nxt = -chosen[:, ::-1]
        if over.any():
            nxt[over] = START_BOARD
            self.plies[over] = 0
            n = self._n
            self._alive[:n] &= ~over[self._owner[:n]]
        self.boards = np.ascontiguousarray(nxt)
        self.t = t + 1
        if self.learn:
            self.after.refresh()
        tm["other"] += clock() - c8
        return {"finished": res, "lengths": lengths, "delta": td_err}

    def _update(self, delta: torch.Tensor):
        n, t, G = self._n, self.t, self.G
        if n == 0:
            return
        net = self.net
        W1, b1 = net.fc1.weight, net.fc1.bias
        W2, b2 = net.fc2.weight, net.fc2.bias
        k = self._k[:n]
        # the oldest step a weight is needed for: the oldest row's, or a chain predecessor's (rows are in step order)
        oldest = int(k[0])
        if self.use_kernel:
            pk = self._pk[:n]
            linked = pk[pk >= 0]
            if linked.size:
                oldest = min(oldest, int(linked.min()))
        if t - oldest >= self._lam_pow.shape[0]:
            self._lam_pow = np.power(self.lam, np.arange(2 * (t - oldest) + 64, dtype=np.float64))
        # delta of the row's game in the row's mover frame: P^(t-k) delta_t
        both = torch.cat([delta, delta[:, _PERM] * _SIGN])
        a = self.alpha
        alive = self._alive[:n]
        if self.use_kernel and not _compiled.is_disabled():
            # through the chains of input changes (the weights, frames and chain starts in the kernel)
            dW1, db1, dW2, db2 = _kernels.chain_update(
                self._cols[:n], self._vals[:n], self._nnz[:n], self._dcols[:n], self._dvals[:n], self._dnnz[:n], pk, k,
                self._owner[:n], alive, t, self._lam_pow, G, self._R, self._Hh.numpy()[:n], self._gy.numpy()[:n],
                both.numpy(), self._ring.numpy(), net.n_inputs)
        else:
            age = t - k
            w = np.where(alive, self._lam_pow[age], 0.0).astype(np.float32)
            alive &= w > 0  # underflowed weights stay 0 from here on
            sel_np = self._owner[:n] + G * (age & 1)
        if self.use_kernel:
            if _compiled.is_disabled():  # each row's inputs in full, as before issue 39 (bgrl.training._kernels)
                dW1, db1, dW2, db2 = _kernels.history_update(
                    self._cols[:n], self._vals[:n], self._nnz[:n], self._Hh.numpy()[:n], self._gy.numpy()[:n], w, sel_np,
                    k % self._R, both.numpy(), self._ring.numpy(), net.n_inputs)
            W1.add_(torch.from_numpy(dW1), alpha=a)
            b1.add_(torch.from_numpy(db1), alpha=a)
            W2.add_(torch.from_numpy(dW2), alpha=a)
            b2.add_(torch.from_numpy(db2), alpha=a)
            return
        sel = torch.from_numpy(sel_np)
        C = both.index_select(0, sel).mul_(self._gy[:n]).mul_(torch.from_numpy(w)[:, None])
        ridx = torch.from_numpy(((k % self._R) * 5)[:, None] + np.arange(5))
        Hh = self._Hh[:n]
        U = F.embedding_bag(ridx, self._ring.view(-1, net.hidden), per_sample_weights=C, mode="sum")
        U.mul_(Hh).mul_(1.0 - Hh)
        W1.addmm_(U.T, self._X[:n], alpha=a)
        b1.add_(U.sum(0), alpha=a)
        W2.addmm_(C.T, Hh, alpha=a)
        b2.add_(C.sum(0), alpha=a)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        """Everything the next steps depend on besides the weights: tensors and plain
        data only (bgrl.evaluation.networks). The dice generator's state is JSON text."""
        import json

        n = self._n
        return {
            "version": 1,
            "t": self.t,
            "boards": torch.from_numpy(self.boards.copy()),
            "plies": torch.from_numpy(self.plies.copy()),
            "cap": self._cap,
            "n": n,
            "hist_boards": torch.from_numpy(self._B[:n].copy()),
            "hist_h": self._Hh[:n].clone(),
            "hist_gy": self._gy[:n].clone(),
            "hist_k": torch.from_numpy(self._k[:n].copy()),
            "hist_owner": torch.from_numpy(self._owner[:n].copy()),
            "hist_alive": torch.from_numpy(self._alive[:n].copy()),
            "ring": self._ring.clone(),
            "rng": json.dumps(self.rng.bit_generator.state),
            "positions_evaluated": self.positions_evaluated,
        }

    def load_state_dict(self, s: dict):
        """Restore :meth:`state_dict` (same network shape and number of games).
        Raises ValueError for a state that does not fit."""
        import json

        try:
            boards = s["boards"].numpy().astype(np.int8)
            if boards.shape != (self.G, 26):
                raise ValueError(f"the saved games are {tuple(boards.shape)}, this trainer plays {self.G} games")
            n, cap = int(s["n"]), int(s["cap"])
            ring = s["ring"].to(torch.float32)
            if ring.dim() != 3 or ring.shape[1:] != (5, self.net.hidden) or not 0 <= n <= cap:
                raise ValueError("the saved history does not fit this network")
            self._alloc(cap, ring.shape[0])
            self._ring = ring.clone()
            self._n = n
            self._B[:n] = s["hist_boards"].numpy()
            x_hist = encode(self._B[:n], self.encoder)
            if not self.use_kernel:
                self._X[:n] = torch.from_numpy(x_hist)
            self._Hh[:n] = s["hist_h"]
            self._gy[:n] = s["hist_gy"]
            self._k[:n] = s["hist_k"].numpy()
            self._owner[:n] = s["hist_owner"].numpy()
            self._alive[:n] = s["hist_alive"].numpy()
            self.boards = boards.copy()
            self.plies = s["plies"].numpy().astype(np.int64).copy()
            self.t = int(s["t"])
            self.positions_evaluated = int(s.get("positions_evaluated", 0))
            self.rng.bit_generator.state = json.loads(s["rng"])
        except (KeyError, TypeError, AttributeError, RuntimeError) as exc:
            raise ValueError(f"the trainer state is incomplete or malformed ({type(exc).__name__}: {exc})") from None
        if self._owner[:n].size and (self._owner[:n].max() >= self.G or self._owner[:n].min() < 0):
            raise ValueError("the saved history names games this trainer does not have")
        if n and (np.diff(self._k[:n]) < 0).any():
            raise ValueError("the saved history is not in step order")
        self._last[:] = -1
        if self.use_kernel and n:  # the rows and their chains as the run built them (so it resumes bit for bit)
            _kernels.sparsify(x_hist, self._cols[:n], self._vals[:n], self._nnz[:n])
            starts = np.flatnonzero(np.r_[True, np.diff(self._k[:n]) != 0])
            for a, b in zip(starts, np.r_[starts[1:], n]):
                _kernels.chain_diffs(self._cols, self._vals, self._nnz, int(a), int(b), self._owner, self._k, self._alive,
                                     self._last, int(self._k[a]), self._dcols, self._dvals, self._dnnz, self._pk)
        self.after.refresh()
