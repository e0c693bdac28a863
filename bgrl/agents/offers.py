"""The computer's answers to a resignation or a draw offer (cubeless money game).

Shared by the terminal game (``bgrl play``) and the web board (``bgrl serve``, ``/``);
the equity they are given is the judge's (the strongest level by default), never the
opponent's own level.
"""

from __future__ import annotations

from bgrl.rules.outcome import RESULT_TITLES

__all__ = ["KIND", "resign_decision", "draw_decision"]

#: points -> the name of a resignation of that value (:data:`bgrl.rules.outcome.RESULT_TITLES`)
KIND = RESULT_TITLES


def resign_decision(computer_equity: float, points: int, cube: int = 1) -> tuple[bool, str]:
    """The computer's answer to a resignation offering ``points`` (1, 2 or 3) at a cube of
    ``cube`` (the resignation scores ``cube x points``).

    It accepts when ``points >= computer_equity`` (the points it expects to win, cubeless,
    points per game, per unit of the cube), the usual convention. The sentence states the
    points with the cube. Returns ``(accepted, sentence)``.

    Raises
    ------
    KeyError
        For ``points`` outside 1..3.
    """
    kind = KIND[points]
    total = points * int(cube)
    at = "" if cube == 1 else f" at a cube of {int(cube)}"
    if points >= computer_equity:
        return True, (f"The computer accepts your resignation of a {kind}{at} ({total} point{'s' if total > 1 else ''}): "
                      f"it expected {computer_equity * cube:+.3f} points per game.")
    return False, (f"The computer declines your resignation of a {kind}{at}: it expects to win more "
                   f"(its equity {computer_equity * cube:+.3f} points per game).")


def draw_decision(computer_equity: float) -> tuple[bool, str]:
    """The computer's answer to a draw offer: it accepts only when it is behind
    (``computer_equity < 0``, points per game). Returns ``(accepted, sentence)``."""
    if computer_equity < 0:
        return True, f"The computer accepts the draw: it is behind (its equity {computer_equity:+.3f})."
    return False, f"The computer declines the draw: it is not behind (its equity {computer_equity:+.3f})."
