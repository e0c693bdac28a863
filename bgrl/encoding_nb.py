"""Deprecated module path: use ``bgrl.evaluation.encoding_nb`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.encoding_nb", globals())
