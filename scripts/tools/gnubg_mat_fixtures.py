"""Regenerate the GNU Backgammon .mat fixtures of tests/data/ (needs the gnubg program).

GNU Backgammon (Debian package ``gnubg``, 1.07) plays money sessions against itself at
0-ply in text mode and exports each session twice: as a Jellyfish ``.mat`` file (what
``bgrl review`` reads) and as plain text, whose per-move Position IDs are the reference
the tests replay against. The IDs are written to ``gnubg_mat_positions.json``:
``{file: [[game, [[player, dice, position_id], ...]], ...]}``, one entry per checker play
("to play DD" lines; cube decisions are not checker plays).

Usage: python scripts/tools/gnubg_mat_fixtures.py [--gnubg /usr/games/gnubg] [--out tests/data]

``--check FILE.mat ...`` instead imports each file into GNU Backgammon (``import mat``) and
reports whether its positions, turn by turn, are those bgrl reads from the file (used for
``tests/data/handwritten.mat`` and files written by ``bgrl.records.matfile.write_mat``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

SESSIONS = {
    # name: (seed, cube used, games)
    "gnubg_money_1game": (7, True, 1),
    "gnubg_money_nocube": (11, False, 3),
    "gnubg_money_cube": (5, True, 5),
}


def commands(seed: int, cube: bool, games: int, mat: Path, txt: Path) -> str:
    lines = [f"set seed {seed}"]
    for p in (0, 1):
        lines += [f"set player {p} gnubg", f"set player {p} chequerplay evaluation plies 0",
                  f"set player {p} cubedecision evaluation plies 0"]
    lines += ["set player 0 name alice", "set player 1 name bob"]
    if not cube:
        lines.append("set cube use off")
    lines += ["set automatic game off", "new session"] + ["new game"] * (games - 1)
    lines += [f"export match mat {mat}", f"export match text {txt}", "quit", "y"]
    return "\n".join(lines) + "\n"


MOVE_RE = re.compile(r"^Move number \d+:\s+(.+?) to play ([1-6][1-6])\s*$")
PID_RE = re.compile(r"Position ID: (\S+)")


def positions(txt: Path) -> list[list[str]]:
    out, pending = [], None
    for line in txt.read_text().splitlines():
        m = MOVE_RE.match(line)
        if m:
            pending = [m.group(1), m.group(2)]
            continue
        m = PID_RE.search(line)
        if m and pending is not None:
            out.append(pending + [m.group(1)])
            pending = None
    return out


def check(gnubg: str, files: list[str]) -> int:
    """Import each .mat into gnubg and compare its positions with bgrl's reading."""
    from bgrl.records.matfile import read_mat

    bad = 0
    for name in files:
        games = read_mat(name)
        with tempfile.TemporaryDirectory() as tmp:
            txt = Path(tmp) / "x.txt"
            cmds = f"import mat {Path(name).resolve()}\nexport match text {txt}\nquit\ny\n"
            subprocess.run([gnubg, "-t", "-q"], input=cmds, text=True, check=True, capture_output=True, timeout=600)
            files_out = [txt] + [Path(tmp) / f"x_{k:03d}.txt" for k in range(2, len(games) + 1)]
            for g, f in zip(games, files_out):
                theirs = [pid for _, _, pid in positions(f)]
                ours = [t.position_id for t in g.record.turns]
                ok = ours == theirs
                bad += not ok
                print(f"{name} game {g.number}: {len(ours)} turns, gnubg {len(theirs)}: {'same positions' if ok else 'DIFFERENT'}")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gnubg", default="/usr/games/gnubg")
    ap.add_argument("--out", default="tests/data")
    ap.add_argument("--check", nargs="+", metavar="FILE.mat", help="compare gnubg's import of these files with bgrl's")
    args = ap.parse_args()
    if args.check:
        raise SystemExit(check(args.gnubg, args.check))
    out = Path(args.out)
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (seed, cube, games) in SESSIONS.items():
            mat, txt = out / f"{name}.mat", Path(tmp) / f"{name}.txt"
            subprocess.run([args.gnubg, "-t", "-q"], input=commands(seed, cube, games, mat, txt),
                           text=True, check=True, capture_output=True, timeout=600)
            # the text export writes game k (k >= 2) to NAME_00k.txt
            files = [txt] + [Path(tmp) / f"{name}_{k:03d}.txt" for k in range(2, games + 1)]
            table[mat.name] = [[k + 1, positions(f)] for k, f in enumerate(files)]
            # the date comment changes every day: drop it so the fixture is stable
            mat.write_text("".join(x for x in mat.read_text().splitlines(keepends=True) if not x.startswith("; [EventDate")))
    (out / "gnubg_mat_positions.json").write_text(json.dumps(table) + "\n")
    print(f"wrote {len(table)} .mat files and their positions to {out}")


if __name__ == "__main__":
    main()
