"""Why a play is best, in plain words: facts about the positions two plays leave.

Every fact is computed from the position before the play and the position after it (the
mover's view, opponent to roll), never from the evaluator's opinion, except the gammon
chances, which are the ranked row's probabilities:

* ``{"kind": "blot", "point", "shots"}``: each blot the play leaves; ``point`` in the
  mover's numbering; ``shots`` the number of the opponent's 36 rolls (doubles once,
  other rolls twice) that have a legal play hitting it;
* ``{"kind": "shots", "any"}``: the rolls out of 36 that hit at least one blot;
* ``{"kind": "point_made", "point"}`` / ``{"kind": "point_broken", "point"}``;
* ``{"kind": "home_points", "count"}``: points held (2+ checkers) in the mover's home board;
* ``{"kind": "prime", "length", "top"}``: the longest run of held points, and its highest point;
* ``{"kind": "anchors", "points"}``: points held in the opponent's home board (19..24);
* ``{"kind": "back", "checkers"}``: the mover's checkers on the bar or on 19..24;
* ``{"kind": "pips", "mover", "opponent"}``: pip counts after the play (the race lead is
  ``opponent - mover``);
* ``{"kind": "gammons", "win", "lose"}``: the row's chances of winning / losing a gammon.

Shot counts follow the full rules because they are the legal plays of the opponent's
rolls from :func:`bgrl.rules.movegen.generate` (blocked landing points, entering from the
bar, the opponent's own bar checkers that must enter first, the maximum-dice rule): a blot
is hit by a roll when some legal after-state of that roll has taken it off its point
(a checker only leaves a point in the opponent's turn by being hit).
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import flip, pip_counts
from bgrl.rules.dice import ROLLS
from bgrl.rules.movegen import generate

__all__ = ["play_facts", "shot_counts", "compare_facts", "fact_sentences"]


def _rolls() -> tuple[np.ndarray, np.ndarray]:
    """The 21 distinct rolls int8 (21, 2) and how many of the 36 each stands for."""
    r = np.asarray(ROLLS, dtype=np.int8).reshape(-1, 2)
    w = np.where(r[:, 0] == r[:, 1], 1, 2)
    return r, w


def shot_counts(after_state) -> tuple[dict[int, int], int]:
    """Shots at each blot of ``after_state`` (int8 (26,), the mover's view after its play).

    Returns
    -------
    per_blot : dict point -> rolls out of 36 that hit the blot on that point (mover's numbering)
    any : rolls out of 36 that hit at least one blot
    """
    a = np.asarray(after_state, dtype=np.int8)
    blots = [p for p in range(1, 25) if a[p] == 1]
    if not blots:
        return {}, 0
    rolls, weights = _rolls()
    opp = flip(a)  # the opponent on roll; our blot on p sits on its point 25 - p as -1
    res = generate(np.repeat(opp[None], len(rolls), axis=0), rolls)
    per = {p: 0 for p in blots}
    total = 0
    for i, w in enumerate(weights):
        after = res.group(i)
        hit_any = False
        for p in blots:
            if (after[:, 25 - p] >= 0).any():
                per[p] += int(w)
                hit_any = True
        total += int(w) * hit_any
    return per, total


def _runs(held: list[bool]) -> tuple[int, int]:
    best, top, cur = 0, 0, 0
    for p in range(1, 25):
        cur = cur + 1 if held[p] else 0
        if cur > best:
            best, top = cur, p
    return best, top


def play_facts(before, after_state, probabilities=None) -> list[dict]:
    """The facts (see the module docstring) of one play: ``before`` int8 (26,) the
    position before it and ``after_state`` int8 (26,) after it, both the mover's view;
    ``probabilities`` (optional, :class:`bgrl.evaluation.probabilities.Probabilities` or
    float (5,)) adds the ``gammons`` fact."""
    b = np.asarray(before, dtype=np.int8)
    a = np.asarray(after_state, dtype=np.int8)
    per, any_ = shot_counts(a)
    facts: list[dict] = [{"kind": "blot", "point": p, "shots": s} for p, s in sorted(per.items(), reverse=True)]
    facts.append({"kind": "shots", "any": any_})
    for p in range(24, 0, -1):
        if b[p] < 2 <= a[p]:
            facts.append({"kind": "point_made", "point": p})
        elif a[p] < 2 <= b[p]:
            facts.append({"kind": "point_broken", "point": p})
    held = [False] + [bool(a[p] >= 2) for p in range(1, 25)] + [False]
    facts.append({"kind": "home_points", "count": int(sum(held[1:7]))})
    length, top = _runs(held)
    facts.append({"kind": "prime", "length": length, "top": top})
    facts.append({"kind": "anchors", "points": [p for p in range(19, 25) if held[p]]})
    facts.append({"kind": "back", "checkers": int(a[25] + sum(int(a[p]) for p in range(19, 25) if a[p] > 0))})
    pm, po = pip_counts(a)
    facts.append({"kind": "pips", "mover": int(pm), "opponent": int(po)})
    if probabilities is not None:
        p = np.asarray(probabilities.to_array() if hasattr(probabilities, "to_array") else probabilities, dtype=np.float64)
        facts.append({"kind": "gammons", "win": round(float(p[1]), 4), "lose": round(float(p[3]), 4)})
    return facts


def _one(facts: list[dict], kind: str) -> dict | None:
    return next((f for f in facts if f["kind"] == kind), None)


def fact_sentences(name: str, facts: list[dict]) -> list[str]:
    """Plain sentences for one play's facts, each a fact about the position it leaves."""
    out = []
    blots = [f for f in facts if f["kind"] == "blot"]
    if blots:
        desc = ", ".join(f"on {f['point']} ({f['shots']} shot{'s' if f['shots'] != 1 else ''})" for f in blots)
        out.append(f"{name} leaves {len(blots)} blot{'s' if len(blots) > 1 else ''}: {desc}; "
                   f"{_one(facts, 'shots')['any']} of the opponent's 36 rolls hit.")
    else:
        out.append(f"{name} leaves no blot.")
    made = [f["point"] for f in facts if f["kind"] == "point_made"]
    broken = [f["point"] for f in facts if f["kind"] == "point_broken"]
    if made:
        out.append(f"It makes the {', '.join(map(str, made))} point{'s' if len(made) > 1 else ''}.")
    if broken:
        out.append(f"It breaks the {', '.join(map(str, broken))} point{'s' if len(broken) > 1 else ''}.")
    h, pr, pp = _one(facts, "home_points"), _one(facts, "prime"), _one(facts, "pips")
    out.append(f"It holds {h['count']} home-board point{'s' if h['count'] != 1 else ''}; longest prime {pr['length']}"
               + (f" (up to the {pr['top']} point)." if pr["length"] else "."))
    lead = pp["opponent"] - pp["mover"]
    out.append(f"Pips after it: {pp['mover']} to {pp['opponent']} ({'ahead' if lead > 0 else 'behind' if lead < 0 else 'level'}"
               + (f" by {abs(lead)}" if lead else "") + " in the race).")
    return out


def compare_facts(name_a: str, facts_a: list[dict], name_b: str, facts_b: list[dict]) -> list[str]:
    """Sentences on what differs between two plays' facts (``a`` usually the best)."""
    out = []
    sa, sb = _one(facts_a, "shots")["any"], _one(facts_b, "shots")["any"]
    if sa != sb:
        out.append(f"{name_a} leaves {sa} shot{'s' if sa != 1 else ''} of 36, {name_b} {sb}.")
    ba = sorted(f["point"] for f in facts_a if f["kind"] == "blot")
    bb = sorted(f["point"] for f in facts_b if f["kind"] == "blot")
    if len(ba) != len(bb):
        out.append(f"{name_a} leaves {len(ba)} blot{'s' if len(ba) != 1 else ''}, {name_b} {len(bb)}.")
    for kind, verb in (("point_made", "makes"), ("point_broken", "breaks")):
        pa = {f["point"] for f in facts_a if f["kind"] == kind}
        pb = {f["point"] for f in facts_b if f["kind"] == kind}
        if pa - pb:
            out.append(f"{name_a} {verb} the {', '.join(map(str, sorted(pa - pb, reverse=True)))} point; {name_b} does not.")
        if pb - pa:
            out.append(f"{name_b} {verb} the {', '.join(map(str, sorted(pb - pa, reverse=True)))} point; {name_a} does not.")
    for kind, field, what in (("home_points", "count", "home-board points"), ("prime", "length", "the longest prime"),
                              ("back", "checkers", "checkers back")):
        va, vb = _one(facts_a, kind)[field], _one(facts_b, kind)[field]
        if va != vb:
            out.append(f"{what.capitalize()}: {va} after {name_a}, {vb} after {name_b}.")
    aa, ab = _one(facts_a, "anchors")["points"], _one(facts_b, "anchors")["points"]
    if aa != ab:
        out.append(f"Anchors: {aa or 'none'} after {name_a}, {ab or 'none'} after {name_b}.")
    ga, gb = _one(facts_a, "gammons"), _one(facts_b, "gammons")
    if ga and gb and (abs(ga["win"] - gb["win"]) >= 0.005 or abs(ga["lose"] - gb["lose"]) >= 0.005):
        out.append(f"Gammons (win / lose): {100 * ga['win']:.1f}% / {100 * ga['lose']:.1f}% after {name_a}, "
                   f"{100 * gb['win']:.1f}% / {100 * gb['lose']:.1f}% after {name_b}.")
    if not out:
        out.append(f"{name_a} and {name_b} leave the same blots, points and pips: they differ only in where the checkers stand.")
    return out
