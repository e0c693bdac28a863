"""Cube decisions from cubeless probabilities: Janowski's cubeful equities, money and match.

numpy only. The input is always the five cubeless outcome probabilities of the side on roll
*before it rolls* (:data:`bgrl.evaluation.probabilities.OUTPUTS` order) and a
:class:`bgrl.rules.cube.CubeState` from the same side; the output is a :class:`CubeDecision`.

The model (R. Janowski, "Take-points in money games", 1993; as GNU Backgammon's manual,
"Cubeful equities", describes its use)
-----------------------------------------------------------------------------------------
With ``p`` the side's chance to win, ``W`` the average value of the games it wins and ``L``
of those it loses (``W = (win + win_gammon + win_backgammon) / win``, ``L`` likewise; 1 in
a gammon-free race), the cubeful equity per unit of the cube is

    E(cubeful) = (1 - x) * E(dead) + x * E(live)

where ``E(dead) = p W - (1 - p) L`` is the cubeless equity and ``E(live)`` the equity with a
fully live cube: piecewise linear through ``(0, -L)``, the side's take point ``(TP, -1)``,
its cash point ``(CP, +1)`` and ``(1, +W)``, with Janowski's live-cube points

    TP = (L - 1/2) / (W + L + 1/2)        CP = (L + 1) / (W + L + 1/2)

(``CP`` is one minus the opponent's take point). A side that owns the cube cannot be doubled
out (no ``TP`` point); a side whose opponent owns it cannot cash (no ``CP`` point). The
resulting take point of the opponent facing a double is ``(L' - 1/2) / (W' + L' + x/2)``
from its own ``W'``, ``L'``: 25% dead (x = 0) and 20% fully live (x = 1) without gammons.

``x`` is the cube life (cube efficiency). :func:`cube_life` uses the values GNU Backgammon's
manual lists from Janowski's suggestions: **0.68** for contact (and crashed) positions,
**0.6** for bear-offs (both sides home), and in a race a linear interpolation in the pip
count of the side on roll from **0.6** at 40 pips to **0.7** at 120 pips (clamped). bgrl adds
one exact case: in a **last-roll** position (the opponent bears off with its next roll
whatever it rolls) the cube cannot be used again after a take, so ``x = 0``; this is what
gives the textbook 25% take point there.

Options (money): the **Jacoby rule** (gammons and backgammons count single while the cube is
centred: the no-double equity uses ``W = L = 1``), **beavers** (the taker may redouble at
once to 4 times the stake, keeping the cube: the double/take equity is the smaller of taking and beavering, and
:attr:`CubeDecision.beaver` says which), and the **cap** on the cube value (a side that would
own a cube that cannot be turned again holds a dead cube).

Match play (:func:`match_cube_decision`) works on match winning chances (MWC) from a match
equity table (:mod:`bgrl.evaluation.match_equity`), as GNU Backgammon does:
``MWC(cubeful) = (1 - x) MWC(dead) + x MWC(live)``. The dead MWC weighs each outcome of the
game (single, gammon, backgammon, at the cube value) by the table; the live MWC is the
piecewise linear interpolation through ``(0, MWC lose)``, ``(TP, MWC of passing)``, ``(CP,
MWC of cashing)``, ``(1, MWC win)``, whose live take and cash points are solved recursively
from the higher cubes (a cube is dead once its value reaches both sides' points to go, at
the cap, or in the Crawford game). This is our Janowski-style approximation, not gnubg's
code; gnubg's manual describes the same interpolation. Equities at a score are MWC put on
the equity scale as gnubg shows them: ``(2 MWC - (M+ + M-)) / (M+ - M-)`` where ``M+``/``M-``
are the MWC after winning/losing the current cube value (so double/pass is +1).

Errors are ValueError with one line naming what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from bgrl.evaluation.bearoff import is_bearoff, one_sided
from bgrl.rules.board import pip_counts
from bgrl.rules.cube import CubeState
from bgrl.rules.outcome import is_race

__all__ = [
    "DECISIONS", "X_CONTACT", "X_BEAROFF", "X_RACE_MIN", "X_RACE_MAX", "CubeDecision", "average_values",
    "cube_life", "is_last_roll", "money_equity", "money_take_point", "money_cube_decision",
    "match_cube_decision", "cube_decision", "decide", "cubeful_equity", "GNUBG_SHALLOW_X", "cube_life_shallow",
]

#: The four decisions of the side on roll, in the words ``bgrl hint --json`` uses.
DECISIONS = ("no double", "double, take", "double, pass", "too good to double")
#: Janowski cube life for contact and crashed positions (gnubg's manual).
X_CONTACT = 0.68
#: Cube life for bear-offs, both sides home (gnubg's manual: one-sided bear-off class).
X_BEAROFF = 0.6
#: Race: from X_RACE_MIN at RACE_PIPS[0] pips of the side on roll to X_RACE_MAX at RACE_PIPS[1].
X_RACE_MIN, X_RACE_MAX = 0.6, 0.7
RACE_PIPS = (40.0, 120.0)
_EPS = 1e-7


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision of the side on roll before it rolls.

    Attributes
    ----------
    decision : str, one of :data:`DECISIONS`.
    take : bool, the opponent's right answer to a double (True = take).
    no_double, double_take, double_pass : float, cubeful equities of the side on roll per unit
        of the current stake (at a score: MWC on the equity scale).
    beaver : bool, the taker should beaver (money, beavers allowed).
    cube_life : float, the Janowski x used.
    mwc : dict or None, at a score the three MWC (``no_double``, ``double_take``, ``double_pass``).
    """

    decision: str
    take: bool
    no_double: float
    double_take: float
    double_pass: float
    beaver: bool = False
    cube_life: float = X_CONTACT
    mwc: dict | None = None

    def as_dict(self) -> dict:
        """``{"decision", "take", "equities": {"no_double", "double_take", "double_pass"}}``."""
        return {"decision": self.decision, "take": bool(self.take),
                "equities": {"no_double": float(self.no_double), "double_take": float(self.double_take),
                             "double_pass": float(self.double_pass)}}


