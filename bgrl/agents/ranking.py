"""Deprecated module path: the shared ranks moved to ``bgrl.agents.hints`` (the text cells
``VALUE_HEADER``, ``value_cells``, ``vs_best`` to ``bgrl.cli._table``); this re-export goes after one release."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.agents.hints", globals())
