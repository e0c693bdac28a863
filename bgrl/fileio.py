"""Deprecated module path: use ``bgrl._fileio`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl._fileio", globals())
