"""Money-game matches between two agents, many games in lockstep, with paired dice.

Games come in pairs that share one dice sequence (ply t of both games uses the same roll)
with colours swapped: agent A is White (moves first) in the even game of each pair and
Black in the odd one. This cancels most of the luck of the dice (variance reduction by
duplicate dice). Points per game are reported with a 95% interval computed from the
per-pair means (normal approximation), so the interval accounts for the pairing.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from bgrl.arena.checks import checked_select
from bgrl.rules.board import START_BOARD, flip
from bgrl.rules.game import MAX_PLIES  # the one bound on a game's plies
from bgrl.rules.dice import random_rolls
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results

__all__ = ["MatchResult", "play_match"]



@dataclass(frozen=True)
class MatchResult:
    """Outcome of :func:`play_match`, from agent A's side.

    ppg: points per game (single 1, gammon 2, backgammon 3), ci95: half-width of its 95%
    interval; win_rate, gammon_rate/backgammon_rate (share of all games that A won with a
    gammon/backgammon, backgammons included in gammons), lose_gammon_rate,
    lose_backgammon_rate likewise for A's losses. Rates are fractions in [0, 1].
    """

    a: str
    b: str
    games: int
    seed: int
    ppg: float
    ci95: float
    win_rate: float
    gammon_rate: float
    backgammon_rate: float
    lose_gammon_rate: float
    lose_backgammon_rate: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        """Plain-text report; every figure says whose it is (agent A's)."""
        lo, hi = self.ppg - self.ci95, self.ppg + self.ci95
        ci = f"95% CI {lo:+.3f} .. {hi:+.3f}" if self.ci95 == self.ci95 else "no interval from a single pair or game"
        pairs, odd = divmod(self.games, 2)
        if pairs == 0:
            how = "1 unpaired game"
        else:
            how = f"{pairs} pair{'s' if pairs > 1 else ''} of games with shared dice and colours swapped"
            if odd:
                how += ", plus 1 unpaired game"
        return (
            f"{self.a} vs {self.b}: {self.games} game{'s' if self.games > 1 else ''} (seed {self.seed}; {how})\n"
            f"  points per game for {self.a}: {self.ppg:+.3f}  ({ci})\n"
            f"  {self.a} wins {100 * self.win_rate:.1f}% of games  | {self.a} wins a gammon {100 * self.gammon_rate:.1f}%, "
            f"a backgammon {100 * self.backgammon_rate:.1f}%  | {self.a} loses a gammon {100 * self.lose_gammon_rate:.1f}%, "
            f"a backgammon {100 * self.lose_backgammon_rate:.1f}%\n"
            f"  {self.games / max(self.seconds, 1e-9):.1f} games/s"
        )


def play_match(agent_a, agent_b, games: int, seed: int = 0, progress=None, names=("A", "B"), recorder=None) -> MatchResult:
    """Play ``games`` money games between two agents (see module docstring).

    Parameters
    ----------
    agent_a, agent_b : objects with ``select(AfterStates, rng) -> int64 (B,)``
    games : int >= 1; an odd count plays one unpaired last game (A as White)
    seed : int, seeds the dice and the agents' own randomness
    progress : optional callable(n_finished) called as games end
    names : labels for the report
    recorder : optional :class:`bgrl.records.match_records.MatchRecorder` (``plies`` is called
        for every ply, ``finish`` as games end); None costs nothing

    Raises :class:`bgrl.arena.checks.AgentChoiceError` (a ValueError, one line naming the
    agent, the game and the index) when a ``select`` answer leaves a game's own after-states.

    Returns
    -------
    MatchResult
    """
    import time

    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    t0 = time.perf_counter()
    rng_dice = np.random.default_rng(seed)
    rng_agents = np.random.default_rng([seed, 1])
    n_pairs = (games + 1) // 2
    g_idx = np.arange(games)
    pair = g_idx // 2
    a_white = (g_idx % 2) == 0
    boards = np.repeat(START_BOARD[None], games, axis=0)
    points_a = np.zeros(games, dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    n_done = 0
    t = 0
    while not done.all():
        if t >= MAX_PLIES:
            raise RuntimeError(f"a game exceeded {MAX_PLIES} plies")
        roll = random_rolls(rng_dice, n_pairs)
        active = np.nonzero(~done)[0]
        white_to_move = (t % 2) == 0
        a_moves = a_white[active] == white_to_move
        new_boards = boards.copy()
        for agent, name, mask in ((agent_a, names[0], a_moves), (agent_b, names[1], ~a_moves)):
            idx = active[mask]
            if idx.size == 0:
                continue
            aft = generate(boards[idx], roll[pair[idx]], validate=False)
            k = checked_select(agent, aft, rng_agents, name=str(name), games=idx)  # AgentChoiceError: one line
            new_boards[idx] = aft.boards[k]
            if recorder is not None:
                recorder.plies(idx, boards[idx], roll[pair[idx]], aft.boards[k], aft.dice_used, white_to_move)
        moved = new_boards[active]
        res = game_results(moved).astype(np.int64)
        over = res > 0
        if over.any():
            ended = active[over]
            sign = np.where(a_moves[over], 1, -1)
            points_a[ended] = sign * res[over]
            done[ended] = True
            if recorder is not None:
                recorder.finish(ended, res[over])
            n_done += ended.size
            if progress is not None:
                progress(int(ended.size))
        boards[active] = flip(moved)
        t += 1
    seconds = time.perf_counter() - t0
    pair_means = np.bincount(pair, weights=points_a) / np.bincount(pair)
    ppg = float(points_a.mean())
    sd = float(pair_means.std(ddof=1)) if n_pairs > 1 else float("nan")
    ci = 1.96 * sd / math.sqrt(n_pairs) if n_pairs > 1 else float("nan")
    return MatchResult(
        a=names[0],
        b=names[1],
        games=games,
        seed=seed,
        ppg=ppg,
        ci95=ci,
        win_rate=float((points_a > 0).mean()),
        gammon_rate=float((points_a >= 2).mean()),
        backgammon_rate=float((points_a >= 3).mean()),
        lose_gammon_rate=float((points_a <= -2).mean()),
        lose_backgammon_rate=float((points_a <= -3).mean()),
        seconds=seconds,
    )
