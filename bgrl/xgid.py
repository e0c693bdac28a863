"""Deprecated module path: use ``bgrl.rules.xgid`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.rules.xgid", globals())
