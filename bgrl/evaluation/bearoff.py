"""Exact one-sided bear-off database and two-sided no-contact bear-off probabilities.

One side's *bear-off position* is the number of its checkers on each of its home points
1..6 (its own numbering), at most 15 in all: ``C(21, 6) = 54,264`` positions, the empty
one (all borne off) included.  For each, the database holds two distributions of a
whole number of rolls (turns of that side alone, no opponent):

``off``   ``P(n)``: probability that bearing off *all* checkers takes exactly ``n`` rolls.
``first`` ``P(n)``: probability that the *first* checker is borne off on roll ``n``
          (``P(0) = 1`` for a position with fewer than 15 checkers: one is already off).

Play criterion (GNU Backgammon's one-sided database uses the same one; this table agrees
with gnubg-nn's ``bearoff_probabilities`` to its 16-bit rounding except at near-ties):
every roll is played to minimise the *expected* number of rolls, for ``off`` the
expected rolls to bear off all checkers, for ``first`` the expected rolls to bear off
the first one (two separate policies).  Exact ties (within 1e-12 rolls) go to the
after-state with the lowest database index.  Computed by dynamic programming in
increasing pip count (every play lowers the pip count), the 21 rolls of every position
of one pip count in one batched call of :func:`bgrl.rules.movegen.generate`.

Two-sided probabilities (:func:`exact_probs`).  When both sides have all their remaining
checkers in their home boards (no checker on a bar, so no contact is possible):

* **At most 6 checkers a side** (924 one-sided positions each, 853,776 pairs, no gammon
  possible): a two-sided table of the win probability of the side on roll under optimal
  play by both sides, each maximising its own chance to win knowing both positions
  (``V(a, b) = sum_r w_r max_{a'} [1 if a' is empty else 1 - V(b, a')]``, solved in
  increasing pip count: the row ``V(a, .)`` needs the columns ``V(., a')`` of smaller
  positions, the column ``V(., a)`` needs the row just found).  This is exact, and is
  what GNU Backgammon's two-sided database holds (in 16 bits) for the same range.
* **Otherwise** the game is decided by the two independent roll counts of the one-sided
  database.  With ``A`` on roll needing ``a`` rolls and ``B`` needing ``b`` rolls, ``A``
  wins iff ``a <= b`` (A rolls first):

  - ``P(win) = sum_n P_A(n) P_B(b >= n)``;
  - ``A`` wins a gammon when ``B`` still has 15 checkers and ``B``'s first checker needs at
    least ``n`` rolls: ``sum_n P_A(n) P_Bfirst(>= n)``; ``A`` loses a gammon when it has
    15 checkers and ``sum_m P_B(m) P_Afirst(> m)``;
  - no backgammon: the loser's checkers all lie in its own home board, never in the
    winner's home board or on the bar.

  These are exact for the two roll-count distributions.  A player who knows the other
  side's position can do slightly better than minimising its expected rolls (with at most
  6 checkers a side the one-sided formula is off by up to 0.014 in P(win), mean 0.0009),
  and a side with 15 checkers cannot follow both policies at once; GNU Backgammon's
  one-sided database makes the same approximation.

Storage: the database ships as package data ``bgrl/data/bearoff.npz`` (found with
:mod:`importlib.resources`); ``scripts/tools/build_bearoff.py`` rebuilds it.  When the file is
missing the database is built in memory on first use (about 7 s of CPU) and a warning
says so.

This module imports numpy only. While the compiled kernels run
(:func:`bgrl.evaluation.compiled.active`), :func:`exact_probs`, :func:`one_sided_probs` and
:func:`is_bearoff` of int8 boards go through the numba twin :mod:`bgrl.evaluation.bearoff_nb`
(imported then, already loaded by ``compiled.ensure``): the same mask and errors, the same
probabilities within ``bearoff_nb.TOLERANCE`` (bit for bit as measured).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgrl.rules.board import BOARD_SIZE, NUM_CHECKERS
from bgrl._fileio import atomic_writer
from bgrl.evaluation import compiled as _compiled  # imports no numba
from bgrl.rules.dice import ROLL_WEIGHTS, ROLLS

__all__ = [
    "N_POINTS",
    "N_POSITIONS",
    "DB_FILENAME",
    "TWO_SIDED_MAX_CHECKERS",
    "BearoffDB",
    "two_sided_positions",
    "build_two_sided",
    "positions",
    "position_index",
    "build",
    "save",
    "load",
    "database",
    "one_sided",
    "is_bearoff",
    "exact_probs",
    "one_sided_probs",
]

N_POINTS = 6
N_POSITIONS = 54264  # C(21, 6): up to 15 checkers on 6 points
DB_FILENAME = "bearoff.npz"
_FORMAT = "bgrl-bearoff/2"
TWO_SIDED_MAX_CHECKERS = 6
_MAX_ROLLS = 40  # working width of the distributions while building (trimmed after)
_TIE_TOL = 1e-12


def _enumerate() -> np.ndarray:
    """All bear-off positions, int8 (N_POSITIONS, 6), sorted by :func:`_keys`.

    Built point by point, keeping only partial rows with at most 15 checkers (a few
    milliseconds; the full 16**6 grid cost seconds of CPU at every import).
    """
    rows = np.zeros((1, 0), dtype=np.int8)
    sums = np.zeros(1, dtype=np.int64)
    for _ in range(N_POINTS):
        parts, part_sums = [], []
        for v in range(NUM_CHECKERS + 1):
            keep = sums + v <= NUM_CHECKERS
            parts.append(np.concatenate([rows[keep], np.full((int(keep.sum()), 1), v, dtype=np.int8)], axis=1))
            part_sums.append(sums[keep] + v)
        rows, sums = np.concatenate(parts), np.concatenate(part_sums)
    out = rows[np.argsort(_keys(rows), kind="stable")]
    assert out.shape[0] == N_POSITIONS
    return out


def _keys(counts: np.ndarray) -> np.ndarray:
    """int64 key of counts (..., 6): base-16 digits, point 1 lowest."""
    return (counts.astype(np.int64) << (4 * np.arange(N_POINTS, dtype=np.int64))).sum(-1)


_POSITIONS = _enumerate()
_POSITIONS.setflags(write=False)
_KEYS = _keys(_POSITIONS)
_SMALL = np.flatnonzero(_POSITIONS.sum(1) <= 6)  # TWO_SIDED_MAX_CHECKERS
_SMALL.setflags(write=False)
_SMALL_MAP = np.full(_POSITIONS.shape[0], -1, dtype=np.int64)
_SMALL_MAP[_SMALL] = np.arange(_SMALL.shape[0])


def positions() -> np.ndarray:
    """Every one-sided bear-off position in database order.

    Returns int8 (54264, 6), read-only: column ``i`` is the checkers on point ``i + 1``
    (the side's own numbering).  Row 0 is the empty position (all borne off).
    """
    return _POSITIONS


def position_index(counts) -> np.ndarray:
    """Database index of one-sided positions.

    counts : int array (..., 6), checkers on points 1..6, each >= 0, sum <= 15.
    Returns int64 (...). Raises ValueError for anything that is not a bear-off position.
    """
    c = np.asarray(counts)
    if c.shape[-1:] != (N_POINTS,) or c.dtype.kind not in "iu":
        raise ValueError(f"counts must be integers of shape (..., 6), got {c.dtype} {c.shape}")
    if c.size and (c.min() < 0 or c.sum(-1).max() > NUM_CHECKERS):
        raise ValueError("counts must be >= 0 with at most 15 checkers in all")
    return np.searchsorted(_KEYS, _keys(c))


@dataclass(frozen=True)
class BearoffDB:
    """The one-sided database (see the module docstring).

    off : float64 (54264, L_off); ``off[i, n]`` = P(bearing off all checkers of position
        ``i`` takes exactly ``n`` rolls); rows sum to 1.
    first : float64 (54264, L_first); ``first[i, n]`` = P(first checker off on roll ``n``).
    two_sided : float64 (924, 924); ``two_sided[i, j]`` = P(win) of the side on roll holding
        ``two_sided_positions()[i]`` against ``[j]`` under optimal play (row 0, the empty
        position: 1; column 0: 0 except ``[0, 0]``).
    Derived, cumulative from the right: ``off_ge[i, n] = P(rolls >= n)`` and
    ``first_ge`` likewise, width + 1 columns (last column 0).
    """

    off: np.ndarray
    first: np.ndarray
    two_sided: np.ndarray

    def __post_init__(self):
        n = _SMALL.shape[0]
        if self.two_sided.shape != (n, n):
            raise ValueError(f"two-sided bear-off table must have shape ({n}, {n}), got {self.two_sided.shape}")
        for name in ("off", "first"):
            a = getattr(self, name)
            if a.ndim != 2 or a.shape[0] != N_POSITIONS:
                raise ValueError(f"bear-off table {name!r} must have shape (54264, L), got {a.shape}")
            ge = np.zeros((a.shape[0], a.shape[1] + 1))
            ge[:, :-1] = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]
            ge.setflags(write=False)
            object.__setattr__(self, name + "_ge", ge)

    def mean_rolls(self) -> np.ndarray:
        """Expected rolls to bear off all checkers, float64 (54264,)."""
        return self.off @ np.arange(self.off.shape[1])




def _group_argmin(values: np.ndarray, tiebreak: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Row index of the minimum of ``values`` in each group ``offsets[g]:offsets[g+1]``;
    values within _TIE_TOL of the minimum tie, broken by the lowest ``tiebreak``."""
    starts = offsets[:-1]
    gmin = np.minimum.reduceat(values, starts)
    parent = np.repeat(np.arange(starts.shape[0]), np.diff(offsets))
    cand = values <= gmin[parent] + _TIE_TOL
    rows = np.flatnonzero(cand)
    order = np.lexsort((tiebreak[rows], parent[rows]))
    rows = rows[order]
    first = np.unique(parent[rows], return_index=True)[1]
    return rows[first]


def build(progress=None) -> BearoffDB:
    """Compute the database by dynamic programming (module docstring). About 7 s of CPU.

    progress : optional callable ``progress(pips_done, 90)`` called after each pip count.
    """
    from bgrl.rules.movegen import generate

    pos = _POSITIONS
    n_chk = pos.sum(1, dtype=np.int64)
    pips = pos.astype(np.int64) @ np.arange(1, N_POINTS + 1)
    L = _MAX_ROLLS
    off = np.zeros((N_POSITIONS, L))
    first = np.zeros((N_POSITIONS, L))
    off[0, 0] = 1.0
    first[n_chk < NUM_CHECKERS, 0] = 1.0
    e_off = np.zeros(N_POSITIONS)
    e_first = np.zeros(N_POSITIONS)
    ramp = np.arange(L, dtype=np.float64)
    max_pips = int(pips.max())
    for pip in range(1, max_pips + 1):
        sel = np.flatnonzero(pips == pip)
        k = sel.shape[0]
        boards = np.zeros((k * len(ROLLS), BOARD_SIZE), dtype=np.int8)
        boards[:, 1 : N_POINTS + 1] = np.repeat(pos[sel], len(ROLLS), axis=0)
        dice = np.tile(ROLLS, (k, 1))
        aft = generate(boards, dice, validate=False)
        if (aft.boards[:, N_POINTS + 1 :] != 0).any() or (aft.boards[:, 0] != 0).any():
            raise AssertionError("a bear-off play left the home board")
        idx = position_index(aft.boards[:, 1 : N_POINTS + 1])
        if (pips[idx] >= pip).any():
            raise AssertionError("a bear-off play did not lower the pip count")
        for table, mean, rows in ((off, e_off, sel), (first, e_first, sel[n_chk[sel] == NUM_CHECKERS])):
            if rows.shape[0] == 0:
                continue
            if rows is sel:
                offsets = aft.offsets
                sub_idx = idx
            else:  # only the 15-checker positions' groups
                keep = np.flatnonzero(n_chk[sel] == NUM_CHECKERS)
                grp = (keep[:, None] * len(ROLLS) + np.arange(len(ROLLS))).ravel()
                lo, hi = aft.offsets[grp], aft.offsets[grp + 1]
                sizes = hi - lo
                offsets = np.concatenate(([0], np.cumsum(sizes)))
                take = np.repeat(lo - offsets[:-1], sizes) + np.arange(offsets[-1])
                sub_idx = idx[take]
            best = _group_argmin(mean[sub_idx], sub_idx, offsets)
            chosen = sub_idx[best].reshape(rows.shape[0], len(ROLLS))
            mix = np.einsum("r,krl->kl", ROLL_WEIGHTS, table[chosen])
            if (mix[:, -1] != 0).any():
                raise AssertionError("bear-off distribution wider than the working width")
            table[rows, 1:] = mix[:, :-1]
            table[rows, 0] = 0.0
            mean[rows] = table[rows] @ ramp
        if progress is not None:
            progress(pip, max_pips)
    return BearoffDB(off=_trim(off), first=_trim(first), two_sided=build_two_sided())


def two_sided_positions() -> np.ndarray:
    """Database indices (int64 (924,)) of the one-sided positions with at most
    :data:`TWO_SIDED_MAX_CHECKERS` checkers, in database order (0 = empty first): the rows
    and columns of :attr:`BearoffDB.two_sided`."""
    return _SMALL


def build_two_sided() -> np.ndarray:
    """Optimal two-sided win probabilities with at most 6 checkers a side (module
    docstring): float64 (924, 924). About 3 s."""
    from bgrl.rules.movegen import generate

    small = _SMALL
    n = small.shape[0]
    smap = np.full(N_POSITIONS, -1, dtype=np.int64)
    smap[small] = np.arange(n)
    nr = len(ROLLS)
    boards = np.zeros(((n - 1) * nr, BOARD_SIZE), dtype=np.int8)
    boards[:, 1 : N_POINTS + 1] = np.repeat(_POSITIONS[small[1:]], nr, axis=0)
    aft = generate(boards, np.tile(ROLLS, (n - 1, 1)), validate=False)
    succ = smap[position_index(aft.boards[:, 1 : N_POINTS + 1])]  # group (a - 1) * 21 + r
    if (succ < 0).any():
        raise AssertionError("a small bear-off play led outside the small positions")
    offs = aft.offsets
    starts = offs[:-1]
    pips = _POSITIONS[small].astype(np.int64) @ np.arange(1, N_POINTS + 1)
    v = np.full((n, n), np.nan)
    v[0, :] = 1.0  # nothing left: the side has already won
    v[1:, 0] = 0.0
    for a in 1 + np.argsort(pips[1:], kind="stable"):
        lo, hi = offs[(a - 1) * nr], offs[a * nr]
        # row: a on roll against every b; needs the columns of a's (smaller) successors
        row = np.maximum.reduceat(1.0 - v[1:, succ[lo:hi]], offs[(a - 1) * nr : a * nr] - lo, axis=1)
        v[a, 1:] = row @ ROLL_WEIGHTS
        # column: every b on roll against a; needs row a
        col = np.maximum.reduceat(1.0 - v[a, succ], starts).reshape(n - 1, nr)
        v[1:, a] = col @ ROLL_WEIGHTS
    if np.isnan(v).any():
        raise AssertionError("two-sided bear-off table left incomplete")
    return v


def _trim(a: np.ndarray) -> np.ndarray:
    nz = np.flatnonzero(a.any(axis=0))
    return np.ascontiguousarray(a[:, : nz[-1] + 1])


def save(db: BearoffDB, path) -> Path:
    """Write ``db`` to ``path`` (npz, atomically): float32 distributions stored sparsely
    (for each row its first nonzero roll count and its values up to the last nonzero), and
    the two-sided table as float32.

    Returns the path. Rows are renormalised to sum 1 on loading.
    """
    path = Path(path)
    arrays = {"format": np.array(_FORMAT)}
    for name in ("off", "first"):
        a = getattr(db, name)
        nz = a > 0
        start = np.argmax(nz, axis=1)
        stop = a.shape[1] - np.argmax(nz[:, ::-1], axis=1)
        length = stop - start
        cols = np.repeat(start, length) + (np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length))
        rows = np.repeat(np.arange(a.shape[0]), length)
        arrays[f"{name}_start"] = start.astype(np.uint8)
        arrays[f"{name}_len"] = length.astype(np.uint8)
        arrays[f"{name}_values"] = a[rows, cols].astype(np.float32)
        arrays[f"{name}_width"] = np.array(a.shape[1])
    arrays["two_sided"] = db.two_sided.astype(np.float32)
    with atomic_writer(path) as f:
        np.savez_compressed(f, **arrays)
    return path


