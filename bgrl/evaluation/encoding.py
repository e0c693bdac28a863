"""Position encoding for the network (numpy only).

``td198``: Tesauro's TD-Gammon input encoding (Tesauro 1992, "Practical issues in temporal
difference learning"; layout as in Sutton & Barto, "Reinforcement Learning", 2nd ed.,
section 16.1): for each side, 4 units per point (n >= 1, n >= 2, n >= 3, (n - 3) / 2 for
n > 3), one unit bar / 2, one unit off / 15; then two turn units. The board is always
encoded from the side on roll, so the turn units are constant (1, 0).

``td198r`` (default, :data:`ENCODER`): td198 plus 4 race features scaled to ~[0, 1]: race
flag, mover pip count / 167, opponent pip count / 167, and (opponent - mover pips) / 50.
They help a small network judge races (DESIGN.md, "Race and contact play differ").

``td198g``: td198r plus 18 hand-made features in GNU Backgammon's spirit, 9 for the mover
then 9 for the opponent (hitting shots, escapes, containment, back checker and anchor,
timing, pips to break contact, dancing, home points; :mod:`bgrl.evaluation.features`), at [202, 220).

Layout of td198 (index ranges, all float32):
  [0, 96)    mover's points 1..24 in mover's numbering, 4 units each
  96         mover's bar / 2
  97         mover's borne-off / 15
  [98, 194)  opponent's points 1..24 in the opponent's numbering, 4 units each
  194        opponent's bar / 2
  195        opponent's borne-off / 15
  196, 197   turn units (1, 0): mover on roll
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import pip_counts
from bgrl.rules.outcome import is_race

__all__ = ["ENCODERS", "ENCODER", "POINT_UNITS", "encode", "encode_numpy", "num_features"]


def _point_units() -> np.ndarray:
    units = np.zeros((16, 4), dtype=np.float32)
    for n in range(16):
        units[n] = [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0]
    units.setflags(write=False)
    return units


#: The four td198 input units of one point holding ``n`` checkers of one side, row ``n``
#: (0..15): ``[n >= 1, n >= 2, n >= 3, (n - 3) / 2 for n > 3]``. float32, shape (16, 4),
#: read-only. The one copy of Tesauro's point coding: the encoders here and in
#: :mod:`bgrl.evaluation.encoding_nb` and the first-layer tables of
#: :class:`bgrl.evaluation.table.TableNetEvaluator` all read it.
POINT_UNITS = _point_units()

ENCODERS = {"td198": 198, "td198r": 202, "td198g": 220}
ENCODER = "td198r"


def num_features(name: str = ENCODER) -> int:
    """Number of input units of encoder ``name``; ValueError for an unknown name."""
    try:
        return ENCODERS[name]
    except KeyError:
        raise ValueError(f"unknown encoder {name!r}; expected one of {sorted(ENCODERS)}") from None


def encode(boards: np.ndarray, name: str = ENCODER) -> np.ndarray:
    """Encode boards (side on roll = mover) as network inputs.

    Parameters
    ----------
    boards : ndarray, int8, shape (N, 26)
    name : {"td198", "td198r", "td198g"}

    Returns
    -------
    ndarray, float32, shape (N, num_features(name))

    Computed by the compiled :func:`bgrl.evaluation.encoding_nb.encode` (numba), bit for bit equal to
    :func:`encode_numpy`, the numpy reference, which serves when numba is missing.
    """
    n_feat = num_features(name)
    b = np.asarray(boards)
    if b.ndim == 2 and b.shape[1] == 26:
        from bgrl.evaluation import encoding_nb

        if encoding_nb.AVAILABLE:
            return encoding_nb.encode(b, name, n_feat, POINT_UNITS)
    return encode_numpy(b, name)


def encode_numpy(boards: np.ndarray, name: str = ENCODER) -> np.ndarray:
    """:func:`encode` in numpy (the reference the compiled version is tested against)."""
    n_feat = num_features(name)
    b = np.asarray(boards)
    n = b.shape[0]
    out = np.zeros((n, n_feat), dtype=np.float32)
    mover = np.maximum(b[:, 1:25], 0)
    opp = np.maximum(-b[:, 24:0:-1], 0)  # opponent's points 1..24 in its own numbering
    out[:, 0:96] = POINT_UNITS[mover].reshape(n, 96)
    out[:, 98:194] = POINT_UNITS[opp].reshape(n, 96)
    on_m = mover.sum(axis=1, dtype=np.int32) + b[:, 25]
    on_o = opp.sum(axis=1, dtype=np.int32) - b[:, 0]
    out[:, 96] = b[:, 25] / 2.0
    out[:, 97] = (15 - on_m) / 15.0
    out[:, 194] = -b[:, 0] / 2.0
    out[:, 195] = (15 - on_o) / 15.0
    out[:, 196] = 1.0
    if name in ("td198r", "td198g"):
        pm, po = pip_counts(b)
        out[:, 198] = is_race(b)
        out[:, 199] = pm / 167.0
        out[:, 200] = po / 167.0
        out[:, 201] = (po - pm) / 50.0
    if name == "td198g":
        from bgrl.evaluation.features import both_sides

        out[:, 202:220] = both_sides(b)
    return out
