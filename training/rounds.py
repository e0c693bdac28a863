"""Synchronous-rounds TD(lambda) self-play: the algorithm of ``bgrl train --backend local-rounds``
and ``--backend ray`` (:mod:`bgrl.training.ray_backend`).

Algorithm (deterministic, independent of how many processes play). Training runs in
rounds of R games (``parallel``). Round r plays the games with global ids
``r*R .. r*R+R-1``; game ``g``'s dice come from ``numpy.random.default_rng([seed, g])``,
so a game is a pure function of its id and the weights. All games of a round are
played with the round's frozen weights ``w_r`` (greedy 0-ply play, exact values where
known, as :class:`bgrl.training.td.TDLambda`), and each game's whole TD(lambda) update is
accumulated against ``w_r``:

    Delta_g = sum_t delta_t . e_t,   e_t = lambda * P(e_{t-1}) + grad_w V(s_t)   (all at w_r)

(Sutton 1988; Tesauro 1992/1995; P, delta and the frame conventions are those of
:mod:`bgrl.training.td`). With frozen weights the backward view equals the forward sum
``sum_k C_k . grad V(s_k)`` with ``C_k = delta_k + lambda * P(C_{k+1})`` (P is a signed
permutation and its own transpose), computed once at the end of each game.

A round's games are cut into *tasks* of ``task_games`` consecutive ids, played in
lockstep by one process (:func:`play_task`, the single implementation used by the local
backend and by every Ray actor). The learner then applies the task sums in task order
(hence in game-id order): ``w_{r+1} = w_r + alpha * sum_tasks U_task``. The cut into
tasks depends only on R and ``task_games``, never on the number of actors, so the same
seed gives bit-identical weights with the local backend, 1 actor or N actors (as long as
every process computes the same floats: same torch build and CPU kernels, see the
README on ``ATEN_CPU_CAPABILITY``).

This is a different algorithm from the default online trainer (weights change after
every ply there): the weights here lag by up to one round of games, like the
actor/learner split of distributed RL (e.g. Horgan et al. 2018, Ape-X), but synchronous.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch

from bgrl.rules.board import START_BOARD
from bgrl.rules.dice import random_rolls
from bgrl.evaluation.encoding import encode, num_features
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity
from bgrl.evaluation.table import TableNetEvaluator
from bgrl.training.td import group_argmax_padded

__all__ = ["play_task", "TaskWorker", "RoundsTrainer", "LocalRunner", "split_round", "weights_to_numpy"]

_PERM = np.array([0, 3, 4, 1, 2])
_SIGN = np.array([-1.0, 1.0, 1.0, 1.0, 1.0])
_DICE_BLOCK = 128
_MAX_PLIES = 20_000
DEFAULT_TASK_GAMES = 32
DEFAULT_LOCKSTEP = 16  # a guard only: self-play games end long before


def weights_to_numpy(net: TDNet) -> dict[str, np.ndarray]:
    """The network's weights as plain float32 numpy arrays (copies), keyed as its state_dict."""
    return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}


def split_round(first_game: int, round_games: int, task_games: int) -> list[tuple[int, int]]:
    """The tasks of the round starting at ``first_game``: ``[(first_id, count), ...]`` in id order."""
    out = []
    g, end = first_game, first_game + round_games
    while g < end:
        n = min(task_games, end - g)
        out.append((g, n))
        g += n
    return out


