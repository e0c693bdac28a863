"""Place an agent on the ladder of levels: adaptive paired-dice matches and the benchmark.

:func:`rate` plays the agent against the levels of :mod:`bgrl.agents.levels` (weakest
``beginner`` to strongest ``world-class``), a few games at a time with
:func:`bgrl.arena.duel.play_match` (paired dice, colours swapped), and stops as soon as the
95% intervals place it between two adjacent levels: it beats level ``i`` (the whole
interval of its points per game above 0) and loses to level ``i + 1`` (the whole interval
below 0). Below ``beginner`` or above the top level, the missing end is ``None``.

The first opponent is the level whose measured error rate (``checkpoints/levels.json``) is
nearest the agent's own on the shipped benchmark (:func:`bgrl.arena.benchmark.error_rate`),
so most agents are placed after two opponents. Against one opponent the games come in
batches that double the games played so far (few looks at the data, so the interval is
not spent on many small peeks); the batches are independent matches (seeds
``seed, seed + 1, ...``) and their figures are pooled with the pairs as weights. When the
agent ties an opponent in every pair of games (it plays exactly like that level, e.g. the level's own
network), the level's neighbours are the answer. When the game cap is reached before the
intervals decide, no place is named: ``settled`` is false, ``between`` holds only the bounds the
intervals did settle (the strongest level beaten, the weakest level lost to, each None when
none is), and ``estimate`` the place the points per game alone suggest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from bgrl.agents.levels import LEVEL_NAMES, load_level, measured_levels
from bgrl.arena.benchmark import choices, load_benchmark
from bgrl.arena.duel import play_match

__all__ = ["Standing", "Rating", "rate", "DEFAULT_MAX_GAMES", "FIRST_BATCH"]

#: Games cap of :func:`rate` (all opponents together) when none is given.
DEFAULT_MAX_GAMES = 4000
#: Games of the first batch against an opponent (later batches double the games played).
FIRST_BATCH = 200


@dataclass
class Standing:
    """The pooled result of the agent against one opponent.

    opponent : str, a level name or another agent spec; games : int played;
    ppg : float, the agent's mean points per game; ci95 : float, half-width of the 95%
    interval of ppg (NaN before two pairs of games).
    """

    opponent: str
    games: int = 0
    pairs: int = 0
    ppg: float = 0.0
    var: float = 0.0  # variance of ppg (sum of the batches' weighted variances)

    @property
    def ci95(self) -> float:
        return 1.96 * math.sqrt(self.var) if self.pairs >= 2 else float("nan")

    @property
    def verdict(self) -> int:
        """+1 if the whole 95% interval is above 0 (the agent is stronger), -1 if below, 0 if not known."""
        ci = self.ci95
        if ci != ci:
            return 0
        return 1 if self.ppg - ci > 0 else (-1 if self.ppg + ci < 0 else 0)

    @property
    def tied(self) -> bool:
        """Every pair of games tied (mean 0, no spread): the agent plays exactly like the opponent."""
        return self.pairs >= 2 and self.var == 0.0 and self.ppg == 0.0

    def add(self, res) -> None:
        """Pool one :class:`bgrl.arena.duel.MatchResult` into this standing (weights: pairs)."""
        pairs = (res.games + 1) // 2
        se2 = (res.ci95 / 1.96) ** 2 if res.ci95 == res.ci95 else 0.0
        total = self.pairs + pairs
        w_old, w_new = self.pairs / total, pairs / total
        self.ppg = w_old * self.ppg + w_new * res.ppg
        self.var = w_old**2 * self.var + w_new**2 * se2
        self.pairs, self.games = total, self.games + res.games

    def as_dict(self) -> dict:
        ci = self.ci95
        return {"opponent": self.opponent, "games": self.games, "ppg": round(self.ppg, 4),
                "ci95": None if ci != ci else round(ci, 4)}


@dataclass
class Rating:
    """What :func:`rate` found.

    agent : str; error_rate : float, millipoints lost per decision on the shipped benchmark
    (None when not measured); error_ci95 : float, half-width of its 95% interval;
    between : [level below or None, level above or None]; matches : list of
    :class:`Standing` in the order first played; settled : bool, whether the 95% intervals
    decided ``between`` (False: the game cap came first; ``between`` then holds only the bounds
    the intervals settled, None where they did not, and ``estimate`` the point estimates'
    place); nearest_by_error : the level of nearest measured error rate.
    """

    agent: str
    error_rate: float | None
    error_ci95: float | None
    between: list
    matches: list = field(default_factory=list)
    settled: bool = False
    nearest_by_error: str | None = None
    tied_with: str | None = None
    estimate: list | None = None

    def as_dict(self) -> dict:
        """The ``bgrl rate --json`` object: agent, error_rate, between, matches; when the
        intervals did not settle the place, also ``"settled": false`` and ``estimate`` (the
        point estimates' [below, above]), ``between`` then holding only the settled bounds."""
        er = None if self.error_rate is None else round(self.error_rate, 2)
        out = {"agent": self.agent, "error_rate": er, "between": list(self.between),
               "matches": [m.as_dict() for m in self.matches]}
        if not self.settled:
            out.update(settled=False, estimate=list(self.estimate or [None, None]))
        return out

    @staticmethod
    def _words(lo, hi) -> str:
        if lo is None:
            return f"below {hi}"
        if hi is None:
            return f"above {lo}"
        return f"between {lo} and {hi}"

    def where(self) -> str:
        """In words: ``between beginner and casual``, ``below beginner``, ``above world-class``;
        unsettled: ``not placed at 95%`` with what the intervals did settle and the estimate."""
        if self.settled:
            return self._words(*self.between)
        lo, hi = self.between
        known = "; ".join(k for k in (f"beats {lo}" if lo else "", f"loses to {hi}" if hi else "") if k)
        est = self._words(*(self.estimate or [None, None]))
        return f"not placed at 95% ({known + '; ' if known else ''}the points per game alone suggest {est})"

    def summary(self) -> str:
        tie = f" (it plays exactly like {self.tied_with}: every pair of games tied)" if self.tied_with else ""
        lines = [f"{self.agent}: {self.where()}" + tie]
        if not self.settled:
            lines.append("  the 95% intervals did not settle a place within the game cap: raise --max-games")
        if self.error_rate is not None:
            lines.append(f"  error rate {self.error_rate:.2f} +- {self.error_ci95:.2f} millipoints per decision "
                         f"(95% interval; shipped benchmark, gnubg 2-ply), nearest level by error rate: {self.nearest_by_error}")
        for m in self.matches:
            ci = m.ci95
            ci_txt = f"{m.ppg - ci:+.3f} .. {m.ppg + ci:+.3f}" if ci == ci else "no interval yet"
            lines.append(f"  vs {m.opponent:<13} {m.games:6d} games  {m.ppg:+.3f} points per game  (95% CI {ci_txt})")
        return "\n".join(lines)


def _benchmark_error(agent, bench=None, name: str | None = None) -> tuple[float, float]:
    """(mean, 95% half-width) of the agent's loss per decision on the benchmark, millipoints."""
    import numpy as np

    b = bench if bench is not None else load_benchmark()
    k = choices(agent, b, np.random.default_rng(0), name=name)
    loss = 1000.0 * (b.best_equity() - b.equity.astype(np.float64)[b.offsets[:-1] + k])
    return float(loss.mean()), float(1.96 * loss.std(ddof=1) / math.sqrt(loss.size))


def _nearest_level(error: float, names, measured: dict) -> int:
    rates = [measured.get(n, {}).get("error_rate") for n in names]
    known = [(abs(r - error), i) for i, r in enumerate(rates) if isinstance(r, (int, float))]
    return min(known)[1] if known else len(names) // 2


def rate(agent, name: str | None = None, max_games: int = DEFAULT_MAX_GAMES, seed: int = 0, ladder=None,
         opponents: dict | None = None, first_batch: int = FIRST_BATCH, benchmark=True, progress=None,
         start: str | None = None) -> Rating:
    """Place ``agent`` between two adjacent levels (see the module docstring).

    Parameters
    ----------
    agent : an agent (``select(after, rng)``, e.g. from :func:`bgrl.agents.registry.load_agent`)
    name : str, its label (default ``agent.name``)
    max_games : int >= 2, the cap on games against all opponents together
    seed : int >= 0, seed of the first batch's dice (later batches: seed + 1, ...)
    ladder : sequence of level names, weakest first (default :data:`bgrl.agents.levels.LEVEL_NAMES`)
    opponents : dict name -> agent, optional: agents to use instead of loading the levels
        (they are loaded lazily, only those played)
    first_batch : int >= 2, games of the first batch against an opponent
    benchmark : bool or a :class:`bgrl.arena.benchmark.Benchmark`; False skips the error rate
    progress : optional callable(n_games_finished), e.g. a tqdm bar's ``update``
    start : a level name to play first (default: the nearest by error rate, else the middle)

    Returns
    -------
    Rating

    Raises
    ------
    ValueError
        for max_games < 2, a negative seed, first_batch < 2 or an unknown start level.
    """
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 2:
        raise ValueError(f"max_games must be an int >= 2, got {max_games!r}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    if first_batch < 2:
        raise ValueError(f"first_batch must be >= 2, got {first_batch}")
    names = list(ladder or LEVEL_NAMES)
    label = name or getattr(agent, "name", "agent")
    measured = measured_levels().get("levels", {})
    err = err_ci = None
    if benchmark is not False:
        err, err_ci = _benchmark_error(agent, None if benchmark is True else benchmark, name=name)
    nearest = _nearest_level(err, names, measured) if err is not None else len(names) // 2
    if start is not None:
        if start not in names:
            raise ValueError(f"unknown start level {start!r}: expected one of {', '.join(names)}")
        i = names.index(start)
    else:
        i = nearest
    cache = dict(opponents or {})
    standings: dict[str, Standing] = {}
    played, batch_no, settled, tied = 0, 0, False, None
    below = above = None  # indices with a settled verdict
    while played < max_games:
        lvl = names[i]
        st = standings.setdefault(lvl, Standing(lvl))
        n = min(max(first_batch, st.games), max_games - played)
        if n < 2:
            break
        if lvl not in cache:
            cache[lvl] = load_level(lvl)
        res = play_match(agent, cache[lvl], n, seed=seed + batch_no, progress=progress, names=(label, lvl))
        batch_no += 1
        played += n
        st.add(res)
        if st.tied:  # the same player: its neighbours on the ladder bound it (levels.json measures them)
            tied, settled = i, True
            break
        v = st.verdict
        if v > 0:
            below = i
            nxt = standings.get(names[i + 1]) if i + 1 < len(names) else None
            if i + 1 == len(names) or (nxt is not None and nxt.verdict < 0):
                settled = True
                break
            i += 1
        elif v < 0:
            above = i
            prv = standings.get(names[i - 1]) if i > 0 else None
            if i == 0 or (prv is not None and prv.verdict > 0):
                settled = True
                break
            i -= 1
    if tied is not None:
        lo = tied - 1
        between = [names[lo] if lo >= 0 else None, names[tied + 1] if tied + 1 < len(names) else None]
        return Rating(agent=label, error_rate=err, error_ci95=err_ci, between=between, matches=list(standings.values()),
                      settled=True, nearest_by_error=names[nearest] if err is not None else None, tied_with=names[tied])
    estimate = None
    if settled:
        lo = below if below is not None and (above is None or below < above) else (above - 1 if above is not None else None)
        lo = -1 if lo is None else lo
        between = [names[lo] if lo >= 0 else None, names[lo + 1] if lo + 1 < len(names) else None]
    else:
        # the cap came first: no place is named; the bounds the intervals settled, and the estimate
        beaten = [names.index(s.opponent) for s in standings.values() if s.verdict > 0]
        lost = [names.index(s.opponent) for s in standings.values() if s.verdict < 0]
        between = [names[max(beaten)] if beaten else None, names[min(lost)] if lost else None]
        wins = [names.index(s.opponent) for s in standings.values() if s.games and s.ppg > 0]
        losses = [names.index(s.opponent) for s in standings.values() if s.games and s.ppg <= 0]
        lo = max(wins) if wins else -1
        if losses and min(losses) <= lo:  # inconsistent estimates: trust the lowest loss
            lo = min(losses) - 1
        estimate = [names[lo] if lo >= 0 else None, names[lo + 1] if lo + 1 < len(names) else None]
    return Rating(agent=label, error_rate=err, error_ci95=err_ci, between=between, matches=list(standings.values()),
                  settled=settled, nearest_by_error=names[nearest] if err is not None else None, estimate=estimate)
