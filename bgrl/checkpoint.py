"""Deprecated module path: use ``bgrl.evaluation.networks`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.networks", globals())
