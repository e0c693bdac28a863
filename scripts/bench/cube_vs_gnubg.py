"""Cube decisions against GNU Backgammon: the cube maths alone, and bgrl's own evaluator.

GNU Backgammon is the referee only (it neither trains nor plays for bgrl). Positions come
from gnubg self-play: cubeless games between two gnubg 0-ply players (``gnubg_nn``'s
``best_move``), every position before a roll but the opening, ``--positions`` of them drawn
at random. Each is judged in every *setting* of :data:`SETTINGS` (a centred cube: money
play and scores of a 7-point match, the Crawford game excluded since nobody may double in
it). The reference decisions are GNU Backgammon's own (PyPI ``gnubg``, the full engine's
Python module, its ``hint`` before the roll: Jacoby off, no beavers, Kazaross-XG2 table);
``gnubg_nn`` cannot make a money cube decision ("Not implemented for money").

(a) **cube maths**: bgrl's cube model (:func:`bgrl.evaluation.cube.cube_decision` with
    :func:`bgrl.evaluation.cube.cube_life`) is given gnubg's own 0-ply cubeless
    probabilities of the position; its decision is compared with gnubg's 0-ply cube
    decision. The decisions are ``no double``, ``double, take``, ``double, pass`` and ``too
    good to double`` (gnubg's "optional double" counts as a double; its "beaver" as a take).
(b) **bgrl's evaluator**: the decision of a level (``--level``, default world-class, at its
    ply) from its own pre-roll probabilities, compared with gnubg at ``--ref-plies`` (2).
    The *loss* is what bgrl's decisions give up, valued by gnubg's cubeful equities at that
    ply, per unit of the current stake, in millipoints: the doubler's part (the side on roll
    doubles or not: gnubg's best of no double and the opponent's best answer, minus the value
    of bgrl's choice) and the taker's (after a double, take or pass: the difference of
    double/take and double/pass when bgrl's answer is the wrong one). It is given per
    position and per *close or actual* cube decision, counted as gnubg's analysis counts
    them: a position where the doubler's best equity minus min(double/take, +1) is under
    0.16 (gnubg's ``isCloseCubedecision``) or where bgrl doubles.

Usage::

    python scripts/bench/cube_vs_gnubg.py                       # 1,000 positions, the table
    python scripts/bench/cube_vs_gnubg.py --positions 200 --json
    python scripts/bench/cube_vs_gnubg.py --no-level            # part (a) only

Needs the ``gnubg`` extra (``pip install -e '.[gnubg]'``: gnubg-nn and gnubg).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter

import numpy as np

from bgrl.evaluation.cube import cube_decision, cube_life, cube_life_shallow
from bgrl.rules.board import Position, flip, position_id
from bgrl.rules.cube import CubeState
from bgrl.rules.matchid import match_id
from bgrl.rules.xgid import to_xgid

#: (label, CubeState from the side on roll); a centred 1-cube everywhere.
SETTINGS = (
    ("money", CubeState()),
    ("7pt 7a-7a", CubeState(match_length=7, score=(0, 0))),
    ("7pt 2a-4a", CubeState(match_length=7, score=(5, 3))),
    ("7pt 4a-2a", CubeState(match_length=7, score=(3, 5))),
    ("7pt 3a-3a", CubeState(match_length=7, score=(4, 4))),
    ("7pt 4a-1a post-Crawford", CubeState(match_length=7, score=(3, 6))),
)
CLOSE = 0.16  # gnubg's isCloseCubedecision threshold


# -- GNU Backgammon (the full engine's Python module) --------------------------------------

class Gnubg:
    """GNU Backgammon's cube hint through its command interface (text parsed)."""

    _LINE = re.compile(r"^\s*\d\.\s+(No double|No redouble|Double, take|Double, pass|Redouble, take|Redouble, pass)"
                       r"\s+([+-]?\d+\.\d+)")
    _PROBS = re.compile(r"^\s*(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$")

    def __init__(self):
        try:
            import gnubg
        except ImportError as exc:  # pragma: no cover - environment
            raise SystemExit(f"cube_vs_gnubg: the gnubg module (PyPI gnubg) is missing: pip install -e '.[gnubg]' ({exc})")
        self.g = gnubg
        self.libc = ctypes.CDLL(None)
        self.plies = None
        for c in ("set threads 1", "set player 0 human", "set player 1 human", "set cube use on", "set jacoby off",
                  "set beavers 0", "set output digits 5", "set output mwc off",
                  "set evaluation cubedecision evaluation cubeful on"):
            self.run(c)
        met = self.run("show matchequitytable 1")
        if "Kazaross XG2" not in met:
            raise SystemExit(f"cube_vs_gnubg: gnubg's match equity table is not Kazaross-XG2: {met[:200]!r}")

    def run(self, cmd: str) -> str:
        """gnubg's output of one command (its C stdout captured)."""
        sys.stdout.flush()
        self.libc.fflush(None)
        saved = os.dup(1)
        with tempfile.TemporaryFile() as f:
            os.dup2(f.fileno(), 1)
            try:
                self.g.command(cmd)
                self.libc.fflush(None)
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            f.seek(0)
            return f.read().decode("utf-8", "replace")

    def probs(self, board) -> np.ndarray:
        """gnubg's 0-ply cubeless probabilities (win, wg, wbg, lg, lbg) of the side on roll."""
        g = self.g
        b = g.positionfromid(position_id(board))
        return np.array(g.evaluate(b, g.cubeinfo(), g.evalcontext(0, 0, 1, 0, 0.0))[:5], dtype=np.float64)

    def cube(self, board, cube: CubeState, plies: int) -> dict:
        """gnubg's cube hint: ``{"decision", "take", "nd", "dt", "dp", "probs"}`` (equities as
        gnubg prints them: per unit of the stake, MWC on the equity scale at a score)."""
        if plies != self.plies:
            self.run(f"set evaluation cubedecision evaluation plies {plies}")
            self.plies = plies
        # an XGID, not a Position ID and Match ID: gnubg takes the Jacoby and beaver flags of a
        # money game from the XGID, while a Match ID leaves the Jacoby rule of its new session on
        self.run(f"set gnubgid {to_xgid(Position(np.asarray(board, dtype=np.int8)), cube=cube)}")
        out = self.run("hint")
        eq, probs, action = {}, None, None
        for line in out.splitlines():
            m = self._LINE.match(line)
            if m:
                eq[m.group(1).replace("Redouble", "Double").replace("No redouble", "No double")] = float(m.group(2))
            m = self._PROBS.match(line)
            if m and probs is None:
                v = [float(x) for x in m.groups()]
                probs = np.array([v[0], v[1], v[2], v[4], v[5]])
            if line.startswith("Proper cube action:"):
                action = line.split(":", 1)[1].strip()
        if action is None or len(eq) != 3:
            raise RuntimeError(f"cannot read gnubg's cube hint for {position_id(board)}:{match_id(cube)}:\n{out}")
        return {"action": action, **_gnubg_decision(action), "nd": eq["No double"], "dt": eq["Double, take"],
                "dp": eq["Double, pass"], "probs": probs}


