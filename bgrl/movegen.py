"""Deprecated module path: use ``bgrl.rules.movegen`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.rules.movegen", globals(), also=('bgrl.rules.dice',))
