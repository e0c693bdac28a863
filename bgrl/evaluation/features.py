"""Hand-made positional features in the spirit of GNU Backgammon's inputs (numpy only, batched).

GNU Backgammon's contact network adds to the raw board a set of hand-made inputs (pip loss
to hitting shots, escapes of back checkers, containment, back checker and anchor, timing,
pips to break contact, entering; listed in its eval.c). The features here follow those
ideas with definitions of our own, written for whole batches at once; they are *not*
gnubg's exact formulas. Used by the ``td198g`` encoder (:mod:`bgrl.evaluation.encoding`).

Per side (computed from that side's view), :data:`SIDE_FEATURES`, each scaled into [0, 1]:

==============  =========================================================================
hit_chance      share of the 36 rolls with which this side, on roll, hits at least one
                opposing blot (direct and combination shots, paths through blocked points
                refused, bar entry first; a second bar checker's entry is required only
                for doubles)
back_escapes    escapes of its rearmost checker / 36: rolls that carry it past the last
                opposing made point within 12 pips in front of it (landing points and,
                for combinations, an intermediate point open)
contained       (36 - fewest escapes from any of its points 13..24, checker or not) / 36:
                how well the opponent's points contain this side's back area
back_checker    point of its rearmost checker / 25 (bar = 25; 0 when none on board)
back_anchor     highest point it holds with two or more checkers / 24 (0 if none)
timing          pips of its checkers outside its home board to the home-board edge
                (bar = 19 pips), / 285
break_contact   pips its checkers need to get past the opponent's rearmost checker, / 375
dance           chance that one checker on the bar fails to enter: (made points of the
                opponent in its home board / 6) ** 2
home_points     points 1..6 it holds with two or more checkers / 6
==============  =========================================================================

All functions take boards int8 (N, 26) in :mod:`bgrl.rules.board`'s encoding (mover on roll).
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import flip

__all__ = ["SIDE_FEATURES", "side_features", "hit_chance", "escapes", "ESCAPE_TABLE"]

SIDE_FEATURES = ("hit_chance", "back_escapes", "contained", "back_checker", "back_anchor", "timing",
                 "break_contact", "dance", "home_points")

# all 36 rolls as (d1, d2, weight): 15 non-doubles weigh 2, 6 doubles 1
_ROLLS = [(a, b, 2 if a != b else 1) for a in range(1, 7) for b in range(1, a + 1)]


def _escape_table() -> np.ndarray:
    """Escapes (0..36) for each 12-bit pattern of blocked points in front of a checker.

    Bit j set = the point j + 1 pips in front is blocked (two or more opposing checkers).
    A roll escapes when the checker can land, with a legal path, more pips in front than
    the farthest blocked point of the pattern; with nothing blocked every roll escapes.
    Points beyond 12 pips count as open.
    """
    pat = np.arange(4096)

    def blocked(dist):
        return ((pat >> (dist - 1)) & 1).astype(bool) if dist <= 12 else np.zeros(4096, dtype=bool)

    far = np.zeros(4096, dtype=np.int64)  # farthest blocked distance (0 = none)
    for j in range(12):
        far = np.where((pat >> j) & 1, j + 1, far)
    total = np.zeros(4096, dtype=np.int64)
    for a, b, w in _ROLLS:
        if a != b:
            ok = ((a > far) & ~blocked(a)) | ((b > far) & ~blocked(b))
            both = (a + b > far) & ~blocked(a + b) & (~blocked(a) | ~blocked(b))
            esc = ok | both
        else:
            esc = np.zeros(4096, dtype=bool)
            path = np.ones(4096, dtype=bool)
            for k in range(1, 5):
                path = path & ~blocked(k * a)
                esc |= path & (k * a > far)
        total += w * esc
    total[far == 0] = 36
    return total


ESCAPE_TABLE = _escape_table()
# the same indexed by the pattern read the other way round (bit i = point p - 12 + i blocked),
# which is what shifting a bitboard gives
_REV = np.array([int(f"{i:012b}"[::-1], 2) for i in range(4096)])
_ESCAPE_BY_SHIFT = ESCAPE_TABLE[_REV]
_W24 = (np.int64(1) << np.arange(1, 25, dtype=np.int64)).astype(np.float64)  # exact in float64
_P24 = np.arange(1, 25, dtype=np.int64)


def _bitboards(b: np.ndarray, masks) -> list[np.ndarray]:
    """int64 (N,) bitboards (bit p = point p, 1..24) of boolean (N, 24) masks, one matmul."""
    m = np.stack(masks).astype(np.float64) @ _W24
    return [x.astype(np.int64) for x in m]


def escapes(boards: np.ndarray) -> np.ndarray:
    """Escapes (0..36) of a checker of the mover standing on each point 1..24: int64 (N, 24).

    Column p - 1 is point p; only the opponent's made points matter, so the value is
    defined whether or not the mover has a checker there.
    """
    b = np.asarray(boards)
    (blocked,) = _bitboards(b, [b[:, 1:25] <= -2])
    return _escapes(blocked)


def _escapes(blocked) -> np.ndarray:
    # bits p - 12 .. p - 1 of the blocked bitboard, lowest first
    code = ((blocked << 12)[:, None] >> _P24[None, :]) & 0xFFF
    return _ESCAPE_BY_SHIFT[code]


def hit_chance(boards: np.ndarray) -> np.ndarray:
    """Share of the 36 rolls with which the mover hits at least one opposing blot: float64 (N,).

    See the module docstring for what is modelled (on positions from games it equals the
    exact share, found by generating every legal play of every roll, in over 99% of cases).
    """
    b = np.asarray(boards)
    pts = b[:, 1:25]
    blot, opn, src = _bitboards(b, [pts == -1, pts > -2, pts > 0])
    return _hit_chance(blot, opn, src, b[:, 25].astype(np.int64))


def _hit_chance(blot, opn, src, bar) -> np.ndarray:
    opn = opn | np.int64(1) | (np.int64(1) << 25)  # off and the bar never block
    total = _hits_no_bar(src, blot, opn)
    on_bar = np.flatnonzero(bar > 0)
    if on_bar.size:
        total[on_bar] = _hits_from_bar(src[on_bar], blot[on_bar], opn[on_bar], bar[on_bar])
    return total / 36.0


def _reach(d, max_k, sources, blot, opn):
    """Some source hits a blot k * d pips ahead (1 <= k <= max_k), stops on the way open."""
    hit = np.zeros(sources.shape[0], dtype=bool)
    path = sources
    for _ in range(max_k):
        path = path >> d  # bit = landing point of this step
        hit |= (path & blot) != 0
        path = path & opn
    return hit


def _hits_no_bar(src, blot, opn) -> np.ndarray:
    """Weighted count (of 36) of hitting rolls with no checker of the mover on the bar."""
    total = np.zeros(src.shape[0])
    for a, c, wt in _ROLLS:
        if a != c:  # a direct shot with either die, or a combination through an open stop
            hit = (((src >> a) | (src >> c) | (((src >> a) & opn) >> c) | (((src >> c) & opn) >> a)) & blot) != 0
        else:
            hit = _reach(a, 4, src, blot, opn)
        total += wt * hit
    return total


def _hits_from_bar(src, blot, opn, bar) -> np.ndarray:
    """Weighted count (of 36) of hitting rolls with ``bar`` >= 1 checkers to enter first."""
    total = np.zeros(src.shape[0])

    def at(x, p):
        return ((x >> p) & 1) != 0

    ok = {d: at(opn, 25 - d) for d in range(1, 7)}  # the entry point of die d is open
    entry_hit = {d: ok[d] & at(blot, 25 - d) for d in range(1, 7)}  # entering with d hits
    direct = {d: ((src >> d) & blot) != 0 for d in range(1, 7)}  # a board checker hits with d
    one = bar == 1
    for a, c, wt in _ROLLS:
        if a != c:
            # one on the bar: enter with one die (it may hit), then any checker, the entered one
            # too, plays the other; two or more: only the entries can hit
            h1 = (ok[a] & (direct[c] | at(blot, 25 - a - c))) | (ok[c] & (direct[a] | at(blot, 25 - a - c)))
            hit = entry_hit[a] | entry_hit[c] | (one & h1)
        else:
            s2 = src | (np.int64(1) << (25 - a))
            hit = entry_hit[a].copy()  # four or more on the bar: only the entries
            for nb in (1, 2, 3):  # nb checkers enter, then 4 - nb moves by any checker
                sel = bar == nb
                if sel.any():
                    hit |= sel & ok[a] & _reach(a, 4 - nb, s2, blot, opn)
        total += wt * hit
    return total


_POP6 = np.array([bin(i).count("1") for i in range(64)])
_OUTFIELD = np.maximum(np.arange(1, 25) - 6, 0).astype(np.float64)


def _high_bit(x) -> np.ndarray:
    """Index of the highest set bit of each int64 (0 where x == 0)."""
    return np.where(x > 0, np.frexp(x.astype(np.float64))[1] - 1, 0)


def side_features(boards: np.ndarray) -> np.ndarray:
    """The :data:`SIDE_FEATURES` of the mover of each board: float32 (N, 9)."""
    b = np.asarray(boards)
    n = b.shape[0]
    pts = b[:, 1:25]
    blot, opn, src, made, theirs_any, blocked = _bitboards(b, [pts == -1, pts > -2, pts > 0, pts >= 2, pts < 0, pts <= -2])
    bar = b[:, 25].astype(np.int64)
    out = np.empty((n, len(SIDE_FEATURES)), dtype=np.float32)
    out[:, 0] = _hit_chance(blot, opn, src, bar)
    esc = _escapes(blocked)
    back = np.where(bar > 0, 25, _high_bit(src))
    back_esc = esc[np.arange(n), np.minimum(np.maximum(back, 1), 24) - 1]  # on the bar: as from the 24-point
    out[:, 1] = np.where(back > 0, back_esc, 36) / 36.0
    out[:, 2] = (36 - esc[:, 12:24].min(axis=1)) / 36.0
    out[:, 3] = back / 25.0
    out[:, 4] = _high_bit(made) / 24.0
    mine = np.maximum(pts, 0).astype(np.float64)
    out[:, 5] = (mine @ _OUTFIELD + bar * 19) / 285.0
    # the opponent's rearmost checker, in our numbering (0 = on the bar, 25 = none left)
    their_back = np.where(theirs_any > 0, _high_bit(theirs_any & -theirs_any), 25)
    their_back = np.where(b[:, 0] < 0, 0, their_back)
    past = np.maximum(_P24[None, :] - their_back[:, None] + 1, 0)
    out[:, 6] = (((mine * past) @ np.ones(24)) + bar * np.maximum(26 - their_back, 0)) / 375.0
    out[:, 7] = (_POP6[(blocked >> 19) & 63] / 6.0) ** 2
    out[:, 8] = _POP6[(made >> 1) & 63] / 6.0
    return out


def both_sides(boards: np.ndarray) -> np.ndarray:
    """Mover's then opponent's :func:`side_features`: float32 (N, 18)."""
    b = np.asarray(boards)
    return np.concatenate([side_features(b), side_features(flip(b))], axis=1)