def _gnubg_decision(action: str) -> dict:
    a = action.lower().split(" (")[0]
    take = not a.endswith("pass")
    if a.startswith("too good"):
        d = "too good to double"
    elif a.startswith(("no double", "no redouble")):
        d = "no double"
    elif a.startswith(("double", "redouble", "optional double", "optional redouble")):
        d = "double, take" if take else "double, pass"
    else:
        raise RuntimeError(f"unknown gnubg cube action {action!r}")
    return {"decision": d, "take": take}


# -- positions from gnubg self-play ---------------------------------------------------------

def self_play_positions(n: int, seed: int) -> list[np.ndarray]:
    """``n`` pre-roll positions (int8 (26,), side on roll) drawn from gnubg 0-ply self-play."""
    from bgrl.agents.gnubg import GnubgAgent
    from bgrl.rules.outcome import game_result

    agent = GnubgAgent(0)
    rng = np.random.default_rng(seed)
    pool: list[np.ndarray] = []
    while len(pool) < 4 * n:
        pos = Position.start()
        first = True
        while True:
            if not first:
                pool.append(pos.board.copy())
            first = False
            d = rng.integers(1, 7, size=2)
            while first and d[0] == d[1]:  # pragma: no cover - the opening is never a double
                d = rng.integers(1, 7, size=2)
            play = agent.choose_play(pos, (int(d[0]), int(d[1])), rng)
            if play is None:
                pos = pos.flipped()
                continue
            if game_result(play.after_state):
                break
            pos = play.position
    pick = rng.choice(len(pool), size=n, replace=False)
    return [pool[i] for i in sorted(pick)]


