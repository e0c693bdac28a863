"""Deprecated module path: use ``bgrl.evaluation.model`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.model", globals(), also=('bgrl.evaluation.probabilities',))
