"""When the compiled (numba) one-position kernels run instead of their numpy twins.

The kernels (:mod:`bgrl.evaluation.movegen_nb`: the move generator of one position and of a
batch; :mod:`bgrl.evaluation.table_nb`: the table network's forward pass, which takes every
batch on the CPU, the table rows, the table build and the bags of non-zero rows;
:mod:`bgrl.evaluation.bearoff_nb`: the bear-off lookup of :func:`bgrl.evaluation.bearoff.exact_probs`)
give the same after-states and the same values as the numpy code (bit for bit, except the
forward pass: float32 rounding, and the bear-off lookup: within 1e-12, bit for bit as measured;
``tests/evaluation/test_compiled_*.py``, ``tests/evaluation/test_bearoff_nb.py``), so the choice is one of speed only. numba costs about 0.5 s
to import and 0.4 s more to load its first cached kernel (LLVM's start), which a one-shot
command (``bgrl hint`` on the numpy backend, ``bgrl moves``) never wins back, while a
process that plays or hints many times gains 0.1-0.3 ms a decision.

The first use on a fresh install compiles them (about 15 s of CPU, once: numba caches them,
see :mod:`bgrl.evaluation._numba` for where) and says so on the ``bgrl`` logger.

So, by default (``auto``), the kernels run once numba is imported anyway: a network read
with torch imports it (:mod:`bgrl.evaluation.table` computes the td198g features with a
kernel), as do ``bgrl match``, the service, the environments and training. The environment
variable ``BGRL_COMPILED`` overrides: ``1`` always (imports numba on first use), ``0`` never.
:func:`disabled` runs a block on the numpy code (to time or test it).

This module imports no numba itself.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["MODE", "wanted", "ensure", "active", "is_disabled", "disabled"]

#: ``BGRL_COMPILED`` as read at import: "auto" (default), "1" or "0".
MODE = {"1": "1", "0": "0"}.get(os.environ.get("BGRL_COMPILED", "").strip(), "auto")

_state = {"off": MODE == "0", "loaded": False}
_load_lock = threading.Lock()  # the first load runs once, however many threads ask at once
#: Loading the kernels for longer than this (seconds) means they were compiled, not read from
#: numba's cache: :func:`ensure` says so once (a warning on the ``bgrl`` logger).
COMPILE_NOTE_S = 2.0


def wanted() -> bool:
    """Whether the kernels should run now (see the module docstring); imports nothing."""
    if _state["off"]:
        return False
    if MODE == "1":
        import importlib.util

        return importlib.util.find_spec("numba") is not None
    return "numba" in sys.modules


def ensure(import_numba: bool = False) -> bool:
    """Load the one-position kernels where they are wanted (see the module docstring);
    return whether they run. Cheap after the first call: callers call it per decision.

    ``import_numba``: want them now even in ``auto`` mode, importing numba (unless
    ``BGRL_COMPILED=0``): for a one-shot command whose work outweighs numba's start-up
    (``bgrl hint --ply 3``). Evaluators made afterwards run the compiled forward pass.

    Loading :mod:`bgrl.evaluation.movegen_nb` routes :func:`bgrl.rules.movegen.generate`
    of one position through the compiled generator.
    """
    if _state["off"]:
        return False
    if _state["loaded"]:
        return True
    if import_numba and MODE != "0" and "numba" not in sys.modules:
        try:
            import numba  # noqa: F401
        except ImportError:  # pragma: no cover - numba missing or broken
            return False
    if not wanted():
        return False
    with _load_lock:
        if _state["loaded"]:  # another thread loaded them while this one waited
            return True
        start = time.perf_counter()
        try:
            from bgrl.evaluation import _numba, bearoff_nb, features_nb, movegen_nb, table_nb
        except ImportError:  # pragma: no cover - numba missing or broken
            return False
        if not movegen_nb.AVAILABLE:  # pragma: no cover
            return False
        movegen_nb.warm()
        table_nb.warm()
        bearoff_nb.warm()
        features_nb.both_sides(movegen_nb.START[None])
        spent = time.perf_counter() - start
        if spent > COMPILE_NOTE_S:  # a fresh install (or changed sources): compiled now, cached for later runs
            logging.getLogger("bgrl").warning("bgrl compiled its numba kernels in %.1f s, %s", spent, _cache_note(_numba))
        movegen_nb.register()
        _state["loaded"] = True
    return True


def _cache_note(numba_module) -> str:
    """Where the compiled kernels were cached, in words, for the first-compile note;
    ``numba_module`` is :mod:`bgrl.evaluation._numba` (its ``CACHE`` and ``CACHE_DIR``)."""
    if not numba_module.CACHE:
        return "and could not cache them (no folder can be written): every start compiles them again"
    where = (numba_module.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR")
             or "the __pycache__ folder beside bgrl/evaluation's sources")
    return f"once: they are cached in {where}"


def active() -> bool:
    """Whether the kernels run now (loaded and not :func:`disabled`); loads nothing."""
    return _state["loaded"] and not _state["off"]


def is_disabled() -> bool:
    """Whether the kernels are switched off (``BGRL_COMPILED=0`` or inside :func:`disabled`)."""
    return _state["off"]


@contextmanager
def disabled():
    """Run the block on the numpy code: the generator (one position and batches), the table rows
    and build, the small-batch forward pass and the bear-off lookup as they were before the kernels (not
    thread-safe: for benchmarks and tests)."""
    was = _state["off"]
    _state["off"] = True
    gen = sys.modules.get("bgrl.evaluation.movegen_nb")
    if gen is not None:
        gen.unregister()
    try:
        yield
    finally:
        _state["off"] = was
        if gen is not None and _state["loaded"] and not was:
            gen.register()