def _probs(probs) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64)
    if p.shape != (5,) or not np.isfinite(p).all():
        raise ValueError(f"probabilities must be 5 finite floats (win, wg, wbg, lg, lbg), got shape {p.shape}")
    return np.clip(p, 0.0, 1.0)


def average_values(probs) -> tuple[float, float, float]:
    """``(p, W, L)``: the chance to win and the average values of the games won and lost.

    probs : float (5,), cubeless probabilities of the side on roll. W and L are 1 where there
    is no win (no loss) to average over.
    """
    p = _probs(probs)
    w = float(p[0])
    W = 1.0 + (p[1] + p[2]) / w if w > _EPS else 1.0
    L = 1.0 + (p[3] + p[4]) / (1.0 - w) if w < 1.0 - _EPS else 1.0
    return w, float(W), float(L)


def is_last_roll(board) -> bool:
    """True in a race where the opponent has all its checkers home and surely bears off the
    last of them with its next roll (so the cube cannot be turned again after a take).

    board : int (26,), from the side on roll (:mod:`bgrl.rules.board`).
    """
    b = np.asarray(board, dtype=np.int64).reshape(1, -1)
    if not bool(is_race(b)[0]) or (b[0, :19] < 0).any():  # contact, or opponent checkers outside its home
        return False
    opp = np.maximum(-b[0, 24:18:-1], 0)  # the opponent's points 1..6
    if opp.sum() == 0:
        return True
    dist = one_sided(opp[None])[0]
    return bool(dist[:2].sum() > 1.0 - 1e-12)


def cube_life(board) -> float:
    """Janowski's cube life ``x`` for a position (module docstring: gnubg's manual's values).

    board : int (26,), from the side on roll. Returns a float in [0, 1]: 0 in a last roll,
    :data:`X_BEAROFF` in a bear-off, the pip interpolation in a race, :data:`X_CONTACT` else.
    """
    b = np.asarray(board, dtype=np.int64)
    if is_last_roll(b):
        return 0.0
    if bool(is_bearoff(b.reshape(1, -1))[0]):
        return X_BEAROFF
    if bool(is_race(b)):
        pips = float(pip_counts(b)[0])
        t = (pips - RACE_PIPS[0]) / (RACE_PIPS[1] - RACE_PIPS[0])
        return float(X_RACE_MIN + (X_RACE_MAX - X_RACE_MIN) * min(1.0, max(0.0, t)))
    return X_CONTACT


