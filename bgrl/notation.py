"""Play notation and the user-facing list of legal plays (numpy only).

Notation is in the mover's numbering, one checker move per die, as in ``13/10 10/5``,
``bar/22*`` (enter on the 22-point hitting a blot), ``6/off``; identical checker moves
are merged as ``8/5(2)``. Moves are listed from the highest source point down.

The parser also accepts a checker's moves chained (``13/10/5``), a direct span
(``13/5``, read as one checker moving from 13 to 5), ``25`` for the bar and ``0`` for off,
optional ``*`` marks, and ``(n)`` repeats. A parsed play is applied checker move by checker
move and accepted only when its final position is one of the legal after-states
(RULES.md: "A play is judged by its final position").

The hot path (training, matches) never builds notation: it works on after-states;
notation is rebuilt from (position, dice, after-state) here, at the edges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .board import MOVER_BAR, OPP_BAR, Position, _position_id, flip
from .movegen import generate, single_steps, validate_dice

__all__ = ["Play", "IllegalPlayError", "legal_plays", "notations", "format_moves", "parse_play", "parse_dice", "play_from_notation"]


class IllegalPlayError(ValueError):
    """A play that is malformed or not legal for the position and dice."""


@dataclass(frozen=True)
class Play:
    """One legal play.

    Attributes
    ----------
    notation : str      e.g. ``"13/10 10/5"``; ``""`` never occurs (a pass is no Play)
    position_id : str   gnubg Position ID of the result, the opponent on roll
    after_state : ndarray int8 (26,), mover's perspective right after the play
    moves : tuple of (src, dst, hit) checker moves, src 25 = bar, dst 0 = off
    """

    notation: str
    position_id: str
    after_state: np.ndarray = field(repr=False, compare=False)
    moves: tuple = field(repr=False, compare=False, default=())

    @property
    def position(self) -> Position:
        """The resulting position with the opponent on roll."""
        return Position(flip(self.after_state))


def _pt(p: int) -> str:
    if p == MOVER_BAR:
        return "bar"
    if p <= 0:
        return "off"
    return str(p)


def format_moves(moves) -> str:
    """Format checker moves ``[(src, dst, hit), ...]`` (dst <= 0 = off) as notation."""
    items = sorted(((int(s), max(int(d), 0), bool(h)) for s, d, h in moves), key=lambda m: (-m[0], -m[1]))
    out: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and items[j] == items[i]:
            j += 1
        s, d, h = items[i]
        txt = f"{_pt(s)}/{_pt(d)}{'*' if h else ''}"
        if j - i > 1:
            txt += f"({j - i})"
        out.append(txt)
        i = j
    return " ".join(out)


def _paths(board: np.ndarray, dice: tuple[int, int], n_moves: int) -> dict[bytes, tuple]:
    """Map each board reachable with ``n_moves`` checker moves (bytes) to one sequence of
    checker moves ``((src, dst, hit), ...)`` reaching it.

    Every die order is expanded with the batched :func:`bgrl.movegen.single_steps`,
    carrying the (source, destination, hit) history of each partial play as arrays; for
    doubles the moves go from the highest source down (as in the generator), so nothing
    is expanded twice. The higher-die-first order is tried first, so its path is kept.
    """
    d1, d2 = max(dice), min(dice)
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    found: dict[bytes, tuple] = {}
    for order in orders:
        frontier = board[None].astype(np.int8)
        hist = np.zeros((1, 0, 3), dtype=np.int16)
        max_src = np.full(1, 25, dtype=np.int16) if d1 == d2 else None
        for level, die in enumerate(order[:n_moves], start=1):
            new, origin, src, dst, hit = single_steps(frontier, np.full(frontier.shape[0], die, dtype=np.int8), max_src)
            if new.shape[0] == 0:
                break
            step = np.stack([src, dst, hit], axis=1).astype(np.int16)[:, None, :]
            hist = np.concatenate([hist[origin], step], axis=1)
            frontier = new
            if max_src is not None:
                max_src = src.astype(np.int16)
            if level == n_moves:
                for k in range(new.shape[0]):
                    found.setdefault(new[k].tobytes(), hist[k])
    return {key: tuple((int(s_), int(d_), bool(h_)) for s_, d_, h_ in h.tolist()) for key, h in found.items()}


def notations(board: np.ndarray, dice: tuple[int, int], after_states: np.ndarray, n_moves: int) -> list[str]:
    """Notation of each given legal after-state, without re-generating or checking them.

    board int8 (26,); after_states int8 (k, 26): legal plays of ``board`` with ``dice``
    that use ``n_moves`` checker moves (``AfterStates.dice_used``); 0 = a pass -> ``[""]``.
    """
    if n_moves == 0:
        return [""] * after_states.shape[0]
    paths = _paths(board, dice, n_moves)
    return [format_moves(paths[a.tobytes()]) for a in after_states]


def legal_plays(position, dice) -> list[Play]:
    """Every legal play for a position and roll, in canonical order.

    Parameters
    ----------
    position : Position or str (gnubg Position ID)
    dice : pair of ints 1..6 (order irrelevant)

    Returns
    -------
    list of :class:`Play`; empty when no die can be played (the turn passes).

    Raises
    ------
    ValueError / TypeError for a malformed position or dice.
    """
    pos = position if isinstance(position, Position) else Position.from_id(position)
    d = validate_dice(dice)
    mover_off, opp_off = pos.off
    if mover_off == 15 or opp_off == 15:
        raise ValueError(f"the game is over in position {pos.position_id}: one side has borne off all 15 checkers")
    aft = generate(pos.board[None], np.array([d], dtype=np.int8))
    if aft.dice_used[0] == 0:
        return []
    paths = _paths(pos.board, d, int(aft.dice_used[0]))
    plays = []
    for a in aft.group(0):
        moves = paths[a.tobytes()]  # the same lookup as notations()
        a = a.copy()
        a.setflags(write=False)
        plays.append(Play(format_moves(moves), _position_id(flip(a).tolist()), a, moves))
    return plays


_DICE_RE = re.compile(r"^\s*([1-6])\s*[-,\s]?\s*([1-6])\s*$")


def parse_dice(text) -> tuple[int, int]:
    """Parse a roll written ``53``, ``5-3``, ``5 3`` or ``5,3`` (or a pair of ints).

    Raises ValueError naming the expected form.
    """
    if isinstance(text, (tuple, list)):
        return validate_dice(text)
    if not isinstance(text, str):
        raise TypeError(f"dice must be a string like '53' or '5-3', got {type(text).__name__}")
    m = _DICE_RE.match(text)
    if not m:
        raise ValueError(f"dice must be two digits 1-6 written like '53', '5-3' or '5 3'; got {text!r}")
    return int(m.group(1)), int(m.group(2))


_TOKEN_RE = re.compile(r"^((?:bar|[0-9]{1,2})\*?)((?:/(?:off|[0-9]{1,2})\*?)+)(?:\(([0-9])\))?$", re.IGNORECASE)


def _parse_point(tok: str, is_source: bool) -> int:
    t = tok.rstrip("*").lower()
    if t == "bar":
        if not is_source:
            raise IllegalPlayError("'bar' can only be a starting point")
        return MOVER_BAR
    if t == "off":
        if is_source:
            raise IllegalPlayError("'off' can only be a destination")
        return 0
    p = int(t)
    if is_source and not 1 <= p <= 25:
        raise IllegalPlayError(f"source point must be 1..24 or bar, got {p}")
    if not is_source and not 0 <= p <= 24:
        raise IllegalPlayError(f"destination must be 1..24 or off, got {p}")
    return p


def parse_play(text: str) -> list[tuple[int, int]]:
    """Parse notation into a list of checker hops ``(from, to)`` (25 = bar, 0 = off).

    Raises IllegalPlayError (a ValueError) for malformed notation.
    """
    if not isinstance(text, str):
        raise TypeError(f"a play must be a string like '13/10 10/5', got {type(text).__name__}")
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise IllegalPlayError("empty play: expected checker moves like '13/10 10/5', 'bar/22*' or '6/off'")
    hops: list[tuple[int, int]] = []
    for tok in tokens:
        m = _TOKEN_RE.match(tok)
        if not m:
            raise IllegalPlayError(f"cannot read {tok!r}: expected from/to like '13/10', 'bar/22*', '6/off' or '8/5(2)'")
        pts = [m.group(1)] + m.group(2).split("/")[1:]
        rep = int(m.group(3)) if m.group(3) else 1
        if not 1 <= rep <= 4:
            raise IllegalPlayError(f"repeat count in {tok!r} must be 1..4")
        chain = [_parse_point(pts[0], True)] + [_parse_point(p, False) for p in pts[1:]]
        for a, b in zip(chain, chain[1:]):
            if b >= a:
                raise IllegalPlayError(f"{tok!r}: checkers move from higher to lower points in your numbering")
        for _ in range(rep):
            hops.extend(zip(chain, chain[1:]))
    return hops


def play_from_notation(position, dice, text: str) -> Play:
    """Find the legal play that the notation ``text`` describes.

    Raises
    ------
    IllegalPlayError
        if the notation is malformed, moves checkers the mover does not have, or its
        result is not a legal play for these dice (the message lists the legal plays).
    """
    pos = position if isinstance(position, Position) else Position.from_id(position)
    dice = parse_dice(dice)
    plays = legal_plays(pos, dice)
    if not plays:
        raise IllegalPlayError("no legal play: no die can be played, the turn passes")
    hops = parse_play(text)
    b = pos.board.astype(np.int16).copy()
    for a, c in hops:
        if b[a] <= 0:
            raise IllegalPlayError(f"{text!r}: no checker of yours on {_pt(a)}")
        b[a] -= 1
        if c > 0:
            if b[c] < -1:
                raise IllegalPlayError(f"{text!r}: point {c} is held by the opponent")
            if b[c] == -1:
                b[c] = 1
                b[OPP_BAR] -= 1
            else:
                b[c] += 1
    target = b.astype(np.int8).tobytes()
    for p in plays:
        if p.after_state.tobytes() == target:
            return p
    legal = ", ".join(p.notation for p in plays)
    raise IllegalPlayError(f"{text!r} is not a legal play for {dice[0]}-{dice[1]}; legal plays: {legal}")