# -- the comparison -------------------------------------------------------------------------

def _losses(ours: dict, ref: dict) -> tuple[float, float]:
    """(doubler's loss, taker's loss) of bgrl's decision valued by gnubg's equities."""
    nd, dt, dp = ref["nd"], ref["dt"], ref["dp"]
    answer = min(dt, dp)
    best = max(nd, answer)
    doubles = ours["decision"] in ("double, take", "double, pass")
    doubler = best - (answer if doubles else nd)
    taker = abs(dt - dp) if bool(ours["take"]) != (dt <= dp) else 0.0
    return max(0.0, doubler), taker


def _row(cmp: list[dict]) -> dict:
    n = len(cmp)
    same = sum(c["same"] for c in cmp)
    close = [c for c in cmp if c["close"]]
    dl = sum(c["doubler_loss"] for c in cmp)
    tl = sum(c["taker_loss"] for c in cmp)
    return {"positions": n, "agree": same, "agreement": same / n if n else None,
            "take_agree": sum(c["take_same"] for c in cmp) / n if n else None,
            "close": len(close), "close_agreement": (sum(c["same"] for c in close) / len(close)) if close else None,
            "mean_abs_nd": float(np.mean([c["d_nd"] for c in cmp])), "mean_abs_dt": float(np.mean([c["d_dt"] for c in cmp])),
            "loss_mp_per_position": 1000 * (dl + tl) / n if n else None,
            "loss_mp_per_close": 1000 * (dl + tl) / len(close) if close else None,
            "doubler_loss_mp": 1000 * dl / n if n else None, "taker_loss_mp": 1000 * tl / n if n else None,
            "confusion": dict(Counter(f"{c['ref']} -> {c['ours']}" for c in cmp if not c["same"]))}


def compare(boards, probs_ours, ref_plies, gnubg: Gnubg, use_gnubg_probs: bool, life=cube_life) -> dict:
    out = {}
    for label, cube in SETTINGS:
        cmp = []
        for i, b in enumerate(boards):
            ref = gnubg.cube(b, cube, ref_plies)
            p = gnubg.probs(b) if use_gnubg_probs else probs_ours[i]
            d = cube_decision(p, cube, life(b))
            ours = {"decision": d.decision, "take": d.take}
            dl, tl = _losses(ours, ref)
            best = max(ref["nd"], min(ref["dt"], ref["dp"]))
            close = best - min(ref["dt"], 1.0) < CLOSE or d.decision in ("double, take", "double, pass")
            cmp.append({"position_id": position_id(b), "ref": ref["decision"], "ours": d.decision,
                        "same": ref["decision"] == d.decision, "take_same": bool(ref["take"]) == bool(d.take),
                        "close": close, "doubler_loss": dl, "taker_loss": tl,
                        "d_nd": abs(ref["nd"] - d.no_double), "d_dt": abs(ref["dt"] - d.double_take),
                        "x": d.cube_life, "probs_gap": None if ref["probs"] is None or not use_gnubg_probs
                        else float(np.abs(ref["probs"] - p).max()),
                        "ref_eq": [ref["nd"], ref["dt"], ref["dp"]],
                        "our_eq": [d.no_double, d.double_take, d.double_pass]})
        out[label] = {"summary": _row(cmp), "cases": cmp}
    return out


def level_probs(level: str, boards) -> tuple[np.ndarray, str]:
    """The level's cubeless pre-roll probabilities of every board (one batched search)."""
    from bgrl.agents.levels import load_level
    from bgrl.agents.search import after_state_probs
    from bgrl.evaluation.probabilities import flip_probs

    agent = load_level(level)
    ply = agent.level.ply
    before = np.stack([flip(b) for b in boards]).astype(np.int8)
    probs = np.stack([flip_probs(p) for p in after_state_probs(agent.evaluator, before, ply)])
    return probs, f"{level} ({agent.level.network}, {ply}-ply)"