def load(path) -> BearoffDB:
    """Read a database written by :func:`save`. Raises ValueError if the file is not one."""
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"cannot read bear-off database {path}: {exc}") from None
    if not hasattr(z, "files"):
        raise ValueError(f"{path} is not a bgrl bear-off database ({_FORMAT})")
    with z:
        if "format" not in z.files or str(z["format"]) != _FORMAT:
            raise ValueError(f"{path} is not a bgrl bear-off database ({_FORMAT})")
        tables = {}
        for name in ("off", "first"):
            try:
                start = z[f"{name}_start"].astype(np.int64)
                length = z[f"{name}_len"].astype(np.int64)
                values = z[f"{name}_values"].astype(np.float64)
                width = int(z[f"{name}_width"])
            except (KeyError, ValueError, OSError, EOFError) as exc:
                raise ValueError(f"{path}: bear-off table {name!r} is unreadable: {exc}") from None
            if start.shape != (N_POSITIONS,) or length.shape != (N_POSITIONS,) or length.sum() != values.shape[0] \
                    or (start + length).max() > width or values.min() < 0:
                raise ValueError(f"{path}: bear-off table {name!r} is malformed")
            a = np.zeros((N_POSITIONS, width))
            rows = np.repeat(np.arange(N_POSITIONS), length)
            cols = np.repeat(start, length) + (np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length))
            a[rows, cols] = values
            total = a.sum(1, keepdims=True)
            if not np.allclose(total, 1.0, atol=1e-5):
                raise ValueError(f"{path}: bear-off table {name!r} has rows that do not sum to 1")
            tables[name] = a / total
        try:
            two = z["two_sided"].astype(np.float64)
        except (KeyError, ValueError, OSError, EOFError) as exc:
            raise ValueError(f"{path}: two-sided bear-off table is unreadable: {exc}") from None
        if not (np.isfinite(two).all() and two.min() >= 0 and two.max() <= 1):
            raise ValueError(f"{path}: two-sided bear-off table is malformed")
        tables["two_sided"] = two
    return BearoffDB(**tables)


