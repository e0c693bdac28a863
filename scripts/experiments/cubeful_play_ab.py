#!/usr/bin/env python
"""Does cubeful checker play help? A level with cubeful checker play against the same level
with cubeless checker play, both making the same cube decisions (docs/cube.md).

    python scripts/experiments/cubeful_play_ab.py expert --match 5 --matches 400 --seed 7
    python scripts/experiments/cubeful_play_ab.py expert --money --matches 2000

Sessions are :func:`bgrl.arena.cubeful.play_cubeful`'s (paired dice, colours swapped); agent
A plays by :func:`bgrl.agents.cube.cubeful_select`, agent B by its level's own cubeless
``select``. Prints the summary (A's share of matches won, or its points per game, with a 95%
interval). Bad arguments: one-line error, exit status 2.
"""

from __future__ import annotations

import argparse
import sys


class CubelessPlay:
    """A level agent whose checker play ignores the cube (its cube decisions do not)."""

    def __init__(self, agent):
        self._agent = agent
        self.evaluator, self.level, self.seed = agent.evaluator, agent.level, agent.seed
        self.name = f"{agent.name} (cubeless play)"

    def select(self, after, rng=None):
        return self._agent.select(after, rng)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("level", help="a level name (bgrl levels)")
    ap.add_argument("--match", type=int, default=5, help="match length, 1..25 (default: %(default)s)")
    ap.add_argument("--money", action="store_true", help="money games with the cube instead of matches")
    ap.add_argument("--matches", type=int, default=400, help="matches (or games with --money), >= 1 (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the dice, >= 0 (default: %(default)s)")
    args = ap.parse_args(argv)
    import bgrl.arena.cubeful as ac
    from bgrl.agents.levels import load_level
    from bgrl.rules.match import MatchRules

    try:
        if args.matches < 1 or args.seed < 0:
            raise ValueError("--matches must be >= 1 and --seed >= 0")
        if not args.money and not 1 <= args.match <= 25:
            raise ValueError(f"--match must be 1..25 (the match equity table), got {args.match}")
        a = load_level(args.level)
        b = CubelessPlay(load_level(args.level))
    except ValueError as exc:
        print(f"cubeful_play_ab: error: {exc}", file=sys.stderr)
        return 2
    real = ac.cubeful_select

    def select(agent, after, cubes, rng=None, met=None):
        if isinstance(agent, CubelessPlay):
            return agent.select(after, rng)
        return real(agent, after, cubes, rng, met)

    ac.cubeful_select = select
    try:
        rules = MatchRules() if args.money else MatchRules(match_length=args.match)
        res = ac.play_cubeful(a, b, args.matches, rules, seed=args.seed,
                              names=(f"{args.level} cubeful play", f"{args.level} cubeless play"))
    finally:
        ac.cubeful_select = real
    print(res.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
