"""Echoing user input in an error message (standard library only; every layer may use it)."""

from __future__ import annotations

__all__ = ["clip"]


def clip(text, n: int = 60) -> str:
    """``str(text)`` cut to at most ``n`` characters, ending in ``...`` when cut.

    Used wherever an error echoes what a user typed or sent, so that a huge input never
    floods a terminal, a log line or a JSON error.
    """
    s = str(text)
    return s if len(s) <= n else s[: n - 3] + "..."
