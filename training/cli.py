"""Deprecated module path: use ``bgrl.cli.train`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.cli.train", globals())
