"""The ``bgrl hint`` engine choice (``--level``/``--ply``/``--checkpoint``) and ``bgrl levels``.

Kept out of :mod:`bgrl.cli`, which only registers the arguments.
"""

from __future__ import annotations

import json

from .levels import LEVEL_NAMES, LEVELS, LevelAgent, load_level, measured_levels
from .search import MAX_PLY

__all__ = ["DEFAULT_HINT_LEVEL", "hint_agent", "hint_json", "hint_text", "levels_table", "cmd_levels"]

#: The level whose search ``bgrl hint`` uses when none is named (issue 7).
DEFAULT_HINT_LEVEL = "expert"

# gnubg's own levels' error rates, millipoints per decision judged by gnubg 2-ply on 3,000
# held-out decisions (issue 7, measured by the project; "world-class" not given there).
GNUBG_ERROR_RATES = {"beginner": 17.7, "casual": 14.8, "intermediate": 11.3, "advanced": 4.5, "expert": 2.3}


def check_level(name) -> str:
    """The level name, or ValueError naming the levels."""
    if name is None:
        return DEFAULT_HINT_LEVEL
    if str(name) not in LEVELS:
        raise ValueError(f"unknown level {name!r}: expected one of {', '.join(LEVEL_NAMES)}")
    return str(name)


def hint_agent(level=None, ply=None, checkpoint=None) -> tuple[LevelAgent, int, str]:
    """The agent whose noise-free search ranks the plays, the ply and a label.

    level : level name (default ``expert``); ply : 0..3 overrides the level's ply;
    checkpoint : a network path replacing the level's network.
    Raises ValueError for an unknown level or a ply outside 0..3.
    """
    name = check_level(level)
    if ply is not None and not 0 <= int(ply) <= MAX_PLY:
        raise ValueError(f"--ply must be 0..{MAX_PLY}, got {ply}")
    agent = load_level(name)
    label = f"level {name}"
    if checkpoint is not None:
        from .checkpoint import load_network
        from .fasteval import best_evaluator
        from .resources import resolve_checkpoint

        path = resolve_checkpoint(checkpoint)
        net, meta = load_network(path)
        agent = LevelAgent(agent.level, best_evaluator(net, meta["encoder"]), meta=meta)
        label += f" with network {path.name}"
    use_ply = agent.level.ply if ply is None else int(ply)
    return agent, use_ply, label


def hint_json(pos, dice, ranked, level: str, ply: int, top: int | None = None) -> dict:
    shown = ranked if not top else ranked[:top]
    return {
        "position_id": pos.position_id,
        "dice": [int(dice[0]), int(dice[1])],
        "level": level,
        "ply": ply,
        "plays": [r.as_dict() for r in shown],
    }


def hint_text(pos, dice, ranked, label: str, ply: int, top: int | None = None) -> str:
    lines = [f"Position {pos.position_id}, roll {dice[0]}-{dice[1]} ({label}, {ply}-ply; cubeless equity of the side playing)"]
    if not ranked:
        lines.append("  no die can be played: the turn passes")
        return "\n".join(lines)
    shown = ranked if not top else ranked[:top]
    width = max(4, max(len(r.play.notation) for r in shown))
    lines.append(f"  {'#':>3}  {'play':<{width}}  {'ply':>5}  {'equity':>7}  {'vs best':>7}  win    wg    wbg    lg    lbg")
    for r in shown:
        p = r.probabilities
        lines.append(
            f"  {r.rank:3d}  {r.play.notation:<{width}}  {str(r.ply) + '-ply':>5}  {r.equity:+7.3f}  {0.0 - r.equity_loss + 0.0:+7.3f}  "
            f"{p.win:.3f} {p.win_gammon:.3f} {p.win_backgammon:.3f} {p.lose_gammon:.3f} {p.lose_backgammon:.3f}"
        )
    if len(ranked) > len(shown):
        lines.append(f"  ... and {len(ranked) - len(shown)} more (--top 0 shows all)")
    if any(r.ply < ply for r in ranked):
        lines.append("  plays marked with a lower ply did not pass the move filter and keep that evaluation (as in gnubg's hint)")
    return "\n".join(lines)


def _fmt_match(m: dict | None) -> str:
    if not m:
        return "not measured"
    return f"{m['ppg']:+.3f} ± {m['ci95']:.3f} ({m['games']:,} games)"


def levels_table(measured: dict | None = None) -> list[dict]:
    """One dict per level: its definition and what was measured (see checkpoints/levels.json)."""
    measured = measured_levels() if measured is None else measured
    per = measured.get("levels", {})
    rows = []
    names = list(LEVEL_NAMES)
    for i, name in enumerate(names):
        lv = LEVELS[name]
        m = per.get(name, {})
        rows.append({
            **lv.as_dict(),
            "definition": lv.definition(),
            "vs_pubeval": m.get("vs_pubeval"),
            "vs_lower": m.get("vs_lower"),
            "lower": names[i - 1] if i > 0 else m.get("lower", "random"),
            "error_rate": m.get("error_rate"),
            "gnubg_error_rate": GNUBG_ERROR_RATES.get(name),
            "vs_gnubg": m.get("vs_gnubg"),
            "remark": m.get("remark", ""),
        })
    return rows


def cmd_levels(args) -> int:
    """``bgrl levels [--json]``: each level's definition and measured strength."""
    measured = measured_levels()
    rows = levels_table(measured)
    if getattr(args, "json", False):
        print(json.dumps({"levels": rows, "measured": {k: v for k, v in measured.items() if k != "levels"}}))
        return 0
    print("Levels (bgrl.load_agent(name), bgrl match/play --level, bgrl hint --level); measured figures from")
    print(f"checkpoints/levels.json ({measured.get('command', 'scripts/ladder.py')}, {measured.get('date', 'not measured yet')})")
    print()
    for r in rows:
        print(f"{r['name']:<13} {r['definition']}")
        print(f"{'':<13} vs pubeval {_fmt_match(r['vs_pubeval'])}; vs {r['lower']} {_fmt_match(r['vs_lower'])}")
        er = r["error_rate"]
        gn = r["gnubg_error_rate"]
        er_text = f"{er:.1f}" if isinstance(er, (int, float)) else "not measured"
        gn_text = f" (gnubg's {r['name']}: {gn})" if gn is not None else ""
        print(f"{'':<13} error rate {er_text} millipoints/decision{gn_text}")
        if r["vs_gnubg"]:
            print(f"{'':<13} vs gnubg 0-ply {_fmt_match(r['vs_gnubg'])}")
        if r["remark"]:
            print(f"{'':<13} {r['remark']}")
    print()
    print("ppg: points per game with its 95% interval, paired dice, colours alternate; error rate: mean equity lost per")
    print("decision with a choice, judged by gnubg 2-ply (bgrl.benchmark).")
    return 0
