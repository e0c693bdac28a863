"""``bgrl hint POSITION [DICE]``: the legal plays ranked by a level's noise-free search."""

from __future__ import annotations

import json

from bgrl.cli._common import (DICE_HELP, NOTATION_HELP, POS_HELP, CLIError, HelpFormatter, batch_lines,
                              check_position_or_batch, position_and_dice)

__all__ = ["add_parser", "cmd_hint", "evaluator_for", "explain_text"]


def evaluator_for(checkpoint):
    """(evaluator, path) of ``--checkpoint`` (None: the shipped default network), through
    :func:`bgrl.evaluation.networks.open_network`."""
    from bgrl.evaluation.networks import open_network

    if checkpoint is not None and not str(checkpoint).strip():
        raise CLIError("--checkpoint is empty: give the path of a .pt file, a run folder or 'default'")
    loaded = open_network("default" if checkpoint is None else checkpoint)
    return loaded.evaluator, loaded.path


def cmd_hint(args) -> int:
    from bgrl.cli._table import hint_json, hint_text
    from bgrl.cli.levels import hint_agent

    if args.top is not None and args.top < 0:
        raise CLIError(f"--top must be >= 0 (0 = all plays), got {args.top}")
    agent, ply, label = hint_agent(args.level, args.ply, args.checkpoint)

    def obj(pos, dice):
        ranked = agent.hint(pos, dice, ply=ply)
        out = hint_json(pos, dice, ranked, agent.level.name, ply, args.top)
        if args.explain:
            from bgrl.agents.explain import play_facts

            by_id = {r.play.position_id: r for r in ranked}
            for d in out["plays"]:
                r = by_id[d["position_id"]]
                d["facts"] = play_facts(pos.board, r.play.after_state, r.probabilities)
        return out

    check_position_or_batch(args)
    if args.batch is not None:
        return batch_lines(args.batch, obj)
    pos, dice = position_and_dice(args.position, args.dice)
    if args.json:
        print(json.dumps(obj(pos, dice)))
        return 0
    ranked = agent.hint(pos, dice, ply=ply)
    print(hint_text(pos, dice, ranked, label, ply, args.top, compact=args.notation == "compact"))
    if args.explain and ranked:
        print(explain_text(pos, ranked, compact=args.notation == "compact"))
    return 0


def explain_text(pos, ranked, n: int = 3, compact: bool = False) -> str:
    """Why the best play is best, in sentences: its facts, then what differs from each of
    the next ``n - 1`` plays (:mod:`bgrl.agents.explain`)."""
    from bgrl.agents.explain import compare_facts, fact_sentences, play_facts

    facts = [play_facts(pos.board, r.play.after_state, r.probabilities) for r in ranked[:n]]
    names = [r.play.shown(compact) for r in ranked[:n]]
    lines = ["Why:"] + [f"  {s}" for s in fact_sentences(names[0], facts[0])]
    for name, f in zip(names[1:], facts[1:]):
        lines.append(f"  {names[0]} over {name}:")
        lines += [f"    {s}" for s in compare_facts(names[0], facts[0], name, f)]
    return "\n".join(lines)


def add_parser(sub) -> None:
    h = sub.add_parser("hint", help="rank all legal plays by equity", formatter_class=HelpFormatter,
                       description="Rank the legal plays of a position and roll by a level's noise-free n-ply search "
                       "(default level expert), best first; plays cut by the move filter keep a shallower ply.")
    h.add_argument("position", nargs="?", help=POS_HELP)
    h.add_argument("dice", nargs="*", help=DICE_HELP)
    h.add_argument("--level", default=None, help="rank with this level's noise-free search (default: expert; see bgrl levels)")
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
    h.add_argument("--notation", choices=["dice", "compact"], default="dice", help=NOTATION_HELP)
    h.set_defaults(func=cmd_hint)

