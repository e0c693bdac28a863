"""Shipped data files (networks, manifest, later the bear-off database), found with
:mod:`importlib.resources` so they work from a source checkout, an editable install and a
wheel alike.

The networks live in the repository's top-level ``checkpoints/`` folder, which the build
maps to the package ``bgrl.checkpoints`` (pyproject ``package-dir``) and ships as package
data.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["shipped_path", "shipped_checkpoint", "resolve_checkpoint"]


def shipped_path(name: str, package: str = "bgrl.checkpoints") -> Path:
    """Filesystem path of a shipped data file ``name`` inside ``package``.

    Returns a Path (which may not exist; callers check and raise their own error).
    Package data of a normal install is a real file, so the path stays valid after return.
    """
    try:
        root = resources.files(package)
    except ModuleNotFoundError:  # package data not installed at all
        return Path(__file__).resolve().parent / "_missing_" / name
    return Path(str(root.joinpath(name)))


def shipped_checkpoint(name: str = "default") -> Path:
    """Path of the shipped network ``checkpoints/<name>.pt`` (see ``checkpoints/manifest.json``)."""
    return shipped_path(f"{name}.pt")


def resolve_checkpoint(spec) -> Path:
    """Where a checkpoint named by the user lies.

    ``"default"`` is the shipped network; a run folder means its ``final.pt``, else its
    ``latest.pt``; a bare name of another shipped network (``checkpoints/<name>.pt``, listed
    in ``checkpoints/manifest.json``, e.g. ``"td198g"``) means that network when no file or
    folder of that name exists here; anything else is taken as a file path (checked by the
    loader).
    """
    if str(spec) == "default":
        return shipped_checkpoint("default")
    p = Path(spec)
    name = str(spec)
    if not p.exists() and name.replace("-", "").replace("_", "").isalnum() and shipped_checkpoint(name).is_file():
        return shipped_checkpoint(name)
    if p.is_dir():
        for name in ("final.pt", "latest.pt"):
            if (p / name).is_file():
                return p / name
    return p