@torch.no_grad()
def play_task(net: TDNet, after: TableNetEvaluator, encoder: str, exact: Callable | None, seed: int, first_game: int,
              n_games: int, lam: float, lockstep: int | None = None) -> dict:
    """Play games ``first_game .. first_game+n_games-1`` to the end with ``net``'s frozen
    weights and return their summed TD(lambda) update (not yet scaled by alpha).
    ``lockstep`` games are played at once (None: all); a finished game's slot takes the
    next game of the task, in id order.

    ``after`` must be a :class:`bgrl.evaluation.table.TableNetEvaluator` of ``net`` built
    with ``small_batch=0`` and refreshed after the weights were last set. Returns a dict of numpy arrays: ``W1`` float32 (hidden, inputs),
    ``b1`` (hidden,), ``W2`` (5, hidden), ``b2`` (5,) (add ``alpha *`` these to
    fc1.weight, fc1.bias, fc2.weight, fc2.bias), ``results`` int8 (n_games,) (points won by
    the side that moved last), ``lengths`` int64 (n_games,) (plies), ``delta_sq`` float64
    (sum over plies of the mean squared TD error) and ``plies`` (int). Deterministic: a
    function of the weights, the ids, ``seed`` and ``lam`` only.
    """
    from bgrl.rules.movegen import generate
    from bgrl.rules.outcome import game_results

    W1, b1 = net.fc1.weight, net.fc1.bias
    W2, b2 = net.fc2.weight, net.fc2.bias
    n = n_games
    width = n if lockstep is None else max(1, min(int(lockstep), n))
    rngs = [np.random.default_rng([seed, first_game + i]) for i in range(n)]
    dice_blocks = [random_rolls(r, _DICE_BLOCK) for r in rngs]
    boards = np.repeat(START_BOARD[None], width, axis=0)
    active = np.arange(width)  # task-local game index of each lockstep slot
    waiting = width  # next game to start
    plies = np.zeros(n, dtype=np.int64)
    results = np.zeros(n, dtype=np.int8)
    steps = []  # per ply: (active ids, delta (m, 5) float64, learn rows index into active, x, h, gy)
    delta_sq = 0.0
    while active.size:
        m = active.size
        x = torch.from_numpy(encode(boards, encoder))
        h = torch.sigmoid(torch.addmm(b1, x, W1.T))
        y = torch.sigmoid(torch.addmm(b2, h, W2.T))
        learn = np.arange(m)
        if exact is not None:
            known, ex = exact(boards)
            if known.any():
                y = y.clone()
                y[torch.from_numpy(known)] = torch.from_numpy(ex[known].astype(np.float32))
                learn = np.flatnonzero(~known)
        dice = np.empty((m, 2), dtype=np.int8)
        for j, g in enumerate(active):
            p = plies[g]
            if p >= dice_blocks[g].shape[0]:
                dice_blocks[g] = np.concatenate([dice_blocks[g], random_rolls(rngs[g], _DICE_BLOCK)])
            dice[j] = dice_blocks[g][p]
        aft = generate(boards, dice, validate=False)
        ab = aft.boards
        probs = after(ab)
        best = group_argmax_padded(equity(probs), aft.offsets)
        chosen = ab[best]
        chosen_results = game_results(chosen)
        over = chosen_results != 0
        delta = torch.from_numpy(probs[best].astype(np.float32)) - y  # (m, 5) float32, mover's frame
        delta_sq += float((delta**2).mean())
        lt = torch.from_numpy(learn)
        gy = y[lt] * (1 - y[lt])
        steps.append((active, delta.numpy().astype(np.float64), learn, x[lt], h[lt], gy))
        plies[active] += 1
        if over.any():
            results[active[over]] = chosen_results[over]
        if int(plies.max()) > _MAX_PLIES:
            raise RuntimeError(f"a self-play game exceeded {_MAX_PLIES} plies")
        nxt = -chosen[:, ::-1]
        if over.any():  # a finished game's slot takes the task's next game, if any
            slots = np.flatnonzero(over)
            start = slots[: max(0, min(slots.size, n - waiting))]
            active = active.copy()
            active[start] = np.arange(waiting, waiting + start.size)
            nxt[start] = START_BOARD
            waiting += start.size
            keep = np.ones(active.size, dtype=bool)
            keep[slots[start.size:]] = False
            active = active[keep]
            nxt = nxt[keep]
        boards = np.ascontiguousarray(nxt)

    # Backward pass: C_k = delta_k + lambda * P(C_{k+1}) within each game.
    carry = np.zeros((n, 5))
    cs = [None] * len(steps)
    for s in range(len(steps) - 1, -1, -1):
        ids, delta, learn = steps[s][0], steps[s][1], steps[s][2]
        c = delta + lam * (carry[ids][:, _PERM] * _SIGN)
        carry[ids] = c
        cs[s] = c[learn]
    X = torch.cat([st[3] for st in steps])
    H = torch.cat([st[4] for st in steps])
    GY = torch.cat([st[5] for st in steps])
    C = torch.from_numpy(np.concatenate(cs).astype(np.float32)).mul_(GY)  # (rows, 5)
    U = (C @ W2).mul_(H).mul_(1.0 - H)  # (rows, hidden)
    return {
        "W1": (U.T @ X).numpy(),
        "b1": U.sum(0).numpy(),
        "W2": (C.T @ H).numpy(),
        "b2": C.sum(0).numpy(),
        "results": results,
        "lengths": plies,
        "delta_sq": delta_sq,
        "plies": int(plies.sum()),
        "steps": len(steps),
    }