_DB: BearoffDB | None = None


def shipped_db_path() -> Path:
    """Where the shipped database file lies (package data ``bgrl.data``)."""
    from bgrl._resources import shipped_path

    return shipped_path(DB_FILENAME, package="bgrl.data")


def database() -> BearoffDB:
    """The database, loaded once per process from the shipped file; built in memory
    (about 7 s of CPU, with a warning) when the file is missing."""
    global _DB
    if _DB is None:
        p = shipped_db_path()
        if p.is_file():
            _DB = load(p)
        else:
            warnings.warn(f"bear-off database {p} not found; building it in memory (run scripts/tools/build_bearoff.py)", stacklevel=2)
            _DB = build()
    return _DB


def one_sided(counts) -> np.ndarray:
    """Roll-count distributions of one-sided positions: counts int (N, 6) -> float64 (N, L),
    ``[i, n]`` = P(position i needs exactly n rolls to bear off all its checkers)."""
    return database().off[position_index(counts)]


def is_bearoff(boards) -> np.ndarray:
    """Whether both sides have all their remaining checkers in their home boards.

    boards : int (N, 26) from the side on roll (:mod:`bgrl.rules.board` layout) -> bool (N,).
    True also when one side has borne off everything (the game is over), but False
    when no checker at all is left on the board.
    """
    b = np.asarray(boards)
    if b.dtype == np.int8 and b.ndim == 2 and b.shape[1] == BOARD_SIZE and _compiled.active():
        from bgrl.evaluation import bearoff_nb

        return bearoff_nb.known(b)
    bt = np.ascontiguousarray(b.T)  # reductions over the short axis are slow in numpy
    known = (bt[N_POINTS + 1 :].max(axis=0) <= 0) & (bt[: BOARD_SIZE - 1 - N_POINTS].min(axis=0) >= 0)
    if known.any():  # none on 7..24 nor a bar, either side; something left on the board
        known[known] = (b[known] != 0).any(axis=1)
    return known


