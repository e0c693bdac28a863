"""Synchronous-rounds TD(lambda) self-play: the algorithm of ``bgrl train --backend local-rounds``
and ``--backend ray`` (:mod:`bgrl.training.ray_backend`).

Algorithm (deterministic, independent of how many processes play). Training runs in
rounds of R games (``parallel``). Round r plays the games with global ids
``r*R .. r*R+R-1``; game ``g``'s dice come from ``numpy.random.default_rng([seed, g])``,
so a game is a pure function of its id and the weights. The *actors* play all games of a
round with the round's frozen weights ``w_r`` (greedy 0-ply play, exact values where
known, as :class:`bgrl.training.td.TDLambda`) and return each game's plays: the chosen
after-state of every ply (26 bytes a ply).

The *learner* then learns from the round's games exactly as the online trainer learns from
its own: online TD(lambda) with eligibility traces (:class:`bgrl.training.td.TDLambda`'s
update, Sutton 1988; Tesauro 1992/1995), ``learner_games`` games (default 32, the online
default ``--parallel``) replayed in lockstep, the weights changing after every ply, a
finished game's slot taking the round's next game in id order, every game of the round
finished before the next round starts. Values and TD targets are the learner's current
weights' (the after-state it played is valued again); only the choice of plays lags: round
k is played with the weights learned through round k - 2 (the initial weights for rounds 0
and 1), because round k + 1 is handed to the actors before round k is learned, so that
they play while the learner learns (an actor/learner split as in Ape-X, Horgan et al.
2018, but synchronous and deterministic). ``--alpha`` and ``--lambda`` therefore mean what
they mean online at ``--parallel 32``, whatever the round size.

Why not sum each game's update computed against ``w_r`` (this module's algorithm until
issue 42): with frozen weights a round's update is ``R x (plies a game)`` per-position
updates taken as one step, where the online trainer takes steps of 32. The self-play value
(``V(s) ~ 1 - V(s')``) is a feedback loop whose gain grows with the step; at the default
alpha the first 32-game round's summed update (norm 2,156, times alpha 0.1) took the
weights' norm to 216 and saturated every sigmoid
(win probability 1.000 everywhere, gradients exactly 0 in float32, no recovery); at
alpha 0.002 the win value oscillated 0.4 <-> 1.0 between rounds; and a stable step
(alpha ~ 5 / (R x plies)) learns far less per game than the online trainer (3,000 games,
seed 7: -1.36 ppg against pubeval with rounds of 8 games averaged at alpha 0.1, -0.34
online). Replaying the
games on the learner keeps the online step; a stale policy costs nothing measurable
(choices from weights refreshed every 64 or 256 games: -0.39 and -0.35 against pubeval,
online -0.34, 3,000 games, +-0.12).

A round's games are cut into *tasks* of ``task_games`` consecutive ids, played in
lockstep (``lockstep`` at once) by one process (:func:`play_task`, the single
implementation used by the local backend and by every Ray actor). The learner replays the
games in game-id order, so the cut into tasks, the number of actors and which actor played
which task never change the weights: the same seed gives bit-identical weights with the
local backend, 1 actor or N actors (as long as every process computes the same floats:
same torch build and CPU kernels, see the README on ``ATEN_CPU_CAPABILITY``).

Cost (the shipped network, one core): the actors' play takes about 4.3 ms a game (move
generation and valuing every after-state), the learner's replay about 2.6 ms (a forward
pass, the chosen after-state's value and the trace update per ply), the online trainer
about 5.0 ms for both. The learner therefore bounds the speed-up at about two or three
actors' worth of games (docs/training.md).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from bgrl.rules.board import START_BOARD
from bgrl.rules.dice import random_rolls
from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity
from bgrl.evaluation.table import TableNetEvaluator
from bgrl.agents.base import group_argmax
from bgrl.training.td import TDLambda
from bgrl.evaluation.evaluator import NetEvaluator
from bgrl.evaluation.exact import exact_probs
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results

__all__ = ["play_task", "TaskWorker", "RoundsTrainer", "LocalRunner", "ReplayLearner", "split_round", "weights_to_numpy",
           "DEFAULT_ROUND_GAMES", "DEFAULT_TASK_GAMES", "DEFAULT_LOCKSTEP", "DEFAULT_LEARNER_GAMES"]

_DICE_BLOCK = 128
_MAX_PLIES = 20_000
#: ``--parallel`` of a rounds backend when not given: games per round (4 tasks of 32).
DEFAULT_ROUND_GAMES = 128
DEFAULT_TASK_GAMES = 32
DEFAULT_LOCKSTEP = 16
#: Games the learner replays in lockstep (the online trainer's default ``--parallel``, so that
#: ``--alpha`` means the same step).
DEFAULT_LEARNER_GAMES = 32


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
def play_task(after: TableNetEvaluator, seed: int, first_game: int, n_games: int, lockstep: int | None = None) -> dict:
    """Play games ``first_game .. first_game+n_games-1`` to the end, greedily at 0-ply with
    ``after`` (the round's frozen weights), and return their plays. ``lockstep`` games are
    played at once (None: all); a finished game's slot takes the next game of the task, in
    id order.

    ``after`` must be a :class:`bgrl.evaluation.table.TableNetEvaluator` built with
    ``small_batch=0`` and refreshed after the weights were last set. Returns a dict of numpy
    arrays: ``chosen`` int8 (plies, 26), the after-state chosen at every ply, game by game in
    id order, ply by ply; ``lengths`` int64 (n_games,) (plies of each game); ``results`` int8
    (n_games,) (points won by the side that moved last); ``plies`` (int) and ``positions``
    (int, after-states valued). Deterministic: a function of the weights, the ids and
    ``seed`` only.
    """
    n = n_games
    width = n if lockstep is None else max(1, min(int(lockstep), n))
    rngs = [np.random.default_rng([seed, first_game + i]) for i in range(n)]
    dice_blocks = [random_rolls(r, _DICE_BLOCK) for r in rngs]
    boards = np.repeat(START_BOARD[None], width, axis=0)
    active = np.arange(width)  # task-local game index of each lockstep slot
    waiting = width  # next game to start
    plies = np.zeros(n, dtype=np.int64)
    results = np.zeros(n, dtype=np.int8)
    played, owners, at = [], [], []  # per ply: chosen after-states, their games, their ply numbers
    positions = 0
    while active.size:
        m = active.size
        dice = np.empty((m, 2), dtype=np.int8)
        for j, g in enumerate(active):
            p = plies[g]
            if p >= dice_blocks[g].shape[0]:
                dice_blocks[g] = np.concatenate([dice_blocks[g], random_rolls(rngs[g], _DICE_BLOCK)])
            dice[j] = dice_blocks[g][p]
        aft = generate(boards, dice, validate=False)
        ab = aft.boards
        positions += ab.shape[0]
        best = group_argmax(equity(after(ab)), aft.offsets)
        chosen = ab[best]
        played.append(chosen)
        owners.append(active)
        at.append(plies[active])
        chosen_results = game_results(chosen)
        over = chosen_results != 0
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
    order = np.lexsort((np.concatenate(at), np.concatenate(owners)))
    return {
        "chosen": np.ascontiguousarray(np.concatenate(played)[order]),
        "results": results,
        "lengths": plies,
        "plies": int(plies.sum()),
        "positions": int(positions),
    }


class TaskWorker:
    """Plays tasks for one process (the local backend, or inside one Ray actor).

    ``run(weights, round_id, first_game, n_games, lockstep)``: ``weights`` a dict of numpy
    arrays (:func:`weights_to_numpy`); the weights are loaded once per ``round_id`` (a key
    that names one set of weights: the trainer makes a new one for every round it submits). Returns
    :func:`play_task`'s dict. ``lam`` is kept for the call signature: actors only play, the
    learner applies lambda.
    """

    def __init__(self, encoder: str, hidden: int, lam: float | None, seed: int, bearoff: bool):
        torch.set_num_threads(1)
        self.encoder, self.seed = encoder, seed
        self.net = TDNet(num_features(encoder), hidden)
        self.exact = None
        if bearoff:
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

    def run(self, weights: dict, round_id, first_game: int, n_games: int, lockstep: int | None = None) -> dict:
        self.set_weights(weights, round_id)
        return play_task(self.after, self.seed, first_game, n_games, lockstep)


class LocalRunner:
    """Plays a round's tasks one after the other in this process (``--backend local-rounds``)."""

    name = "local-rounds"

    def __init__(self, encoder: str, hidden: int, lam: float | None, seed: int, bearoff: bool):
        self.encoder, self.bearoff, self.actors_count = encoder, bearoff, 1
        self.worker = TaskWorker(encoder, hidden, lam, seed, bearoff)

    def run_round(self, weights: dict, round_id, tasks: list[tuple[int, int]], lockstep: int | None = None) -> list[dict]:
        return [self.worker.run(weights, round_id, g, n, lockstep) for g, n in tasks]

    def submit(self, weights: dict, round_id, tasks: list[tuple[int, int]], lockstep: int | None = None):
        """Start playing a round (here: nothing happens until :meth:`collect`; ``weights`` must
        not change in between, :func:`weights_to_numpy` copies)."""
        return (weights, round_id, tasks, lockstep)

    def collect(self, handle) -> list[dict]:
        return self.run_round(*handle)

    def close(self):
        pass


class ReplayLearner(TDLambda):
    """The learner's half: :class:`bgrl.training.td.TDLambda`'s online update over recorded
    games instead of games it plays itself (the dice generator is unused).

    :meth:`replay` learns from one round's games (:func:`play_task`'s ``chosen`` and
    ``lengths``, all tasks joined in game-id order): ``n_games`` (G) slots in lockstep, each
    ply valued with the current weights, the TD(lambda) update after every ply, a finished
    game's slot taking the next game; slots left without a game at the round's end are idle
    (valued, not learned). The traces start empty each round: every game ends within it.
    """

    def __init__(self, net: TDNet, encoder: str, n_games: int, alpha: float, lam: float, exact: Callable | None = None,
                 kernel: bool | None = None):
        super().__init__(net, encoder, n_games, alpha, lam, np.random.default_rng(0), exact=exact, kernel=kernel)

        # the targets: a few after-states a ply, valued straight from the weights (no table to rebuild after each update)
        self.targets = NetEvaluator(net, encoder, exact=exact is not None)

    @torch.no_grad()
    def replay(self, chosen: np.ndarray, lengths: np.ndarray, results: np.ndarray | None = None) -> dict:
        """Learn from the games whose plays are ``chosen`` (int8 (plies, 26), game after game)
        with ``lengths`` (plies a game). Returns ``delta`` (mean squared TD error over the
        steps) and ``steps``. Raises ValueError for plays that are not whole games (a game
        must end exactly at its last ply, with ``results`` when given)."""
        lengths = np.asarray(lengths, dtype=np.int64)
        chosen = np.asarray(chosen)
        n = lengths.shape[0]
        if chosen.ndim != 2 or chosen.shape[1] != 26 or chosen.dtype != np.int8 or int(lengths.sum()) != chosen.shape[0] \
                or (n and int(lengths.min()) < 1):
            raise ValueError(f"the round's plays do not fit their games: {chosen.shape} {chosen.dtype} plays for "
                             f"lengths summing to {int(lengths.sum())}")
        ends = np.cumsum(lengths)
        starts = ends - lengths
        res = game_results(chosen)
        last = np.zeros(chosen.shape[0], dtype=bool)
        last[ends - 1] = True
        if (res[~last] != 0).any() or (res[last] == 0).any() or (results is not None and not np.array_equal(res[last], results)):
            raise ValueError("the round's plays are not whole games: a game must end exactly at its last ply")
        G = self.G
        self._n, self.t = 0, 0  # fresh traces: every game of the previous round has ended
        slot = np.full(G, -1, dtype=np.int64)  # game index of each slot (-1: idle)
        ply = np.zeros(G, dtype=np.int64)
        boards = np.repeat(START_BOARD[None], G, axis=0)
        k = min(G, n)
        slot[:k] = np.arange(k)
        nxt_game = k
        d_sum, steps = 0.0, 0
        while True:
            act = np.flatnonzero(slot >= 0)
            if act.size == 0:
                break
            idle = slot < 0
            y, _ = self._observe(boards, idle if idle.any() else None)
            played = chosen[starts[slot[act]] + ply[act]]
            target = torch.from_numpy(self.targets(played).astype(np.float32))
            delta = torch.zeros_like(y)
            delta[torch.from_numpy(act)] = target - y[torch.from_numpy(act)]  # mover's frame
            d_sum += float((delta[torch.from_numpy(act)] ** 2).mean())
            self._update(delta)
            ply[act] += 1
            done = ply[act] == lengths[slot[act]]
            nb = -played[:, ::-1]
            boards[act] = nb
            if done.any():
                fin = act[done]
                over = np.zeros(G, dtype=bool)
                over[fin] = True
                m = self._n
                self._alive[:m] &= ~over[self._owner[:m]]
                for s in fin:  # in slot order: the next games in id order
                    if nxt_game < n:
                        slot[s], ply[s] = nxt_game, 0
                        nxt_game += 1
                    else:
                        slot[s] = -1
                    boards[s] = START_BOARD
            self.t += 1
            steps += 1
        return {"delta": d_sum / max(steps, 1), "steps": steps}


class RoundsTrainer:
    """The learner of the synchronous-rounds algorithm (module docstring), with the
    interface :func:`bgrl.training.loop.train` drives (``step``, ``alpha``,
    ``state_dict``, ``load_state_dict``).

    ``runner`` plays a round's tasks and returns their dicts in task order
    (:class:`LocalRunner` or :class:`bgrl.training.ray_backend.RayRunner`).
    One :meth:`step` plays one round of ``round_games`` games and learns from them.
    ``task_games`` (games per task) and ``lockstep`` (games played at once within a task)
    None: :data:`DEFAULT_TASK_GAMES` / :data:`DEFAULT_LOCKSTEP`, or on resume the run's own
    values (they fix the floats, so they cannot change within a run). ``encoder`` and
    ``exact`` (the learner's; None: the runner's encoder and bear-off setting) and
    ``learner_games`` (:data:`DEFAULT_LEARNER_GAMES`) are those of :class:`ReplayLearner`.
    """

    def __init__(self, net: TDNet, round_games: int, task_games: int | None, alpha: float, lam: float, seed: int, runner,
                 lockstep: int | None = None, *, encoder: str | None = None, exact: Callable | None | bool = True,
                 learner_games: int | None = None):
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
        self.lam = lam
        self.seed = seed
        self.runner = runner
        encoder = encoder if encoder is not None else getattr(runner, "encoder")
        if exact is True:  # the runner's setting
            exact = None
            if getattr(runner, "bearoff", True):
                from bgrl.evaluation.exact import exact_probs as exact
        self.learner_games = DEFAULT_LEARNER_GAMES if learner_games is None else int(learner_games)
        if self.learner_games < 1:
            raise ValueError(f"the learner's lockstep games must be >= 1, got {learner_games}")
        self.learner = ReplayLearner(net, encoder, self.learner_games, alpha, lam, exact=exact or None)
        self.next_game = 0  # global id of the next round's first game
        self.rounds = 0
        self.positions_evaluated = 0
        self.play_weights: dict | None = None  # the weights round `rounds` is played with (None: the current ones)
        self._pending = None  # round `rounds`, handed to the runner

    @property
    def alpha(self) -> float:
        return self.learner.alpha

    @alpha.setter
    def alpha(self, value: float):
        self.learner.alpha = value

    def _submit(self, round_no: int, weights: dict):
        import uuid

        tasks = split_round(self.next_game + (round_no - self.rounds) * self.R, self.R, self.task_games)
        key = f"{uuid.uuid4().hex}:{round_no}"  # names these weights on the actors (their cache)
        submit = getattr(self.runner, "submit", None)
        if submit is None:  # a runner without submit/collect: played when collected
            return ("run", (weights, key, tasks, self.lockstep)), tasks
        return ("handle", submit(weights, key, tasks, self.lockstep)), tasks

    def _collect(self, pending) -> list[dict]:
        (kind, h), tasks = pending
        outs = self.runner.run_round(*h) if kind == "run" else self.runner.collect(h)
        if len(outs) != len(tasks):
            raise RuntimeError(f"the runner returned {len(outs)} results for {len(tasks)} tasks")
        for (g, n), o in zip(tasks, outs):
            if np.shape(o.get("lengths")) != (n,) or np.shape(o.get("results")) != (n,):
                raise RuntimeError(f"the task of games {g}..{g + n - 1} returned results for another number of games")
        return outs

    @torch.no_grad()
    def step(self) -> dict:
        """Learn from one round. Round k is played with the weights learned through round
        k - 2 (the initial weights for rounds 0 and 1): the next round is handed to the runner
        before this one is learned, so actors play while the learner learns. Returns
        ``finished`` (int8 results in game-id order), ``lengths``, ``delta`` (mean squared TD
        error over the learner's steps) and ``plies``."""
        if self._pending is None:
            if self.play_weights is None:
                self.play_weights = weights_to_numpy(self.net)
            self._pending = self._submit(self.rounds, self.play_weights)
        outs = self._collect(self._pending)
        self._pending = None
        self.play_weights = weights_to_numpy(self.net)  # the weights of round `rounds + 1`
        self._pending = self._submit(self.rounds + 1, self.play_weights)
        chosen = np.concatenate([np.asarray(o["chosen"]) for o in outs])
        lengths = np.concatenate([np.asarray(o["lengths"], dtype=np.int64) for o in outs])
        results = np.concatenate([np.asarray(o["results"]) for o in outs])
        learned = self.learner.replay(chosen, lengths, results)
        self.next_game += self.R
        self.rounds += 1
        self.positions_evaluated += sum(int(o.get("positions", 0)) for o in outs)
        return {"finished": results, "lengths": lengths, "delta": learned["delta"], "plies": int(lengths.sum())}

    def state_dict(self) -> dict:
        """The run's rounds state: counters, the weights the next round is played with, and
        the backend (``--backend`` and ``--actors`` of the process that wrote it), so that
        ``bgrl train --resume RUN`` picks them again."""
        out = {"algorithm": "rounds", "version": 2, "next_game": self.next_game, "rounds": self.rounds,
               "round_games": self.R, "task_games": self.task_games, "lockstep": self.lockstep,
               "learner_games": self.learner_games, "backend": getattr(self.runner, "name", "local-rounds"),
               "actors": int(getattr(self.runner, "actors_count", 1))}
        if self.play_weights is not None:
            out["play_weights"] = {k: torch.from_numpy(v.copy()) for k, v in self.play_weights.items()}
        return out

    def load_state_dict(self, s: dict):
        """Restore :meth:`state_dict`. Raises ValueError for a state of another algorithm.
        A version-1 state (the frozen-weights sum before issue 42) continues with this
        algorithm from its next round, played with the current weights."""
        if not isinstance(s, dict) or s.get("algorithm") != "rounds":
            raise ValueError("the checkpoint's trainer state is not that of the rounds trainer")
        try:
            self.next_game = int(s["next_game"])
            self.rounds = int(s["rounds"])
            task = int(s["task_games"])
            lock = int(s["lockstep"])
            learner_games = int(s.get("learner_games", self.learner_games))
            pw = s.get("play_weights")
            play = None
            if pw is not None:
                shapes = {k: tuple(v.shape) for k, v in self.net.state_dict().items()}
                play = {k: np.ascontiguousarray(pw[k].numpy(), dtype=np.float32) for k in shapes}
                if any(play[k].shape != shapes[k] or not np.isfinite(play[k]).all() for k in shapes):
                    raise ValueError("its next round's weights do not fit this network")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the rounds trainer state is malformed ({exc})") from None
        self.play_weights, self._pending = play, None
        if lock != self.lockstep and not self._lock_given:
            self.lockstep = lock
        elif lock != self.lockstep:
            raise ValueError(f"the run was trained with --lockstep {lock}; it cannot change on --resume (got {self.lockstep})")
        if task != self.task_games and not self._task_given:
            self.task_games = task  # the run's own value
        elif task != self.task_games:
            raise ValueError(f"the run was trained with --task-games {task}; it cannot change on --resume (got {self.task_games})")
        if learner_games != self.learner_games:
            if learner_games < 1:
                raise ValueError(f"the rounds trainer state is malformed (learner_games {learner_games})")
            old = self.learner
            self.learner_games = learner_games
            self.learner = ReplayLearner(self.net, old.encoder, learner_games, old.alpha, old.lam, exact=old.exact)


def recorded_backend(td_state) -> tuple[str, int] | None:
    """``(backend, actors)`` recorded in a run checkpoint's trainer state (``trainer.td``):
    ``("local", 1)`` for the online trainer, ``("local-rounds", 1)`` or ``("ray", N)`` for a
    rounds run (``local-rounds`` for a run from before the backend was recorded); None when
    ``td_state`` is not a trainer state."""
    if not isinstance(td_state, dict):
        return None
    if td_state.get("algorithm") != "rounds":
        return ("local", 1)
    backend = td_state.get("backend", "local-rounds")
    if backend not in ("local-rounds", "ray"):
        backend = "local-rounds"
    try:
        actors = max(1, int(td_state.get("actors", 1)))
    except (TypeError, ValueError):
        actors = 1
    return backend, actors
