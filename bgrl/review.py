"""Deprecated module path: use ``bgrl.records.review`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.records.review", globals())
