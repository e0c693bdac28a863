"""``bgrl rate AGENT``: place an agent on the ladder of levels (bgrl.arena.rating)."""

from __future__ import annotations

import json

from bgrl.cli._common import CLIError, HelpFormatter, agent_code, show_progress
from bgrl.agents.registry import load_agent

__all__ = ["add_parser", "cmd_rate"]


def cmd_rate(args) -> int:
    """Rate one agent: benchmark error rate, then adaptive matches against the levels.

    Bad input (an unknown or unimportable AGENT spec, --max-games < 2, a negative seed, an
    agent that returns an illegal play, a batched ``select`` answer outside a game's own
    after-states: :mod:`bgrl.arena.checks`) raises CLIError / ValueError: one line, exit status 2.
    """
    from bgrl.arena.rating import rate

    from tqdm import tqdm

    if args.max_games < 2:
        raise CLIError(f"--max-games must be >= 2, got {args.max_games}")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch is a core dependency
        pass
    with agent_code((args.agent,)):  # an agent calling sys.exit is an error, not exit 0
        agent = load_agent(args.agent)
        bar = tqdm(total=args.max_games, unit="game", desc="rating", disable=not show_progress(args.json))
        try:
            r = rate(agent, name=str(args.agent), max_games=args.max_games, seed=args.seed, progress=bar.update,
                     start=args.start)
        finally:
            bar.close()
    if args.json:
        print(json.dumps(r.as_dict()))
    else:
        print(r.summary())
    return 0


def add_parser(sub) -> None:
    ra = sub.add_parser("rate", help="place an agent on the ladder of levels (benchmark error rate and adaptive matches)",
                        formatter_class=HelpFormatter,
                        description="Rate AGENT: its error rate on the shipped benchmark, then paired-dice matches against "
                        "the levels (beginner .. world-class), stopping once the 95% intervals place it between two "
                        "adjacent levels or --max-games is reached; then it names no place (\"not placed at 95%\", "
                        "with the bounds the intervals did settle and the point estimates' guess; --json adds "
                        "\"settled\": false and \"estimate\").")
    ra.add_argument("agent", metavar="AGENT", help="a checkpoint file, a run folder, a level or shipped network name, "
                    "random, pubeval, gnubg[:N], or module:object (your agent: choose_play(position, dice, rng) or a callable; "
                    "module is a dotted name importable from here or a .py file)")
    ra.add_argument("--max-games", type=int, default=4000, help="cap on games against all levels together, >= 2")
    ra.add_argument("--seed", type=int, default=0, help="seed of the dice, >= 0")
    ra.add_argument("--start", default=None, help="the level to play first (default: the nearest by error rate)")
    ra.add_argument("--json", action="store_true", help='print one JSON object {"agent", "error_rate", "between", "matches"} '
                    '(and "settled": false, "estimate" when the intervals did not settle a place)')
    ra.set_defaults(func=cmd_rate)
