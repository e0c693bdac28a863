"""``bgrl match A B``: a session of N paired-dice money games between two agents."""

from __future__ import annotations

import json

from bgrl.cli._common import CLIError, HelpFormatter, show_progress

__all__ = ["add_parser", "cmd_match"]


def cmd_match(args) -> int:
    from tqdm import tqdm

    from bgrl.agents.registry import load_agent
    from bgrl.arena.duel import play_match

    if args.games < 1:
        raise CLIError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    a, b = load_agent(args.a), load_agent(args.b)
    recorder = None
    if args.save_games is not None:  # game records: bgrl.records.match_records
        from bgrl.records.match_records import MatchRecorder, prepare_games_dir

        recorder = MatchRecorder(prepare_games_dir(args.save_games), args.games, (str(args.a), str(args.b)), args.seed)
    bar = tqdm(total=args.games, unit="game", disable=not show_progress(args.json))
    res = play_match(a, b, args.games, seed=args.seed, progress=bar.update, names=(str(args.a), str(args.b)), recorder=recorder)
    bar.close()
    if args.json:
        d = res.as_dict()
        d["ci95"] = None if d["ci95"] != d["ci95"] else d["ci95"]  # NaN (one game) is not JSON
        if recorder is not None:
            d["games_dir"] = str(args.save_games)
        print(json.dumps(d))
    else:
        print(res.summary())
        if recorder is not None:
            print(f"  {len(recorder.written)} game records written to {args.save_games}/ (bgrl review FILE reviews one)")
    return 0


def add_parser(sub) -> None:
    ma = sub.add_parser("match", help="play N money games between two agents (paired dice)", formatter_class=HelpFormatter)
    ma.add_argument("a", help="agent A: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("b", help="agent B: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("--games", type=int, default=1000, help="games to play, >= 1; an odd count plays one unpaired "
                    "game (default: %(default)s)")
    ma.add_argument("--seed", type=int, default=0, help="seed of the dice, >= 0 (default: %(default)s)")
    ma.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    ma.add_argument("--save-games", metavar="DIR", help="write one bgrl-game-1 record per game to DIR/game-NNNN.jsonl (default: none)")
    ma.set_defaults(func=cmd_match)

