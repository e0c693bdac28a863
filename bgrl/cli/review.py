"""``bgrl review FILE... [--level L] [--errors-only] [--json]``: the command's logic (registered in :mod:`bgrl.cli`).

Each FILE (or each game file in a folder) is a bgrl game record (``bgrl-game-1`` JSON lines, :mod:`bgrl.records.record`) or a
Jellyfish ``.mat`` / ``.gam`` file as GNU Backgammon exports it (:mod:`bgrl.records.matfile`),
recognised by its content. Every game in the file is reviewed (``--game N`` picks one).
Several files, or a folder, end with a summary over the whole match: each player's error
rate and rating over all the games (:func:`bgrl.records.review.by_player`).
"""

from __future__ import annotations

import json
from pathlib import Path

from bgrl.agents.levels import JUDGE_LEVEL
from bgrl.agents.registry import load_ranker
from bgrl.cli._common import show_progress
from bgrl.records.cube_review import judge_cube
from bgrl.records.review import review_records
from bgrl.records.review_report import format_review, match_summary_lines, review_json

__all__ = ["load_games", "game_files", "cmd_review", "add_review_parser"]


def load_games(path, with_cube: bool = False):
    """Read a game file: returns (records, notes per record, kind 'bgrl-game-1' or 'mat')
    (:func:`bgrl.records.files.read_games`), and with ``with_cube`` a fourth item: per record
    the cube information for :func:`bgrl.records.cube_review.review_cube` (None for a bgrl game
    record, which holds no cube actions).

    Raises
    ------
    bgrl.records.record.RecordError (a ValueError)
        for a missing or unreadable file, a file of neither format, or a corrupt record.
    """
    from bgrl.records.files import read_games

    return read_games(path, with_cube=with_cube)


def game_files(paths) -> list[Path]:
    """The game files named by ``bgrl review``'s arguments: each file as given, and for a
    folder the files in it (not its subfolders) that are game files, sorted by name.

    Raises ValueError for a folder without game files."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = [f for f in sorted(p.iterdir()) if f.is_file() and _is_game_file(f)]
            if not found:
                raise ValueError(f"{p}: no game file in this folder; expected bgrl game records (.jsonl) or .mat exports")
            out += found
        else:  # a missing or unreadable file is reported by load_games
            out.append(p)
    return out


def _is_game_file(path: Path) -> bool:
    """Whether a file in a folder given to ``bgrl review`` is a game file (read by content)."""
    from bgrl.records.matfile import looks_like_mat

    try:
        with path.open(encoding="utf-8-sig", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    return (first.startswith("{") and '"bgrl-game' in first) or looks_like_mat(head)


def cmd_review(args) -> int:
    if args.top < 1:
        raise ValueError(f"--top must be >= 1, got {args.top}")
    files = game_files(args.file)
    if args.game is not None and len(files) > 1:
        raise ValueError(f"--game {args.game} picks a game of one file; {len(files)} files were given")
    loaded = [(f, *load_games(f, with_cube=True)) for f in files]
    # --level: a level (default the judge, as in the game and the web board), ranked by its
    # noise-free search, or 'default' / a checkpoint path or run folder, ranked at 0-ply
    level = JUDGE_LEVEL if args.level is None else str(args.level)
    if not level.strip():
        raise ValueError("--level is empty: expected a level, 'default' or a checkpoint path (.pt file or run folder)")
    ranker = load_ranker(level)
    records, notes, sources, numbers, cube_info = [], [], [], [], []
    for f, recs, nts, kind, cubes in loaded:
        if args.game is not None:
            if not 1 <= args.game <= len(recs):
                raise ValueError(f"--game {args.game}: {f} holds {len(recs)} game(s)")
            recs, nts, cubes, first = [recs[args.game - 1]], [nts[args.game - 1]], [cubes[args.game - 1]], args.game
        else:
            first = 1
        records += recs
        notes += nts
        cube_info += cubes
        sources += [str(f)] * len(recs)
        numbers += list(range(first, first + len(recs)))
    from tqdm import tqdm

    # a bar only for a long run: tqdm's delay keeps it hidden for the first 2 seconds
    with tqdm(unit="decision", desc="reviewing", delay=2.0, leave=False, disable=not show_progress(args.json)) as bar:
        reviews = review_records(records, ranker, notes, progress=bar.update)
    for rv, src, n in zip(reviews, sources, numbers):
        rv.game, rv.source = n, (src if len(files) > 1 else None)
    if not args.no_cube and any(c is not None for c in cube_info):
        for c in cube_info:
            if c is not None:
                c["jacoby"] = bool(args.jacoby)
        _review_cube(reviews, cube_info, ranker)
    if args.json:
        obj = review_json(reviews, source=str(files[0]) if len(files) == 1 else None, level=level, top=args.top,
                          errors_only=args.errors_only, files=files if len(files) > 1 else None)
        text = json.dumps(obj)
    else:
        parts = []
        for f, recs, _, kind, _cubes in loaded:
            mine = [rv for rv, src in zip(reviews, sources) if src == str(f)]
            what = "bgrl game record" if kind != "mat" else ".mat file"
            total = len(recs)
            count = f"game {args.game} of {total}" if args.game is not None else f"{total} game{'s' if total != 1 else ''}"
            parts.append(format_review(mine, top=args.top, title=f"Review of {f} ({what}, {count})",
                                       errors_only=args.errors_only, viewer=_viewer(args.numbering, mine)))
        if len(files) > 1:
            parts.append("\n".join(match_summary_lines(reviews, len(files))))
        text = "\n\n".join(parts)
    print(text)  # built whole first: an error never leaves half a report
    return 0


def _review_cube(reviews, cube_info, ranker) -> None:
    """Judge the cube decisions of the games that carry cube information (.mat files) with
    the ranker's evaluator at its ply (:func:`bgrl.records.cube_review.judge_cube`)."""
    judge_cube(reviews, cube_info, ranker.evaluator, ranker.ply, f"{ranker.name}, cube at {ranker.ply}-ply",
               prune=getattr(ranker, "prune", None))


