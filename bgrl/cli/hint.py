"""``bgrl hint POSITION [DICE]``: the legal plays ranked by a level's noise-free search, or,
before the roll (an XGID with dice ``00``, or a Position ID with ``--cube`` and no DICE), the
cube decision (:mod:`bgrl.agents.cube`; docs/cube.md)."""

from __future__ import annotations

import json

from bgrl.agents.search import MAX_PLY
from bgrl.cli._common import (DICE_HELP, NOTATION_HELP, POS_HELP, CLIError, HelpFormatter, batch_lines, check_level,
                              check_position_or_batch, check_rollout_flags, dice_arg)
from bgrl.rules.xgid import looks_like_xgid, read_position_cube
from bgrl.agents.cube import cube_hint
from bgrl.agents.levels import DEFAULT_PRUNING, LEVELS
from bgrl.evaluation.probabilities import equity
from bgrl.rules.outcome import check_not_over
from bgrl.agents.registry import load_ranker
from bgrl.cli._table import hint_json, hint_text, print_play_rollout
from bgrl.agents.explain import compare_facts, fact_sentences, play_facts

__all__ = ["add_parser", "cmd_hint", "explain_text", "cube_json", "cube_text"]

#: Trials per play of ``hint --rollout`` when --trials is not given (as ``bgrl rollout``'s default).
ROLLOUT_TRIALS = 1296

_PHRASE = {"no double": "No double", "double, take": "Double, take", "double, pass": "Double, pass",
           "too good to double": "Too good to double"}


def cmd_hint(args) -> int:
    if args.top is not None and args.top < 0:
        raise CLIError(f"--top must be >= 0 (0 = all plays), got {args.top}")
    level = check_level(args.level)
    if args.ply is not None and not 0 <= int(args.ply) <= MAX_PLY:
        raise ValueError(f"--ply must be 0..{MAX_PLY}, got {args.ply}")
    if args.ply is not None and int(args.ply) >= 3:
        # a 3-ply search outweighs numba's start-up (about 1 s): its compiled kernels, 3x faster
        from bgrl.evaluation import compiled

        compiled.ensure(import_numba=True)
    # "auto": the shipped networks' numpy twins, so that a hint starts without importing torch
    ranker = load_ranker(level, args.ply, checkpoint=args.checkpoint, backend="auto")
    ply = ranker.ply
    label = f"level {level}" + (f" with network {ranker.network}" if args.checkpoint is not None else "")
    pruning = None
    if ranker.prune is not None:  # set at 2-ply and deeper only
        spec = getattr(getattr(ranker, "level", None), "prune", None) or DEFAULT_PRUNING
        pruning = [spec.network, int(spec.keep)]
        label += f" (each roll's replies pruned to the {spec.network} network's best {spec.keep})"

    def obj(pos, dice, cube=None):
        ranked = ranker.rank(pos, dice)
        out = hint_json(pos, dice, ranked, level, ply, args.top, cube=cube)
        if pruning is not None:
            out["prune"] = pruning
        if args.explain:
            by_id = {r.play.position_id: r for r in ranked}
            for d in out["plays"]:
                r = by_id[d["position_id"]]
                d["facts"] = play_facts(pos.board, r.play.after_state, r.probabilities)
        return out

    if not args.rollout:  # they would be ignored silently
        given = [f for f, v in (("--trials", args.trials), ("--truncate", args.truncate), ("--seed", args.seed)) if v is not None]
        if given:
            raise CLIError(f"{given[0]} sets the rollout of --rollout; it needs --rollout (bgrl rollout POSITION DICE "
                           "rolls out the plays too)")
    check_position_or_batch(args)
    if args.batch is not None:
        if args.cube:
            raise CLIError("--cube works on one POSITION, not with --batch")
        return batch_lines(args.batch, obj)
    if args.rollout and (args.batch is not None or args.explain):
        raise CLIError("--rollout ranks the plays of one POSITION and DICE: not with --batch or --explain")
    pos, dice, cube = _read(args)
    if dice is None:
        if args.rollout:
            raise CLIError("--rollout rolls out the plays of a roll: give DICE (bgrl rollout POSITION rolls out "
                           "the position before the roll)")
        return _cube_hint(args, ranker, label, pos, cube)
    if args.rollout:
        return _rollout_hint(args, ranker, pos, dice)
    # a cube in play or a score: the plays ranked by cubeful equity / match winning chances
    # (bgrl.agents.cube.cubeful_rank); the money game's centred cube at 1: cubeless, as before
    if args.json:
        print(json.dumps(obj(pos, dice, cube)))
        return 0
    ranked = ranker.rank(pos, dice)
    print(hint_text(pos, dice, ranked, label, ply, args.top, compact=args.notation == "compact", cube=cube))
    if args.explain and ranked:
        print(explain_text(pos, ranked, compact=args.notation == "compact"))
    return 0


