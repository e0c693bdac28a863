"""The one way a missing optional extra is reported (issue 17 item 8).

bgrl's optional features come as pip extras (``pyproject.toml``,
``[project.optional-dependencies]``). Wherever one is missing the message has the same
shape, naming what needs it, the extra, the packages it brings and the pip command::

    bgrl serve needs the optional extra 'serve' (FastAPI, uvicorn, prometheus-client): pip install -e '.[serve]' in the bgrl checkout

:func:`missing_extra` builds that sentence; :func:`require` imports a module or raises
:class:`MissingExtraError` (an ImportError) with it. Standard library only, so any layer
may use it.
"""

from __future__ import annotations

import importlib

__all__ = ["EXTRAS", "MissingExtraError", "install_command", "missing_extra", "require"]

#: extra -> the packages it installs, in words (pyproject.toml's optional dependencies).
EXTRAS = {
    "serve": "FastAPI, uvicorn, prometheus-client",
    "gnubg": "GNU Backgammon's evaluator, PyPI gnubg-nn",
    "ray": "Ray",
    "pettingzoo": "PettingZoo",
    "load": "locust, httpx",
    "bench": "gnubg-nn, OpenSpiel, hypothesis",
    "docs": "MkDocs",
    "postgres": "psycopg 3 (a PostgreSQL store of games)",
}


class MissingExtraError(ImportError):
    """An optional extra is not installed; the message is :func:`missing_extra`'s."""


def install_command(extra: str) -> str:
    """The pip command that adds ``extra`` to a checkout install (README: ``pip install -e .``)."""
    if extra not in EXTRAS:
        raise KeyError(f"bgrl has no optional extra {extra!r}; expected one of {', '.join(EXTRAS)}")
    return f"pip install -e '.[{extra}]'"


def missing_extra(extra: str, what: str) -> str:
    """The sentence for a missing extra: ``"<what> needs the optional extra '<extra>'
    (<packages>): pip install -e '.[<extra>]' in the bgrl checkout"``. Raises KeyError for
    an extra bgrl does not have."""
    return f"{what} needs the optional extra '{extra}' ({EXTRAS[extra]}): {install_command(extra)} in the bgrl checkout"


def require(module: str, extra: str, what: str):
    """Import and return ``module``, or raise :class:`MissingExtraError` with
    :func:`missing_extra`'s sentence when it (or one of its dependencies) is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(missing_extra(extra, what)) from exc
