"""Engine work that can be told to stop (deadlines, clients that leave).

Inside :func:`stop_when` (a deadline, a :class:`threading.Event`, or any check), every
network call the engine makes on that thread (each chunk of :class:`FixedChunkEvaluator`,
each call of an injected evaluator: :class:`StopPoints`) first calls :func:`stop_point`,
which raises :class:`Cancelled` once the work should stop. A search is made of many such
calls (a grandmaster hint: dozens), so it stops within one chunk's time (milliseconds) of
its deadline or its client's leaving. The engine wraps its networks in these
(:class:`bgrl.service.engine.Engine`); the limiter and the worker processes set the
conditions (:mod:`bgrl.service.limiter`, :mod:`bgrl.service.pool`).
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import numpy as np

__all__ = ["Cancelled", "stop_point", "stop_when", "FixedChunkEvaluator", "StopPoints"]


class Cancelled(BaseException):
    """Engine work stopped by :func:`stop_point`: past its deadline, or its client left.

    A BaseException (as :class:`asyncio.CancelledError`), so that no ``except Exception``
    or ``except ValueError`` on the way up (a record reader's, a review's) takes it for a
    failure of the work itself."""


_STOP = threading.local()


def stop_point() -> None:
    """Raise :class:`Cancelled` when the work on this thread has been told to stop
    (:func:`stop_when`); nothing otherwise (nor outside any :func:`stop_when`). Cheap: called
    before every network call of the engine."""
    check = getattr(_STOP, "check", None)
    if check is not None and check():
        raise Cancelled()


@contextmanager
def stop_when(check=None, *, deadline: float | None = None, event: threading.Event | None = None):
    """Within the block, engine work on this thread stops (:class:`Cancelled` from its next
    :func:`stop_point`) once ``check()`` is true, ``time.monotonic()`` passes ``deadline``,
    or ``event`` is set (any of those given). Nests: an outer condition still applies."""
    outer = getattr(_STOP, "check", None)
    conds = [c for c in (outer, check) if c is not None]
    if deadline is not None:
        conds.append(lambda t=float(deadline), now=time.monotonic: now() >= t)
    if event is not None:
        conds.append(event.is_set)
    _STOP.check = (lambda: any(c() for c in conds)) if len(conds) > 1 else (conds[0] if conds else None)
    try:
        yield
    finally:
        _STOP.check = outer


class FixedChunkEvaluator:
    """An evaluator that always calls the network on exactly ``rows`` after-states.

    A float32 network's value of one position can differ in its last bits with the size
    of the batch it is computed in (different kernels; :class:`bgrl.evaluation.table.TableNetEvaluator`
    also switches from numpy to torch above ``small_batch``). The service batches
    unrelated requests together, so it pads every call to a multiple of ``rows`` (copies
    of the first row) and evaluates chunk by chunk: each position's value is then the same
    whatever it is batched with, and a request's answer does not depend on the others.

    Parameters
    ----------
    evaluator : callable after-states int8 (M, 26) -> float (M, 5)
    rows : int, chunk size (default 256: above ``small_batch``, measured invariant with
        torch 2.13 on one thread: the same bits for any composition of the batch)

    Other attributes (``exact``, ...) are those of the wrapped evaluator.
    """

    def __init__(self, evaluator, rows: int = 256):
        self.inner = evaluator
        self.rows = int(rows)

    def __getattr__(self, name):
        if name == "inner":  # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __call__(self, after_states) -> np.ndarray:
        a = np.ascontiguousarray(after_states, dtype=np.int8).reshape(-1, 26)
        n, c = a.shape[0], self.rows
        if n == 0:
            return np.asarray(self.inner(a), dtype=np.float64).reshape(0, 5)
        pad = (-n) % c
        if pad:
            a = np.concatenate([a, np.repeat(a[:1], pad, axis=0)])
        parts = []
        for i in range(0, a.shape[0], c):
            stop_point()  # between chunks: work past its deadline stops here (stop_when)
            parts.append(np.asarray(self.inner(a[i:i + c]), dtype=np.float64))
        return np.concatenate(parts)[:n]


class StopPoints:
    """An injected evaluator with a :func:`stop_point` before each call (what
    :class:`FixedChunkEvaluator` does per chunk for the shipped networks). Other attributes
    (``exact``, ...) are those of the wrapped evaluator."""

    def __init__(self, evaluator):
        self.inner = evaluator

    def __getattr__(self, name):
        if name == "inner":  # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __call__(self, after_states):
        stop_point()
        return self.inner(after_states)