def explain_text(pos, ranked, n: int = 3, compact: bool = True) -> str:
    """Why the best play is best, in sentences: its facts, then what differs from each of
    the next ``n - 1`` plays (:mod:`bgrl.agents.explain`)."""
    facts = [play_facts(pos.board, r.play.after_state, r.probabilities) for r in ranked[:n]]
    names = [r.play.shown(compact) for r in ranked[:n]]
    lines = ["Why:"] + [f"  {s}" for s in fact_sentences(names[0], facts[0])]
    for name, f in zip(names[1:], facts[1:]):
        lines.append(f"  {names[0]} over {name}:")
        lines += [f"    {s}" for s in compare_facts(names[0], facts[0], name, f)]
    return "\n".join(lines)


def _read(args):
    """(Position, dice or None, CubeState) of POSITION [DICE] with the cube fields read."""
    pos, xdice, cube = read_position_cube(args.position)
    if args.dice:
        if args.cube:
            raise CLIError("--cube asks for the cube decision before the roll: give no DICE")
        return pos, dice_arg(args.dice), cube
    if args.cube:
        return pos, None, cube
    if xdice is None and not looks_like_xgid(args.position):
        raise CLIError("missing DICE: write the roll like 53, 5-3 or '5 3' (or --cube for the cube decision "
                       "before the roll, or an XGID with its dice)")
    return pos, xdice, cube


def cube_json(pos, decision, level: str, ply: int) -> dict:
    """``{"position_id", "level", "ply", "cube": {"decision", "take", "equities": {...}}}``."""
    return {"position_id": pos.position_id, "level": level, "ply": ply, "cube": decision.as_dict()}


def cube_text(pos, decision, probs, cube, label: str, ply: int) -> str:
    """The cube decision as gnubg prints its cube analysis: cubeless equity and
    probabilities, then the three cubeful equities, the proper action first, each with its
    difference to the proper action, and the proper cube action."""
    from bgrl.rules.matchid import match_id

    d = decision
    where = "money game" if not cube.is_match else f"{cube.score[0]}-{cube.score[1]} to {cube.match_length}"
    if cube.crawford:
        where += ", Crawford game"
    elif cube.post_crawford:
        where += ", post-Crawford"

    lines = [f"Position {pos.position_id}, Match ID {match_id(cube)}, before the roll: cube analysis; {label}, {ply}-ply; {where}, "
             f"cube {cube.value}{' owned by the side on roll' if cube.owner == 1 else ' centred' if cube.owner == 0 else ''}"]
    eq = float(equity(probs))
    lines.append(f"{ply}-ply cubeless equity {eq:+.3f} (money points per game)")
    p = probs
    lines.append(f"  {p[0]:.3f} {p[1]:.3f} {p[2]:.3f} - {1 - p[0]:.3f} {p[3]:.3f} {p[4]:.3f}")
    lines.append("Cubeful equities:")
    proper = max(d.no_double, min(d.double_take, d.double_pass))
    rows = [("No double", d.no_double), ("Double, take", d.double_take), ("Double, pass", d.double_pass)]
    first = {"no double": 0, "too good to double": 0, "double, take": 1, "double, pass": 2}[d.decision]
    order = [first] + [i for i in range(3) if i != first]
    for n, i in enumerate(order, start=1):
        name, v = rows[i]
        diff = "" if n == 1 else f"  {v - proper:+.3f}"
        mwc = ""
        if d.mwc is not None:
            mwc = f"  ({100 * d.mwc[['no_double', 'double_take', 'double_pass'][i]]:.2f}% MWC)"
        lines.append(f"{n}. {name:<22}{v:+.3f}{diff}{mwc}")
    answer = ("beaver" if d.beaver else "take") if d.take else "pass"
    action = _PHRASE[d.decision]
    if d.decision in ("no double", "too good to double"):
        action += f", {answer}"
    lines.append(f"Proper cube action: {action}")
    lines.append(f"  cubeful equities of the side on roll per unit of the current stake (Janowski, cube life x = "
                 f"{d.cube_life:.2f}){'; MWC on the equity scale as gnubg shows it' if d.mwc is not None else ''}")
    return "\n".join(lines)