class TaskWorker:
    """Plays tasks for one process (the local backend, or inside one Ray actor).

    ``run(weights, round_id, first_game, n_games)``: ``weights`` a dict of numpy arrays
    (:func:`weights_to_numpy`); the weights are loaded once per ``round_id``. Returns
    :func:`play_task`'s dict.
    """

    def __init__(self, encoder: str, hidden: int, lam: float, seed: int, bearoff: bool):
        torch.set_num_threads(1)
        self.encoder, self.lam, self.seed = encoder, lam, seed
        self.net = TDNet(num_features(encoder), hidden)
        self.exact = None
        if bearoff:
            from bgrl.evaluation.exact import exact_probs

            self.exact = exact_probs
        self.after = TableNetEvaluator(self.net, encoder, self.exact, small_batch=0)
        self._round = None

    def set_weights(self, weights: dict, round_id):
        if round_id is None or round_id != self._round:
            with torch.no_grad():
                for k, v in self.net.state_dict().items():
                    if k not in weights or tuple(np.shape(weights[k])) != tuple(v.shape):
                        raise ValueError(f"weights {k!r}: expected shape {tuple(v.shape)}, got "
                                         f"{tuple(np.shape(weights[k])) if k in weights else 'none'}")
                    v.copy_(torch.from_numpy(np.array(weights[k], dtype=np.float32)))
            self.after.refresh()
            self._round = round_id

    def run(self, weights: dict, round_id, first_game: int, n_games: int, lam: float | None = None,
            lockstep: int | None = None) -> dict:
        self.set_weights(weights, round_id)
        return play_task(self.net, self.after, self.encoder, self.exact, self.seed, first_game, n_games,
                         self.lam if lam is None else lam, lockstep)


class LocalRunner:
    """Plays a round's tasks one after the other in this process (``--backend local-rounds``)."""

    name = "local-rounds"

    def __init__(self, encoder: str, hidden: int, lam: float, seed: int, bearoff: bool):
        self.worker = TaskWorker(encoder, hidden, lam, seed, bearoff)

    def run_round(self, weights: dict, round_id: int, tasks: list[tuple[int, int]], lam: float,
                  lockstep: int | None = None) -> list[dict]:
        return [self.worker.run(weights, round_id, g, n, lam, lockstep) for g, n in tasks]

    def close(self):
        pass


