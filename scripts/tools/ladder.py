"""Measure the level ladder and write the figures file ``checkpoints/levels.json``.

    python scripts/tools/ladder.py                       # the full table (hours on one core)
    python scripts/tools/ladder.py --jobs 2              # the same, matches spread over 2 processes
    python scripts/tools/ladder.py --scale 0.2           # every game count x 0.2 (a quick look)

Plays, with paired dice and colours alternating (:func:`bgrl.arena.duel.play_match`, the code
behind ``bgrl match``):

* beginner against random;
* every level against pubeval;
* every level against the level below it;
* world-class against gnubg 0-ply, when the ``gnubg`` agent exists (``pip install -e
  ".[gnubg]"`` and the ``gnubg`` spec of :func:`bgrl.agents.registry.load_agent`);

and, when the error-rate benchmark is available (:mod:`bgrl.arena.benchmark` and its data file),
each level's error rate in millipoints per decision judged by gnubg 2-ply.

Every match is recorded with the ``bgrl match`` command that reproduces it. Game counts per
match (``--games-*``) default to what the README's table used; ``--scale`` multiplies them.
The file is written atomically, keeping the figures of matches not rerun (``--only``).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bgrl.arena.ladder import DEFAULT_GAMES, error_rates, plan, run_match, save

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "checkpoints" / "levels.json"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for kind, g in DEFAULT_GAMES.items():
        p.add_argument(f"--games-{kind}", type=int, default=g, help=f"games per match whose costlier side is {kind} (default {g})")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every game count (default 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="matches in parallel processes (default 1)")
    p.add_argument("--only", nargs="*", default=None, help="rerun only matches whose key contains one of these (e.g. expert/)")
    p.add_argument("--no-gnubg", dest="gnubg", action="store_false", help="skip world-class vs gnubg 0-ply")
    p.add_argument("--no-error-rates", dest="error_rates", action="store_false")
    p.add_argument("--benchmark", default=None, help="error-rate benchmark file (default: the shipped one)")
    p.add_argument("--out", type=Path, default=OUT, help=f"figures file (default {OUT.relative_to(ROOT)})")
    args = p.parse_args(argv)
    if args.scale <= 0 or args.jobs < 1:
        p.error("--scale must be > 0 and --jobs >= 1")
    if args.gnubg:
        try:
            from bgrl.agents.registry import load_agent

            load_agent("gnubg")
        except Exception as exc:  # the optional extra or the gnubg agent is missing
            print(f"world-class vs gnubg: skipped ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})", file=sys.stderr)
            args.gnubg = False
    from bgrl.agents.levels import LEVEL_NAMES, LEVELS

    matches = plan(args)
    t0 = time.time()
    cmd = "python scripts/tools/ladder.py " + " ".join(argv if argv is not None else sys.argv[1:])
    done: list[tuple[dict, dict]] = []
    if args.jobs == 1:
        for m in matches:
            done.append((m, run_match(m)))
            save(args.out, done, None, cmd, t0)
    else:
        from concurrent.futures import as_completed

        order = sorted(range(len(matches)), key=lambda i: -matches[i]["games"] * (1 + 20 * LEVELS[matches[i]["a"]].ply))
        with ProcessPoolExecutor(args.jobs) as ex:
            futs = {ex.submit(run_match, matches[i]): matches[i] for i in order}
            for f in as_completed(futs):
                done.append((futs[f], f.result()))
                save(args.out, done, None, cmd, t0)
    if args.error_rates:
        save(args.out, done, error_rates(LEVEL_NAMES, args.benchmark), cmd, t0)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
