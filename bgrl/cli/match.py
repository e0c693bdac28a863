"""``bgrl match A B``: a session of N paired-dice money games between two agents; with
``--cube``, cubeful money games or N-point matches (``--match N``, bgrl.arena.cubeful)."""

from __future__ import annotations

import json

from bgrl.cli._common import CLIError, HelpFormatter, agent_code, cube_rules, show_progress
from bgrl.agents.registry import load_agent
from bgrl.arena.cubeful import play_cubeful
from bgrl.records.match_records import MatchRecorder, prepare_games_dir

__all__ = ["add_parser", "cmd_match", "MAX_MATCH_GAMES"]

#: The most games (or matches, with ``--match``) one ``bgrl match`` plays: all of them advance
#: in lockstep, in memory (about 25 KB a game), so 100,000 games need a few GB. For more,
#: run several matches with different ``--seed`` values.
MAX_MATCH_GAMES = 100_000


def cmd_match(args) -> int:
    if args.games < 1:
        raise CLIError(f"--games must be >= 1, got {args.games}")
    if args.games > MAX_MATCH_GAMES:
        raise CLIError(f"--games must be at most {MAX_MATCH_GAMES:,} (all games are played at once, in memory); got "
                       f"{args.games:,}: run several matches with different --seed values instead")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    with agent_code((args.a, args.b)):  # an agent calling sys.exit is an error, not exit 0
        return _cmd_match(args)


def _cmd_match(args) -> int:
    from bgrl.arena.duel import play_match

    from tqdm import tqdm

    rules = cube_rules(args)
    a, b = load_agent(args.a), load_agent(args.b)
    if rules is not None:
        return _cmd_match_cubeful(args, a, b, rules)
    recorder = None
    if args.save_games is not None:  # game records: bgrl.records.match_records

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



def _cmd_match_cubeful(args, a, b, rules) -> int:
    """``bgrl match A B --cube``: cubeful money games or N-point matches (bgrl.arena.cubeful)."""
    from tqdm import tqdm

    if args.save_games is not None:
        raise CLIError("--save-games does not go with --cube yet (game records hold no cube actions)")
    bar = tqdm(total=args.games, unit="match" if rules.is_match else "game", disable=not show_progress(args.json))
    res = play_cubeful(a, b, args.games, rules, seed=args.seed, progress=bar.update, names=(str(args.a), str(args.b)))
    bar.close()
    if args.json:
        d = res.as_dict()
        d["ci95"] = None if d["ci95"] != d["ci95"] else d["ci95"]
        print(json.dumps(d))
    else:
        print(res.summary())
    return 0


def add_parser(sub) -> None:
    ma = sub.add_parser("match", help="play N money games between two agents (paired dice)", formatter_class=HelpFormatter)
    ma.add_argument("a", help="agent A: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("b", help="agent B: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("--games", type=int, default=1000, help=f"games to play, 1..{MAX_MATCH_GAMES:,}; an odd count plays "
                    "one unpaired game (default: %(default)s)")
    ma.add_argument("--seed", type=int, default=0, help="seed of the dice, >= 0 (default: %(default)s)")
    ma.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    ma.add_argument("--save-games", metavar="DIR", help="write one bgrl-game-1 record per game to DIR/game-NNNN.jsonl (default: none)")
    ma.add_argument("--cube", action="store_true", help="play with the doubling cube: money games, or N-point "
                    "matches with --match (default: off, cubeless money games)")
    ma.add_argument("--match", type=int, metavar="N", default=None, help="with --cube: N-point matches (Crawford rule); "
                    "--games then counts matches (default: money games)")
    ma.add_argument("--jacoby", action="store_true", help="with --cube, money: the Jacoby rule (gammons count single "
                    "until the cube is turned) (default: off)")
    ma.add_argument("--beavers", action="store_true", help="with --cube, money: beavers allowed (default: off)")
    ma.add_argument("--cube-cap", type=int, metavar="V", default=None, help="with --cube: the largest cube value, a "
                    "power of 2 (default: 32768)")
    ma.set_defaults(func=cmd_match)

