"""The state of the doubling cube and of the match: :class:`CubeState`. numpy-free, pure rules.

The cube and match play are optional rules (docs/rules.md); the default everywhere in bgrl is a
cubeless money game, which is :data:`NO_CUBE` here. A :class:`CubeState` is always seen from
the side on roll, like a :class:`bgrl.rules.board.Position`:

* ``value``: the cube value, a power of 2 from 1 up to ``max_value``;
* ``owner``: ``0`` centred, ``1`` the side on roll owns it, ``-1`` the opponent owns it;
* ``match_length``: 0 for a money game, else N of an N-point match;
* ``score``: ``(side on roll, opponent)`` points in the match (0, 0 in a money game);
* ``crawford``: this game is the Crawford game (no doubling);
* ``jacoby``, ``beavers``: money-game options (gammons count only after a double; the taker
  may redouble at once, keeping the cube);
* ``max_value``: the cap on the cube value (doubles beyond it are not allowed);
* ``cube_in_play``: False for cubeless play (the project default).

Errors are ValueError with one line naming what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["CubeState", "NO_CUBE", "DEFAULT_MAX_CUBE", "check_cube_value"]

#: The default cap on the cube value (2**15, the largest cube gnubg's Match ID can hold).
DEFAULT_MAX_CUBE = 2 ** 15


def check_cube_value(value, what: str = "cube value") -> int:
    """``value`` as an int if it is a power of 2 >= 1, else ValueError naming it."""
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a power of 2 (1, 2, 4, 8, ...), got {value!r}") from None
    if v != value or v < 1 or v & (v - 1):
        raise ValueError(f"{what} must be a power of 2 (1, 2, 4, 8, ...), got {value!r}")
    return v


@dataclass(frozen=True)
class CubeState:
    """The doubling cube and the match score, from the side on roll (module docstring).

    Raises
    ------
    ValueError
        a cube value that is not a power of 2 or above ``max_value``, an owner not in
        (-1, 0, 1), a negative match length, a score at or above the match length (or a
        score in a money game), Crawford outside a match or when neither side is one point
        away, Jacoby or beavers in a match.
    """

    value: int = 1
    owner: int = 0
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_value: int = DEFAULT_MAX_CUBE
    cube_in_play: bool = True

    def __post_init__(self):
        check_cube_value(self.max_value, "max cube value")
        v = check_cube_value(self.value)
        if v > self.max_value:
            raise ValueError(f"cube value {v} is above the cap {self.max_value}")
        if self.owner not in (-1, 0, 1):
            raise ValueError(f"cube owner must be 0 (centred), 1 (side on roll) or -1 (opponent), got {self.owner!r}")
        if self.owner == 0 and v != 1:
            raise ValueError(f"a centred cube is at 1, got a centred cube at {v}")
        n = int(self.match_length)
        if n < 0 or n != self.match_length:
            raise ValueError(f"match length must be 0 (money game) or a positive integer, got {self.match_length!r}")
        s = tuple(int(x) for x in self.score)
        if len(s) != 2 or min(s) < 0:
            raise ValueError(f"score must be two non-negative integers, got {self.score!r}")
        object.__setattr__(self, "score", s)
        if n == 0:
            if s != (0, 0):
                raise ValueError(f"a money game has no score, got {s[0]}-{s[1]} without a match length")
            if self.crawford:
                raise ValueError("the Crawford rule needs a match (match length > 0)")
        else:
            if max(s) >= n:
                raise ValueError(f"score {s[0]}-{s[1]} is at or above the match length {n}: the match is over")
            if self.jacoby or self.beavers:
                raise ValueError("the Jacoby rule and beavers are money-game options, not for a match")
            if self.crawford and max(s) != n - 1:
                raise ValueError(f"the Crawford game needs a side 1 point away; score {s[0]}-{s[1]} to {n}")

    # -- derived facts -------------------------------------------------------------
    @property
    def is_match(self) -> bool:
        return self.match_length > 0

    @property
    def is_plain_money(self) -> bool:
        """A money game's centred cube at 1 in play, without Jacoby or beavers, whatever its
        cap: what an XGID says when it says nothing of a cube, and what cubeless equity ranks."""
        return self == CubeState(max_value=self.max_value)

    @property
    def away(self) -> tuple[int, int]:
        """Points each side still needs, (side on roll, opponent); (0, 0) in a money game."""
        if not self.is_match:
            return (0, 0)
        return (self.match_length - self.score[0], self.match_length - self.score[1])

    @property
    def post_crawford(self) -> bool:
        """A game after the Crawford game: a side is 1 away and this is not the Crawford game."""
        return self.is_match and not self.crawford and min(self.away) == 1

    def why_no_double(self) -> str | None:
        """Why the side on roll may not double now, or None when it may."""
        if not self.cube_in_play:
            return "the game is played without the doubling cube"
        if self.crawford:
            return "no doubling in the Crawford game"
        if self.owner == -1:
            return "the opponent owns the cube"
        if 2 * self.value > self.max_value:
            return f"the cube is at its cap ({self.max_value})"
        if self.match_length and self.value >= self.match_length - self.score[0]:
            return (f"the cube is dead: a single game at the cube of {self.value} already wins the match "
                    f"({self.match_length - self.score[0]} away)")
        return None

    def may_double(self) -> bool:
        return self.why_no_double() is None

    def check_double(self) -> None:
        """ValueError with :meth:`why_no_double`'s reason when the side on roll may not double."""
        why = self.why_no_double()
        if why is not None:
            raise ValueError(f"cannot double: {why}")

    def doubled(self) -> "CubeState":
        """After a double taken: the cube at twice the value, owned by the opponent (still from
        the doubler's side). ValueError when the double is not allowed."""
        self.check_double()
        return replace(self, value=2 * self.value, owner=-1)

    def why_no_beaver(self) -> str | None:
        """Why the side on roll, just doubled, may not beaver (redouble at once to 4 times the
        stake, keeping the cube), or None when it may. ``self`` is the state before the double,
        from the doubler's side."""
        if not self.beavers:
            return "beavers are not allowed (a money-game option)"
        if 4 * self.value > self.max_value:
            return f"a beaver would take the cube above its cap ({self.max_value})"
        return None

    def beavered(self) -> "CubeState":
        """After a double answered by a beaver: the cube at 4 times the value, owned by the
        taker (the opponent), from the doubler's side. ValueError when the double or the
        beaver is not allowed."""
        self.check_double()
        why = self.why_no_beaver()
        if why is not None:
            raise ValueError(f"cannot beaver: {why}")
        return replace(self, value=4 * self.value, owner=-1)

    def points(self, result: int) -> int:
        """Points a game ending with ``result`` (1 single, 2 gammon, 3 backgammon) is worth at
        this cube: ``value * result``, except that under the Jacoby rule a gammon or backgammon
        counts single while the cube is centred (not turned)."""
        r = int(result)
        if r not in (1, 2, 3):
            raise ValueError(f"a game result must be 1 (single), 2 (gammon) or 3 (backgammon), got {result!r}")
        if self.jacoby and self.owner == 0 and self.cube_in_play:
            r = 1
        return self.value * r

    def flipped(self) -> "CubeState":
        """The same state seen from the other side (after the turn passes)."""
        return replace(self, owner=-self.owner, score=(self.score[1], self.score[0]))

    def as_dict(self) -> dict:
        return {"value": self.value, "owner": self.owner, "match_length": self.match_length,
                "score": list(self.score), "crawford": self.crawford, "jacoby": self.jacoby,
                "beavers": self.beavers, "max_value": self.max_value, "cube_in_play": self.cube_in_play}


#: Cubeless money play, the project's default.
NO_CUBE = CubeState(cube_in_play=False)
