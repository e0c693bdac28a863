"""Average the weights of several checkpoints of one training run (stochastic weight averaging).

The maths is :func:`bgrl.training.average.average_networks` (also the ``average`` stage of
``bgrl train --config``).

TD(lambda) with a constant step size keeps the weights wandering around a good region; the
mean of snapshots taken along the way is often a better network than any one of them
(Polyak and Juditsky 1992, "Acceleration of stochastic approximation by averaging";
Izmailov et al. 2018, "Averaging Weights Leads to Wider Optima and Better Generalization").
Only snapshots of one run (or of runs that continue one another) make sense to average:
networks trained apart have their hidden units in different orders.

    python scripts/tools/average_checkpoints.py runs/g1/games_2*.pt runs/g1/games_3*.pt --out runs/g1-swa.pt
    bgrl benchmark runs/g1-swa.pt

Bad input (a missing or unreadable checkpoint, checkpoints whose shapes or encoders differ,
an --out that is a folder or cannot be written) ends with a one-line
``average_checkpoints.py: error: ...`` on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from bgrl.training.average import average_networks
from bgrl._fileio import output_file_problem
from bgrl.evaluation.networks import CheckpointError, load_network, save_checkpoint
from bgrl._resources import resolve_checkpoint

PROG = "average_checkpoints.py"


def _fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("checkpoints", nargs="+", help="checkpoints (.pt, run folders or shipped names)")
    p.add_argument("--out", required=True, help="output checkpoint")
    args = p.parse_args(argv)
    problem = output_file_problem("--out", args.out, what="a checkpoint file path (.pt)")
    if problem:
        _fail(problem)
    nets = []
    for c in args.checkpoints:
        try:
            nets.append(load_network(resolve_checkpoint(c)))
        except CheckpointError as exc:
            _fail(str(exc))
    net0, meta0 = nets[0]
    for (net, meta), src in zip(nets, args.checkpoints):
        if (net.n_inputs, net.hidden, meta.get("encoder")) != (net0.n_inputs, net0.hidden, meta0.get("encoder")):
            _fail(f"{src} is a {meta.get('encoder')} {net.n_inputs}-{net.hidden}-5 network; "
                  f"expected {meta0.get('encoder')} {net0.n_inputs}-{net0.hidden}-5 like {args.checkpoints[0]}")
    net0 = average_networks([n for n, _ in nets], args.checkpoints)
    meta = {k: v for k, v in meta0.items() if k not in ("hidden", "n_inputs", "package_version")}
    meta.update(averaged_from=[str(c) for c in args.checkpoints], games=max(int(m.get("games", 0)) for _, m in nets))
    try:
        save_checkpoint(args.out, net0, meta)
    except OSError as exc:
        _fail(f"cannot write --out {args.out}: {exc.strerror or exc}")
    print(f"wrote {args.out}: mean of {len(nets)} checkpoints")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
