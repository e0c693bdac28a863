"""Deprecated module path: use ``bgrl.arena.benchmark`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.arena.benchmark", globals(), also=('bgrl.cli.benchmark',))
