"""Text drawing of a board in White's numbering (the fixed display numbering, RULES.md).

White's checkers are ``O`` and move 24 -> 1; Black's are ``X`` and move 1 -> 24 in
White's numbers. White's home board (1-6) is bottom right.
"""

from __future__ import annotations

import numpy as np

from .board import borne_off, flip, pip_counts

__all__ = ["white_view", "render"]


def white_view(board: np.ndarray, white_on_roll: bool) -> np.ndarray:
    """The board with White as the 'mover' (index p = White's point p)."""
    return np.asarray(board) if white_on_roll else flip(np.asarray(board))


def _cell(n: int, row: int) -> str:
    c = "O" if n > 0 else "X"
    k = abs(n)
    if k == 0 or row >= k:
        return "  ." if row == 0 else "   "
    if row == 4 and k > 5:
        return f"{k:3d}"
    return f"  {c}"


def render(board: np.ndarray, white_on_roll: bool, dice=None, show_ids: bool = True) -> str:
    """Draw the position (side-on-roll board) as text in White's numbering."""
    from .board import position_id

    w = white_view(board, white_on_roll)
    top = list(range(13, 25))
    bot = list(range(12, 0, -1))
    lines = []
    lines.append("   " + "".join(f"{p:3d}" for p in top[:6]) + "   " + "".join(f"{p:3d}" for p in top[6:]))
    lines.append("  +" + "-" * 18 + "-+-" + "-" * 18 + "+")
    for row in range(5):
        cells = [_cell(int(w[p]), row) for p in top]
        lines.append("  |" + "".join(cells[:6]) + " | " + "".join(cells[6:]) + "|")
    lines.append("  |" + " " * 18 + " | " + " " * 18 + "|")
    for row in reversed(range(5)):
        cells = [_cell(int(w[p]), row) for p in bot]
        lines.append("  |" + "".join(cells[:6]) + " | " + "".join(cells[6:]) + "|")
    lines.append("  +" + "-" * 18 + "-+-" + "-" * 18 + "+")
    lines.append("   " + "".join(f"{p:3d}" for p in bot[:6]) + "   " + "".join(f"{p:3d}" for p in bot[6:]))
    w_off, b_off = borne_off(w)
    w_pip, b_pip = pip_counts(w)
    lines.append(f"  O White: bar {int(w[25])}, off {int(w_off)}, pips {int(w_pip)}   (moves 24 -> 1)")
    lines.append(f"  X Black: bar {int(-w[0])}, off {int(b_off)}, pips {int(b_pip)}   (moves 1 -> 24)")
    on_roll = "White (O)" if white_on_roll else "Black (X)"
    roll = f", rolled {dice[0]}-{dice[1]}" if dice is not None else ""
    lines.append(f"  On roll: {on_roll}{roll}")
    if show_ids:
        lines.append(f"  Position ID: {position_id(board)}")
    return "\n".join(lines)