#: GNU Backgammon's second set of cube-life parameters, the one it uses for 0- and 1-ply
#: cube decisions (``show cubeefficiency`` of gnubg 1.1.0a16, PyPI ``gnubg``: "2+ ply/0-1
#: ply" values; the 2+ ply set is the manual's, :data:`X_CONTACT` etc.): contact and crashed
#: 0.76; race ``0.60 + 0.0025 x pips`` of the side on roll, clamped to [0.6, 0.8]; one-sided
#: bear-off 0.6.
GNUBG_SHALLOW_X = {"contact": 0.76, "race_coefficient": 0.60, "race_factor": 0.0025, "race_min": 0.6,
                   "race_max": 0.8, "bearoff": 0.6}


def cube_life_shallow(board) -> float:
    """Cube life by gnubg's 0-1-ply parameter set (:data:`GNUBG_SHALLOW_X`), with bgrl's
    exact last-roll case (0). bgrl's levels use :func:`cube_life` (the manual's values);
    this one reproduces gnubg's own 0-ply and 1-ply cube decisions
    (``scripts/bench/cube_vs_gnubg.py``). board : int (26,), from the side on roll."""
    g = GNUBG_SHALLOW_X
    b = np.asarray(board, dtype=np.int64)
    if is_last_roll(b):
        return 0.0
    if bool(is_bearoff(b.reshape(1, -1))[0]):
        return g["bearoff"]
    if bool(is_race(b)):
        pips = float(pip_counts(b)[0])
        return float(min(g["race_max"], max(g["race_min"], g["race_coefficient"] + g["race_factor"] * pips)))
    return g["contact"]


def _check_x(x) -> float:
    x = float(x)
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"cube life x must be in [0, 1], got {x}")
    return x


def money_equity(probs, owner: int, x: float, jacoby: bool = False) -> float:
    """Cubeful money equity per unit of the cube (Janowski), side on roll.

    Parameters
    ----------
    probs : float (5,), cubeless probabilities of the side on roll before the roll.
    owner : 0 centred, 1 the side owns the cube, -1 the opponent owns it; 2 = a dead cube
        (owned by the side but at the cap: no redouble, equity = cubeless).
    x : float in [0, 1], the cube life.
    jacoby : the Jacoby rule (only matters for a centred cube).
    """
    x = _check_x(x)
    p, W, L = average_values(probs)
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if owner == 0 and jacoby:
        W0 = L0 = 1.0
    else:
        W0, L0 = W, L
    dead = p * W0 - (1.0 - p) * L0
    if owner == 2:
        return float(dead)
    if owner == 0:
        xs, ys = [0.0, tp, cp, 1.0], [-L0, -1.0, 1.0, W0]
    elif owner == 1:
        xs, ys = [0.0, cp, 1.0], [-L, 1.0, W]
    elif owner == -1:
        xs, ys = [0.0, tp, 1.0], [-L, -1.0, W]
    else:
        raise ValueError(f"owner must be 0 (centred), 1, -1 or 2 (dead), got {owner!r}")
    live = float(np.interp(p, xs, ys))
    return float((1.0 - x) * dead + x * live)


def money_take_point(probs_taker, x: float) -> float:
    """The take point of a side facing a double, in its own winning chances:
    ``(L - 1/2) / (W + L + x/2)`` from its own ``W``, ``L`` (Janowski 1993)."""
    x = _check_x(x)
    _, W, L = average_values(probs_taker)
    return float((L - 0.5) / (W + L + 0.5 * x))


def decide(no_double: float, double_take: float, double_pass: float) -> tuple[str, bool]:
    """``(decision, take)`` from the three equities of the side on roll (gnubg's logic): the
    opponent takes when taking costs it no more than passing; the side doubles when the
    opponent's best answer gives it more than not doubling (on a tie: when the answer is a
    pass); it is too good to double when playing on is worth more than the opponent's pass."""
    take = double_take <= double_pass
    answer = min(double_take, double_pass)
    # a tie goes to doubling when the opponent passes (a sure single win is a double/pass) and
    # to no double when it takes (doubling gains nothing and hands over the cube: a sure loss
    # is "no double", as gnubg says)
    if no_double > answer or (take and no_double >= answer - 1e-12):
        return ("too good to double" if no_double > double_pass else "no double"), take
    return ("double, take" if take else "double, pass"), take


