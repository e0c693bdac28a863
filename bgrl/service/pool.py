"""The engine's worker processes: ``pool_workers`` processes (spawned), each loading every
level once and answering pickled batches of typed jobs (:meth:`bgrl.service.engine.Engine.run_batch`)
on its own pipe. :class:`bgrl.service.limiter.Limiter` drives them from the event loop.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import time

from bgrl.service.stopping import Cancelled, stop_when

__all__ = ["ProcessWorker", "ProcessPool", "run_until", "one_torch_thread", "settle_heap"]


class ProcessWorker:
    """One engine worker process and the pipe the server talks to it on (no manager
    thread: the event loop writes a pickled batch and reads the pickled answers when the
    pipe is readable, so no second thread of the server competes for the GIL)."""

    def __init__(self, ctx, factory):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child, factory), daemon=True, name="bgrl-engine")
        self.proc.start()
        child.close()
        self.ready = False
        self.failed: str | None = None
        self.job = None  # (live jobs, t0) while a batch runs
        self.buf = bytearray()  # bytes read from the pipe, not yet a whole message

    def send(self, data: bytes) -> None:
        """One message to the worker (the event loop made the pipe non-blocking: a batch
        larger than the socket's buffer is written with it blocking)."""
        fd = self.conn.fileno()
        os.set_blocking(fd, True)
        try:
            self.conn.send_bytes(data)
        finally:
            os.set_blocking(fd, False)

    @property
    def pid(self):
        return self.proc.pid

    def kill(self) -> None:
        try:
            self.conn.close()
        except OSError:  # pragma: no cover
            pass
        if self.proc.is_alive():
            self.proc.terminate()


class ProcessPool:
    """``pool_workers`` engine worker processes (spawned, each loading every level once),
    each with its own pipe; :class:`bgrl.service.limiter.Limiter` drives them from the event loop.
    ``_processes`` maps pid -> ``multiprocessing.Process`` (as ProcessPoolExecutor's)."""

    def __init__(self, n: int, factory):
        self.ctx = multiprocessing.get_context("spawn")
        self.factory = factory
        self.workers = [ProcessWorker(self.ctx, factory) for _ in range(n)]

    @property
    def _processes(self) -> dict:
        return {w.pid: w.proc for w in self.workers}

    def replace(self, w: ProcessWorker) -> ProcessWorker:
        w.kill()
        new = ProcessWorker(self.ctx, self.factory)
        self.workers[self.workers.index(w)] = new
        return new

    def shutdown(self) -> None:
        for w in self.workers:
            w.kill()
        for w in self.workers:
            w.proc.join(timeout=5)
            if w.proc.is_alive():  # pragma: no cover
                w.proc.kill()


def _worker_main(conn, factory) -> None:
    """Worker process: SIGINT ignored, one torch thread, every level loaded once; then
    answer pickled batches (:meth:`bgrl.service.engine.Engine.run_batch`) on ``conn`` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_torch_thread()
    try:
        engine = factory()
    except BaseException as exc:  # reported by the server's start-up
        conn.send_bytes(pickle.dumps(("failed", f"{type(exc).__name__}: {exc}")))
        return
    settle_heap()  # after the levels are loaded: no long collections inside requests
    conn.send_bytes(pickle.dumps(("ready", os.getpid())))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            jobs, remaining = pickle.loads(data)
            out = ("ok", run_until(engine, jobs, time.monotonic() + remaining))
            payload = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Cancelled:  # past the deadline of every call in it: they were answered 504
            payload = pickle.dumps(("cancelled", None))
        except BaseException as exc:  # a bug: answered as such (500), the worker lives on
            payload = pickle.dumps(("error", RuntimeError(f"engine batch failed: {type(exc).__name__}: {exc}")))
        conn.send_bytes(payload)


def run_until(engine, jobs, deadline: float) -> list:
    """``engine.run_batch(jobs)``, stopped (:class:`Cancelled`) at its next network call
    once ``time.monotonic()`` passes ``deadline`` (:func:`bgrl.service.stopping.stop_when`)."""
    with stop_when(deadline=deadline):
        return engine.run_batch(jobs)



def settle_heap() -> None:
    """Once everything is loaded: one full garbage collection, then ``gc.freeze()``.

    A process holding torch, numba and the levels has about 280,000 objects that the cyclic
    collector tracks; each of its full (generation-2) collections walks them all, about
    120 ms of CPU, inside whichever request is allocating when it comes
    (``python scripts/bench/bench_gc_pause.py``). Frozen objects are left out of every later
    collection, so the collections that remain walk only what requests make. The frozen
    objects are the loaded modules and networks, which live as long as the process anyway.
    """
    gc.collect()
    gc.freeze()


def one_torch_thread() -> None:
    """One torch thread in this thread's process (a worker process, a pool thread): the
    workers, not torch's own threads, use the cores."""
    try:
        import torch

        torch.set_num_threads(1)
    except Exception:  # pragma: no cover - torch is a core dependency
        pass
