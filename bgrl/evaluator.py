"""Deprecated module path: use ``bgrl.evaluation.evaluator`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.evaluation.evaluator", globals(), also=('bgrl.evaluation.probabilities',))
