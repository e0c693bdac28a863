"""Deprecated module path: use ``bgrl.agents.hints`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.agents.hints", globals())
