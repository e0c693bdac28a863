"""Deprecated module path: use ``bgrl.cli.serve`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.cli.serve", globals())
