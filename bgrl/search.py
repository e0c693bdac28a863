"""Deprecated module path: use ``bgrl.agents.search`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.agents.search", globals(), also=('bgrl.rules.dice',))
