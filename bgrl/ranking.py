"""Deprecated module path: use ``bgrl.agents.ranking`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.agents.ranking", globals())
