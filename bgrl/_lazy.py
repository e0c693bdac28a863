"""Names of a package face that load their module on first use (PEP 562).

``import bgrl`` must load numpy only; names backed by torch (a network, a level) are
listed here and imported when first touched.
"""

from __future__ import annotations

import importlib

__all__ = ["lazy_names"]


def lazy_names(package: str, names: dict[str, str]):
    """Return ``(__getattr__, __dir__)`` for a package whose ``names`` map a public name to the
    module (absolute dotted path) that defines it.

    Raises
    ------
    AttributeError
        from ``__getattr__`` for a name that is neither listed nor a submodule.
    """

    def __getattr__(name: str):
        module = names.get(name)
        if module is None:
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        return getattr(importlib.import_module(module), name)

    def __dir__():
        return sorted(set(names) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
