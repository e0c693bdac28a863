"""Deprecated module path: use ``bgrl.cli.play`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.cli.play", globals(), also=())
