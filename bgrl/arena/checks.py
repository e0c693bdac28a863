"""Checks of what an agent's batched ``select`` returns, for every place the arena calls it.

``agent.select(after, rng)`` gets the after-states of B games at once
(:class:`bgrl.rules.movegen.AfterStates`: ``after.boards`` grouped by game, game ``i``'s rows
being ``after.offsets[i] .. after.offsets[i + 1] - 1``) and must return one *row index into
``after.boards``* per game: an integer array of shape ``(B,)`` with each index inside its own
game's slice. An index counted from 0 within each game (the convention of the environments'
actions) would silently play game 0's boards in the other games; an index out of range would end in
a raw ``IndexError``. :func:`check_choices` turns each of these into an
:class:`AgentChoiceError`: a ValueError of one line naming the agent, the game and the index,
which ``bgrl match``, ``bgrl rate`` and ``bgrl benchmark`` report with exit status 2.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AgentChoiceError", "check_choices", "checked_select"]


class AgentChoiceError(ValueError):
    """An agent's ``select`` answer outside the games' own after-states (one line)."""


_EXPECTED = "select must return one row index into after.boards per game (or decision), inside its own rows"


def check_choices(choice, after, name: str, games=None, what: str = "game") -> np.ndarray:
    """``choice`` (an agent's ``select`` answer for ``after``) checked; returns it as int64 (B,).

    name : the agent's name for the message; games : the number of each batch row in the
    caller's own numbering (default 0..B-1); what : ``"game"`` or ``"decision"``.
    Raises AgentChoiceError (a ValueError, one line) for a non-integer answer (floats, bools,
    None, strings), a wrong shape, or an index outside its game's rows, naming the first such
    game and the index, and saying when the answer looks like per-game indices.
    """
    offsets = np.asarray(after.offsets, dtype=np.int64)
    b = offsets.size - 1
    games = np.arange(b) if games is None else np.asarray(games)
    try:
        arr = np.asarray(choice)
    except Exception:  # noqa: BLE001 - anything an agent returns is reported, not raised
        arr = np.asarray(None)
    if arr.dtype.kind not in "iu":
        shown = f"{type(choice).__name__} {choice!r:.40}".replace("\n", " ")
        raise AgentChoiceError(f"agent {name!r} returned {shown} (dtype {arr.dtype}) for {b} {what}s; expected an "
                               f"integer array of shape ({b},): {_EXPECTED}")
    if arr.shape != (b,):
        raise AgentChoiceError(f"agent {name!r} returned an array of shape {arr.shape} for {b} {what}s; expected "
                               f"shape ({b},): {_EXPECTED}")
    k = arr.astype(np.int64)
    lo, hi = offsets[:-1], offsets[1:]
    bad = (k < lo) | (k >= hi)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        msg = (f"agent {name!r} chose index {int(k[i])} for {what} {int(games[i])}, outside that {what}'s after-states "
               f"(rows {int(lo[i])}..{int(hi[i]) - 1} of after.boards); {int(bad.sum())} of {b} {what}s had such an "
               f"index and none was played; {_EXPECTED}")
        if ((k >= 0) & (k < hi - lo)).all():
            msg += " (these look like per-game indices counted from 0: add after.offsets[:-1])"
        raise AgentChoiceError(msg)
    return k


def checked_select(agent, after, rng, name: str | None = None, games=None, what: str = "game") -> np.ndarray:
    """``agent.select(after, rng)`` checked by :func:`check_choices` (``name`` default: the
    agent's ``name`` attribute, else its type)."""
    label = name if name is not None else str(getattr(agent, "name", None) or type(agent).__name__)
    return check_choices(agent.select(after, rng), after, label, games, what)
