"""Reference TD(lambda) learner with dense eligibility traces (the trainer before issue 8).

Frozen: kept with the tests (not part of the package) as the reference that
:mod:`bgrl.training.td` is tested against (``tests/training/test_training.py``) and measured
against (``scripts/bench/bench_train.py``, which puts ``tests/`` on ``sys.path``). It stores one
dense trace of every weight per game (5 x hidden x inputs floats for the first layer,
323 KB per game at 202-80-5), which makes it memory-bound at large batches. Same maths as :class:`bgrl.training.td.TDLambda`.

Algorithm: Sutton (1988) "Learning to predict by the methods of temporal differences";
applied to backgammon by Tesauro (1992, 1995, TD-Gammon). Backward view with accumulating
eligibility traces, updated online after every play:

    e_t     = lambda * P(e_{t-1}) + grad_w V(s_t)     (mover's frame; see step())
    delta_t = F(V(s_{t+1})) - V(s_t)            (or outcome - V(s_t) at the end)
    w      += alpha * sum_o delta_t[o] * e_t[o]

V(s) are the five outcome probabilities for the side on roll in s (bgrl.evaluation.probabilities.OUTPUTS).
Consecutive states belong to alternating sides, so the next state's value is put in the
current mover's frame by F (bgrl.evaluation.probabilities.flip_probs: win -> 1 - win, gammons swapped), and
the trace is carried across the change of side by P, the Jacobian of F (sign flip of the
win unit, gammon units swapped).

G games are played at once (one row each). Each game keeps its own trace; the per-game
gradients of the one-hidden-layer net are computed in closed form (no autograd), so one
training step costs a handful of batched tensor operations for all G games. The updates of
the G games are summed into the weights every step. Moves are chosen greedily (0-ply) by
the network being trained, as in TD-Gammon; after-states come from the batched generator.
"""

from __future__ import annotations

import numpy as np
import torch

from bgrl.rules.board import START_BOARD, flip
from bgrl.evaluation.encoding import encode
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity, terminal_probs
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results
from bgrl.agents.base import group_argmax

__all__ = ["DenseTraceTDLambda"]

_PERM = torch.tensor([0, 3, 4, 1, 2])
_SIGN = torch.tensor([-1.0, 1.0, 1.0, 1.0, 1.0])


