"""``bgrl moves POSITION [DICE]``: every legal play of a position and roll."""

from __future__ import annotations

import json

from bgrl.cli._common import DICE_HELP, NOTATION_HELP, POS_HELP, HelpFormatter, batch_lines, check_position_or_batch, position_and_dice
from bgrl.rules.notation import legal_plays

__all__ = ["add_parser", "cmd_moves", "moves_obj"]


def moves_obj(pos, dice) -> dict:
    plays = legal_plays(pos, dice)
    return {
        "position_id": pos.position_id,
        "dice": [int(dice[0]), int(dice[1])],
        "plays": [{"play": p.notation, "position_id": p.position_id} for p in plays],
    }


def cmd_moves(args) -> int:
    check_position_or_batch(args)
    if args.batch is not None:
        return batch_lines(args.batch, moves_obj)
    pos, dice = position_and_dice(args.position, args.dice)
    if args.json:
        print(json.dumps(moves_obj(pos, dice)))
        return 0
    plays = legal_plays(pos, dice)
    print(f"Position {pos.position_id}, roll {dice[0]}-{dice[1]}: {len(plays)} legal play(s)")
    if not plays:
        print("  no die can be played: the turn passes")
    names = [p.shown(args.notation == "compact") for p in plays]
    width = max((len(n) for n in names), default=0)
    for i, (p, name) in enumerate(zip(plays, names), start=1):
        print(f"  {i:3d}. {name:<{width}}  {p.position_id}")
    return 0


def add_parser(sub) -> None:
    m = sub.add_parser("moves", help="list every legal play of a position and roll", formatter_class=HelpFormatter,
                       description="List every legal play of a position and roll, in the generator's canonical order.")
    m.add_argument("position", nargs="?", help=POS_HELP)
    m.add_argument("dice", nargs="*", help=DICE_HELP)
    m.add_argument("--batch", metavar="FILE", help="read lines 'POSITION [DICE]' from FILE ('-' = stdin) and print "
                   "one JSON object per line (default: off)")
    m.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    m.add_argument("--notation", choices=["compact", "dice"], default="compact", help=NOTATION_HELP)
    m.set_defaults(func=cmd_moves)

