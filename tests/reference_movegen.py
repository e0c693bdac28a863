"""Slow, independent reference move generator, written from the shared rule book (RULES.md; docs/rules.md in this repository).

Deliberately plain Python (lists and tuples, no numpy, no vectorisation) so that it can be
read line by line against the rule book.  It shares nothing with ``bgrl.rules.movegen``: the
only common ground is the board layout documented in ``bgrl/board.py``:

* index 1..24: the mover's points in the mover's numbering, positive = mover's checkers,
  negative = opponent's checkers;
* index 25: the mover's bar (positive count);
* index 0: the opponent's bar (negative count).

The mover moves from high indices to low ones, enters from the bar with die ``d`` on point
``25 - d`` and bears off from points 1..6.

Public function: :func:`reference_afterstates`.
"""

from __future__ import annotations

MOVER_BAR = 25
OPP_BAR = 0


def _as_tuple(board) -> tuple[int, ...]:
    b = tuple(int(x) for x in board)
    if len(b) != 26:
        raise ValueError(f"a board has 26 entries, got {len(b)}")
    return b


def _all_home(b: tuple[int, ...]) -> bool:
    """docs/rules.md "Bearing off": every mover's checker not borne off is on points 1..6 and
    none is on the bar (index 25)."""
    return all(b[i] <= 0 for i in range(7, 26))


def _can_land(b: tuple[int, ...], point: int) -> bool:
    """docs/rules.md "A turn": an empty point, an own point, or a single opposing checker
    (a blot); never two or more opposing checkers."""
    return b[point] >= -1


def _move(b: tuple[int, ...], src: int, dst: int) -> tuple[int, ...]:
    """Move one mover's checker from ``src`` (1..25) to ``dst`` (1..24), or off the board
    if ``dst`` <= 0.  A blot on ``dst`` is hit: it goes to the opponent's bar (index 0)."""
    nb = list(b)
    nb[src] -= 1
    if dst >= 1:
        if nb[dst] == -1:  # hit the blot
            nb[dst] = 0
            nb[OPP_BAR] -= 1
        nb[dst] += 1
    return tuple(nb)


def single_die_moves(board, die: int) -> set[tuple[int, ...]]:
    """Every board reachable by moving one checker by one die (a set: two checkers on the
    same point give the same board)."""
    b = _as_tuple(board)
    out: set[tuple[int, ...]] = set()
    # docs/rules.md "The bar": with any checker on the bar, no other checker may move; die d
    # enters on the mover's point 25 - d under the usual landing rules.
    if b[MOVER_BAR] > 0:
        entry = 25 - die
        if _can_land(b, entry):
            out.add(_move(b, MOVER_BAR, entry))
        return out
    home = _all_home(b)
    for src in range(1, 25):
        if b[src] <= 0:
            continue
        dst = src - die
        if dst >= 1:
            if _can_land(b, dst):
                out.add(_move(b, src, dst))
            continue
        # dst <= 0: an attempt to bear off.
        if not home:
            continue
        if dst == 0:
            # "A die equal to an occupied point bears a checker off that point."
            out.add(_move(b, src, 0))
        else:
            # "A die higher than the highest occupied point bears off from the highest
            # occupied point"; with a checker on a higher point it cannot bear off.
            higher_occupied = any(b[p] > 0 for p in range(src + 1, 7))
            if not higher_occupied:
                out.add(_move(b, src, 0))
    return out


def _remove_one(dice: tuple[int, ...], die: int) -> tuple[int, ...]:
    lst = list(dice)
    lst.remove(die)
    return tuple(lst)


def reference_terminals(board, dice) -> tuple[int, set[tuple[int, ...]]]:
    """``(dice_used, after_states)`` for one position and roll, see
    :func:`reference_afterstates`."""
    b = _as_tuple(board)
    d1, d2 = int(dice[0]), int(dice[1])
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1..6, got {dice!r}")
    # docs/rules.md "A turn": two dice, each a separate move; doubles give four moves.
    all_dice = (d1, d1, d1, d1) if d1 == d2 else (d1, d2)

    # Exhaustive search over every order of the dice and every checker choice.  A node is
    # (board, dice still to play); a node is terminal when none of its dice can be played.
    # Visiting the same node twice can only give the same terminals, so it is skipped.
    terminals: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()

    def search(state: tuple[int, ...], remaining: tuple[int, ...]) -> None:
        node = (state, remaining)
        if node in seen:
            return
        seen.add(node)
        moved = False
        for die in sorted(set(remaining)):
            rest = _remove_one(remaining, die)
            for nxt in single_die_moves(state, die):
                moved = True
                search(nxt, tuple(sorted(rest)))
        if not moved:
            terminals.add(node)

    search(b, tuple(sorted(all_dice)))

    # docs/rules.md "Maximum-dice rule": use as many dice as any legal sequence allows.
    used = {node: len(all_dice) - len(node[1]) for node in terminals}
    max_used = max(used.values())
    if max_used == 0:
        # "Pass only when no die can be played."
        return 0, {b}
    best = [node for node in terminals if used[node] == max_used]
    if d1 != d2 and max_used == 1:
        # "If only one die of a non-double can be used, and either could be used alone,
        # the higher one must be used; if only one of them can be used at all, that one."
        high = max(d1, d2)

        def played(node) -> int:
            (left,) = node[1]
            return d1 + d2 - left

        with_high = [node for node in best if played(node) == high]
        if with_high:
            best = with_high
    # "A play is judged by its final position": a set of boards.
    return max_used, {node[0] for node in best}


def reference_afterstates(board, dice) -> set[tuple[int, ...]]:
    """The set of distinct legal after-states (26-tuples, mover's view) for one position
    and roll, under docs/rules.md.  A position where no die can be played gives
    ``{tuple(board)}`` (the pass)."""
    return reference_terminals(board, dice)[1]


def reference_dice_used(board, dice) -> int:
    """Number of dice every legal play of the position uses (0 for a pass)."""
    return reference_terminals(board, dice)[0]