def money_cube_decision(probs, cube: CubeState | None = None, x: float = X_CONTACT) -> CubeDecision:
    """The money cube decision of the side on roll before it rolls (module docstring).

    Parameters
    ----------
    probs : float (5,), its cubeless probabilities; cube : CubeState (default: centred 1-cube);
    x : the cube life (:func:`cube_life`).

    Raises
    ------
    ValueError : the side may not double (opponent owns the cube, the cap, no cube in play).
    """
    cube = CubeState() if cube is None else cube
    if cube.is_match:
        raise ValueError("money_cube_decision is for money games; use match_cube_decision at a score")
    cube.check_double()
    p = _probs(probs)
    owner = cube.owner
    nd = money_equity(p, owner, x, jacoby=cube.jacoby)
    can_redouble = 4 * cube.value <= cube.max_value
    dt = 2.0 * money_equity(p, -1 if can_redouble else 2, x)
    beaver = False
    if cube.beavers and can_redouble:
        # the taker redoubles to 4 at once and keeps the cube
        bv = 4.0 * money_equity(p, -1 if 8 * cube.value <= cube.max_value else 2, x)
        if bv < dt:
            dt, beaver = bv, True
    decision, take = decide(nd, dt, 1.0)
    return CubeDecision(decision, take, nd, dt, 1.0, beaver=beaver and take, cube_life=float(x))


# -- match play ------------------------------------------------------------------------------

def _interp_solve(xs, ys, target: float) -> float:
    """p in [0, 1] where the increasing piecewise linear (xs, ys) reaches ``target``."""
    if target <= ys[0]:
        return 0.0
    if target >= ys[-1]:
        return 1.0
    for i in range(len(xs) - 1):
        if ys[i] <= target <= ys[i + 1]:
            if ys[i + 1] - ys[i] < 1e-15:
                return float(xs[i])
            return float(xs[i] + (target - ys[i]) * (xs[i + 1] - xs[i]) / (ys[i + 1] - ys[i]))
    return 1.0  # pragma: no cover - ys increasing


class _MatchModel:
    """MWC functions of one position class (fixed gammon ratios) at one score."""

    def __init__(self, probs, cube: CubeState, met):
        p = _probs(probs)
        self.p = float(p[0])
        w, l = p[0], 1.0 - p[0]
        self.win_mix = (np.array([w - p[1], p[1] - p[2], p[2]]) / w) if w > _EPS else np.array([1.0, 0.0, 0.0])
        self.lose_mix = (np.array([l - p[3], p[3] - p[4], p[4]]) / l) if l > _EPS else np.array([1.0, 0.0, 0.0])
        self.a, self.b = cube.away
        self.post = cube.crawford or cube.post_crawford
        self.cap = cube.max_value
        self.met = met
        self.crawford = cube.crawford
        self._memo: dict = {}

    def m(self, a: int, b: int) -> float:
        return self.met.mwc(a, b, post_crawford=self.post)

    def win(self, c: int) -> float:
        return float(sum(f * self.m(self.a - n * c, self.b) for n, f in zip((1, 2, 3), self.win_mix)))

    def lose(self, c: int) -> float:
        return float(sum(f * self.m(self.a, self.b - n * c) for n, f in zip((1, 2, 3), self.lose_mix)))

    def dead_cube(self, c: int) -> bool:
        """No double from cube value c can change anything (or none is allowed)."""
        return self.crawford or 2 * c > self.cap or (c >= self.a and c >= self.b)

    def dead(self, c: int, p: float) -> float:
        return p * self.win(c) + (1.0 - p) * self.lose(c)

    def cash_point(self, c: int) -> float:
        """The side's chance above which the opponent passes its double c -> 2c (live)."""
        key = ("cp", c)
        if key not in self._memo:
            xs, ys = self.points(2 * c, -1)
            self._memo[key] = _interp_solve(xs, ys, self.m(self.a - c, self.b))
        return self._memo[key]

    def take_point(self, c: int) -> float:
        """The side's chance below which it passes the opponent's double c -> 2c (live)."""
        key = ("tp", c)
        if key not in self._memo:
            xs, ys = self.points(2 * c, 1)
            self._memo[key] = _interp_solve(xs, ys, self.m(self.a, self.b - c))
        return self._memo[key]

    def points(self, c: int, owner: int):
        """Breakpoints of the fully live MWC at cube value c with ``owner`` (0, 1, -1)."""
        lo, hi = self.lose(c), self.win(c)
        if self.dead_cube(c):
            return [0.0, 1.0], [lo, hi]
        xs, ys = [0.0], [lo]
        if owner in (0, -1):
            tp = self.take_point(c)
            xs.append(tp)
            ys.append(self.m(self.a, self.b - c))
        if owner in (0, 1):
            cp = self.cash_point(c)
            xs.append(max(cp, xs[-1]))
            ys.append(self.m(self.a - c, self.b))
        xs.append(1.0)
        ys.append(hi)
        ys = list(np.maximum.accumulate(ys))  # keep it non-decreasing where the table is rough
        return xs, ys

    def cubeful(self, c: int, owner: int, x: float) -> float:
        xs, ys = self.points(c, owner)
        live = float(np.interp(self.p, xs, ys))
        return (1.0 - x) * self.dead(c, self.p) + x * live