class DenseTraceTDLambda:
    """Lockstep self-play learner.

    Parameters
    ----------
    net : TDNet (modified in place)
    encoder : str
    n_games : int, number of games played at once (G)
    alpha : float, step size
    lam : float in [0, 1], trace decay lambda
    rng : numpy Generator for the dice
    """

    def __init__(self, net: TDNet, encoder: str, n_games: int, alpha: float, lam: float, rng: np.random.Generator):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must lie in [0, 1], got {lam}")
        self.net = net
        self.encoder = encoder
        self.G = n_games
        self.alpha = alpha
        self.lam = lam
        self.rng = rng
        self.evaluator = NetEvaluator(net, encoder, exact=False)  # the network everywhere
        g, o, h, i = n_games, 5, net.hidden, net.n_inputs
        self.eW1 = torch.zeros(g, o, h, i)
        self.eb1 = torch.zeros(g, o, h)
        # Output o's trace w.r.t. every row r of the output layer: after a change of frame
        # output o's trace holds the gradient of output P(o), i.e. of row P(o).
        self.eW2 = torch.zeros(g, o, o, h)
        self.eb2 = torch.zeros(g, o, o)
        self.boards = np.repeat(START_BOARD[None], g, axis=0)
        self.plies = np.zeros(g, dtype=np.int64)
        self.fresh = np.ones(g, dtype=bool)  # trace is empty (new game)
        self.second = np.zeros(g, dtype=bool)  # the second player (Black) is on roll
        self.positions_evaluated = 0

    def _grads(self, x: torch.Tensor):
        """Forward pass with closed-form per-game Jacobians of the 5 outputs."""
        W1, b1 = self.net.fc1.weight, self.net.fc1.bias
        W2, b2 = self.net.fc2.weight, self.net.fc2.bias
        h = torch.sigmoid(x @ W1.T + b1)  # (G, H)
        y = torch.sigmoid(h @ W2.T + b2)  # (G, O)
        gy = y * (1 - y)  # (G, O)
        gh = h * (1 - h)  # (G, H)
        eye = torch.eye(gy.shape[1])
        db2 = gy[:, :, None] * eye  # (G, O, O): d y_o / d b2_r
        dW2 = db2[:, :, :, None] * h[:, None, None, :]  # (G, O, O, H): d y_o / d W2[r, :]
        db1 = gy[:, :, None] * W2[None] * gh[:, None, :]  # (G, O, H)
        return y, db1, dW2, db2, h

    @torch.no_grad()
    def step(self) -> dict:
        """Play one ply in every game and apply the TD(lambda) update.

        Returns a dict with ``finished`` (results of games that ended this step, int array
        of points won by the side that moved last, each in 1..3), ``lengths`` (their plies),
        ``delta`` (mean squared TD error this step).
        """
        G = self.G
        boards = self.boards
        x = torch.from_numpy(encode(boards, self.encoder))
        y, db1, dW2, db2, _ = self._grads(x)

        # Traces are kept in a fixed frame per game (the first mover's): the gradient of a
        # position where the other side is on roll is mapped by P (a signed permutation of
        # the 5 outputs, P = P^T = P^-1), so delta.e is the same in either frame and the big
        # W1 trace is updated by one fused, in-place batched outer product.
        other = torch.from_numpy(self.second)
        if other.any():
            db2 = torch.where(other[:, None, None], db2[:, _PERM] * _SIGN[:, None], db2)
            dW2 = torch.where(other[:, None, None, None], dW2[:, _PERM] * _SIGN[:, None, None], dW2)
            db1 = torch.where(other[:, None, None], db1[:, _PERM] * _SIGN[:, None], db1)
        if self.fresh.any():
            f = torch.from_numpy(self.fresh)
            self.eW1[f] = 0.0
            self.eb1[f] = 0.0
            self.eW2[f] = 0.0
            self.eb2[f] = 0.0
        lam = self.lam
        O, H, I = 5, self.net.hidden, self.net.n_inputs
        self.eb2.mul_(lam).add_(db2)
        self.eW2.mul_(lam).add_(dW2)
        self.eb1.mul_(lam).add_(db1)
        self.eW1.view(G, O * H, I).baddbmm_(db1.reshape(G, O * H, 1), x.view(G, 1, I), beta=lam)

        # Choose greedily among the after-states.
        dice = self.rng.integers(1, 7, size=(G, 2)).astype(np.int8)
        aft = generate(boards, dice, validate=False)
        probs = self.evaluator(aft.boards)  # mover's frame
        self.positions_evaluated += aft.boards.shape[0]
        best = group_argmax(equity(probs), aft.offsets)
        chosen = aft.boards[best]
        res = game_results(chosen)
        target = probs[best]
        over = res > 0
        if over.any():
            target[over] = terminal_probs(res[over])
        delta = torch.from_numpy(target.astype(np.float32)) - y  # (G, O), mover's frame
        td_err = float((delta ** 2).mean())
        if other.any():
            delta = torch.where(other[:, None], delta[:, _PERM] * _SIGN, delta)

        # w += alpha * sum_g sum_o delta * e   (frame-independent, see above)
        a = self.alpha
        W1, b1 = self.net.fc1.weight, self.net.fc1.bias
        W2, b2 = self.net.fc2.weight, self.net.fc2.bias
        dflat = delta.reshape(1, G * O)
        W1 += a * (dflat @ self.eW1.view(G * O, H * I)).view(H, I)
        b1 += a * (dflat @ self.eb1.view(G * O, H)).view(H)
        W2 += a * torch.einsum("go,gorh->rh", delta, self.eW2)
        b2 += a * torch.einsum("go,gor->r", delta, self.eb2)

        self.plies += 1
        finished = res[over]
        lengths = self.plies[over].copy()
        nxt = flip(chosen)
        nxt[over] = START_BOARD
        self.plies[over] = 0
        self.fresh = over.copy()
        self.second = np.where(over, False, ~self.second)
        self.boards = np.ascontiguousarray(nxt)
        return {"finished": finished, "lengths": lengths, "delta": td_err}
