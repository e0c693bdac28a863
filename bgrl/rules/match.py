"""Cubeful play in colours: a money session with the doubling cube, or an N-point match.

numpy-free, pure rules (docs/rules.md's optional rules; docs/cube.md). :class:`Match` is the
state machine every cubeful game of bgrl goes through (``bgrl play --cube``, ``bgrl match
--cube``, the web board's sessions): it holds the score, the cube of the game in play in
colours (value, owner, a double waiting for its answer) and whether the Crawford game has
been played, and it checks every cube action:

* the exchange is :meth:`Match.offer` then :meth:`Match.answer`, written here once for every
  surface (the terminal and web games of :mod:`bgrl.session`, :mod:`bgrl.arena.cubeful`, the
  environments of :mod:`bgrl.env`): only the side on roll may offer a double, before it rolls
  (the caller rolls after :meth:`Match.may_double`), when the cube is centred or its own, not
  in the Crawford game, not past the cap, not when the cube is dead (a single game at its
  value already wins the match) and not while a double waits for its answer;
* the other side answers ``take`` (the cube goes to it at twice the value), ``beaver`` (money
  with beavers: it redoubles at once to 4 times and keeps the cube) or ``pass`` (the doubler
  wins the current stake, a single game); :meth:`Match.double`, :meth:`Match.take`,
  :meth:`Match.beaver` and :meth:`Match.drop` are the same steps under their own names;
* a game played out, resigned or passed scores ``cube value x result`` for the winner
  (1 single, 2 gammon, 3 backgammon), gammons single under the Jacoby rule while the cube is
  centred (:meth:`bgrl.rules.cube.CubeState.points`);
* in a match the first game after a side reaches N-1 points is the Crawford game (no
  doubling); the games after it are post-Crawford; the match ends when a side reaches N.

From either side the cube is a :class:`bgrl.rules.cube.CubeState` (:meth:`Match.cube_for`),
which is what the cube decisions of :mod:`bgrl.agents.cube` take. Errors are ValueError with
one line naming what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bgrl.rules.cube import DEFAULT_MAX_CUBE, CubeState, check_cube_value
from bgrl.rules.game import BLACK, WHITE

__all__ = ["MatchRules", "GameScore", "Match", "ANSWERS", "other"]

#: The answers to a double, as :meth:`Match.answer` takes them.
ANSWERS = ("take", "pass", "beaver")


def other(colour: str) -> str:
    """The other colour."""
    if colour not in (WHITE, BLACK):
        raise ValueError(f"colour must be 'white' or 'black', got {colour!r}")
    return BLACK if colour == WHITE else WHITE


@dataclass(frozen=True)
class MatchRules:
    """The options of a cubeful session: ``match_length`` (0 = money play, else N points,
    1..25 with the shipped match equity table), ``jacoby`` and ``beavers`` (money only) and
    ``max_value`` (the cube cap, a power of 2). ValueError for a bad combination."""

    match_length: int = 0
    jacoby: bool = False
    beavers: bool = False
    max_value: int = DEFAULT_MAX_CUBE

    def __post_init__(self):
        n = self.match_length
        if isinstance(n, bool) or int(n) != n or n < 0:
            raise ValueError(f"match length must be 0 (money play) or a positive number of points, got {n!r}")
        check_cube_value(self.max_value, "cube cap")
        if self.max_value < 2:
            raise ValueError(f"the cube cap must be at least 2 (a cap of 1 is cubeless play), got {self.max_value}")
        if n > 0 and (self.jacoby or self.beavers):
            raise ValueError("the Jacoby rule and beavers are money-game options, not for a match")

    @property
    def is_match(self) -> bool:
        return self.match_length > 0

    def describe(self) -> str:
        """E.g. ``7-point match`` or ``money play, Jacoby rule, beavers, cube cap 64``."""
        if self.is_match:
            text = f"{self.match_length}-point match"
        else:
            text = "money play with the cube"
            if self.jacoby:
                text += ", Jacoby rule"
            if self.beavers:
                text += ", beavers"
        if self.max_value != DEFAULT_MAX_CUBE:
            text += f", cube cap {self.max_value}"
        return text


@dataclass(frozen=True)
class GameScore:
    """One finished game: ``winner`` (colour or None for an agreed draw), ``result`` (1..3,
    0 for a draw), ``cube`` (its final value), ``points`` scored by the winner, ``how``
    (``bear-off``, ``resign``, ``pass`` or ``draw``) and whether it was the Crawford game."""

    winner: str | None
    result: int
    cube: int
    points: int
    how: str
    crawford: bool = False

    def points_for(self, colour: str) -> int:
        if self.winner is None:
            return 0
        return self.points if self.winner == colour else -self.points


@dataclass
class Match:
    """A money session with the cube, or an N-point match, in colours (module docstring).

    Attributes (read them; change them only through the methods)
    ----------
    rules : MatchRules
    score : dict colour -> points won so far
    games : list of GameScore, the finished games
    cube_value : int, the cube of the game in play
    cube_owner : colour owning the cube, or None when centred
    offered_by : colour whose double waits for an answer, or None
    crawford : whether the game in play is the Crawford game
    """

    rules: MatchRules = field(default_factory=MatchRules)
    score: dict = field(default_factory=lambda: {WHITE: 0, BLACK: 0})
    games: list = field(default_factory=list)
    cube_value: int = 1
    cube_owner: str | None = None
    offered_by: str | None = None
    crawford: bool = False
    _crawford_done: bool = False
    _game_over: bool = False

    @classmethod
    def from_cube_state(cls, cube: CubeState, colour: str) -> "Match":
        """A match (or money session) whose game in play has ``cube`` seen from ``colour``
        (e.g. an XGID's cube and score, ``colour`` on roll): rules, score, cube value and
        owner, and the Crawford state (a side 1 away means the Crawford game is now, when
        ``cube.crawford``, or has been played). ValueError for a cube not in play."""
        if not cube.cube_in_play:
            raise ValueError("the position is cubeless (no cube in play)")
        rules = MatchRules(match_length=cube.match_length, jacoby=cube.jacoby, beavers=cube.beavers, max_value=cube.max_value)
        m = cls(rules)
        if rules.is_match:
            m.score = {colour: cube.score[0], other(colour): cube.score[1]}
        m.cube_value = cube.value
        m.cube_owner = None if cube.owner == 0 else (colour if cube.owner == 1 else other(colour))
        m.crawford = bool(cube.crawford)
        m._crawford_done = bool(cube.crawford or cube.post_crawford)
        return m

    # -- state -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """An N-point match that a side has won (a money session never ends by itself)."""
        return self.rules.is_match and max(self.score.values()) >= self.rules.match_length

    @property
    def winner(self) -> str | None:
        """The colour that won the match, or None while it goes on (and in money play)."""
        if not self.over:
            return None
        return WHITE if self.score[WHITE] >= self.rules.match_length else BLACK

    @property
    def game_number(self) -> int:
        """1 for the first game, counting the game in play."""
        return len(self.games) + (0 if self._game_over else 1)

    @property
    def post_crawford(self) -> bool:
        n = self.rules.match_length
        return self.rules.is_match and self._crawford_done and not self.crawford and max(self.score.values()) == n - 1

    def away(self, colour: str) -> int:
        """Points ``colour`` still needs (0 in money play)."""
        return max(self.rules.match_length - self.score[colour], 0) if self.rules.is_match else 0

    def cube_for(self, colour: str) -> CubeState:
        """The cube and score of the game in play from ``colour``'s side (as the side on roll)."""
        r = self.rules
        owner = 0 if self.cube_owner is None else (1 if self.cube_owner == colour else -1)
        score = (self.score[colour], self.score[other(colour)]) if r.is_match else (0, 0)
        return CubeState(value=self.cube_value, owner=owner, match_length=r.match_length, score=score,
                         crawford=self.crawford, jacoby=r.jacoby, beavers=r.beavers, max_value=r.max_value)

    def describe_cube(self, viewer: str | None = None, names: dict | None = None) -> str:
        """One line for a board header: the cube's value and owner, the match score and the
        Crawford state, e.g. ``Cube 2, owned by Black | 7-point match: White 3, Black 4``."""
        names = names or {WHITE: "White", BLACK: "Black"}
        if self.crawford:
            cube = "Crawford game: no doubling"
        elif self.cube_owner is None:
            cube = f"Cube {self.cube_value}, centred"
        else:
            cube = f"Cube {self.cube_value}, owned by {names[self.cube_owner]}"
        if self.offered_by is not None:
            cube += f", doubled to {2 * self.cube_value} by {names[self.offered_by]}"
        parts = [cube]
        if self.rules.is_match:
            s = f"{self.rules.match_length}-point match: {names[WHITE]} {self.score[WHITE]}, {names[BLACK]} {self.score[BLACK]}"
            if self.post_crawford:
                s += " (post-Crawford)"
            parts.append(s)
        else:
            parts.append(f"money play: {names[WHITE]} {self.score[WHITE]:+d}, {names[BLACK]} {self.score[BLACK]:+d}")
        return " | ".join(parts)

    # -- cube actions ------------------------------------------------------------------
    def _check_live(self) -> None:
        if self.over:
            raise ValueError(f"the match is over: {self.winner} won {self.score[WHITE]}-{self.score[BLACK]}")
        if self._game_over:
            raise ValueError("the game is over: start the next game first")

    def why_no_double(self, colour: str) -> str | None:
        """Why ``colour`` (on roll, before its roll) may not double now, or None."""
        other(colour)
        if self.over:
            return "the match is over"
        if self._game_over:
            return "the game is over"
        if self.offered_by is not None:
            return "a double is waiting for its answer"
        return self.cube_for(colour).why_no_double()

    def may_double(self, colour: str) -> bool:
        return self.why_no_double(colour) is None

    def offer(self, colour: str) -> CubeState:
        """``colour`` offers a double (it must be on roll and not have rolled: the caller's
        part); the other side answers with :meth:`answer`.

        Returns the cube before the double from ``colour``'s side (a CubeState: what the
        answering side's decision is made on). Raises ValueError ``cannot double: <why>``
        (:meth:`why_no_double`) when it may not."""
        why = self.why_no_double(colour)
        if why is not None:
            raise ValueError(f"cannot double: {why}")
        cube = self.cube_for(colour)
        self.offered_by = colour
        return cube

    def double(self, colour: str) -> CubeState:
        """:meth:`offer` under its older name."""
        return self.offer(colour)

    def _check_answer(self, colour: str, what: str) -> None:
        self._check_live()
        if self.offered_by is None:
            raise ValueError(f"cannot {what}: no double was offered")
        if colour != other(self.offered_by):
            raise ValueError(f"cannot {what}: {colour} made the double; the other side answers it")

    def why_no_beaver(self, colour: str) -> str | None:
        """Why ``colour`` may not beaver the double it faces, or None."""
        if self.offered_by is None:
            return "no double was offered"
        return self.cube_for(self.offered_by).why_no_beaver()

    def answer(self, colour: str, response: str) -> GameScore | None:
        """``colour`` answers the double it faces with ``response``, one of :data:`ANSWERS`:

        * ``take``: the cube goes to ``colour`` at twice the value; returns None;
        * ``beaver`` (money play with beavers): the cube goes to 4 times the value and stays
          with ``colour``; returns None;
        * ``pass``: the doubler wins the game at the cube value before the double, a single
          game (the Jacoby rule does not apply); returns the game's :class:`GameScore`.

        Raises ValueError (one line) for another response, when no double waits, when
        ``colour`` made the double, when the game or match is over, or for a beaver the rules
        do not allow (:meth:`why_no_beaver`)."""
        if response not in ANSWERS:
            raise ValueError(f"the answer to a double must be take, pass or beaver, got {str(response)[:20]!r}")
        self._check_answer(colour, response)
        if response == "pass":
            doubler = self.offered_by
            self.offered_by = None
            return self._score(doubler, 1, "pass", jacoby_applies=False)
        if response == "beaver":
            why = self.why_no_beaver(colour)
            if why is not None:
                raise ValueError(f"cannot beaver: {why}")
        self.cube_value *= 2 if response == "take" else 4
        self.cube_owner = colour
        self.offered_by = None
        return None

    def take(self, colour: str) -> None:
        """``colour`` takes the double: :meth:`answer` ``take``."""
        self.answer(colour, "take")

    def beaver(self, colour: str) -> None:
        """``colour`` beavers the double (money play with beavers): :meth:`answer` ``beaver``."""
        self.answer(colour, "beaver")

    def drop(self, colour: str) -> GameScore:
        """``colour`` passes the double: :meth:`answer` ``pass``; returns the game's score."""
        return self.answer(colour, "pass")

    # -- the end of a game --------------------------------------------------------------
    def end_game(self, winner: str | None, result: int, how: str = "bear-off") -> GameScore:
        """Score the game in play: ``winner`` won ``result`` (1..3; ``how``: ``bear-off`` or
        ``resign``) at the cube; ``winner`` None with ``how="draw"`` for an agreed draw (money
        play only). Returns the GameScore; the next game starts with :meth:`next_game`."""
        if how == "draw":
            self._check_live()
            if self.rules.is_match:
                raise ValueError("a game of a match cannot end in a draw")
            gs = GameScore(None, 0, self.cube_value, 0, "draw", self.crawford)
            self.offered_by = None
            self.games.append(gs)
            self._game_over = True
            return gs
        if how not in ("bear-off", "resign"):
            raise ValueError(f"how must be bear-off, resign, pass or draw, got {how!r}")
        other(winner)
        return self._score(winner, int(result), how)

    def _score(self, winner: str, result: int, how: str, jacoby_applies: bool = True) -> GameScore:
        self._check_live()
        cube = self.cube_for(winner)
        pts = cube.points(result) if jacoby_applies else cube.value * result
        gs = GameScore(winner, result, self.cube_value, pts, how, self.crawford)
        if self.rules.is_match:  # the score of a match stops at its length (a 24-point win of a 3-point match is 3-0)
            self.score[winner] = min(self.score[winner] + pts, self.rules.match_length)
        else:
            self.score[winner] += pts
            self.score[other(winner)] -= pts
        self.games.append(gs)
        self._game_over = True
        self.offered_by = None
        return gs

    def next_game(self) -> None:
        """Start the next game: a fresh cube at 1, centred; the Crawford game when a side has
        just reached N-1 points for the first time. ValueError when the match is over or the
        game in play has not ended."""
        if self.over:
            raise ValueError(f"the match is over: {self.winner} won {self.score[WHITE]}-{self.score[BLACK]}")
        if not self._game_over:
            raise ValueError("the game in play has not ended")
        self.crawford = False
        self._fresh_game()
        self._game_over = False

    def _fresh_game(self) -> None:
        """A fresh cube at 1, centred; the Crawford game when a side is N-1 points away and the
        Crawford game has not been played yet."""
        self.cube_value, self.cube_owner, self.offered_by = 1, None, None
        n = self.rules.match_length
        if self.rules.is_match and n > 1 and not self._crawford_done and max(self.score.values()) == n - 1:
            self.crawford = True
            self._crawford_done = True

    @property
    def game_over(self) -> bool:
        """The game in play has ended (and :meth:`next_game` has not been called)."""
        return self._game_over

    def restart_game(self) -> None:
        """Start the game in play again, unscored (an environment's reset before its game
        ended): a fresh cube at 1, centred, no double waiting. The Crawford game stays the
        Crawford game; another game becomes it when a side is N-1 points away and the
        Crawford game has not been played (a score set by hand). After a finished game this
        is :meth:`next_game`. ValueError when the match is over."""
        if self._game_over:
            self.next_game()
            return
        self._check_live()
        self._fresh_game()

    def to_state(self) -> dict:
        """Everything the match holds, as JSON-able values (for a store); :meth:`from_state`
        reads it back into an equal match."""
        r = self.rules
        return {"rules": {"match_length": r.match_length, "jacoby": r.jacoby, "beavers": r.beavers, "max_value": r.max_value},
                "score": dict(self.score), "games": [vars(g).copy() for g in self.games], "cube_value": self.cube_value,
                "cube_owner": self.cube_owner, "offered_by": self.offered_by, "crawford": self.crawford,
                "crawford_done": self._crawford_done, "game_over": self._game_over}

    @classmethod
    def from_state(cls, d: dict) -> "Match":
        """The match :meth:`to_state` wrote. ValueError (KeyError, TypeError) for another shape."""
        m = cls(MatchRules(**d["rules"]))
        m.score = {WHITE: int(d["score"][WHITE]), BLACK: int(d["score"][BLACK])}
        m.games = [GameScore(**g) for g in d["games"]]
        m.cube_value, m.cube_owner, m.offered_by = int(d["cube_value"]), d["cube_owner"], d["offered_by"]
        m.crawford, m._crawford_done, m._game_over = bool(d["crawford"]), bool(d["crawford_done"]), bool(d["game_over"])
        return m

    def as_dict(self) -> dict:
        r = self.rules
        return {"match_length": r.match_length, "jacoby": r.jacoby, "beavers": r.beavers, "max_value": r.max_value,
                "score": dict(self.score), "game": self.game_number, "cube": {"value": self.cube_value, "owner": self.cube_owner},
                "offered_by": self.offered_by, "crawford": self.crawford, "post_crawford": self.post_crawford,
                "over": self.over, "winner": self.winner}
