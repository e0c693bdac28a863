"""Deprecated module path: use ``bgrl.rules.game`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.rules.game", globals(), also=('bgrl.rules.dice',))
