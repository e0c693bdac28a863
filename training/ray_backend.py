"""Ray actors for the synchronous-rounds trainer (``bgrl train --backend ray``), and
:func:`rounds_learner_factory`, the choice between them and the local runner.

Needs the optional extra ``bgrl[ray]`` (Ray core, https://docs.ray.io). Each actor is a
:class:`bgrl.training.rounds.TaskWorker` declared with ``num_cpus=1`` and one torch
thread; the learner puts each round's weights into the object store once (a dict of
numpy arrays: plain data, no code) and hands out the round's tasks (fixed runs of game
ids, :func:`bgrl.training.rounds.split_round`) to idle actors. An actor returns the plays
of its games (the chosen after-states, 26 bytes a ply); the learner replays the round's
games in game-id order (:class:`bgrl.training.rounds.ReplayLearner`), so the weights do
not depend on the number of actors or on which actor played which task. A round is handed
out (:meth:`RayRunner.submit`, a background thread of the learner process) before the
previous one is learned, so the actors play while the learner learns.

Faults: an actor that dies (its process killed, its node lost) is restarted by Ray
(``max_restarts=-1``) and every task it had not returned is played again from the
games' seeds; a task's result is applied once, when it arrives, so nothing is lost or
counted twice. A killed learner is resumed from its last checkpoint (``--resume``).

Mixed clusters: torch picks its CPU kernels (AVX2, AVX-512, ...) per machine, and they
round differently, which breaks bit-for-bit determinism. When the learner runs with
``ATEN_CPU_CAPABILITY`` set (e.g. ``avx2``), the actors get the same value through their
``runtime_env``.
"""

from __future__ import annotations

import os
import time

__all__ = ["RayRunner", "ray_available", "RAY_MISSING", "rounds_learner_factory"]

from bgrl._extras import missing_extra
from bgrl.training.rounds import LocalRunner, RoundsTrainer, TaskWorker

RAY_MISSING = missing_extra("ray", "--backend ray")


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _actor_class(ray):
    @ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0)
    class RoundActor:
        def __init__(self, encoder, hidden, lam, seed, bearoff):
            os.environ.setdefault("OMP_NUM_THREADS", "1")
            self.worker = TaskWorker(encoder, hidden, lam, seed, bearoff)

        def run(self, weights, round_id, first_game, n_games, lockstep=None):
            return self.worker.run(weights, round_id, first_game, n_games, lockstep)

        def pid(self):
            return os.getpid()

        def cpu_seconds(self):
            return time.process_time()

        def node(self):
            return ray.get_runtime_context().get_node_id()

    return RoundActor


