"""GNU Backgammon as an opponent and as a judge of plays, through ``gnubg_nn`` (optional extra).

``gnubg_nn`` is PyPI ``gnubg-nn`` (GNU Backgammon's evaluator as a Python module, GPL): it
is imported only inside the functions here, and a missing install raises ImportError with
the install hint (:func:`bgrl.gnubg.adapter.require_gnubg`).  The engine never needs it.

Two services:

* :class:`GnubgAgent` (specs ``"gnubg"`` = 0-ply and ``"gnubg:N"`` = N-ply in
  :func:`bgrl.agents.registry.load_agent`): plays the move GNU Backgammon's own ``best_move``
  chooses at N plies, with its own move filters.  Optional Gaussian equity noise (0-ply
  only) makes a weaker, varied player for building benchmark games.
* :func:`gnubg_play_equities`: the cubeless money equity of every given after-state at N
  plies, from the side that played.  A play's N-ply value is minus the N-ply evaluation of
  the resulting position with the opponent on roll (gnubg's convention, DESIGN.md).

gnubg-nn's N-ply ``best_move`` (N >= 1) kills the process on some positions with a single
legal play (DESIGN.md): :class:`GnubgAgent` never calls it where there is no choice.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import flip
from bgrl.gnubg.adapter import from_gnubg, require_gnubg, to_gnubg
from bgrl.rules.outcome import game_results
from bgrl.agents.base import Agent
from bgrl.rules.movegen import generate

__all__ = ["GnubgAgent", "gnubg_play_equities", "gnubg_equity", "parse_gnubg_spec", "infer_dice", "MAX_PLIES"]

MAX_PLIES = 3  # gnubg-nn evaluates 0..3 plies in reasonable time (2-ply: ~40 ms a position)


def gnubg_equity(probs) -> float:
    """Cubeless money equity (points per game) of gnubg's five probabilities
    (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon), gammons including
    backgammons, for the side they belong to."""
    w, wg, wbg, lg, lbg = (float(x) for x in probs)
    return 2.0 * w - 1.0 + wg - lg + wbg - lbg


def parse_gnubg_spec(spec: str) -> int:
    """Plies of an agent spec ``"gnubg"`` (0) or ``"gnubg:N"`` (N in 0..MAX_PLIES).

    Raises ValueError naming the expected form for anything else.
    """
    s = str(spec)
    if s == "gnubg":
        return 0
    head, _, tail = s.partition(":")
    if head != "gnubg" or not tail.isdigit() or int(tail) > MAX_PLIES:
        raise ValueError(f"bad gnubg agent {s!r}: expected 'gnubg' or 'gnubg:N' with N in 0..{MAX_PLIES} (plies)")
    return int(tail)


def gnubg_play_equities(after_states: np.ndarray, plies: int = 0) -> np.ndarray:
    """GNU Backgammon's N-ply cubeless equity of each after-state, for the side that played.

    Parameters
    ----------
    after_states : int8 (M, 26), mover's view right after its play (our convention).
    plies : int >= 0, gnubg's plies (0 = its neural net on the resulting position).

    Returns
    -------
    float64 (M,): equity in points per game. A finished game (the mover bore off its
    last checker) gets its exact value 1, 2 or 3.

    Raises ImportError without the ``gnubg`` extra.
    """
    g = require_gnubg()
    a = np.asarray(after_states, dtype=np.int8)
    res = game_results(a)
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        if res[i]:
            out[i] = float(res[i])
            continue
        # the opponent is on roll after the play: evaluate flip(after) and negate
        out[i] = -gnubg_equity(g.probabilities(to_gnubg(flip(a[i])), int(plies)))
    return out


class GnubgAgent:
    """GNU Backgammon's choice at ``plies`` plies (its ``best_move`` with its move filters).

    Parameters
    ----------
    plies : int in 0..MAX_PLIES.
    noise : float >= 0, standard deviation (points per game) of Gaussian noise added to
        every play's 0-ply equity before choosing (gnubg's own weak levels use 0.015 to
        0.060); only with ``plies == 0``. Drawn from the ``rng`` given to :meth:`select`.

    Implements the agent protocol ``select(after, rng) -> int64 (B,)`` and
    ``choose_play(position, dice, rng=None)`` (see :mod:`bgrl.agents.base`).  Raises
    ImportError (with the install hint) when ``gnubg_nn`` is missing.
    """

    def __init__(self, plies: int = 0, noise: float = 0.0):
        if not 0 <= int(plies) <= MAX_PLIES:
            raise ValueError(f"plies must be in 0..{MAX_PLIES}, got {plies}")
        if noise < 0 or (noise > 0 and plies != 0):
            raise ValueError(f"noise must be >= 0 and is only allowed at 0-ply, got noise={noise} plies={plies}")
        self._g = require_gnubg()
        self.plies = int(plies)
        self.noise = float(noise)
        self.name = "gnubg" if self.plies == 0 else f"gnubg:{self.plies}"
        if self.noise:
            self.name += f"~{self.noise:g}"

    def _choose_one(self, position: np.ndarray, dice, group: np.ndarray, rng) -> int:
        g = self._g
        lookup = {row.tobytes(): j for j, row in enumerate(group)}
        d1, d2 = int(dice[0]), int(dice[1])
        pair = to_gnubg(position)
        if self.noise:
            # every play with its 0-ply equity (list=1 lists them all at 0-ply)
            listed = g.best_move(pair, d1, d2, n=0, list=1)[1]
            keys = [row[0] for row in listed]
            eq = np.array([row[3] for row in listed]) + rng.normal(0.0, self.noise, size=len(listed))
            key = keys[int(np.argmax(eq))]
        else:
            key = g.best_move(pair, d1, d2, n=self.plies, b=1)[1]
        # best_move's key decodes to the board with the opponent on roll
        after = flip(from_gnubg(g.board_from_position_key(key)))
        try:
            return lookup[after.tobytes()]
        except KeyError:  # would mean gnubg and bgrl.rules.movegen disagree on the legal plays
            raise RuntimeError(f"gnubg's play {key} is not among bgrl's legal after-states") from None

    def select(self, after, rng: np.random.Generator) -> np.ndarray:
        """Index into ``after.boards`` of gnubg's play for every position of the batch.

        The agent protocol passes no dice: they are taken from ``after.dice`` when the
        after-states carry them, else recovered as a roll whose legal after-states are
        exactly the group (:func:`infer_dice`; rolls giving the same set of plays give the
        same choice).
        """
        counts = after.counts
        out = after.offsets[:-1].copy()
        need = np.flatnonzero(counts > 1)  # never ask gnubg where there is no choice
        if need.size == 0:
            return out
        dice = getattr(after, "dice", None)
        if dice is None:
            dice = np.zeros((counts.size, 2), dtype=np.int8)
            dice[need] = infer_dice(after, need)
        for i in need:
            out[i] += self._choose_one(after.positions[i], dice[i], after.group(int(i)), rng)
        return out

    def choose_play(self, position, dice, rng: np.random.Generator | None = None):
        """One position: the chosen :class:`bgrl.rules.notation.Play`, or None when the turn passes."""
        return Agent.choose_play(self, position, dice, rng)


_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int8)  # 21 rolls, a >= b
_CHUNK = 512


def infer_dice(after, which: np.ndarray) -> np.ndarray:
    """A roll (int8 (len(which), 2)) under which position ``i`` has exactly the legal
    after-states ``after.group(i)``, for each ``i`` in ``which``; batched generator calls of
    at most 512 positions x 21 rolls.

    Raises RuntimeError if no roll matches (the after-states did not come from the generator).
    """
    which = np.asarray(which, dtype=np.int64)
    if which.size > _CHUNK:  # bound the generator's memory: 21 rolls per position
        return np.concatenate([infer_dice(after, which[j:j + _CHUNK]) for j in range(0, which.size, _CHUNK)])
    k = _ROLLS.shape[0]
    cand = generate(np.repeat(after.positions[which], k, axis=0), np.tile(_ROLLS, (which.size, 1)), validate=False)
    cnt = cand.counts
    out = np.zeros((which.size, 2), dtype=np.int8)
    for n, i in enumerate(which):
        grp = after.group(int(i))
        want = None
        for r in range(k):
            c = n * k + r
            if cnt[c] != grp.shape[0]:
                continue
            if want is None:
                want = {row.tobytes() for row in grp}
            if {row.tobytes() for row in cand.group(c)} == want:
                out[n] = _ROLLS[r]
                break
        else:
            raise RuntimeError(f"no roll gives the after-states of batch item {int(i)}")
    return out
