"""The ``bgrl hint`` engine choice (``--level``/``--ply``/``--checkpoint``) and ``bgrl levels``.

The hint's text and JSON are in :mod:`bgrl.cli._table`; ``DEFAULT_HINT_LEVEL`` is
:data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`.

Kept out of :mod:`bgrl.cli`, which only registers the arguments.
"""

from __future__ import annotations

import json

from bgrl.agents.levels import DEFAULT_HINT_LEVEL, LEVEL_NAMES, LEVELS, LevelAgent, load_level, measured_levels
from bgrl.agents.search import MAX_PLY

__all__ = ["DEFAULT_HINT_LEVEL", "check_level", "hint_agent", "levels_table", "cmd_levels"]

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


def hint_agent(level=None, ply=None, checkpoint=None, backend: str = "torch") -> tuple[LevelAgent, int, str]:
    """The agent whose noise-free search ranks the plays, the ply and a label.

    level : level name (default ``expert``); ply : 0..3 overrides the level's ply;
    checkpoint : a network path replacing the level's network; backend : how networks are
    evaluated (``"auto"``: in numpy, importing no torch, while torch is not imported and
    the network has its ``.npz`` twin; :func:`bgrl.evaluation.networks.open_network`).
    Raises ValueError for an unknown level or a ply outside 0..3.
    """
    name = check_level(level)
    if ply is not None and not 0 <= int(ply) <= MAX_PLY:
        raise ValueError(f"--ply must be 0..{MAX_PLY}, got {ply}")
    if checkpoint is None:
        agent = load_level(name, backend=backend)
    else:  # only the level's definition is needed: its network is replaced
        from bgrl.agents.levels import LEVELS

        agent = LevelAgent(LEVELS[name], None)
    label = f"level {name}"
    if checkpoint is not None:
        from bgrl.evaluation.networks import open_network

        loaded = open_network(checkpoint, backend=backend)
        agent = LevelAgent(agent.level, loaded.evaluator, meta=loaded.meta)
        label += f" with network {loaded.path.name}"
    use_ply = agent.level.ply if ply is None else int(ply)
    return agent, use_ply, label


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
    print("Levels (bgrl.load_agent(name), bgrl match/play --level, bgrl hint --level); measured figures from")
    runs = measured.get("runs") or [measured.get("command", "python scripts/tools/ladder.py")]
    print(f"checkpoints/levels.json ({measured.get('date', 'not measured yet')}; each match's command is stored there), written by:")
    for r in runs:
        print(f"  {r}")
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
    return 0


def add_parser(sub) -> None:
    lv = sub.add_parser("levels", help="the named levels: definition and measured strength")
    lv.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    lv.set_defaults(func=cmd_levels)

