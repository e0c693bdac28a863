"""Deprecated module path: use ``bgrl.records.record`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.records.record", globals())