def exact_probs(boards) -> tuple[np.ndarray, np.ndarray]:
    """Exact outcome probabilities of no-contact bear-offs (module docstring): the
    two-sided table where both sides have at most 6 checkers, the one-sided formulas
    elsewhere.

    Parameters
    ----------
    boards : int array (N, 26), positions from the side on roll (:mod:`bgrl.rules.board`).

    Returns
    -------
    known : bool (N,)
        True where both sides have all remaining checkers on their home points (bars
        empty) — :func:`is_bearoff`.
    probs : float64 (N, 5)
        For ``known`` rows, the probabilities of the side on roll in
        :data:`bgrl.evaluation.probabilities.OUTPUTS` order (win, win_gammon, win_backgammon, lose_gammon,
        lose_backgammon); backgammons are 0.  Other rows are NaN.

    Raises ValueError if ``boards`` is not an integer array of shape (N, 26).
    """
    return _probs(boards, two_sided=True)


def one_sided_probs(boards) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`exact_probs` but from the one-sided formulas everywhere (for comparison:
    with at most 6 checkers a side it differs from optimal two-sided play)."""
    return _probs(boards, two_sided=False)


def _probs(boards, two_sided: bool) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(boards)
    if b.ndim != 2 or b.shape[1] != BOARD_SIZE or b.dtype.kind not in "iu":
        raise ValueError(f"boards must be an integer array of shape (N, 26), got {b.dtype} {b.shape}")
    if _compiled.active():
        res = _probs_compiled(b, two_sided)
        if res is not None:
            return res
    known = is_bearoff(b)
    probs = np.full((b.shape[0], 5), np.nan)
    if not known.any():
        return known, probs
    k = b[known].astype(np.int64)
    mover = np.maximum(k[:, 1 : N_POINTS + 1], 0)
    opp = np.maximum(-k[:, BOARD_SIZE - 2 : BOARD_SIZE - 2 - N_POINTS : -1], 0)  # its points 1..6 = our 24..19
    mover_full = mover.sum(1) == NUM_CHECKERS
    opp_full = opp.sum(1) == NUM_CHECKERS
    db = database()
    ia, ib = position_index(mover), position_index(opp)
    pa, pb = db.off[ia], db.off[ib]
    L = pa.shape[1]
    ge_b = db.off_ge[ib][:, :L]  # P(b >= n), n = 0..L-1
    out = np.zeros((k.shape[0], 5))
    out[:, 0] = (pa * ge_b).sum(1)
    Lf = db.first.shape[1]
    first_ge_b = np.zeros((k.shape[0], L))
    w = min(L, Lf + 1)
    first_ge_b[:, :w] = db.first_ge[ib][:, :w]
    out[:, 1] = np.where(opp_full, (pa * first_ge_b).sum(1), 0.0)
    first_gt_a = np.zeros((k.shape[0], L))  # P(first_a > m) = P(first_a >= m + 1)
    w = min(L, Lf)
    first_gt_a[:, :w] = db.first_ge[ia][:, 1 : w + 1]
    out[:, 3] = np.where(mover_full, (pb * first_gt_a).sum(1), 0.0)
    if two_sided:
        sa, sb = _SMALL_MAP[ia], _SMALL_MAP[ib]
        small = (sa >= 0) & (sb >= 0) & ((sa > 0) | (sb > 0))
        out[small, 0] = db.two_sided[sa[small], sb[small]]  # no gammons possible there
    np.clip(out, 0.0, 1.0, out=out)
    probs[known] = out
    return known, probs


def _probs_compiled(b: np.ndarray, two_sided: bool):
    """:func:`_probs` by the compiled twin (validated boards ``b``); None where its int8 kernel
    cannot take them (values outside int8: the numpy code then runs, and raises as before)."""
    from bgrl.evaluation import bearoff_nb

    if b.dtype != np.int8:
        if b.size and (b.min() < -128 or b.max() > 127):
            return None
        b = b.astype(np.int8)
    return bearoff_nb.probs(b, two_sided, _DB, database, _SMALL_MAP)