class RoundsTrainer:
    """The learner of the synchronous-rounds algorithm (module docstring), with the
    interface :func:`bgrl.training.loop.train` drives (``step``, ``alpha``,
    ``state_dict``, ``load_state_dict``).

    ``runner`` plays a round's tasks and returns their dicts in task order
    (:class:`LocalRunner` or :class:`bgrl.training.ray_backend.RayRunner`).
    One :meth:`step` plays one round of ``round_games`` games and applies the update.
    ``task_games`` (games per task) and ``lockstep`` (games played at once within a task)
    None: :data:`DEFAULT_TASK_GAMES` / :data:`DEFAULT_LOCKSTEP`, or on resume the run's own
    values (they fix the floats, so they cannot change within a run).
    """

    def __init__(self, net: TDNet, round_games: int, task_games: int | None, alpha: float, lam: float, seed: int, runner,
                 lockstep: int | None = None):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must lie in [0, 1], got {lam}")
        self._task_given = task_games is not None
        task_games = DEFAULT_TASK_GAMES if task_games is None else task_games
        if round_games < 1 or task_games < 1:
            raise ValueError(f"games per round and per task must be >= 1, got {round_games} and {task_games}")
        self.net = net
        self.R = round_games
        self.task_games = task_games
        self._lock_given = lockstep is not None
        self.lockstep = DEFAULT_LOCKSTEP if lockstep is None else int(lockstep)
        if self.lockstep < 1:
            raise ValueError(f"--lockstep must be >= 1, got {lockstep}")
        self.alpha = alpha
        self.lam = lam
        self.seed = seed
        self.runner = runner
        self.next_game = 0  # global id of the next round's first game
        self.rounds = 0
        self.positions_evaluated = 0

    @torch.no_grad()
    def step(self) -> dict:
        """Play one round and apply it. Returns ``finished`` (int8 results in game-id
        order), ``lengths``, ``delta`` (mean squared TD error over the round's plies) and
        ``plies``."""
        tasks = split_round(self.next_game, self.R, self.task_games)
        weights = weights_to_numpy(self.net)
        outs = self.runner.run_round(weights, self.rounds, tasks, self.lam, self.lockstep)
        if len(outs) != len(tasks):
            raise RuntimeError(f"the runner returned {len(outs)} results for {len(tasks)} tasks")
        net, a = self.net, self.alpha
        for o in outs:  # task order = game-id order
            net.fc1.weight.add_(torch.from_numpy(np.require(o["W1"], requirements="W")), alpha=a)
            net.fc1.bias.add_(torch.from_numpy(np.require(o["b1"], requirements="W")), alpha=a)
            net.fc2.weight.add_(torch.from_numpy(np.require(o["W2"], requirements="W")), alpha=a)
            net.fc2.bias.add_(torch.from_numpy(np.require(o["b2"], requirements="W")), alpha=a)
        plies = sum(int(o["plies"]) for o in outs)
        self.next_game += self.R
        self.rounds += 1
        self.positions_evaluated += plies
        d = sum(float(o["delta_sq"]) for o in outs)
        n_steps = sum(int(o["steps"]) for o in outs)
        return {
            "finished": np.concatenate([np.asarray(o["results"]) for o in outs]),
            "lengths": np.concatenate([np.asarray(o["lengths"]) for o in outs]),
            "delta": d / max(n_steps, 1) if math.isfinite(d) else d,
            "plies": plies,
        }

    def state_dict(self) -> dict:
        return {"algorithm": "rounds", "version": 1, "next_game": self.next_game, "rounds": self.rounds,
                "round_games": self.R, "task_games": self.task_games, "lockstep": self.lockstep}

    def load_state_dict(self, s: dict):
        """Restore :meth:`state_dict`. Raises ValueError for a state of another algorithm."""
        if not isinstance(s, dict) or s.get("algorithm") != "rounds":
            raise ValueError("the checkpoint's trainer state is not that of the rounds trainer")
        try:
            self.next_game = int(s["next_game"])
            self.rounds = int(s["rounds"])
            task = int(s["task_games"])
            lock = int(s["lockstep"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"the rounds trainer state is malformed ({exc})") from None
        if lock != self.lockstep and not self._lock_given:
            self.lockstep = lock
        elif lock != self.lockstep:
            raise ValueError(f"the run was trained with --lockstep {lock}; it cannot change on --resume (got {self.lockstep})")
        if task != self.task_games and not self._task_given:
            self.task_games = task  # the run's own value
        elif task != self.task_games:
            raise ValueError(f"the run was trained with --task-games {task}; it cannot change on --resume (got {self.task_games})")


def rounds_learner_factory(backend: str, task_games: int | None = None, actors: int = 2, address: str | None = None,
                           ray_init: dict | None = None, lockstep: int | None = None):
    """``make_learner`` for :func:`bgrl.training.loop.train`: ``backend`` ``"local-rounds"``
    (this process) or ``"ray"`` (:class:`bgrl.training.ray_backend.RayRunner`). Returns
    ``(make_learner, close)``; call ``close()`` when training ends (stops the actors).
    Raises ValueError for a bad setting (or Ray missing)."""
    if backend not in ("local-rounds", "ray"):
        raise ValueError(f"--backend must be local, local-rounds or ray, got {backend!r}")
    if task_games is not None and (not isinstance(task_games, int) or task_games < 1):
        raise ValueError(f"--task-games must be an integer >= 1, got {task_games!r}")
    if lockstep is not None and (not isinstance(lockstep, int) or lockstep < 1):
        raise ValueError(f"--lockstep must be an integer >= 1, got {lockstep!r}")
    if backend == "ray":
        from bgrl.training.ray_backend import ray_available, RAY_MISSING

        if not ray_available():
            raise ValueError(RAY_MISSING)
        if actors < 1:
            raise ValueError(f"--actors must be >= 1, got {actors}")
    made = []

    def make(net, config, exact):
        if backend == "ray":
            from bgrl.training.ray_backend import RayRunner

            runner = RayRunner(config.encoder, net.hidden, config.lam, config.seed, config.bearoff, actors=actors,
                               address=address, init_kwargs=ray_init)
        else:
            runner = LocalRunner(config.encoder, net.hidden, config.lam, config.seed, config.bearoff)
        made.append(runner)
        return RoundsTrainer(net, config.parallel, task_games, config.alpha, config.lam, config.seed, runner, lockstep)

    def close():
        for r in made:
            r.close()

    return make, close
