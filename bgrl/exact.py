"""Deprecated module path: use ``bgrl.evaluation.exact`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.exact", globals())
