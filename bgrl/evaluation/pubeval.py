"""Tesauro's *pubeval*: the public linear benchmark evaluator, batched with numpy.

Source of the weights
---------------------
Gerald Tesauro (IBM Research), ``pubeval.c``, 1993, posted to the newsgroup
rec.games.backgammon and kept in the FIBS / backgammon programming archives (the same
two tables ship with GNU Backgammon's ``pubeval`` player).  The two 122-float vectors
below, ``WC`` (contact positions) and ``WR`` (races), are those published values
(originally the files ``WT.cntc`` and ``WT.race``); they are facts copied with their
source named.  The numpy code here is an independent implementation of the published
input encoding; no code was copied.

The evaluator
-------------
pubeval scores an *after-state*: the board right after the side that just moved (the
"computer" in Tesauro's wording) finished its play, seen from that side.  The score is
``W . x`` with ``W = WR`` when the position is a race and ``W = WC`` otherwise; the
highest-scoring legal after-state is the play pubeval chooses.  The scale is arbitrary
(it is not an equity); only comparisons between plays of one position are meaningful.

Tesauro's board array ``pos[0..27]`` uses exactly this project's convention for the
indices 0..25 (see :mod:`bgrl.rules.board`): 1..24 are points in the mover's numbering (the
mover moves 24 -> 1), mover's checkers positive, opponent's negative, ``pos[25]`` the
mover's bar (positive), ``pos[0]`` the opponent's bar (negative); ``pos[26]`` is the
mover's borne-off count, which we derive as ``15 - checkers on the board``.

The 122 inputs ``x`` are:

* ``x[5*k + 0..4]`` for ``k = 0..23`` describe the point ``p = 24 - k`` (so the first
  block is the mover's 24-point and the last its 1-point).  With ``n = pos[p]``:

  - ``x[5k+0] = 1`` if ``n == -1`` (an opponent's blot),
  - ``x[5k+1] = 1`` if ``n == 1`` (a mover's blot),
  - ``x[5k+2] = 1`` if ``n >= 2`` (a mover's point made),
  - ``x[5k+3] = 1`` if ``n == 3`` (exactly one spare),
  - ``x[5k+4] = (n - 3) / 2`` if ``n >= 4`` (spares beyond three);

  opponent's points made (``n <= -2``) give no input at all.
* ``x[120] = -pos[0] / 2``: opponent's checkers on the bar, halved.
* ``x[121] = pos[26] / 15``: the mover's checkers borne off, as a fraction.

The mover's own checkers on the bar have no input (as in the original).  A position
where the mover has borne off all 15 checkers scores ``99999999`` (the original's
"best possible move" sentinel), whatever the weights.

The race flag: ``pubeval.c`` asks for it from the position *before* the move (a play
that breaks contact is still scored with the contact weights).  :func:`pubeval_scores`
accepts it explicitly for that reason; when it is omitted it is computed from the
after-states themselves with :func:`is_race`.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import BOARD_SIZE, NUM_CHECKERS, OPP_BAR
from bgrl.rules.outcome import is_race

__all__ = ["WC", "WR", "WIN_SCORE", "NUM_INPUTS", "is_race", "pubeval_inputs", "pubeval_scores"]

NUM_INPUTS = 122

#: Score given to an after-state in which the mover has borne off all 15 checkers.
WIN_SCORE = 99999999.0

# Race weights (Tesauro 1993, pubeval.c, ``wr``).
WR = np.array(
    [
        0.00000, -0.17160, 0.27010, 0.29906, -0.08471,
        0.00000, -1.40375, -1.05121, 0.07217, -0.01351,
        0.00000, -1.29506, -2.16183, 0.13246, -1.03508,
        0.00000, -2.29847, -2.34631, 0.17253, 0.08302,
        0.00000, -1.27266, -2.87401, -0.07456, -0.34240,
        0.00000, -1.34640, -2.46556, -0.13022, -0.01591,
        0.00000, 0.27448, 0.60015, 0.48302, 0.25236,
        0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
        0.00000, 0.24855, -0.06844, -0.37646, 0.05685,
        0.00000, 0.17405, 0.00430, 0.74427, 0.00576,
        0.00000, 0.12392, 0.31202, -0.91035, -0.16270,
        0.00000, 0.01418, -0.10839, -0.02781, -0.88035,
        0.00000, 1.07274, 2.00366, 1.16242, 0.22520,
        0.00000, 0.85631, 1.06349, 1.49549, 0.18966,
        0.00000, 0.37183, -0.50352, -0.14818, 0.12039,
        0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
        0.00000, -0.22082, 0.20178, -0.06285, -0.52728,
        0.00000, -0.13597, -0.19412, -0.09308, -1.26062,
        0.00000, 3.05454, 5.16874, 1.50680, 5.35000,
        0.00000, 2.19605, 3.85390, 0.88296, 2.30052,
        0.00000, 0.92321, 1.08744, -0.11696, -0.78560,
        0.00000, -0.09795, -0.83050, -1.09167, -4.94251,
        0.00000, -1.00316, -3.66465, -2.56906, -9.67677,
        0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
        0.00000, 3.42040,
    ],
    dtype=np.float64,
)  # fmt: skip

# Contact weights (Tesauro 1993, pubeval.c, ``wc``).
WC = np.array(
    [
        0.25696, -0.66937, -1.66135, -2.02487, -2.53398,
        -0.16092, -1.11725, -1.06654, -0.92830, -1.99558,
        -1.10388, -0.80802, 0.09856, -0.62086, -1.27999,
        -0.59220, -0.73667, 0.89032, -0.38933, -1.59847,
        -1.50197, -0.60966, 1.56166, -0.47389, -1.80390,
        -0.83425, -0.97741, -1.41371, 0.24500, 0.10970,
        -1.36476, -1.05572, 1.15420, 0.11069, -0.38319,
        -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
        -0.73169, -0.56074, 1.09792, 0.15977, 0.13786,
        -1.18435, -0.43363, 1.06169, -0.21329, 0.04798,
        -0.94373, -0.22982, 1.22737, -0.13099, -0.06295,
        -0.75882, -0.13658, 1.78389, 0.30416, 0.36797,
        -0.69851, 0.13003, 1.23070, 0.40868, -0.21081,
        -0.64073, 0.31061, 1.59554, 0.65718, 0.25429,
        -0.80789, 0.08240, 1.78964, 0.54304, 0.41174,
        -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
        -0.90750, 0.05941, 1.83120, 0.58722, 1.28777,
        -0.83711, -0.33248, 2.64983, 0.52698, 0.82132,
        -0.58897, -1.18223, 3.35809, 0.62017, 0.57353,
        -0.07276, -0.36214, 4.37655, 0.45481, 0.21746,
        0.10504, -0.61977, 3.54001, 0.04612, -0.18108,
        0.63211, -0.87046, 2.47673, -0.48016, -1.27157,
        0.86505, -1.11342, 1.24612, -0.82385, -2.77082,
        1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
        5.62596, -2.75800,
    ],
    dtype=np.float64,
)  # fmt: skip

assert WR.shape == (NUM_INPUTS,) and WC.shape == (NUM_INPUTS,)
WR.setflags(write=False)
WC.setflags(write=False)


def _as_batch(boards: np.ndarray, name: str = "after_states") -> tuple[np.ndarray, bool]:
    """Return ``(int16 array of shape (N, 26), was_single)``; raise on a wrong shape."""
    arr = np.asarray(boards)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must have an integer dtype, got {arr.dtype}")
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != BOARD_SIZE:
        raise ValueError(f"{name} must have shape (N, 26) or (26,), got {np.shape(boards)}")
    return arr.astype(np.int16), single


def pubeval_inputs(after_states: np.ndarray) -> np.ndarray:
    """pubeval's 122-input encoding of each after-state (see the module docstring).

    Parameters
    ----------
    after_states : ndarray, integer, shape (N, 26) or (26,)
        Boards from the side that has just moved.

    Returns
    -------
    ndarray, float64, shape (N, 122) (or (122,) for a single board).
    """
    b, single = _as_batch(after_states)
    n = b[:, 24:0:-1]  # (N, 24): block k describes point 24 - k
    x = np.zeros((b.shape[0], 24, 5), dtype=np.float64)
    x[:, :, 0] = n == -1
    x[:, :, 1] = n == 1
    x[:, :, 2] = n >= 2
    x[:, :, 3] = n == 3
    x[:, :, 4] = np.where(n >= 4, (n - 3) / 2.0, 0.0)
    off = NUM_CHECKERS - np.maximum(b[:, 1:26], 0).sum(axis=1)
    out = np.empty((b.shape[0], NUM_INPUTS), dtype=np.float64)
    out[:, :120] = x.reshape(b.shape[0], 120)
    out[:, 120] = -b[:, OPP_BAR] / 2.0
    out[:, 121] = off / float(NUM_CHECKERS)
    return out[0] if single else out


def pubeval_scores(after_states: np.ndarray, race: np.ndarray | None = None) -> np.ndarray:
    """Score after-states with pubeval; higher is better for the side that just moved.

    Parameters
    ----------
    after_states : ndarray, integer (int8 in this project), shape (N, 26)
        After-states from the perspective of the side that has just played (the
        project's board convention, :mod:`bgrl.rules.board`, with that side as "mover").  A
        single board of shape (26,) is accepted and gives a numpy float64 scalar.
    race : ndarray, bool, shape (N,), or a scalar bool, optional
        Which weight vector to use per row: ``True`` -> race weights ``WR``, ``False``
        -> contact weights ``WC``.  pubeval.c defines it on the position *before* the
        move; pass that to reproduce the original move choice exactly.  Default: computed
        from the after-states with :func:`is_race`.

    Returns
    -------
    ndarray, float64, shape (N,)
        ``W . x`` per row; ``WIN_SCORE`` (99999999.0) where the mover has borne off all
        15 checkers.
    """
    b, single = _as_batch(after_states)
    n_rows = b.shape[0]
    if race is None:
        race_arr = is_race(b)
    else:
        race_arr = np.asarray(race, dtype=bool)
        if race_arr.ndim == 0:
            race_arr = np.broadcast_to(race_arr, (n_rows,))
        if race_arr.shape != (n_rows,):
            raise ValueError(f"race must have shape ({n_rows},), got {np.shape(race)}")
    x = pubeval_inputs(b)
    scores = np.where(race_arr, x @ WR, x @ WC)
    off = NUM_CHECKERS - np.maximum(b[:, 1:26], 0).sum(axis=1)
    scores = np.where(off == NUM_CHECKERS, WIN_SCORE, scores)
    return scores[0] if single else scores
