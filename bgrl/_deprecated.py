"""Old module paths from before the capability layout, kept for one release.

Each old module (``bgrl.board``, ``bgrl.levels``, ...) is a three-line file that calls
:func:`reexport`: importing it warns with a ``DeprecationWarning`` naming the new path and
copies the new module's names, so ``from bgrl.board import Position`` keeps working.
The map of old to new paths is :data:`MOVED`; ``docs/architecture.md`` has the table.
"""

from __future__ import annotations

import importlib
import warnings

__all__ = ["MOVED", "reexport"]

#: old module path -> new module path
MOVED: dict[str, str] = {}


def reexport(old: str, new: str, namespace: dict) -> None:
    """Warn that ``old`` moved to ``new`` and copy ``new``'s names into ``namespace``.

    Parameters
    ----------
    old, new : str
        Dotted module paths.
    namespace : dict
        The old module's ``globals()``; every name of the new module that is not a dunder
        is copied into it (private ones too, so old code keeps running).
    """
    MOVED[old] = new
    warnings.warn(f"{old} is deprecated: import {new} instead", DeprecationWarning, stacklevel=3)
    module = importlib.import_module(new)
    namespace.update({k: v for k, v in vars(module).items() if not (k.startswith("__") and k.endswith("__"))})
    namespace["__all__"] = list(getattr(module, "__all__", [k for k in vars(module) if not k.startswith("_")]))
    namespace["__doc__"] = f"Deprecated: moved to {new}.\n\n" + (module.__doc__ or "")
