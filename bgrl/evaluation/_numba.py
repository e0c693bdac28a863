"""numba for the compiled kernels: where their cache lives, imported once, after that is set.

Every compiled kernel of bgrl (``features_nb``, ``encoding_nb``, ``movegen_nb``, ``table_nb``, ``bearoff_nb``
and the trainer's :mod:`bgrl.training._kernels`) takes ``njit`` from here, so the cache folder is chosen before numba is first imported:

* numba's own default (the ``__pycache__`` folder beside this package's sources) when it can
  be written: a source checkout, an editable install, a user's own virtual environment;
* else ``numba-cache`` in the user's bgrl folder (``$BGRL_HOME``, else ``~/.bgrl``): a wheel
  installed in a read-only ``site-packages`` (a system Python, a container image) still
  compiles each kernel once, not at every start;
* a ``NUMBA_CACHE_DIR`` the user set is always kept.

Where no folder can be written, kernels compile at each start (``CACHE`` is False) instead
of numba refusing to decorate them.

``AVAILABLE`` is False when numba cannot be imported; callers then use their numpy twins.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["AVAILABLE", "CACHE", "CACHE_DIR", "njit", "cache_dir", "bgrl_home"]


def bgrl_home(env=None) -> Path:
    """The user's bgrl folder: ``$BGRL_HOME``, else ``~/.bgrl`` (not created here)."""
    env = os.environ if env is None else env
    home = env.get("BGRL_HOME")
    return Path(home).expanduser() if home else Path.home() / ".bgrl"


def _writable(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it (as numba
    checks its cache folders: ``os.access`` says yes to root on a read-only mount)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def cache_dir(source_dir: Path | None = None, env=None) -> tuple[str | None, bool]:
    """``(folder, cache)``: the folder to set as ``NUMBA_CACHE_DIR`` (None: leave numba's
    default, or the user's own setting) and whether kernels can be cached at all.

    source_dir : the folder of the kernels' sources (default: this package's); numba's default
    cache is its ``__pycache__``. env : the environment (default ``os.environ``).
    """
    env = os.environ if env is None else env
    if env.get("NUMBA_CACHE_DIR"):
        return None, True
    source_dir = Path(__file__).resolve().parent if source_dir is None else Path(source_dir)
    if _writable(source_dir / "__pycache__"):
        return None, True
    mine = bgrl_home(env) / "numba-cache"
    if _writable(mine):
        return str(mine), True
    return None, False


CACHE_DIR, CACHE = cache_dir()
if CACHE_DIR is not None:
    os.environ["NUMBA_CACHE_DIR"] = CACHE_DIR
    if "numba" in sys.modules:  # imported before us (a user's script): numba reads its config per kernel
        sys.modules["numba"].config.CACHE_DIR = CACHE_DIR

try:  # pragma: no cover - depends on the platform
    import numba as _nb

    AVAILABLE = True
except ImportError:  # pragma: no cover
    _nb = None
    AVAILABLE = False


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache`` set as chosen above (callers pass ``cache=True``)."""
    if kwargs.get("cache"):
        kwargs["cache"] = CACHE
    return _nb.njit(*args, **kwargs)
