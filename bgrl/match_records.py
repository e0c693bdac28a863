"""Deprecated module path: use ``bgrl.records.match_records`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.records.match_records", globals())
