"""Deprecated module path: use ``bgrl.arena.duel`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.arena.duel", globals())
