"""Deprecated module path: use ``bgrl.service.ubgi`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.service.ubgi", globals())
