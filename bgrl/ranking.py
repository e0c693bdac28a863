"""Deprecated module path: shared ranks moved to ``bgrl.agents.hints``, the text cells to
``bgrl.cli._table`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.agents.hints", globals())
from bgrl.cli._table import VALUE_HEADER, value_cells  # noqa: E402  (the cells, once here too)

__all__ = [*__all__, "VALUE_HEADER", "value_cells"]  # noqa: F821  (set by reexport)
