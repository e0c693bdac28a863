"""bgrl against GNU Backgammon at equal depth: paired-dice money sessions through the gnubg extra.

    python scripts/bench/vs_gnubg.py [--games 2000] [--seed 0] [--pairings 0,1,top] [--network NET]

Three pairings (issue 16, part 5), each a session of ``--games`` cubeless money games with
paired dice (two games per dice sequence, colours swapped: :func:`bgrl.arena.duel.play_match`):

* ``0``:   the strongest shipped network (:data:`bgrl.agents.levels.STRONGEST_NETWORK`) at
  0-ply, no noise, against gnubg 0-ply;
* ``1``:   that network at 1-ply (the move filters of the level that plays it) against gnubg 1-ply;
  ``--network NET`` plays another network (a checkpoint file, a run folder or a shipped
  name, as :func:`bgrl.evaluation.networks.open_network` reads it) in these two pairings instead, with the
  same level definition: how a candidate is measured before it is shipped;
* ``top``: the top level (the last of :data:`bgrl.agents.levels.LEVEL_NAMES`, as it is
  defined) against gnubg 2-ply.

gnubg plays through :class:`bgrl.agents.gnubg.GnubgAgent` (its own ``best_move`` at N plies,
with its own move filters; PyPI ``gnubg-nn``, the ``gnubg`` extra). Printed per pairing:
bgrl's points per game with the 95% interval (from the per-pair means), the win and gammon
rates, and the CPU time per move of both sides (``time.process_time`` around each side's
choices, divided by the decisions it made; bgrl batches its decisions over all games in
lockstep, gnubg is asked one position at a time). The dice of every gnubg decision are
handed to it, so the time it is charged does not include recovering them.

Small sessions say little: 1,000 games give a standard error of about 0.045 ppg
(DESIGN.md). Exit status 2 with a one-line error for bad flags or without gnubg-nn.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

PAIRINGS = ("0", "1", "top")


class _WithDice:
    """An AfterStates seen with the dice of each decision (what GnubgAgent.select reads)."""

    def __init__(self, after, dice):
        self._after = after
        self.dice = dice

    def __getattr__(self, name):
        return getattr(self._after, name)


class Timed:
    """An agent wrapper that adds up the CPU time of its choices and counts its decisions.

    ``give_dice``: recover each decision's roll first (outside the timing) and hand it to
    the agent, as a GnubgAgent otherwise does inside its own ``select``.
    """

    def __init__(self, agent, give_dice: bool = False):
        self.agent = agent
        self.give_dice = give_dice
        self.cpu = 0.0
        self.decisions = 0
        self.name = getattr(agent, "name", "agent")

    def select(self, after, rng):
        if self.give_dice:
            from bgrl.agents.gnubg import infer_dice

            counts = after.counts
            dice = np.zeros((counts.size, 2), dtype=np.int8)
            need = np.flatnonzero(counts > 1)
            if need.size:
                dice[need] = infer_dice(after, need)
            after = _WithDice(after, dice)
        t = time.process_time()
        out = self.agent.select(after, rng)
        self.cpu += time.process_time() - t
        self.decisions += int(after.offsets.size - 1)
        return out

    @property
    def ms_per_move(self) -> float:
        return 1e3 * self.cpu / max(self.decisions, 1)


def _warm_up(*timed) -> None:
    """One untimed decision each (loads compiled code and caches), then the counters restart."""
    from bgrl.rules.board import START_BOARD
    from bgrl.rules.movegen import generate

    aft = generate(START_BOARD[None], np.array([[3, 1]], dtype=np.int8))
    for t in timed:
        t.select(aft, np.random.default_rng(0))
        t.cpu, t.decisions = 0.0, 0


def bgrl_agent(ply: int | None, network: str | None = None):
    """The top level's agent (``ply=None``), or the strongest shipped network
    (:data:`bgrl.agents.levels.STRONGEST_NETWORK`; ``network``: that checkpoint instead) at
    ``ply`` without noise, with the move filters of the level that plays the strongest
    network (gnubg's normal ones where those do not reach).

    Raises :class:`bgrl.evaluation.networks.CheckpointError` for a ``network`` that is
    missing or not a bgrl checkpoint."""
    from dataclasses import replace

    from bgrl.agents.levels import LEVEL_NAMES, LEVELS, STRONGEST_NETWORK, LevelAgent, load_level

    if ply is None:
        top = LEVEL_NAMES[-1]
        return load_level(top), f"{top} ({LEVELS[top].definition()})"
    name = next(n for n in reversed(LEVEL_NAMES) if LEVELS[n].network == STRONGEST_NETWORK)  # world-class's network by definition
    if network is None:
        evaluator, label = load_level(name).evaluator, STRONGEST_NETWORK
    else:
        from bgrl.evaluation.networks import load_evaluator

        evaluator, label = load_evaluator(network), str(network)
    lv = replace(LEVELS[name].with_ply(ply), noise=0.0, name=f"{label}@{ply}")
    return LevelAgent(lv, evaluator), f"{label} net at {ply}-ply"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=2000, help="games per pairing, paired dice (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the dice (default 0)")
    p.add_argument("--pairings", default=",".join(PAIRINGS), help="which pairings, comma-separated among "
                   f"{', '.join(PAIRINGS)} (default all)")
    p.add_argument("--network", default=None, help="in pairings 0 and 1, play this network (a checkpoint file, run "
                   "folder or shipped name) instead of the strongest shipped one")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be >= 1, got {args.games}")
    plan = {"0": (0, 0), "1": (1, 1), "top": (None, 2)}
    chosen = [x.strip() for x in args.pairings.split(",") if x.strip()]
    bad = [x for x in chosen if x not in PAIRINGS]
    if bad or not chosen:
        p.error(f"--pairings: expected a comma-separated list among {', '.join(PAIRINGS)}, got {args.pairings!r}")

    if args.network is not None and not any(k in chosen for k in ("0", "1")):
        p.error(f"--network {args.network!r} plays only in pairings 0 and 1; --pairings {args.pairings!r} has neither")

    import torch

    torch.set_num_threads(1)
    from bgrl.arena.duel import play_match
    from bgrl.evaluation.networks import CheckpointError

    agents = {}
    for key in chosen:  # every network opened (and checked) before the first game
        try:
            agents[key] = bgrl_agent(plan[key][0], args.network)
        except CheckpointError as exc:
            p.exit(2, f"vs_gnubg.py: error: --network: {exc}\n")

    try:
        from bgrl.agents.gnubg import GnubgAgent

        GnubgAgent(0)
    except ImportError as exc:
        p.exit(2, f"vs_gnubg.py: error: {exc}\n")

    print(f"bgrl vs GNU Backgammon (gnubg-nn), {args.games} cubeless money games per pairing, paired dice, seed {args.seed}")
    for key in chosen:
        gply = plan[key][1]
        agent, label = agents[key]
        ours, theirs = Timed(agent), Timed(GnubgAgent(gply), give_dice=True)
        _warm_up(ours, theirs)
        res = play_match(ours, theirs, args.games, seed=args.seed, names=(label, f"gnubg {gply}-ply"))
        lo, hi = res.ppg - res.ci95, res.ppg + res.ci95
        ci = f"95% CI {lo:+.3f} .. {hi:+.3f}" if res.ci95 == res.ci95 else "no interval from one pair"
        print(f"{label} vs gnubg {gply}-ply: {res.ppg:+.3f} ppg ({ci}), {res.games} games; "
              f"wins {100 * res.win_rate:.1f}%, gammons won {100 * res.gammon_rate:.1f}%, lost {100 * res.lose_gammon_rate:.1f}%")
        print(f"  CPU per move: bgrl {ours.ms_per_move:.2f} ms ({ours.decisions} decisions, batched over the games), "
              f"gnubg {theirs.ms_per_move:.2f} ms ({theirs.decisions} decisions, one at a time); "
              f"{res.seconds:.0f} s in all")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