class RayRunner:
    """Plays each round's tasks on ``actors`` Ray actors.

    ``address``: None starts a local Ray instance (``ray.init()`` with this machine's
    CPUs); ``"auto"`` or ``"HOST:PORT"`` joins a running cluster (``ray start --head``).
    ``init_kwargs`` are passed to ``ray.init`` when this runner starts Ray itself (tests
    use ``num_cpus=2`` and a small object store). ``replayed_tasks`` counts tasks played
    again after an actor died; ``after_submit`` (tests) is called with the runner once a
    round's first tasks are in flight. ``handles``: use these actors (of another
    RayRunner with the same settings) instead of starting new ones; ``close`` then leaves them.
    """

    name = "ray"

    def __init__(self, encoder: str, hidden: int, lam: float, seed: int, bearoff: bool, actors: int = 2,
                 address: str | None = None, init_kwargs: dict | None = None, max_replays: int = 100, handles: list | None = None):
        try:
            import ray
        except ImportError:
            raise ValueError(RAY_MISSING) from None
        if actors < 1:
            raise ValueError(f"--actors must be >= 1, got {actors}")
        self.ray = ray
        self.encoder, self.bearoff, self.actors_count = encoder, bearoff, actors
        self._own = False
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            kw = {"include_dashboard": False, "log_to_driver": True}
            kw.update(init_kwargs or {})
            if address is not None:
                kw["address"] = address
            try:
                ray.init(**kw)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"--address {address}" if address is not None else "a local Ray instance"
                raise ValueError(f"{where}: cannot start or join Ray ({type(exc).__name__}: {exc}); expected a running "
                                 "cluster (`ray start --head`) for --address") from None
            self._own = True
        self._own_actors = handles is None
        if handles is not None:
            self.actors = list(handles)
            self.actors_count = len(self.actors)
        else:
            cls = _actor_class(ray)
            cap = os.environ.get("ATEN_CPU_CAPABILITY")
            if cap:  # the same torch CPU kernels everywhere (mixed clusters): same floats
                cls = cls.options(runtime_env={"env_vars": {"ATEN_CPU_CAPABILITY": cap}})
            self.actors = [cls.remote(encoder, hidden, lam, seed, bearoff) for _ in range(actors)]
        self.replayed_tasks = 0
        self._pending: list = []  # threads of submitted rounds
        self._probe_failures = 0
        self.max_replays = max_replays
        self.after_submit = None

    def run_round(self, weights: dict, round_id: int, tasks: list[tuple[int, int]], lockstep: int | None = None) -> list[dict]:
        ray = self.ray
        from ray.exceptions import RayActorError

        wref = ray.put(weights)
        results: list = [None] * len(tasks)
        todo = list(range(len(tasks)))
        todo.reverse()
        inflight: dict = {}  # ObjectRef -> (task index, actor index)
        idle = list(range(len(self.actors)))

        def submit():
            while idle and todo:
                a, i = idle.pop(0), todo.pop()
                g, n = tasks[i]
                inflight[self.actors[a].run.remote(wref, round_id, g, n, lockstep)] = (i, a)

        submit()
        if self.after_submit is not None:
            self.after_submit(self)
        probes: dict = {}  # ObjectRef of a liveness probe -> actor index (an actor being restarted)
        while inflight or probes:
            done, _ = ray.wait(list(inflight) + list(probes), num_returns=1)
            ref = done[0]
            if ref in probes:
                a = probes.pop(ref)
                try:
                    ray.get(ref)
                    idle.append(a)
                except RayActorError:  # still restarting
                    self._probe_failures += 1
                    if self._probe_failures > self.max_replays * 50:
                        raise RuntimeError("a Ray actor did not come back after dying; giving up") from None
                    time.sleep(0.2)
                    probes[self.actors[a].pid.remote()] = a
                submit()
                continue
            i, a = inflight.pop(ref)
            try:
                results[i] = ray.get(ref)
                idle.append(a)
            except RayActorError:
                # the actor died: Ray restarts it; its task is played again from the games' seeds
                self.replayed_tasks += 1
                if self.replayed_tasks > self.max_replays:
                    raise RuntimeError(f"Ray actors died {self.replayed_tasks} times; giving up") from None
                todo.append(i)
                probes[self.actors[a].pid.remote()] = a
            submit()
        return results

    def submit(self, weights: dict, round_id, tasks: list[tuple[int, int]], lockstep: int | None = None):
        """Start playing a round on the actors (:meth:`run_round` in a background thread, so
        the learner learns meanwhile); :meth:`collect` waits for its results."""
        import threading

        box: dict = {}

        def work():
            try:
                box["out"] = self.run_round(weights, round_id, tasks, lockstep)
            except BaseException as exc:  # handed to collect()
                box["exc"] = exc

        th = threading.Thread(target=work, name="bgrl-ray-round", daemon=True)
        th.start()
        self._pending.append(th)
        return th, box

    def collect(self, handle) -> list[dict]:
        th, box = handle
        th.join()
        if th in self._pending:
            self._pending.remove(th)
        if "exc" in box:
            raise box["exc"]
        return box["out"]

    def close(self):
        for th in self._pending:  # a round still being played (the one after the last learned)
            th.join(timeout=600)
        self._pending = []
        for a in self.actors if self._own_actors else []:
            try:
                self.ray.kill(a)
            except Exception:  # already gone
                pass
        self.actors = []
        if self._own:
            self.ray.shutdown()
            self._own = False


def rounds_learner_factory(backend: str, task_games: int | None = None, actors: int = 2, address: str | None = None,
                           ray_init: dict | None = None, lockstep: int | None = None):
    """``make_learner`` for :func:`bgrl.training.loop.train`: ``backend`` ``"local-rounds"``
    (this process) or ``"ray"`` (:class:`RayRunner`). Returns
    ``(make_learner, close)``; call ``close()`` when training ends (stops the actors).
    Raises ValueError for a bad setting (or Ray missing)."""
    if backend not in ("local-rounds", "ray"):
        raise ValueError(f"--backend must be local, local-rounds or ray, got {backend!r}")
    if task_games is not None and (not isinstance(task_games, int) or task_games < 1):
        raise ValueError(f"--task-games must be an integer >= 1, got {task_games!r}")
    if lockstep is not None and (not isinstance(lockstep, int) or lockstep < 1):
        raise ValueError(f"--lockstep must be an integer >= 1, got {lockstep!r}")
    if backend == "ray":
        if not ray_available():
            raise ValueError(RAY_MISSING)
        if actors < 1:
            raise ValueError(f"--actors must be >= 1, got {actors}")
    made = []

    def make(net, config, exact):
        if backend == "ray":
            runner = RayRunner(config.encoder, net.hidden, config.lam, config.seed, config.bearoff, actors=actors,
                               address=address, init_kwargs=ray_init)
        else:
            runner = LocalRunner(config.encoder, net.hidden, config.lam, config.seed, config.bearoff)
        made.append(runner)
        return RoundsTrainer(net, config.parallel, task_games, config.alpha, config.lam, config.seed, runner, lockstep,
                             encoder=config.encoder, exact=exact)

    def close():
        for r in made:
            r.close()

    return make, close
