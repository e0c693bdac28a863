"""Deprecated module path: use ``bgrl.records.matfile`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.records.matfile", globals())