def _table(title: str, res: dict) -> list[str]:
    lines = [title, f"{'setting':<26} {'positions':>9} {'agree':>7} {'take':>7} {'close':>6} {'agree(close)':>12} "
             f"{'|dND|':>7} {'|dDT|':>7} {'loss mp/pos':>11} {'mp/close':>9}"]
    allc = []
    for label, r in res.items():
        s = r["summary"]
        allc += r["cases"]
        ca = "-" if s["close_agreement"] is None else f"{100 * s['close_agreement']:.1f}%"
        lines.append(f"{label:<26} {s['positions']:9d} {100 * s['agreement']:6.1f}% {100 * s['take_agree']:6.1f}% "
                     f"{s['close']:6d} {ca:>12} {s['mean_abs_nd']:7.4f} {s['mean_abs_dt']:7.4f} "
                     f"{s['loss_mp_per_position']:11.2f} {s['loss_mp_per_close'] or 0:9.2f}")
    t = _row(allc)
    lines.append(f"{'all':<26} {t['positions']:9d} {100 * t['agreement']:6.1f}% {100 * t['take_agree']:6.1f}% "
                 f"{t['close']:6d} {100 * (t['close_agreement'] or 0):11.1f}% {t['mean_abs_nd']:7.4f} "
                 f"{t['mean_abs_dt']:7.4f} {t['loss_mp_per_position']:11.2f} {t['loss_mp_per_close'] or 0:9.2f}")
    dis = Counter()
    for r in res.values():
        dis.update(r["summary"]["confusion"])
    if dis:
        lines.append("disagreements (gnubg -> bgrl): " + ", ".join(f"{k}: {v}" for k, v in dis.most_common()))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--level", default="world-class", help="the level of part (b) (default world-class)")
    ap.add_argument("--ref-plies", type=int, default=2, help="gnubg's ply in part (b) (default 2)")
    ap.add_argument("--no-level", action="store_true", help="part (a) only")
    ap.add_argument("--json", default=None, help="also write every case to this JSON file")
    args = ap.parse_args(argv)
    if args.positions < 1:
        ap.error("--positions must be >= 1")
    if not 0 <= args.ref_plies <= 3:
        ap.error(f"--ref-plies must be 0..3, got {args.ref_plies}")
    from bgrl.agents.levels import LEVEL_NAMES

    if not args.no_level and args.level not in LEVEL_NAMES:
        ap.error(f"--level must be one of {', '.join(LEVEL_NAMES)}, got {args.level!r}")
    t0 = time.time()
    gnubg = Gnubg()
    boards = self_play_positions(args.positions, args.seed)
    res_a = compare(boards, None, 0, gnubg, use_gnubg_probs=True)
    res_a2 = compare(boards, None, 0, gnubg, use_gnubg_probs=True, life=cube_life_shallow)
    gaps = [c["probs_gap"] for r in res_a.values() for c in r["cases"] if c["probs_gap"] is not None]
    eff = " ".join(gnubg.run("show cubeefficiency").split())
    lines = [f"{len(boards)} positions from gnubg 0-ply self-play (seed {args.seed}); settings: centred cube, "
             "Jacoby off, no beavers, Kazaross-XG2",
             f"gnubg's 0-ply probabilities given to bgrl vs those its hint prints: max gap {max(gaps):.5f}",
             f"gnubg: {eff}", ""]
    lines += _table("(a) cube maths: bgrl's model (its cube life: the manual's values = gnubg's 2+ ply set) on "
                    "gnubg's 0-ply probabilities vs gnubg 0-ply's decision", res_a)
    lines += ["", *_table("(a') the same with gnubg's 0-1 ply cube life (bgrl.evaluation.cube.cube_life_shallow)", res_a2)]
    out = {"positions": len(boards), "seed": args.seed, "a": {k: v["summary"] for k, v in res_a.items()},
           "a_shallow": {k: v["summary"] for k, v in res_a2.items()}}
    full = {"a": res_a, "a_shallow": res_a2}
    if not args.no_level:
        probs, label = level_probs(args.level, boards)
        res_b = compare(boards, probs, args.ref_plies, gnubg, use_gnubg_probs=False)
        lines += ["", *_table(f"(b) bgrl's own evaluator, level {label}, vs gnubg {args.ref_plies}-ply "
                              "(loss: millipoints per position / per close or actual decision, gnubg's equities)", res_b)]
        out["b"] = {k: v["summary"] for k, v in res_b.items()}
        out["level"] = label
        full["b"] = res_b
    lines.append(f"\n{time.time() - t0:.0f} s")
    print("\n".join(lines))
    if args.json:
        from bgrl._fileio import write_text_atomic

        write_text_atomic(args.json, json.dumps({**out, "cases": {k: {s: r["cases"] for s, r in v.items()}
                                                                  for k, v in full.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
