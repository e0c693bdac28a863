"""Deprecated module path: use ``bgrl._resources`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl._resources", globals())
