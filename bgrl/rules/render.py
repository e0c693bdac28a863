"""Text drawing of a board, numbered from one side (White's by default).

White's checkers are ``O``, Black's ``X``. The board is drawn from the viewer's side, as
GNU Backgammon does: the viewer's home board (its points 1-6) is bottom right and the
viewer moves 24 -> 1 in its own numbering. The default viewer is White (docs/rules.md's fixed
display numbering); the terminal game draws it from the human's side. Checkers on the bar
are drawn in the middle column (``BAR``): the opponent's in the upper half, the viewer's in
the lower half.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import borne_off, flip, pip_counts, position_id

__all__ = ["white_view", "render"]


def white_view(board: np.ndarray, white_on_roll: bool) -> np.ndarray:
    """The board with White as the 'mover' (index p = White's point p)."""
    return np.asarray(board) if white_on_roll else flip(np.asarray(board))


def _cell(n: int, row: int, mine: str, theirs: str) -> str:
    c = mine if n > 0 else theirs
    k = abs(n)
    if k == 0 or row >= k:
        return "  ." if row == 0 else "   "
    if row == 4 and k > 5:
        return f"{k:3d}"
    return f"  {c}"


def _bar_cell(k: int, row: int, c: str) -> str:
    if row >= k:
        return "   "
    if row == 4 and k > 5:
        return f"{k:3d}"
    return f" {c} "


def render(board: np.ndarray, white_on_roll: bool, dice=None, show_ids: bool = True, viewer: str = "white",
           status: str | None = None) -> str:
    """Draw a position as text.

    Parameters
    ----------
    board : int8 (26,), from the side on roll (the engine's encoding).
    white_on_roll : whether White is the side on roll (the mover of ``board``).
    dice : the roll on the table, shown high die first, or None.
    show_ids : add the gnubg Position ID line (of the side on roll).
    viewer : ``"white"`` or ``"black"``: whose numbering labels the points and whose home
        board is drawn bottom right.
    status : replaces the "On roll" line (e.g. for a finished game, where no side is on roll).
    """
    if viewer not in ("white", "black"):
        raise ValueError(f"viewer must be 'white' or 'black', got {viewer!r}")
    w = white_view(board, white_on_roll)
    v = w if viewer == "white" else flip(w)  # index p = the viewer's point p
    mine, theirs = ("O", "X") if viewer == "white" else ("X", "O")
    top = list(range(13, 25))
    bot = list(range(12, 0, -1))
    their_bar, my_bar = int(-v[0]), int(v[25])
    lines = []
    lines.append("   " + "".join(f"{p:3d}" for p in top[:6]) + "       " + "".join(f"{p:3d}" for p in top[6:]))
    lines.append("  +" + "-" * 18 + "-+---+-" + "-" * 18 + "+")
    for row in range(5):
        cells = [_cell(int(v[p]), row, mine, theirs) for p in top]
        lines.append("  |" + "".join(cells[:6]) + " |" + _bar_cell(their_bar, row, theirs) + "| " + "".join(cells[6:]) + "|")
    lines.append("  |" + " " * 18 + " |BAR| " + " " * 18 + "|")
    for row in reversed(range(5)):
        cells = [_cell(int(v[p]), row, mine, theirs) for p in bot]
        lines.append("  |" + "".join(cells[:6]) + " |" + _bar_cell(my_bar, row, mine) + "| " + "".join(cells[6:]) + "|")
    lines.append("  +" + "-" * 18 + "-+---+-" + "-" * 18 + "+")
    lines.append("   " + "".join(f"{p:3d}" for p in bot[:6]) + "       " + "".join(f"{p:3d}" for p in bot[6:]))
    w_off, b_off = borne_off(w)
    w_pip, b_pip = pip_counts(w)
    if viewer == "white":
        lines.append("  Points in White's numbering: White (O) moves 24 -> 1, Black (X) 1 -> 24")
    else:
        lines.append("  Points in Black's numbering: Black (X) moves 24 -> 1, White (O) 1 -> 24")
    lines.append(f"  O White: bar {int(w[25])}, off {int(w_off)}, pips {int(w_pip)}")
    lines.append(f"  X Black: bar {int(-w[0])}, off {int(b_off)}, pips {int(b_pip)}")
    if status is not None:
        lines.append(f"  {status}")
    else:
        on_roll = "White (O)" if white_on_roll else "Black (X)"
        roll = f", rolled {max(dice)}-{min(dice)}" if dice is not None else ""
        lines.append(f"  On roll: {on_roll}{roll}")
    if show_ids:
        lines.append(f"  Position ID: {position_id(board)}")
    return "\n".join(lines)
