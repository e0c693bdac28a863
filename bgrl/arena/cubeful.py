"""Cubeful sessions between two agents: money games with the doubling cube, or N-point matches.

``bgrl match A B --cube [--match N]`` runs here (:func:`play_cubeful`). Every game goes
through the rules' cube state machine (:class:`bgrl.rules.match.Match`: each double is its
:meth:`~bgrl.rules.match.Match.offer` and :meth:`~bgrl.rules.match.Match.answer`); the agents decide
their cube actions with :func:`bgrl.agents.cube.cube_decisions` (the level's cubeless
evaluation through Janowski's model, at a score by match winning chances) and their checker
plays with :func:`bgrl.agents.cube.cubeful_select`. All sessions run in lockstep, so each
step is one batched evaluation per agent.

Pairing (duplicate dice, as :mod:`bgrl.arena.duel`): sessions come in pairs with colours
swapped (agent A is White in the even session of each pair). Game ``g`` of both sessions of
a pair draws its rolls from one stream, seeded by ``(seed, pair, g)``: the t-th roll of that
game is the same in both, as long as the two games last. In a match White moves first in
odd-numbered games and Black in even-numbered ones. The 95% interval (normal approximation)
is computed from the per-pair means, so it accounts for the pairing.

Money: ``sessions`` is the number of games; the figure is points per game for A (cube value
x result). Match: ``sessions`` is the number of matches; the figure is A's share of matches
won.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from bgrl.agents.cube import answer_double, cube_decisions, cube_engine, cubeful_select, wants_double
from bgrl.arena.checks import checked_select
from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.game import BLACK, MAX_PLIES, WHITE
from bgrl.rules.match import Match, MatchRules, other
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results

__all__ = ["CubefulResult", "play_cubeful", "MAX_PLIES"]

_CHUNK = 128


@dataclass(frozen=True)
class CubefulResult:
    """Outcome of :func:`play_cubeful`, from agent A's side.

    rules: the :class:`bgrl.rules.match.MatchRules` as a dict; sessions: games (money) or
    matches; value: points per game (money) or the share of matches won (match), ci95 the
    half-width of its 95% interval (NaN with fewer than two pairs); win_rate: share of games
    (money) or matches (match) A won; games: games played in all; doubles, takes, beavers,
    passes: cube actions per game (both sides); mean_cube: the average final cube value of
    the games; gammon_rate, lose_gammon_rate: share of games A won or lost with a gammon or
    backgammon (played out); points_a, points_b: total points scored (match: points won).
    """

    a: str
    b: str
    rules: dict
    sessions: int
    seed: int
    value: float
    ci95: float
    win_rate: float
    games: int
    doubles: float
    takes: float
    beavers: float
    passes: float
    mean_cube: float
    gammon_rate: float
    lose_gammon_rate: float
    points_a: int
    points_b: int
    seconds: float

    @property
    def is_match(self) -> bool:
        return int(self.rules.get("match_length", 0)) > 0

    def as_dict(self) -> dict:
        d = asdict(self)
        d["kind"] = "match" if self.is_match else "money"
        return d

    def summary(self) -> str:
        """Plain-text report; every figure says whose it is (agent A's)."""
        r = MatchRules(**self.rules)
        pairs, odd = divmod(self.sessions, 2)
        unit = "match" if self.is_match else "game"
        units = unit + ("es" if self.is_match else "s")
        if pairs == 0:
            how = f"1 unpaired {unit}"
        else:
            how = f"{pairs} pair{'s' if pairs != 1 else ''} of {units} with shared dice and colours swapped"
            if odd:
                how += f", plus 1 unpaired {unit}"
        n_unit = units if self.sessions != 1 else unit
        lines = [f"{self.a} vs {self.b}: {self.sessions} {n_unit}, {r.describe()} (seed {self.seed}; {how})"]
        have_ci = self.ci95 == self.ci95
        if self.is_match:
            lo, hi = max(0.0, self.value - self.ci95), min(1.0, self.value + self.ci95)  # a share: clipped to [0, 1]
            ci = f"95% CI {100 * lo:.1f}% .. {100 * hi:.1f}%" if have_ci else "no interval from a single pair"
            lines.append(f"  matches won by {self.a}: {100 * self.value:.1f}%  ({ci})")
            lines.append(f"  {self.games} games, {self.games / max(self.sessions, 1):.1f} per match; "
                         f"points won: {self.a} {self.points_a}, {self.b} {self.points_b}")
        else:
            ci = f"95% CI {self.value - self.ci95:+.3f} .. {self.value + self.ci95:+.3f}" if have_ci else "no interval from a single pair"
            lines.append(f"  points per game for {self.a}: {self.value:+.3f}  ({ci}; cube value x single 1, gammon 2, backgammon 3)")
            lines.append(f"  {self.a} wins {100 * self.win_rate:.1f}% of games")
        lines.append(f"  per game: {self.doubles:.2f} doubles, {self.takes:.2f} takes, {self.beavers:.2f} beavers, "
                     f"{self.passes:.2f} passes; mean final cube {self.mean_cube:.2f}; {self.a} wins a gammon "
                     f"{100 * self.gammon_rate:.1f}%, loses a gammon {100 * self.lose_gammon_rate:.1f}% of games")
        lines.append(f"  {self.games / max(self.seconds, 1e-9):.1f} games/s")
        return "\n".join(lines)


class _Slot:
    """One session (a money game, or a match) in the lockstep run."""

    __slots__ = ("match", "a_colour", "pair", "board", "white_on_roll", "rolls", "ply", "done")

    def __init__(self, rules: MatchRules, a_colour: str, pair: int):
        self.match = Match(rules)
        self.a_colour = a_colour
        self.pair = pair
        self.done = False

    def start_game(self, seed: int) -> None:
        g = self.match.game_number
        self.board = START_BOARD.copy()
        self.white_on_roll = (g % 2 == 1) or not self.match.rules.is_match  # money: White first, as duel
        self.rolls = np.random.default_rng([seed, self.pair, g])
        self.ply = 0

    @property
    def on_roll(self) -> str:
        return WHITE if self.white_on_roll else BLACK


def play_cubeful(agent_a, agent_b, sessions: int, rules: MatchRules, seed: int = 0, progress=None,
                 names=("A", "B"), met=None) -> CubefulResult:
    """Play ``sessions`` cubeful money games or N-point matches (module docstring).

    Parameters
    ----------
    agent_a, agent_b : agents (``select(AfterStates, rng)``; with an ``evaluator`` they use
        the cube, see :func:`bgrl.agents.cube.cube_engine`).
    sessions : int >= 1, games (money) or matches (``rules.match_length > 0``).
    rules : MatchRules.
    seed : int >= 0; progress : optional callable(n_finished_sessions); names : labels;
    met : match equity table (default Kazaross-XG2).

    Raises
    ------
    ValueError for ``sessions < 1``; RuntimeError when a game exceeds MAX_PLIES plies.
    """
    if sessions < 1:
        raise ValueError(f"sessions must be >= 1, got {sessions}")
    t0 = time.perf_counter()
    rng_agents = np.random.default_rng([seed, 1])
    agents = {"a": agent_a, "b": agent_b}
    slots = [_Slot(rules, WHITE if i % 2 == 0 else BLACK, i // 2) for i in range(sessions)]
    for s in slots:
        s.start_game(seed)
    number = {id(s): n for n, s in enumerate(slots)}  # a session's number, for error messages
    counts = {"doubles": 0, "takes": 0, "beavers": 0, "passes": 0}
    cube_sum = 0
    gammons_a = gammons_b = 0

    def who(slot, colour):
        return "a" if colour == slot.a_colour else "b"

    def game_ended(slot, gs):
        nonlocal cube_sum, gammons_a, gammons_b
        cube_sum += gs.cube
        if gs.how == "bear-off" and gs.result >= 2:
            if who(slot, gs.winner) == "a":
                gammons_a += 1
            else:
                gammons_b += 1
        m = slot.match
        if m.over or not rules.is_match:
            slot.done = True
            if progress is not None:
                progress(1)
        else:
            m.next_game()
            slot.start_game(seed)

    while True:
        live = [s for s in slots if not s.done]
        if not live:
            break
        # 1. cube: the side on roll may double before it rolls
        for key, agent in agents.items():
            can = [s for s in live if who(s, s.on_roll) == key and s.match.may_double(s.on_roll)]
            if not can:
                continue
            decs = cube_decisions(agent, np.stack([s.board for s in can]), [s.match.cube_for(s.on_roll) for s in can])
            for s, d in zip(can, decs):
                if not wants_double(d, s.match.cube_for(s.on_roll)):
                    continue
                # the exchange is the match's (Match.offer, Match.answer): the rules live there
                doubler = s.on_roll
                taker = other(doubler)
                cube = s.match.offer(doubler)
                answer = answer_double(agents[who(s, taker)], s.board, cube)
                gs = s.match.answer(taker, answer)
                counts["doubles"] += 1
                counts[{"take": "takes", "pass": "passes", "beaver": "beavers"}[answer]] += 1
                if gs is not None:
                    game_ended(s, gs)
        live = [s for s in slots if not s.done]
        if not live:
            break
        # 2. the roll and the checker play
        rolls = np.stack([s.rolls.integers(1, 7, size=2) for s in live]).astype(np.int8)
        boards = np.stack([s.board for s in live])
        for key, agent in agents.items():
            mine = np.array([who(s, s.on_roll) == key for s in live], dtype=bool)
            idx = np.flatnonzero(mine)
            if idx.size == 0:
                continue
            sub = generate(boards[idx], rolls[idx], validate=False)
            label = str(names[0 if key == "a" else 1])
            if cube_engine(agent) is None:  # the agent's own select, checked (AgentChoiceError: one line)
                k = checked_select(agent, sub, rng_agents, name=label, games=[number[id(live[i])] for i in idx])
            else:
                k = cubeful_select(agent, sub, [live[i].match.cube_for(live[i].on_roll) for i in idx], rng_agents, met)
            for j, i in enumerate(idx):
                live[i].board = sub.boards[k[j]].copy()
        moved = np.stack([s.board for s in live])
        res = game_results(moved)
        for s, r in zip(live, res):
            s.ply += 1
            if r:
                game_ended(s, s.match.end_game(s.on_roll, int(r), "bear-off"))
                continue
            if s.ply >= MAX_PLIES:
                raise RuntimeError(f"a game exceeded {MAX_PLIES} plies")
            s.board = flip(s.board)
            s.white_on_roll = not s.white_on_roll

    seconds = time.perf_counter() - t0
    n_games = sum(len(s.match.games) for s in slots)
    if rules.is_match:
        per = np.array([1.0 if s.match.winner == s.a_colour else 0.0 for s in slots])
    else:
        per = np.array([float(s.match.games[0].points_for(s.a_colour)) for s in slots])
    pair = np.array([s.pair for s in slots])
    n_pairs = int(pair.max()) + 1
    pair_means = np.bincount(pair, weights=per) / np.bincount(pair)
    sd = float(pair_means.std(ddof=1)) if n_pairs > 1 else float("nan")
    ci = 1.96 * sd / math.sqrt(n_pairs) if n_pairs > 1 else float("nan")
    pa = sum(gs.points for s in slots for gs in s.match.games if gs.winner == s.a_colour)
    pb = sum(gs.points for s in slots for gs in s.match.games if gs.winner is not None and gs.winner != s.a_colour)
    if rules.is_match:
        win_rate = float(per.mean())
    else:
        win_rate = float(np.mean([s.match.games[0].winner == s.a_colour for s in slots]))
    g = max(n_games, 1)
    return CubefulResult(
        a=names[0], b=names[1], rules=asdict(rules), sessions=sessions, seed=seed, value=float(per.mean()), ci95=ci,
        win_rate=win_rate, games=n_games, doubles=counts["doubles"] / g, takes=counts["takes"] / g,
        beavers=counts["beavers"] / g, passes=counts["passes"] / g, mean_cube=cube_sum / g,
        gammon_rate=gammons_a / g, lose_gammon_rate=gammons_b / g, points_a=int(pa), points_b=int(pb), seconds=seconds)
