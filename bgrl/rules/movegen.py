"""Batched legal-play generator (numpy only).

For a batch of ``(board, dice)`` pairs it lists every distinct legal *after-state* (the
board right after the mover's whole play, still from the mover's side) under the full
rule set of docs/rules.md.  The work is done with array operations over the whole batch: one
"checker move" step is applied to every partial play of every position at once, for at
most four steps, so the Python-level loop runs 4 times per call whatever the batch size.

Speed (see the README, "Move generator"): beside each partial play two 32-bit masks are kept
(the mover's occupied points and the points open for landing), so the legality of all 25
sources for one die is a few integer operations per partial play; non-doubles and doubles are
generated apart; the lower-die-first order of a non-double skips the second moves that the
higher-die-first order already makes; the remaining duplicates are removed by one sort on a
64-bit hash checked byte for byte; batches above 1,024 positions are cut into chunks of 1,024,
which keeps the working set in the CPU cache.

Rules enforced here (docs/rules.md, "A turn", "The bar", "Bearing off"):

* a checker lands on an empty point, an own point, or a blot (hit -> opponent's bar),
  never on a point with two or more opposing checkers;
* a checker may play both dice only through a legal intermediate landing, because every
  die is applied as a separate step;
* with any checker on the bar only a bar checker may move (entry on point 25 - d);
* bearing off only when all the mover's checkers are in 1..6 and none on the bar,
  re-checked before every single die; exact die bears off from that point, a larger die
  only from the highest occupied point;
* maximum-dice rule: as many dice as any sequence allows (4 for doubles); if only one die
  of a non-double can be played and either could, the higher one;
* a play is judged by its final position: duplicates are removed.

With ``generate(..., paths=True)`` the same generation also returns, for every after-state, the
checker moves of one play that reaches it (its *move path*, see :attr:`AfterStates.paths`), which
is what :mod:`bgrl.rules.notation` names; no other module enumerates legal plays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.board import BOARD_SIZE, MOVER_BAR, OPP_BAR, illegal_boards

__all__ = ["AfterStates", "generate", "validate_batch", "MAX_MOVES"]

#: Checker moves in the longest play (a double played four times): the length of a move path.
MAX_MOVES = 4


@dataclass(frozen=True)
class AfterStates:
    """Result of :func:`generate` for a batch of B positions.

    Attributes
    ----------
    boards : ndarray, int8, shape (M, 26)
        Every distinct legal after-state, mover's perspective (the mover has just
        played; flip it to put the opponent on roll). Grouped by position, positions in
        batch order; the order inside a group is canonical (deterministic) but has no
        meaning. A position with no legal play contributes exactly one row: its own
        board unchanged (a pass).
    parent : ndarray, int64, shape (M,)
        Index into the batch of the position each after-state comes from (sorted).
    dice_used : ndarray, int8, shape (B,)
        Number of checker moves (dice) every legal play of that position uses: 0 for a
        pass, 1 or 2 for non-doubles, 0..4 for doubles.
    offsets : ndarray, int64, shape (B + 1,)
        ``boards[offsets[i]:offsets[i+1]]`` are the after-states of position i.
    positions : ndarray, int8, shape (B, 26)
        The input positions (before the play).
    paths : ndarray, int16, shape (M, 4, 3), or None
        Only from ``generate(..., paths=True)`` (None otherwise): the move path of each
        after-state, the checker moves of one play that reaches it, in the order played.
        ``paths[j, k] = (src, dst, hit)``: source index (25 = the mover's bar), destination
        ``src - die`` (<= 0: borne off), hit 1 if an opposing blot was hit there, else 0.
        Only the first ``dice_used[parent[j]]`` moves are set; the rest are 0 (a pass: all
        0). Of several plays that give one board, the path is the first in generation order:
        for a non-double the higher die played first before the lower die first, then by the
        sources of the moves, the first move's lowest first; a double's moves go from the
        highest source down.
    dice : ndarray, int8, shape (B, 2), or None
        The roll of each position, as given to :func:`generate` (None where a batch was built
        without it): what an agent that chooses one play at a time
        (``choose_play(position, dice, rng)``) needs besides the position.
    """

    boards: np.ndarray
    parent: np.ndarray
    dice_used: np.ndarray
    offsets: np.ndarray
    positions: np.ndarray
    paths: np.ndarray | None = None
    dice: np.ndarray | None = None

    def group(self, i: int) -> np.ndarray:
        """After-states of batch item ``i``: int8 array of shape (k_i, 26)."""
        return self.boards[self.offsets[i] : self.offsets[i + 1]]

    @property
    def counts(self) -> np.ndarray:
        """Number of after-states per position, int64 shape (B,)."""
        return np.diff(self.offsets)


def validate_batch(boards, dice) -> tuple[np.ndarray, np.ndarray]:
    """Check a batch: boards int (B, 26), dice int (B, 2) in 1..6. Returns int8 copies.

    Raises TypeError for non-integer dtypes, ValueError for wrong shapes, dice outside
    1..6, or boards outside the valid range (see :func:`bgrl.rules.board.validate_board`).
    """
    b = np.asarray(boards)
    d = np.asarray(dice)
    if b.dtype.kind not in "iu":
        raise TypeError(f"boards must have an integer dtype, got {b.dtype}")
    if d.dtype.kind not in "iu":
        raise TypeError(f"dice must have an integer dtype, got {d.dtype}")
    if b.ndim != 2 or b.shape[1] != BOARD_SIZE:
        raise ValueError(f"boards must have shape (B, 26), got {b.shape}")
    if d.shape != (b.shape[0], 2):
        raise ValueError(f"dice must have shape (B, 2) = ({b.shape[0]}, 2), got {d.shape}")
    if d.size and (d.min() < 1 or d.max() > 6):
        raise ValueError(f"dice must lie in 1..6, got values {np.unique(d).tolist()}")
    # the range first, in the array's own dtype: a cast could wrap a huge count (2**63) into range
    if b.size and ((b < -15) | (b > 15)).any():
        raise ValueError(f"board counts must lie in -15..15, got values from {b.min()} to {b.max()}")
    b64 = b.astype(np.int64)
    if b.size and illegal_boards(b64).any():
        if (b64[:, OPP_BAR] > 0).any() or (b64[:, MOVER_BAR] < 0).any():
            raise ValueError("a board has a bar of the wrong sign: index 0 (the opponent's bar) must be <= 0 and "
                             "index 25 (the mover's bar) >= 0")
        raise ValueError("a board has more than 15 checkers for one side")
    return b.astype(np.int8), d.astype(np.int8)


_WIDTH = 32  # internal row width: 26 board bytes + 6 zero bytes = four uint64 words
_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93], dtype=np.uint64)


def _unique_exact(states: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Row indices of the distinct (key, board) pairs by sorting the raw bytes (slow, always exact)."""
    m = states.shape[0]
    buf = np.empty((m, 8 + _WIDTH), dtype=np.uint8)
    buf[:, :8] = keys.astype(">i8").view(np.uint8).reshape(m, 8)
    buf[:, 8:] = states.view(np.uint8)
    _, idx = np.unique(buf.view(f"V{8 + _WIDTH}").ravel(), return_index=True)
    return idx


def _unique_order(states: np.ndarray, keys: np.ndarray, first: bool = False) -> np.ndarray:
    """Row indices of the distinct (key, board) pairs, grouped by ascending key.

    states int8 (M, 32) C-contiguous, keys int64 (M,) >= 0. Rows are sorted by
    (key, 64-bit multiplicative hash of the 32 bytes); equal sort keys are then checked
    word by word, so the result is exact: should two different boards of one key share a
    hash, the byte-sorting path is used instead. Of equal rows, an arbitrary one is kept, or
    with ``first`` the earliest (a stable sort; the order of the distinct rows is the same).
    """
    m = states.shape[0]
    if m <= 1:
        return np.arange(m)
    words = states.view(np.uint64)  # (M, 4)
    # sum of word * multiplier, wrapping modulo 2**64 as intended (columns, not a slow axis-1 sum)
    h = words[:, 0] * _MULT[0]
    for j in range(1, 4):
        h += words[:, j] * _MULT[j]
    h ^= h >> np.uint64(31)
    key_bits = max(int(keys.max()).bit_length(), 1)
    if key_bits > 40:
        return _unique_exact(states, keys)
    combined = (keys.astype(np.uint64) << np.uint64(64 - key_bits)) | (h >> np.uint64(key_bits))
    order = np.argsort(combined, kind="stable" if first else "quicksort")
    c = combined[order]
    same = c[1:] == c[:-1]
    if same.any():
        a, b = order[1:][same], order[:-1][same]
        if not (words[a] == words[b]).all():
            return _unique_exact(states, keys)
        keep = np.ones(m, dtype=bool)
        keep[1:] = ~same
        return order[keep]
    return order


# ---------------------------------------------------------------------------- bit-mask steps
# ``generate`` keeps, per partial play, two 32-bit masks beside the board: ``own`` (bit i: the
# mover has a checker on index i, 1..25, 25 = bar) and ``open`` (bit p: point p, 1..24, holds at
# most one opposing checker, so a checker may land there). ``open`` never changes during a play
# (a hit blot becomes the mover's point, still open), so the legality of every source for one die
# is a handful of integer operations per partial play instead of a pass over 25 points.
_U1 = np.uint32(1)
_BAR_BIT = np.uint32(1 << MOVER_BAR)
_OUTSIDE_HOME = np.uint32(sum(1 << i for i in range(7, 26)))  # bar and points 7..24
_POINTS_1_24 = np.uint32(sum(1 << i for i in range(1, 25)))
# highest occupied home point from bits 1..6 of ``own`` ((own >> 1) & 63): its bit length
_HIGHEST = np.array([v.bit_length() for v in range(64)], dtype=np.uint32)


def _pack_bits(mask: np.ndarray) -> np.ndarray:
    """bool (N, 26..32) -> uint32 (N,), bit i = mask[:, i] (little-endian bit order)."""
    packed = np.packbits(mask, axis=1, bitorder="little")
    out = np.zeros((mask.shape[0], 4), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view("<u4").ravel()


def _bit_step(boards, own, opn, die, max_src=None, exclude=None, masks=True):
    """One checker move of ``die`` (int (N,), 1..6) from every legal source (<= ``max_src``
    when given, not in the bit mask ``exclude`` when given).

    boards int8 (N, _WIDTH), own/opn uint32 (N,) as above. Returns the children
    ``(boards, own, opn, origin, src)`` (``own``/``opn`` None unless ``masks``) and the
    legal-source masks ``legal`` (uint32 (N,)). Rules (docs/rules.md, "The bar", "Bearing off"): a
    checker on the bar enters first (on point 25 - d), no landing on 2+ opposing checkers (a
    blot hit goes to the opponent's bar), bearing off only with every checker in 1..6, an
    exact die from its point, a larger die only from the highest occupied point.
    """
    d = die.astype(np.uint32)
    cand = np.where((own & _BAR_BIT) != 0, own & _BAR_BIT, own)  # a bar checker must enter first
    legal = (opn << d) & cand  # source s = p + d with p open (p >= 1)
    home = (own & _OUTSIDE_HOME) == 0
    if home.any():
        high = _HIGHEST[(own >> _U1) & np.uint32(63)]
        bear = (own & (_U1 << d)) | np.where(high < d, _U1 << high, np.uint32(0))
        legal |= np.where(home, bear, np.uint32(0)) & ~_U1
    if max_src is not None:
        legal &= (np.uint32(2) << max_src.astype(np.uint32)) - _U1
    if exclude is not None:
        legal &= ~exclude
    bits = np.unpackbits(legal.astype("<u4", copy=False).view(np.uint8), bitorder="little").view(bool)
    flat = np.flatnonzero(bits)
    origin, src = flat >> 5, flat & 31
    dst = src - die[origin]
    new = boards[origin]
    m, width = new.shape
    nflat = new.reshape(-1)
    base = np.arange(0, m * width, width, dtype=np.intp)
    at_src = base + src
    nflat[at_src] -= 1
    on = dst >= 1
    tgt = (base + dst)[on]
    hit_on = nflat[tgt] == -1
    nflat[tgt] += 1
    if hit_on.any():
        th = tgt[hit_on]
        nflat[th] = 1  # the blot goes to the opponent's bar
        nflat[th - th % width + OPP_BAR] -= 1
    if not masks:
        return new, None, None, origin, src, legal
    nown = own[origin]
    nown &= ~((nflat[at_src] == 0).astype(np.uint32) << src.astype(np.uint32))
    nown |= on.astype(np.uint32) << np.maximum(dst, 0).astype(np.uint32)
    return new, nown, opn[origin], origin, src, legal


_CHUNK = 1024  # positions per internal pass: keeps the working set in cache for big batches

#: The compiled generator of one position (``kernel(b int8 (1, 26), d int8 (1, 2), paths) ->
#: AfterStates | None``), or None. This numpy-only module imports no compiled code: the kernel's
#: module (:mod:`bgrl.evaluation.movegen_nb`) registers itself when it is loaded, and gives the
#: same result as :func:`_generate` (rows, order, ``dice_used``, paths), or None to let it run.
_ONE_POSITION = None


def set_one_position_kernel(kernel) -> None:
    """Run :func:`generate` of a single position through ``kernel`` (None: the numpy code for
    every batch). Called by :mod:`bgrl.evaluation.movegen_nb`; the results do not change."""
    global _ONE_POSITION
    _ONE_POSITION = kernel


def one_position_kernel():
    """The kernel :func:`generate` runs a single position through (set by
    :func:`set_one_position_kernel`), or None for the numpy code."""
    return _ONE_POSITION


#: The compiled generator of a batch (``kernel(b int8 (B, 26), d int8 (B, 2), paths) -> AfterStates |
#: None``), or None; registered by :mod:`bgrl.evaluation.movegen_nb` like :data:`_ONE_POSITION` (when
#: :func:`bgrl.evaluation.compiled.ensure` runs: the rules core imports no numba), and giving what :func:`generate` gives for the same batch (its chunks of 1,024 included).
_BATCH = None


def set_batch_kernel(kernel) -> None:
    """Run :func:`generate` of two or more positions through ``kernel`` (None: the numpy code).
    Called by :mod:`bgrl.evaluation.movegen_nb`; the results do not change."""
    global _BATCH
    _BATCH = kernel


def generate(boards, dice, *, validate: bool = True, paths: bool = False) -> AfterStates:
    """Every distinct legal after-state for a batch of (board, dice) pairs.

    Parameters
    ----------
    boards : array-like, int, shape (B, 26)
        Positions from the mover's side (layout in :mod:`bgrl.rules.board`).
    dice : array-like, int, shape (B, 2)
        The roll of each position, values 1..6, order irrelevant.
    validate : bool
        Check shapes, dtypes and ranges first (see :func:`validate_batch`).
    paths : bool
        Also return the move path of every after-state (:attr:`AfterStates.paths`, int16
        (M, 4, 3)), for naming plays (:mod:`bgrl.rules.notation`). Off on the hot path
        (training, search): the after-states, their order and the other fields are the same
        either way.

    Returns
    -------
    AfterStates

    Raises
    ------
    TypeError, ValueError
        on malformed input when ``validate`` is true.
    """
    if validate:
        b, d = validate_batch(boards, dice)
    else:
        b = np.ascontiguousarray(boards, dtype=np.int8)
        d = np.asarray(dice, dtype=np.int8)
    n_pos = b.shape[0]
    if n_pos == 1 and _ONE_POSITION is not None:
        res = _ONE_POSITION(b, d, paths)
        if res is not None:
            return res
    elif n_pos > 1:
        if _BATCH is not None:
            res = _BATCH(b, d, paths)
            if res is not None:
                return res
    if n_pos <= _CHUNK:
        return _generate(b, d, paths)
    parts = [_generate(b[i : i + _CHUNK], d[i : i + _CHUNK], paths) for i in range(0, n_pos, _CHUNK)]
    offsets = np.zeros(n_pos + 1, dtype=np.int64)
    np.cumsum(np.concatenate([p.counts for p in parts]), out=offsets[1:])
    return AfterStates(
        boards=np.concatenate([p.boards for p in parts]),
        parent=np.concatenate([p.parent + i * _CHUNK for i, p in enumerate(parts)]),
        dice_used=np.concatenate([p.dice_used for p in parts]),
        offsets=offsets,
        positions=b,
        paths=np.concatenate([p.paths for p in parts]) if paths else None,
        dice=d,
    )


def _generate(b: np.ndarray, d: np.ndarray, paths: bool = False) -> AfterStates:
    """:func:`generate` for one chunk of checked int8 input: non-doubles and doubles are
    generated apart, then every position's distinct after-states are put in canonical order
    (by a 64-bit hash of the board, see :func:`_unique_order`). With ``paths``, each
    after-state keeps the move path of its first row in generation order."""
    n_pos = b.shape[0]
    wide = np.zeros((n_pos, _WIDTH), dtype=np.int8)
    wide[:, :BOARD_SIZE] = b
    own = _pack_bits(wide[:, :BOARD_SIZE] > 0)
    opn = _pack_bits(wide[:, :MOVER_BAR] >= -1) & _POINTS_1_24
    dbl = d[:, 0] == d[:, 1]
    dice_used = np.zeros(n_pos, dtype=np.int8)
    parts = []
    for part_is_double in (False, True):
        sel = dbl if part_is_double else ~dbl
        if not sel.any():
            continue
        idx = None if sel.all() else np.flatnonzero(sel)
        pick = (lambda a: a) if idx is None else (lambda a: a[idx])
        gen = _doubles if part_is_double else _non_doubles
        states, par, used, moves = gen(pick(wide), pick(own), pick(opn), pick(d).astype(np.int64), paths)
        if idx is None:
            dice_used[:] = used
        else:
            dice_used[idx] = used
            par = idx[par]
        parts.append((states, par, moves))
    if len(parts) == 1:
        states, parent, moves = parts[0]
    else:
        states = np.concatenate([p[0] for p in parts])
        parent = np.concatenate([p[1] for p in parts])
        moves = np.concatenate([p[2] for p in parts]) if paths else None
    # Rows of one position come in generation order, so with ``paths`` the first of equal
    # rows, kept by the stable sort, carries the first path to that board.
    order = _unique_order(states, parent, first=paths)
    states = states[order, :BOARD_SIZE]  # one copy: distinct rows, grouped, 26 columns
    parent = parent[order]
    offsets = np.zeros(n_pos + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n_pos), out=offsets[1:])
    return AfterStates(boards=states, parent=parent, dice_used=dice_used, offsets=offsets, positions=b,
                       paths=moves[order] if paths else None, dice=d)


def _moves_of(before: np.ndarray, origin: np.ndarray, src: np.ndarray, die: np.ndarray) -> np.ndarray:
    """The checker moves of one :func:`_bit_step` as (src, dst, hit) rows, int16 (m, 3).

    before int8 (N, _WIDTH): the boards the step was applied to; origin, src (m,): the step's
    outputs; die (m,): the die each move played. dst = src - die (<= 0: borne off); a hit is a
    landing on a point 1..24 that held one opposing checker.
    """
    dst = src - die
    hit = (dst >= 1) & (before[origin, np.maximum(dst, 0)] == -1)
    return np.stack([src, dst, hit], axis=1).astype(np.int16)


def _non_doubles(wide, own, opn, d, paths=False):
    """All plays of non-double rolls: rows (M, _WIDTH) with duplicates, their position index
    (M,), the dice used per position (0, 1 or 2), and with ``paths`` the move paths int16
    (M, 4, 3) (else None). Both orders of the dice are played (root ``2 i`` the higher die
    first, ``2 i + 1`` the lower); the rows of a position come in generation order (the higher
    die first, then by sources, lowest first); the caller removes duplicates.

    Rules (docs/rules.md, "A turn"): both dice must be played if any sequence allows it (then only
    two-move plays are kept); if only one die can be played, the higher one when it can be
    played alone.
    """
    n = wide.shape[0]
    hi, lo = d.max(axis=1), d.min(axis=1)
    first = np.empty(2 * n, dtype=np.int64)
    first[0::2], first[1::2] = hi, lo
    second = np.empty(2 * n, dtype=np.int64)
    second[0::2], second[1::2] = lo, hi
    roots = wide.repeat(2, axis=0)
    s1, own1, opn1, key1, src1, root_legal = _bit_step(roots, own.repeat(2), opn.repeat(2), first)
    # Lower die first (odd keys), second move: a source that could have moved the higher die
    # in the original position gives a play the higher-die-first order also makes (the same two
    # checker moves, legal in that order too: the lower die's move was legal from the start, and
    # the higher die's move, from a point that held a checker from the start, changes neither
    # that source, nor the bar rule, nor the highest point), so it is skipped here instead of
    # being removed as a duplicate later.
    exclude = np.where(key1 & 1 == 1, root_legal[key1 ^ 1], np.uint32(0))
    die2 = second[key1]
    s2, _, _, org2, src2, _ = _bit_step(s1, own1, opn1, die2, exclude=exclude, masks=False)
    par1 = key1 >> 1
    par2 = par1[org2]
    used = np.zeros(n, dtype=np.int8)
    used[par1] = 1
    used[par2] = 2
    # Only one die playable: the higher one if it can be played alone.
    hi_ok = np.zeros(n, dtype=bool)
    hi_ok[par1[(key1 & 1) == 0]] = True
    keep1 = (used[par1] == 1) & (((key1 & 1) == 0) | ~hi_ok[par1])
    passes = np.flatnonzero(used == 0)
    states = np.concatenate([s2, s1[keep1], wide[passes]])
    parent = np.concatenate([par2, par1[keep1], passes])
    if not paths:
        return states, parent, used, None
    m1 = _moves_of(roots, key1, src1, first[key1])
    n2, n1 = s2.shape[0], int(keep1.sum())
    moves = np.zeros((states.shape[0], MAX_MOVES, 3), dtype=np.int16)
    moves[:n2, 0] = m1[org2]
    moves[:n2, 1] = _moves_of(s1, org2, src2, die2[org2])
    moves[n2 : n2 + n1, 0] = m1[keep1]
    return states, parent, used, moves


def _doubles(wide, own, opn, d, paths=False):
    """All plays of doubles: rows (M, _WIDTH), position index (M,), dice used (0..4), and with
    ``paths`` the move paths int16 (M, 4, 3) (else None).

    The four checker moves of one number can always be played from the highest source down
    (entering first, outfield before home, a bear-off never enables a higher checker), so each
    step may only move a checker from a point no higher than the previous step's source. Every
    multiset of moves is then generated once, and distinct multisets give distinct boards (the
    board change fixes how many checkers left each point): doubles have no duplicates.
    Maximum-dice rule (docs/rules.md, "A turn"): only the plays of the most moves any play makes
    are kept.
    """
    n = wide.shape[0]
    die = d[:, 0]
    frontier, fown, fopn, fpar = wide, own, opn, np.arange(n)
    fmax = np.full(n, 25, dtype=np.int64)
    hist = np.zeros((n, 0, 3), dtype=np.int16) if paths else None
    levels = []
    for k in range(4):
        new, fown, fopn, origin, src, _ = _bit_step(frontier, fown, fopn, die[fpar], fmax, masks=k < 3)
        if new.shape[0] == 0:
            break
        fpar = fpar[origin]
        if paths:  # the moves so far of every partial play, (rows, k + 1, 3)
            hist = np.concatenate([hist[origin], _moves_of(frontier, origin, src, die[fpar])[:, None]], axis=1)
        levels.append((new, fpar, hist))
        frontier, fmax = new, src
    used = np.zeros(n, dtype=np.int8)
    for lvl, (_, par, _) in enumerate(levels, start=1):
        used[par] = lvl
    out_s, out_p, out_m = [], [], []
    for lvl, (states, par, h) in enumerate(levels, start=1):
        keep = used[par] == lvl
        if keep.all():
            out_s.append(states)
            out_p.append(par)
            out_m.append(h)
        elif keep.any():
            out_s.append(states[keep])
            out_p.append(par[keep])
            out_m.append(h[keep] if paths else None)
    passes = np.flatnonzero(used == 0)
    out_s.append(wide[passes])
    out_p.append(passes)
    states, parent = np.concatenate(out_s), np.concatenate(out_p)
    if not paths:
        return states, parent, used, None
    moves = np.zeros((states.shape[0], MAX_MOVES, 3), dtype=np.int16)
    row = 0
    for h in out_m:
        moves[row : row + h.shape[0], : h.shape[1]] = h
        row += h.shape[0]
    return states, parent, used, moves
