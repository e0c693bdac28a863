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


def reexport(old: str, new: str, namespace: dict, also: tuple[str, ...] = ()) -> None:
    """Warn that ``old`` moved to ``new`` and copy ``new``'s names into ``namespace``.

    Parameters
    ----------
    old, new : str
        Dotted module paths.
    namespace : dict
        The old module's ``globals()``; every name of the new module that is not a dunder
        is copied into it (private ones too, so old code keeps running).
    also : tuple of str
        Modules that received some of the old module's public names when it was split (for
        ``bgrl.model``, ``bgrl.evaluation.probabilities``); their public names are copied too.
    """
    MOVED[old] = new
    warnings.warn(f"{old} is deprecated: import {new} instead", DeprecationWarning, stacklevel=3)
    module = importlib.import_module(new)
    namespace.update({k: v for k, v in vars(module).items() if not (k.startswith("__") and k.endswith("__"))})
    names = list(getattr(module, "__all__", [k for k in vars(module) if not k.startswith("_")]))
    for extra in also:
        other = importlib.import_module(extra)
        public = list(getattr(other, "__all__", [k for k in vars(other) if not k.startswith("_")]))
        namespace.update({k: getattr(other, k) for k in public if k not in namespace})
        names += [k for k in public if k not in names]
    namespace["__all__"] = names
    namespace["__doc__"] = f"Deprecated: moved to {new}.\n\n" + (module.__doc__ or "")
