"""Deprecated module path: use ``bgrl.evaluation.onechecker`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.onechecker", globals())
