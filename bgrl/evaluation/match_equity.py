"""Match equity: the Kazaross-XG2 match equity table, gammon values, MWC <-> equity. numpy only.

The table ships as data, ``bgrl/data/met_kazaross_xg2.json``: Neil Kazaross's Kazaross-XG2
25-point table (2011; XG rollouts to 9 points, GNU Backgammon 0.90 2-ply rollouts to 15,
extended to 25 by projected take points), as GNU Backgammon distributes it in
``met/Kazaross-XG2.xml`` (transcribed for gnubg by Michael Petch; the file's notice allows
copying with the notice kept, and the JSON keeps it in its ``source`` field). Only the
numbers are used.

Conventions: ``mwc(a, b)`` is the match winning chance of a side ``a`` points away against a
side ``b`` points away, with the game about to start at a fresh (1) cube:

* ``a <= 0`` -> 1 (the side has won), ``b <= 0`` -> 0;
* both ``> 1``: the pre-Crawford table;
* a side 1 away: before or in the Crawford game the table's 1-away row (the Crawford game's
  MWC); after it (``post_crawford=True``) the post-Crawford row of the trailer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["MET_FILE", "MatchEquityTable", "default_met", "load_met", "mwc_to_equity", "equity_to_mwc", "gammon_values"]

MET_FILE = "met_kazaross_xg2.json"


@dataclass(frozen=True)
class MatchEquityTable:
    """A match equity table.

    Attributes
    ----------
    pre : float64 (N, N), ``pre[i, j]`` = MWC of a side i+1 away against j+1 away (pre-Crawford;
        row/column 0 = the Crawford game).
    post : float64 (N,), ``post[j]`` = MWC of the trailer j+1 away against a leader 1 away,
        post-Crawford.
    name, source : str.
    """

    pre: np.ndarray
    post: np.ndarray
    name: str = ""
    source: str = ""

    @property
    def length(self) -> int:
        return int(self.pre.shape[0])

    def check_length(self, n: int) -> None:
        """ValueError when a match of ``n`` points is longer than the table."""
        if int(n) > self.length:
            raise ValueError(f"match length {n} is beyond the match equity table ({self.name}: up to {self.length} points)")

    def mwc(self, a: int, b: int, post_crawford: bool = False) -> float:
        """MWC of a side ``a`` away against ``b`` away (module docstring).

        Raises ValueError for a score beyond the table.
        """
        a, b = int(a), int(b)
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if max(a, b) > self.length:
            raise ValueError(f"{a}-away against {b}-away is beyond the match equity table (up to {self.length} points)")
        if post_crawford and min(a, b) == 1 and a != b:
            return float(self.post[a - 1]) if b == 1 else float(1.0 - self.post[b - 1])
        if post_crawford and a == b == 1:
            return 0.5
        return float(self.pre[a - 1, b - 1])


def load_met(path) -> MatchEquityTable:
    """A table from a JSON file (``pre_crawford.rows``, ``post_crawford.row``; see the shipped one).

    Raises ValueError for a file that cannot be read or has the wrong shape.
    """
    p = Path(path)
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
        pre = np.asarray(obj["pre_crawford"]["rows"], dtype=np.float64)
        post = np.asarray(obj["post_crawford"]["row"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot read the match equity table {p}: {exc}") from None
    if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or post.shape != (pre.shape[0],):
        raise ValueError(f"match equity table {p}: expected an N x N pre-Crawford table and N post-Crawford values")
    return MatchEquityTable(pre, post, str(obj.get("name", "")), str(obj.get("source", "")))


_DEFAULT: MatchEquityTable | None = None


def default_met() -> MatchEquityTable:
    """The shipped Kazaross-XG2 table (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        from bgrl._resources import shipped_path

        _DEFAULT = load_met(shipped_path(MET_FILE, package="bgrl.data"))
    return _DEFAULT


def mwc_to_equity(mwc: float, win: float, lose: float) -> float:
    """MWC on gnubg's equity scale: +1 at ``win`` (the MWC after winning the current cube
    value), -1 at ``lose``."""
    return (2.0 * mwc - (win + lose)) / (win - lose)


def equity_to_mwc(eq: float, win: float, lose: float) -> float:
    """Inverse of :func:`mwc_to_equity`."""
    return 0.5 * (eq * (win - lose) + win + lose)


def gammon_values(a: int, b: int, cube: int = 1, post_crawford: bool = False, met: MatchEquityTable | None = None) -> tuple[float, float]:
    """Gammon values at a score: ``(for the side a away, for the side b away)``.

    A side's gammon value is the MWC a gammon adds over a single win, in units of the
    single game's swing: ``(M(win gammon) - M(win)) / (M(win) - M(lose))`` at cube value
    ``cube`` (the usual definition; 1 in a money game without the Jacoby rule).
    """
    met = default_met() if met is None else met

    def gv(x, y):
        win = met.mwc(x - cube, y, post_crawford)
        lose = met.mwc(x, y - cube, post_crawford)
        gam = met.mwc(x - 2 * cube, y, post_crawford)
        return (gam - win) / (win - lose)

    return gv(a, b), gv(b, a)
