"""The level ladder: which matches measure the named levels, playing them, their error rates,
and the figures file ``checkpoints/levels.json`` that ``bgrl levels`` shows
(:func:`bgrl.agents.levels.measured_levels` reads it; this module writes it).

``python scripts/tools/ladder.py`` is the command line over this module.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from bgrl._fileio import write_text_atomic
from bgrl._resources import shipped_checkpoint
from bgrl.agents.levels import LEVEL_NAMES, LEVELS, measured_levels
from bgrl.agents.registry import load_agent
from bgrl.arena.duel import play_match

__all__ = ["DEFAULT_GAMES", "plan", "run_match", "error_rates", "save"]

# games per match, by the cost of the more expensive side
DEFAULT_GAMES = {"0-ply": 10000, "1-ply": 5000, "2-ply": 2000, "gnubg": 1000}


def _cost(name: str) -> str:
    lv = LEVELS.get(name)
    return f"{lv.ply}-ply" if lv is not None else "0-ply"


def plan(args) -> list[dict]:
    """The ladder's matches, as dicts with key, a, b, level, kind, games and seed.

    ``args`` has ``games_0_ply``, ``games_1_ply``, ``games_2_ply``, ``games_gnubg`` (games per
    match by the costlier side), ``scale``, ``seed``, ``gnubg`` (bool: the top level against
    gnubg 0-ply) and ``only`` (None or substrings of the keys to keep).
    """
    def games(*names, kind=None):
        g = getattr(args, "games_" + (kind or max((_cost(n) for n in names), key=lambda c: int(c[0]))).replace("-", "_"))
        return max(2, int(round(g * args.scale / 2)) * 2)

    out = [{"key": "beginner/random", "a": "beginner", "b": "random", "level": "beginner", "kind": "vs_lower"}]
    for i, name in enumerate(LEVEL_NAMES):
        out.append({"key": f"{name}/pubeval", "a": name, "b": "pubeval", "level": name, "kind": "vs_pubeval"})
        if i > 0:
            out.append({"key": f"{name}/{LEVEL_NAMES[i - 1]}", "a": name, "b": LEVEL_NAMES[i - 1], "level": name, "kind": "vs_lower"})
    if args.gnubg:
        top = LEVEL_NAMES[-1]
        out.append({"key": f"{top}/gnubg", "a": top, "b": "gnubg", "level": top, "kind": "vs_gnubg", "cost": "gnubg"})
    for m in out:
        m["games"] = games(m["a"], m["b"], kind=m.get("cost"))
        m["seed"] = args.seed
    if args.only:
        out = [m for m in out if any(s in m["key"] for s in args.only)]
    return out


def run_match(m: dict) -> dict:
    """Play one match of :func:`plan` (one torch thread) and return its result dict with its command."""
    import torch

    torch.set_num_threads(1)

    t0 = time.process_time()
    r = play_match(load_agent(m["a"]), load_agent(m["b"]), m["games"], seed=m["seed"], names=(m["a"], m["b"]))
    d = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.as_dict().items()}
    d["cpu_seconds"] = round(time.process_time() - t0, 1)
    d["command"] = f"bgrl match {m['a']} {m['b']} --games {m['games']} --seed {m['seed']}"
    print(f"{m['key']:<28} {d['ppg']:+.3f} ± {d['ci95']:.3f}  ({d['games']} games, {d['cpu_seconds']:.0f} s cpu)", flush=True)
    return d


def error_rates(names, path=None) -> dict:
    """Each level's error rate on the shipped benchmark, or {} when it is not available."""
    try:
        from bgrl.arena.benchmark import error_rate, load_benchmark
    except ImportError:
        print("error rates: bgrl.arena.benchmark is not available; skipped", file=sys.stderr)
        return {}
    try:
        bench = load_benchmark(path)
    except (OSError, ValueError) as exc:
        print(f"error rates: no benchmark data ({exc}); skipped", file=sys.stderr)
        return {}

    out = {}
    for name in names:
        r = error_rate(load_agent(name), bench)
        out[name] = r
        print(f"error rate {name:<14} {r.get('all', r)}", flush=True)
    return out




def save(out: Path, done: list[tuple[dict, dict]], rates: dict | None, command: str, started: float) -> None:
    """Merge what is measured so far into the figures file ``out`` (``checkpoints/levels.json``,
    read by :func:`bgrl.agents.levels.measured_levels`), written atomically.

    done : (match of :func:`plan`, its result) pairs; rates : :func:`error_rates`' output or
    None; command : the command line that measured them; started : its ``time.time()``.
    """
    nets = sorted({LEVELS[n].network for n in LEVEL_NAMES})
    old = measured_levels(out) if out.exists() else {}
    levels = {n: dict(old.get("levels", {}).get(n, {})) for n in LEVEL_NAMES}
    for m, r in done:
        levels[m["level"]][m["kind"]] = r
        if m["kind"] == "vs_lower":
            levels[m["level"]]["lower"] = m["b"]
    for name, r in (rates or {}).items():
        levels[name]["error_rate"] = round(float(r["all"]), 2) if isinstance(r, dict) and "all" in r else r
        if isinstance(r, dict):
            levels[name]["error_rate_detail"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}
    for name in LEVEL_NAMES:
        levels[name]["definition"] = LEVELS[name].as_dict()
    write_text_atomic(out, json.dumps({
        "format": "bgrl-levels-1",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "command": command,
        "runs": [r for r in old.get("runs", []) if r != command] + [command],
        "machine": f"{platform.machine()}, python {platform.python_version()}, torch 1 thread per process",
        "networks": {n: hashlib.sha256(shipped_checkpoint(n).read_bytes()).hexdigest()[:16] for n in nets},
        "wall_seconds": round(time.time() - started, 1),
        "levels": levels,
    }, indent=2) + "\n")

