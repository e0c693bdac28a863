"""``bgrl levels``: each level's definition and measured strength.

A level's ranker is :func:`bgrl.agents.registry.load_ranker`; ``--level`` is checked by
:func:`bgrl.cli._common.check_level`.
"""

from __future__ import annotations

import json

from bgrl.agents.levels import LEVEL_NAMES, LEVELS, measured_levels

__all__ = ["levels_table", "cmd_levels", "gnubg_equivalent"]

# gnubg's own levels' error rates, millipoints per decision judged by gnubg 2-ply on 3,000
# held-out decisions (issue 7, measured by the project; "world-class" not given there).
GNUBG_ERROR_RATES = {"beginner": 17.7, "casual": 14.8, "intermediate": 11.3, "advanced": 4.5, "expert": 2.3}


def gnubg_equivalent(error_rate) -> str:
    """Which of gnubg's levels errs about as much (issue 7's figures), as a phrase."""
    if not isinstance(error_rate, (int, float)):
        return ""
    worst = max(GNUBG_ERROR_RATES.values())
    if error_rate > worst * 1.25:
        return f"errs more than gnubg's beginner ({worst})"
    name, val = min(GNUBG_ERROR_RATES.items(), key=lambda kv: abs(kv[1] - error_rate))
    return f"errs about like gnubg's {name} ({val})"


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
            "gnubg_equivalent": gnubg_equivalent(m.get("error_rate")),
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
    print("Levels (bgrl.load_agent(name), bgrl match/play --level, bgrl hint --level), weakest first; measured")
    print(f"figures from checkpoints/levels.json ({measured.get('date', 'not measured yet')}; the commands that wrote it are listed at the end)")
    print()
    for r in rows:
        print(f"{r['name']:<13} {r['definition']}")
        print(f"{'':<13} vs pubeval {_fmt_match(r['vs_pubeval'])}; vs {r['lower']} {_fmt_match(r['vs_lower'])}")
        er = r["error_rate"]
        gn = r["gnubg_error_rate"]
        er_text = f"{er:.1f}" if isinstance(er, (int, float)) else "not measured"
        gn_text = f"; gnubg's {r['name']}: {gn}" if gn is not None else ""
        eq = gnubg_equivalent(er)
        print(f"{'':<13} error rate {er_text} millipoints/decision{gn_text}" + (f"; {eq}" if eq else ""))
        if r["vs_gnubg"]:
            print(f"{'':<13} vs gnubg 0-ply {_fmt_match(r['vs_gnubg'])}")
        if r["remark"]:
            print(f"{'':<13} {r['remark']}")
    print()
    print("ppg: points per game with its 95% interval, paired dice, colours alternate; error rate: mean equity lost per")
    print("decision with a choice, judged by gnubg 2-ply (bgrl.arena.benchmark).")
    runs = measured.get("runs") or [measured.get("command", "python scripts/tools/ladder.py")]
    print()
    print("checkpoints/levels.json was written by (oldest first; each match's own command is stored there):")
    for r in runs:
        print(f"  {r}")
    return 0


def add_parser(sub) -> None:
    lv = sub.add_parser("levels", help="the named levels: definition and measured strength")
    lv.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    lv.set_defaults(func=cmd_levels)

