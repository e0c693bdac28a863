"""``bgrl rollout POSITION [DICE]``: cubeless money rollouts played by a level's checker play.

The engine is :mod:`bgrl.agents.rollout`; this module reads the text, checks the flags and
prints the text or JSON.
"""

from __future__ import annotations

import json

from bgrl.cli._common import POS_HELP, CLIError, HelpFormatter, position_and_dice

__all__ = ["add_parser", "cmd_rollout", "DEFAULT_ROLLOUT_LEVEL", "print_play_rollout", "check_rollout_flags"]

#: The level whose checker play rolls out when none is named: ``expert``, a 0-ply network, the
#: fastest strong play (the hint default, ``world-class``, searches at 1-ply, about 20 times
#: slower per trial).
DEFAULT_ROLLOUT_LEVEL = "expert"


def _header(pos, level: str, res) -> dict:
    return {"position_id": pos.position_id, "level": level, "trials": res.trials, "truncate": res.truncate,
            "seed": res.seed}


def _se(x) -> str:
    return "n/a" if x is None or x != x else f"{x:.3f}"


def _value_line(eq, eq_se, p, p_se) -> str:
    return (f"equity {eq:+.3f} ± {_se(eq_se)}  win {p.win:.3f} ± {_se(p_se.win)}  "
            f"wg {p.win_gammon:.3f} ± {_se(p_se.win_gammon)}  wbg {p.win_backgammon:.3f} ± {_se(p_se.win_backgammon)}  "
            f"lg {p.lose_gammon:.3f} ± {_se(p_se.lose_gammon)}  lbg {p.lose_backgammon:.3f} ± {_se(p_se.lose_backgammon)}")


def cmd_rollout(args) -> int:
    from bgrl.agents.levels import LEVEL_NAMES, LEVELS, load_level
    from bgrl.agents.rollout import Roller
    from bgrl.evaluation.probabilities import Probabilities
    from bgrl.rules.outcome import check_not_over

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
        print("  " + _value_line(float(res.equity[0]), float(res.equity_se[0]), p, p_se))
        print(_FOOT)
        return 0
    return print_play_rollout(pos, dice, level, roller, opts, args.json)


def print_play_rollout(pos, dice, level: str, roller, opts: dict, as_json: bool, extra: dict | None = None) -> int:
    """Roll out every candidate play of ``dice`` in ``pos`` and print them best first, as text
    or one JSON object (the header, ``extra``'s fields, then ``"plays"``). Serves ``bgrl
    rollout POSITION DICE`` and ``bgrl hint --rollout``. Raises CLIError when no die can be played."""
    rows = roller.plays(pos, dice, **opts)
    if not rows:
        raise CLIError(f"no die of {dice[0]}-{dice[1]} can be played in {pos.position_id}: the turn passes, "
                       "nothing to roll out (omit DICE to roll out the position)")
    best = rows[0].as_dict()
    head = {"position_id": pos.position_id, "level": level, "trials": opts["trials"], "truncate": opts["truncate"],
            "seed": opts["seed"], "equity": best["equity"], "equity_se": best["equity_se"],
            "probabilities": best["probabilities"], "probabilities_se": best["probabilities_se"], **(extra or {})}
    if as_json:
        print(json.dumps({**head, "plays": [r.as_dict() for r in rows]}))
        return 0
    width = max(8, max(len(r.play.compact) for r in rows))
    trunc = "to the end" if opts["truncate"] is None else f"truncated after {opts['truncate']} plies"
    print(f"Rollout of the plays of {dice[0]}-{dice[1]} in {pos.position_id}: level {level} ({roller.ply}-ply, no noise), "
          f"{opts['trials']} trials each, {trunc}, seed {opts['seed']}; {len(rows)} candidate play(s) "
          "(the best by 0-ply equity, at most 8 within 0.16); figures of the side playing, after the play")
    for r in rows:
        print(f"  {r.rank:3d}  {r.play.compact:<{width}}  {_value_line(r.equity, r.equity_se, r.probabilities, r.probabilities_se)}")
    print(_FOOT)
    return 0


def check_rollout_flags(trials: int, truncate, seed: int | None = None) -> None:
    """CLIError (exit 2) for a trial count <= 0 or above :data:`bgrl.agents.rollout.MAX_TRIALS`,
    a truncation < 0, or a negative seed (as ``match`` and ``play`` refuse it)."""
    from bgrl.agents.rollout import MAX_TRIALS

    if seed is not None and seed < 0:
        raise CLIError(f"--seed must be >= 0, got {seed}")
    if trials <= 0:
        raise CLIError(f"--trials must be >= 1, got {trials}")
    if trials > MAX_TRIALS:
        raise CLIError(f"--trials must be at most {MAX_TRIALS:,} (all trials advance in lockstep, in memory), got {trials}")
    if truncate is not None and truncate < 0:
        raise CLIError(f"--truncate must be >= 0 plies (omit it to play every trial to the end), got {truncate}")


def _how(res) -> str:
    trunc = "played to the end" if res.truncate is None else f"truncated after {res.truncate} plies"
    return f"{res.trials} trials {trunc}, seed {res.seed}"


_FOOT = ("  cubeless money equity in points per game (single 1, gammon 2, backgammon 3) ± one standard error;\n"
         "  win/wg/wbg: chances to win / win a gammon / a backgammon; lg/lbg: to lose a gammon / a backgammon")


def _read(args):
    """(Position, roll or None): DICE when given, else an XGID's dice, else None (roll out the position)."""
    from bgrl.rules.xgid import read_position

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