def match_cube_decision(probs, cube: CubeState, x: float = X_CONTACT, met=None) -> CubeDecision:
    """The cube decision at a match score, by match winning chances (module docstring).

    Parameters
    ----------
    probs : float (5,), cubeless probabilities of the side on roll before the roll.
    cube : CubeState with ``match_length > 0`` (from the side on roll).
    x : the cube life; met : a :class:`bgrl.evaluation.match_equity.MatchEquityTable`
        (default: the shipped Kazaross-XG2 table).

    Returns
    -------
    CubeDecision, equities on gnubg's equity scale and ``mwc`` holding the three MWC.

    Raises
    ------
    ValueError : not a match, a double in the Crawford game, the opponent owns the cube, the
        cap, or a match longer than the table.
    """
    if not cube.is_match:
        raise ValueError("match_cube_decision needs a match score (match length > 0)")
    cube.check_double()
    x = _check_x(x)
    if met is None:
        from bgrl.evaluation.match_equity import default_met

        met = default_met()
    met.check_length(cube.match_length)
    mm = _MatchModel(probs, cube, met)
    c = cube.value
    nd = mm.cubeful(c, cube.owner, x)
    dt = mm.cubeful(2 * c, -1, x)
    dp = mm.m(mm.a - c, mm.b)
    hi, lo = dp, mm.m(mm.a, mm.b - c)

    def eq(v):
        return (2.0 * v - (hi + lo)) / (hi - lo)

    decision, take = decide(nd, dt, dp)
    return CubeDecision(decision, take, eq(nd), eq(dt), eq(dp), cube_life=x,
                        mwc={"no_double": nd, "double_take": dt, "double_pass": dp})


def cube_decision(probs, cube: CubeState | None = None, x: float = X_CONTACT, met=None) -> CubeDecision:
    """Money or match cube decision by ``cube.match_length`` (:func:`money_cube_decision`,
    :func:`match_cube_decision`)."""
    cube = CubeState() if cube is None else cube
    if cube.is_match:
        return match_cube_decision(probs, cube, x, met)
    return money_cube_decision(probs, cube, x)


def cubeful_equity(probs, cube: CubeState, x: float = X_CONTACT, met=None) -> float:
    """The cubeful equity of the side on roll before it rolls, with its best cube action.

    This is the value a cubeful checker play gives an after-state (from the side now on
    roll, the opponent of the mover): when the side may double, the better of no double and
    the opponent's best answer to a double (``max(no_double, min(double_take,
    double_pass))``); when it may not (the opponent owns the cube, the cap, the Crawford
    game), Janowski's equity with the cube as it is.

    Parameters
    ----------
    probs : float (5,), cubeless probabilities of the side on roll before the roll.
    cube : CubeState from the same side, cube in play.
    x : cube life; met : match equity table (match play; default Kazaross-XG2).

    Returns
    -------
    float: money play, equity per unit of the current cube; match play, MWC on gnubg's
    equity scale for the current cube (``+1`` = winning the cube value, ``-1`` losing it).
    """
    if cube.may_double():
        d = cube_decision(probs, cube, x, met)
        return float(max(d.no_double, min(d.double_take, d.double_pass)))
    x = _check_x(x)
    if not cube.is_match:
        owner = cube.owner
        if owner == 1 or not cube.cube_in_play or 2 * cube.value > cube.max_value:
            owner = 2  # a cube at its cap (whoever owns it), or no cube: dead
        return money_equity(probs, owner, x, jacoby=cube.jacoby)
    if met is None:
        from bgrl.evaluation.match_equity import default_met

        met = default_met()
    met.check_length(cube.match_length)
    mm = _MatchModel(probs, cube, met)
    c = cube.value
    v = mm.cubeful(c, cube.owner, x)
    hi, lo = mm.m(mm.a - c, mm.b), mm.m(mm.a, mm.b - c)
    return float((2.0 * v - (hi + lo)) / (hi - lo))
