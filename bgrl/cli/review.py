"""``bgrl review FILE [--level L] [--json]``: the command's logic (registered in :mod:`bgrl.cli`).

FILE is a bgrl game record (``bgrl-game-1`` JSON lines, :mod:`bgrl.records.record`) or a
Jellyfish ``.mat`` / ``.gam`` file as GNU Backgammon exports it (:mod:`bgrl.records.matfile`),
recognised by its content. Every game in the file is reviewed (``--game N`` picks one).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["load_games", "ranker_for_level", "cmd_review", "add_review_parser"]


def load_games(path, with_cube: bool = False):
    """Read a game file: returns (records, notes per record, kind 'bgrl-game-1' or 'mat'),
    and with ``with_cube`` a fourth item: per record the cube information for
    :func:`bgrl.records.review.review_cube` (None for a bgrl game record, which holds no
    cube actions).

    Raises
    ------
    bgrl.records.record.RecordError (a ValueError)
        for a missing or unreadable file, a file of neither format, or a corrupt record.
    """
    from bgrl.records.matfile import looks_like_mat, parse_mat
    from bgrl.records.record import FORMAT, RecordError, read_record

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise RecordError(f"cannot read game file {p}: {exc.strerror or exc}") from None
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("{"):
        out = [read_record(p)], [[]], FORMAT
        return (*out, [None]) if with_cube else out
    if looks_like_mat(text):
        games = parse_mat(text, str(p))
        out = [g.record for g in games], [g.notes for g in games], "mat"
        cube = [{"record": g.record, "actions": g.cube_actions, "match_length": g.match_length, "score": g.score,
                 "crawford": g.crawford} for g in games]
        return (*out, cube) if with_cube else out
    raise RecordError(f"{p}: not a game file; expected a bgrl game record (JSON lines, format {FORMAT}) "
                      "or a Jellyfish .mat export (' 0 point match', 'Game 1', ...)")


def ranker_for_level(level: str | None):
    """The ranker for ``--level``: a level name (:data:`bgrl.agents.levels.LEVELS`; default
    ``expert``), ranked by that level's noise-free search at its ply and move filters, or
    ``default`` (the shipped network) / a checkpoint path (a .pt file or a run folder),
    ranked at 0-ply. Returns (:class:`bgrl.agents.hints.HintRanker`, level label).

    Raises ValueError for an unknown level and CheckpointError for a bad checkpoint.
    """
    from bgrl.agents.hints import HintRanker
    from bgrl.agents.levels import DEFAULT_HINT_LEVEL, LEVEL_NAMES, LEVELS, load_level

    spec = DEFAULT_HINT_LEVEL if level is None else str(level)
    expected = f"expected a level ({', '.join(LEVEL_NAMES)}), 'default' or a checkpoint path (.pt file or run folder)"
    if not spec.strip():
        raise ValueError(f"--level is empty: {expected}")
    if spec in LEVELS:
        return HintRanker.from_agent(load_level(spec)), spec
    from bgrl._resources import resolve_checkpoint
    from bgrl.evaluation.networks import open_network

    path = resolve_checkpoint(spec)
    if spec != "default" and path.suffix != ".pt" and not path.exists():
        raise ValueError(f"unknown level {spec!r}: {expected}")
    return HintRanker(open_network(path).evaluator, 0, name=f"{path.name}, 0-ply"), spec


def cmd_review(args) -> int:
    from bgrl.records.review import format_review, review_json, review_records

    if args.top < 1:
        raise ValueError(f"--top must be >= 1, got {args.top}")
    records, notes, kind, cube_info = load_games(args.file, with_cube=True)
    total = len(records)
    if args.game is not None:
        if not 1 <= args.game <= len(records):
            raise ValueError(f"--game {args.game}: {args.file} holds {len(records)} game(s)")
        records, notes, cube_info = [records[args.game - 1]], [notes[args.game - 1]], [cube_info[args.game - 1]]
        first = args.game
    else:
        first = 1
    ranker, level = ranker_for_level(args.level)
    reviews = review_records(records, ranker, notes)
    for i, rv in enumerate(reviews):
        rv.game = first + i
    if not args.no_cube and any(c is not None for c in cube_info):
        for c in cube_info:
            if c is not None:
                c["jacoby"] = bool(args.jacoby)
        _review_cube(reviews, cube_info, ranker)
    if args.json:
        text = json.dumps(review_json(reviews, source=str(args.file), level=level, top=args.top))
    else:
        what = "bgrl game record" if kind != "mat" else ".mat file"
        if args.game is not None:  # one game picked out of the file: say which, of how many
            count = f"game {args.game} of {total}"
        else:
            count = f"{total} game{'s' if total != 1 else ''}"
        title = f"Review of {args.file} ({what}, {count})"
        text = format_review(reviews, top=args.top, title=title)
    print(text)  # built whole first: an error never leaves half a report
    return 0


def _review_cube(reviews, cube_info, ranker) -> None:
    """Judge the cube decisions of the games that carry cube information (.mat files) with
    the ranker's evaluator at its ply (:func:`bgrl.agents.cube.cube_hints_many`)."""
    from bgrl.agents.cube import cube_hints_many
    from bgrl.records.review import attach_cube, review_cube

    idx = [i for i, c in enumerate(cube_info) if c is not None]
    names = [{"white": reviews[i].white, "black": reviews[i].black} for i in idx]

    def judge(positions, cubes):
        return cube_hints_many(ranker.evaluator, positions, cubes, ranker.ply)

    lists = review_cube([cube_info[i] for i in idx], judge, names)
    attach_cube([reviews[i] for i in idx], lists, f"{ranker.name}, cube at {ranker.ply}-ply")


def add_review_parser(sub) -> None:
    """Register ``review`` on the CLI's subparsers."""
    r = sub.add_parser("review", help="judge every play of a game record or .mat file: losses, error rates, ratings")
    r.add_argument("file", help="a bgrl game record (.jsonl, from play or match --save-games) or a GNU Backgammon .mat export")
    r.add_argument("--level", default=None,
                   help="ranking engine: a level name (default expert: its noise-free search), or 'default' "
                        "(the shipped network) / a checkpoint path at 0-ply")
    r.add_argument("--game", type=int, default=None, help="review only game N of a file with several (1-based)")
    r.add_argument("--top", type=int, default=3, help="alternatives listed per turn besides the play made (default 3)")
    r.add_argument("--json", action="store_true", help="print one JSON object (format bgrl-review-1)")
    r.add_argument("--no-cube", action="store_true",
                   help="do not judge the cube decisions of a .mat file (e.g. a session played without the cube)")
    r.add_argument("--jacoby", action="store_true",
                   help="judge the cube of money games with the Jacoby rule (gammons count only after a double); "
                        "a .mat file does not say, and GNU Backgammon's money sessions use it by default")
    r.set_defaults(func=cmd_review)
