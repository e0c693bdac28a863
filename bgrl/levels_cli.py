"""Deprecated module path: use ``bgrl.cli.levels`` (this re-export goes after one release)."""

from bgrl._deprecated import reexport

reexport(__name__, "bgrl.cli.levels", globals(), also=('bgrl.cli._table', 'bgrl.cli.hint'))
