"""Deprecated module path: use ``bgrl.evaluation.bearoff`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.bearoff", globals())
