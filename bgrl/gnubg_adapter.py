"""Deprecated module path: use ``bgrl.gnubg.adapter`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.gnubg.adapter", globals())
