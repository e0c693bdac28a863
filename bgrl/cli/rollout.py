"""``bgrl rollout POSITION [DICE]``: cubeless money rollouts played by a level's checker play.

The engine is :mod:`bgrl.agents.rollout`; this module reads the text, checks the flags and
prints the text or JSON.
"""

from __future__ import annotations

import json

from bgrl.cli._common import POS_HELP, CLIError, HelpFormatter, check_rollout_flags, position_and_dice
from bgrl.agents.levels import LEVELS, LEVEL_NAMES, load_level
from bgrl.evaluation.probabilities import Probabilities
from bgrl.rules.outcome import check_not_over
from bgrl.rules.xgid import read_position
from bgrl.cli._table import ROLLOUT_FOOT, print_play_rollout, value_line

__all__ = ["add_parser", "cmd_rollout", "DEFAULT_ROLLOUT_LEVEL"]

#: The level whose checker play rolls out when none is named: ``expert``, a 0-ply network, the
#: fastest strong play (the hint default, ``world-class``, searches at 1-ply, about 20 times
#: slower per trial).
DEFAULT_ROLLOUT_LEVEL = "expert"


def _header(pos, level: str, res) -> dict:
    return {"position_id": pos.position_id, "level": level, "trials": res.trials, "truncate": res.truncate,
            "seed": res.seed}


def cmd_rollout(args) -> int:
    from bgrl.agents.rollout import Roller

    level = DEFAULT_ROLLOUT_LEVEL if args.level is None else args.level
    if level not in LEVELS:
        raise CLIError(f"unknown level {level!r}: expected one of {', '.join(LEVEL_NAMES)}")
    check_rollout_flags(args.trials, args.truncate, args.seed)
    pos, dice = _read(args)
    check_not_over(pos)
    roller = Roller.from_agent(load_level(level))
    opts = dict(trials=args.trials, seed=args.seed, truncate=args.truncate, variance_reduction=not args.no_variance_reduction)
    if dice is None:
        res = roller.position(pos, **opts)
        obj = {**_header(pos, level, res), **res.as_dict(0)}
        if args.json:
            print(json.dumps(obj))
            return 0
        p, p_se = Probabilities.from_array(res.probs[0]), Probabilities.from_array(res.probs_se[0])
        print(f"Rollout of {pos.position_id}, the side on roll to roll: level {level} ({roller.ply}-ply, no noise), "
              f"{_how(res)}")
        print("  " + value_line(float(res.equity[0]), float(res.equity_se[0]), p, p_se))
        print(ROLLOUT_FOOT)
        return 0
    return print_play_rollout(pos, dice, level, roller, opts, args.json)


def _how(res) -> str:
    trunc = "played to the end" if res.truncate is None else f"truncated after {res.truncate} plies"
    return f"{res.trials} trials {trunc}, seed {res.seed}"


def _read(args):
    """(Position, roll or None): DICE when given, else an XGID's dice, else None (roll out the position)."""
    if args.dice:
        return position_and_dice(args.position, args.dice)
    return read_position(args.position)


def add_parser(sub) -> None:
    r = sub.add_parser("rollout", help="roll out a position, or the candidate plays of a roll", formatter_class=HelpFormatter,
                       description="Cubeless money rollout in GNU Backgammon's manner: every trial played by a level's "
                       "noise-free checker play, quasi-random dice (the first two rolls stratified over 36 x 36), "
                       "variance reduction by the evaluator's luck estimate, optional truncation, exact values where "
                       "the bear-off database knows them. Without DICE the position is rolled out with the side on "
                       "roll to roll; with DICE every candidate play of that roll (the best by 0-ply equity, at most 8 "
                       "within 0.16) is rolled out, best first. The same seed gives the same numbers.")
    r.add_argument("position", help=POS_HELP)
    r.add_argument("dice", nargs="*", help="the roll whose plays are rolled out: 53, 5-3 or 5 3 (default: an XGID's "
                   "dice; none: the position is rolled out before rolling)")
    r.add_argument("--level", default=None, help=f"the level whose checker play plays every trial, without noise "
                   f"(default: {DEFAULT_ROLLOUT_LEVEL}; see bgrl levels)")
    r.add_argument("--trials", type=int, default=1296, help="trials per rolled-out position (default: %(default)s)")
    r.add_argument("--truncate", type=int, default=None, metavar="P", help="stop each trial after P plies and take "
                   "the level's evaluation there (default: play to the end)")
    r.add_argument("--seed", type=int, default=0, help="seed of the dice, >= 0 (default: %(default)s)")
    r.add_argument("--no-variance-reduction", action="store_true", help="do not subtract the luck of each roll "
                   "(faster per trial, larger standard errors; default: off)")
    r.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    r.set_defaults(func=cmd_rollout)
