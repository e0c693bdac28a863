"""Deprecated module path: use ``bgrl.rules.notation`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.rules.notation", globals(), also=('bgrl.rules.dice',))
