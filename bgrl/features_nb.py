"""Deprecated module path: use ``bgrl.evaluation.features_nb`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.features_nb", globals())
