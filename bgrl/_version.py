"""The package version (one place; nothing imports the package face for it)."""

__version__ = "0.1.0"