#: The names bgrl gives the player in its own records: ``bgrl play`` ("human") and the web board ("you").
PLAYER_NAMES = ("human", "you")


def _viewer(numbering: str, reviews) -> str | None:
    """Whose numbering the text review writes every play in: ``white`` or ``black`` as
    asked, None for each mover's own (``mover``), or for ``auto`` the colour of the player
    in a record of ``bgrl play`` or the web board (named "human" or "you") when every game
    has exactly one such side, so the computer's plays read as in the game."""
    if numbering in ("white", "black"):
        return numbering
    if numbering == "mover":
        return None
    sides = set()
    for rv in reviews:
        mine = [c for c, name in (("white", rv.white), ("black", rv.black)) if name in PLAYER_NAMES]
        if len(mine) != 1:
            return None
        sides.add(mine[0])
    return sides.pop() if len(sides) == 1 else None


def add_review_parser(sub) -> None:
    """Register ``review`` on the CLI's subparsers."""
    r = sub.add_parser("review", help="judge every play of game records or .mat files: losses, error rates, ratings")
    r.add_argument("file", nargs="+", help="bgrl game records (.jsonl, from play or match --save-games), GNU Backgammon "
                   ".mat exports, or folders of them; several give a summary over the whole match")
    r.add_argument("--level", default=None,
                   help="ranking engine: a level name (default world-class, the judge of the game and the web board: its "
                        "noise-free search), or 'default' "
                        "(the shipped network) / a checkpoint path at 0-ply")
    r.add_argument("--game", type=int, default=None, help="review only game N of a file with several (1-based)")
    r.add_argument("--top", type=int, default=3, help="alternatives listed per turn besides the play made (default 3)")
    r.add_argument("--errors-only", action="store_true", help="list only the marked plays (doubtful, bad, very bad); "
                   "the summaries still count every play (default: off)")
    r.add_argument("--numbering", choices=["auto", "mover", "white", "black"], default="auto",
                   help="whose numbering the text writes every play in: mover = each play in its mover's, auto = the "
                        "player's in a record of bgrl play or the web board (as in the game), else the mover's "
                        "(default: %(default)s; JSON always uses the mover's)")
    r.add_argument("--json", action="store_true", help="print one JSON object (format bgrl-review-1)")
    r.add_argument("--no-cube", action="store_true",
                   help="do not judge the cube decisions of a .mat file (e.g. a session played without the cube)")
    r.add_argument("--jacoby", action="store_true",
                   help="judge the cube of money games with the Jacoby rule (gammons count only after a double); "
                        "a .mat file does not say, and GNU Backgammon's money sessions use it by default")
    r.set_defaults(func=cmd_review)
