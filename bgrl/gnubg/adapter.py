"""Optional adapter to GNU Backgammon's neural-net module ``gnubg_nn`` (PyPI ``gnubg-nn``).

Used to cross-check :mod:`bgrl.rules.movegen` and :mod:`bgrl.rules.board` against GNU Backgammon
(``tests/gnubg/test_gnubg_crosscheck.py``, ``scripts/tools/crosscheck_gnubg.py``).  ``gnubg_nn`` is an
optional extra: it is imported inside the functions that need it, and a missing install
raises :class:`ImportError` telling how to add it.

Board conventions
-----------------
Ours (:mod:`bgrl.rules.board`): int8 ``(26,)`` from the side on roll (the *mover*): index 1..24
the mover's points in its numbering (+ mover, - opponent), 25 the mover's bar (+), 0 the
opponent's bar (-).

gnubg's ``anBoard``: a pair of 25-int lists, each side in its own numbering (index 0..23 =
that side's points 1..24, index 24 = its bar), ordered ``(opponent, side on roll)``.
Checked empirically: ``gnubg_nn.moves(board, d1, d2)`` moves the checkers of ``board[1]``,
and ``gnubg_nn.position_id`` encodes ``board[0]`` first, as GNU Backgammon's Position IDs
do (and as :func:`bgrl.rules.board.position_id` does).

``gnubg_nn.moves`` returns one 20-letter position key per distinct legal result.  Decoded
with ``gnubg_nn.board_from_position_key`` the pair keeps the same order as the input:
``(opponent, mover)`` with the mover having *just played* (the key is not swapped to the
next side on roll).  That is exactly our after-state convention (mover's view right after
the play), so :func:`from_gnubg` applies to it directly.  For a position with no legal
play ``gnubg_nn.moves`` returns an empty tuple; :func:`gnubg_afterstates` maps it to
``{tuple(board)}``, our pass convention.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgrl.rules.board import MOVER_BAR, OPP_BAR, board_from_sides, position_id, validate_board
from bgrl._extras import require
from bgrl.rules.movegen import generate

__all__ = [
    "to_gnubg",
    "from_gnubg",
    "gnubg_afterstates",
    "gnubg_position_id",
    "require_gnubg",
    "Disagreement",
    "crosscheck_batch",
    "position_id_roundtrip",
]

def require_gnubg():
    """Import and return the ``gnubg_nn`` module, or raise ImportError
    (:class:`bgrl._extras.MissingExtraError`) naming the extra and its pip command."""
    return require("gnubg_nn", "gnubg", "GNU Backgammon's evaluator (gnubg_nn)")


def to_gnubg(board) -> list[list[int]]:
    """Our board (mover on roll) -> gnubg anBoard ``[[25 ints opponent], [25 ints on roll]]``.

    Each side in its own numbering: index i (0..23) = that side's point i+1, 24 = its bar.
    Our mover's point p is the opponent's point 25-p.
    """
    b = validate_board(board).astype(np.int64)
    mover = [int(max(b[p], 0)) for p in range(1, 25)] + [int(b[MOVER_BAR])]
    opp = [int(max(-b[25 - q], 0)) for q in range(1, 25)] + [int(-b[OPP_BAR])]
    return [opp, mover]


def from_gnubg(pair) -> np.ndarray:
    """gnubg anBoard ``(opponent, on roll)`` -> our board (int8 (26,), ``pair[1]`` = mover).

    Raises ValueError if the pair is malformed or puts both sides on one point.
    """
    if len(pair) != 2 or len(pair[0]) != 25 or len(pair[1]) != 25:
        raise ValueError(f"a gnubg board is a pair of 25-int sequences, got {pair!r}")
    opp = [int(x) for x in pair[0]]
    mover = [int(x) for x in pair[1]]
    if min(opp + mover) < 0:
        raise ValueError(f"gnubg board counts must be >= 0, got {pair!r}")
    return validate_board(board_from_sides(mover, opp, f"gnubg board {pair!r}"))


def gnubg_afterstates(board, dice) -> set[tuple[int, ...]]:
    """Every distinct legal after-state according to GNU Backgammon, in our convention.

    Parameters
    ----------
    board : array-like (26,), mover on roll.
    dice : pair of ints 1..6.

    Returns
    -------
    set of 26-tuples of ints: boards from the mover's side right after its whole play.
    ``{tuple(board)}`` when no die can be played (a pass), as :func:`bgrl.rules.movegen.generate`.
    """
    g = require_gnubg()
    b = validate_board(board)
    d1, d2 = (int(x) for x in dice)
    keys = g.moves(to_gnubg(b), d1, d2)
    if not keys:
        return {tuple(int(x) for x in b)}
    return {tuple(int(x) for x in from_gnubg(g.board_from_position_key(k))) for k in keys}


def gnubg_position_id(board) -> str:
    """GNU Backgammon's Position ID of our board (mover on roll), via ``gnubg_nn.position_id``."""
    g = require_gnubg()
    return g.position_id(to_gnubg(board))


def position_id_roundtrip(board) -> bool:
    """True if our Position ID equals gnubg's and gnubg decodes our ID back to ``board``."""
    g = require_gnubg()
    b = validate_board(board)
    pid = position_id(b)
    if pid != g.position_id(to_gnubg(b)):
        return False
    return bool(np.array_equal(from_gnubg(g.board_from_position_id(pid)), b))


@dataclass(frozen=True)
class Disagreement:
    """One (position, roll) on which bgrl.rules.movegen and gnubg list different after-states."""

    position_id: str
    dice: tuple[int, int]
    ours_only: tuple[tuple[int, ...], ...]  # after-states only bgrl.rules.movegen lists
    gnubg_only: tuple[tuple[int, ...], ...]  # after-states only gnubg lists

    def describe(self) -> str:
        def fmt(states):
            return [f"{position_id(np.array(s))} {list(s)}" for s in states]

        return (
            f"position {self.position_id} dice {self.dice[0]}-{self.dice[1]}: "
            f"only bgrl {fmt(self.ours_only)}; only gnubg {fmt(self.gnubg_only)}"
        )


def crosscheck_batch(boards, dice) -> list[Disagreement]:
    """Compare :func:`bgrl.rules.movegen.generate` (one batched call) with gnubg case by case.

    boards int (B, 26), dice int (B, 2). Returns the disagreements (empty when all agree).
    """
    b = np.asarray(boards, dtype=np.int8)
    d = np.asarray(dice, dtype=np.int8)
    res = generate(b, d)
    out = []
    for i in range(b.shape[0]):
        grp = res.group(i).tolist()
        ours = {tuple(r) for r in grp}
        roll = (int(d[i, 0]), int(d[i, 1]))
        theirs = gnubg_afterstates(b[i], roll)
        if ours != theirs or len(ours) != len(grp):
            out.append(
                Disagreement(
                    position_id=position_id(b[i]),
                    dice=roll,
                    ours_only=tuple(sorted(ours - theirs)),
                    gnubg_only=tuple(sorted(theirs - ours)),
                )
            )
    return out