def _cube_hint(args, ranker, label, pos, cube) -> int:
    ply = ranker.ply
    try:
        decision, probs = cube_hint(ranker.evaluator, pos, cube, ply, prune=ranker.prune)
    except ValueError as exc:
        raise CLIError(f"no cube decision: {exc}") from None
    if args.json:
        print(json.dumps(cube_json(pos, decision, ranker.level.name, ply)))
    else:
        print(cube_text(pos, decision, probs, cube, label, ply))
    return 0


def _rollout_hint(args, ranker, pos, dice) -> int:
    """``hint --rollout``: the candidate plays rolled out by the hint level's noise-free checker
    play at the level's own ply (:func:`bgrl.cli._table.print_play_rollout`, as ``bgrl rollout``)."""
    from bgrl.agents.rollout import Roller

    trials = ROLLOUT_TRIALS if args.trials is None else args.trials
    seed = 0 if args.seed is None else args.seed
    check_rollout_flags(trials, args.truncate, seed)
    check_not_over(pos)
    level = LEVELS[ranker.level.name]  # the level's ply and filters, whatever --ply says
    roller = Roller(ranker.evaluator, level.ply, level.filters, name=level.name)
    opts = dict(trials=trials, seed=seed, truncate=args.truncate, variance_reduction=True)
    return print_play_rollout(pos, dice, level.name, roller, opts, args.json,
                              extra={"dice": [int(dice[0]), int(dice[1])], "rollout": True})


def add_parser(sub) -> None:
    h = sub.add_parser("hint", help="rank all legal plays by equity", formatter_class=HelpFormatter,
                       description="Rank the legal plays of a position and roll by a level's noise-free n-ply search "
                       "(default level world-class), best first; plays cut by the move filter keep a shallower ply. "
                       "Before the roll (an XGID with dice 00, or --cube and no DICE) it gives the cube decision; "
                       "POSITION may then be an XGID with a cube and score, or a gnubg 'PositionID:MatchID'.")
    h.add_argument("position", nargs="?", help=POS_HELP.replace("money game, no cube; ", "")
                   + "; for the cube decision also an XGID with a cube and score, or gnubg's 'PositionID:MatchID'")
    h.add_argument("dice", nargs="*", help=DICE_HELP)
    h.add_argument("--level", default=None, help="rank with this level's noise-free search (default: world-class, the one hint default everywhere; see bgrl levels)")
    h.add_argument("--ply", type=int, default=None, help="search depth 0..3 in gnubg's convention (default: the level's)")
    h.add_argument("--checkpoint", metavar="PATH", help="network replacing the level's: a .pt file, a run folder (its "
                   "final.pt, else latest.pt) or 'default' (default: the level's network)")
    h.add_argument("--top", type=int, default=None, metavar="N", help="show the N best plays, 0 = all "
                   "(default: 10 in text, all in JSON)")
    h.add_argument("--batch", metavar="FILE", help="read lines 'POSITION [DICE]' from FILE ('-' = stdin) and print "
                   "one JSON object per line (default: off)")
    h.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    h.add_argument("--explain", action="store_true", help="say why the best play is best: blots and the opponent's shots "
                   "at them, points made or broken, primes, anchors, pips; with --json each play gets a \"facts\" list "
                   "(default: off)")
    h.add_argument("--cube", action="store_true", help="the cube decision before the roll (no DICE): no double, "
                   "double/take, double/pass with their cubeful equities; an XGID with dice 00 asks for it too "
                   "(default: off)")
    h.add_argument("--notation", choices=["compact", "dice"], default="compact", help=NOTATION_HELP)
    h.add_argument("--rollout", action="store_true", help="rank the candidate plays by a rollout played by the hint "
                   "level's checker play (bgrl rollout POSITION DICE; slower, more accurate; default: off)")
    h.add_argument("--trials", type=int, default=None, help=f"with --rollout: trials per play (default: {ROLLOUT_TRIALS})")
    h.add_argument("--truncate", type=int, default=None, metavar="P", help="with --rollout: stop each trial after P "
                   "plies (default: play to the end)")
    h.add_argument("--seed", type=int, default=None, help="with --rollout: seed of the dice, >= 0 (default: 0)")
    h.set_defaults(func=cmd_hint)

