"""Rollout targets for distillation: roll out the positions of distill data files.

    python scripts/train/rollout_targets.py runs/d5/d_41.npz runs/d5/d_42.npz --phases race \\
        --network distilled --trials 144 --out runs/d5/race_rollouts.npz
    python scripts/train/distill.py --student distilled --data runs/d5/race_rollouts.npz --out runs/race.pt ...

Reads the positions (after-states, ``boards`` of ``scripts/train/distill.py`` data files), keeps those
of the given phases (:mod:`bgrl.evaluation.phase`), and rolls each out from the side on roll
after the play (:func:`bgrl.agents.rollout.rollout_boards`: cubeless money, stratified dice,
checker play of ``--network`` at ``--ply`` (0 by default; above 0 with gnubg's "normal" move
filters, :data:`bgrl.agents.search.GNUBG_FILTERS`), trials stopped at exact values, or after
``--truncate`` plies with the network's value at ``--ply`` there). The targets are the
rollouts' mean probabilities, turned back to the side that played and clipped to [0, 1], in
a file ``scripts/train/distill.py --data`` reads (teacher ``rollout:NETWORK:TRIALS``, with ``:pN``
for play at N plies, ``:vr`` for variance reduction and ``:tP`` for truncation; ply 0).

Rollouts played at 1-ply are targets that do not share the network's 0-ply play; each of their
moves costs about eighty times a 0-ply one here (docs/experiments.md), so a round of them is a
job for many cores over several runs: each run resumes where the last stopped.

Resumable: the positions are rolled out in chunks of ``--chunk``, each written atomically to
``OUT.partN.npz`` beside ``--out`` with its positions and settings; a rerun with the same
arguments skips the chunks already written (a part made from other positions or settings is
an error naming it), and the parts are joined into ``--out`` at the end (the same seed gives
the same bits). With ``--max-seconds`` no chunk is started after that time and ``--out`` holds
the chunks done so far, here or in earlier runs (a note says how many; ``0`` only joins them). Bad input ends with
a one-line ``rollout_targets.py: error: ...`` and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

PROG = "rollout_targets.py"


def _fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("data", nargs="+", help="distill data files (npz from scripts/train/distill.py)")
    p.add_argument("--out", required=True, help="npz file of positions and rollout targets")
    p.add_argument("--phases", nargs="+", default=None, metavar="PHASE",
                   help="keep only positions of these phases (contact, race, bearoff, crashed)")
    p.add_argument("--network", default="distilled", help="network whose checker play (at --ply) rolls the trials out")
    p.add_argument("--ply", type=int, default=0, help="search depth of that checker play and of the value at a truncation (0 to bgrl.agents.search.MAX_PLY)")
    p.add_argument("--trials", type=int, default=144, help="trials per position")
    p.add_argument("--variance-reduction", action="store_true", help="subtract the luck of each roll (slower)")
    p.add_argument("--truncate", type=int, default=None, metavar="P",
                   help="stop each trial after P plies and take the network's value there, at --ply (None: play to the end)")
    p.add_argument("--max-positions", type=int, default=None, help="use at most this many positions (the first)")
    p.add_argument("--chunk", type=int, default=2048, help="positions per resumable part")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-seconds", type=float, default=None,
                   help="start no chunk after this many seconds; --out then holds the chunks done (0: only join them)")
    args = p.parse_args(argv)
    if args.trials < 1:
        _fail(f"--trials must be >= 1, got {args.trials}")
    if args.truncate is not None and args.truncate < 0:
        _fail(f"--truncate must be >= 0, got {args.truncate}")
    if args.chunk < 1:
        _fail(f"--chunk must be >= 1, got {args.chunk}")
    if args.max_seconds is not None and not args.max_seconds >= 0:
        _fail(f"--max-seconds must be >= 0, got {args.max_seconds}")
    if args.max_positions is not None and args.max_positions < 1:
        _fail(f"--max-positions must be >= 1, got {args.max_positions}")

    from bgrl.training.data import MIN_POSITIONS, check_phases_and_files, load_data, read_part as read_part_file

    import torch

    from bgrl._fileio import atomic_writer
    from bgrl.agents.rollout import rollout_boards
    from bgrl.agents.search import MAX_PLY
    from bgrl.evaluation.networks import CheckpointError, load_evaluator
    from bgrl.evaluation.probabilities import flip_probs
    from bgrl.rules.board import flip
    from bgrl.training.distill import select_phases

    if not 0 <= args.ply <= MAX_PLY:
        _fail(f"--ply must be 0..{MAX_PLY}, got {args.ply}")
    check_phases_and_files(args.phases, args.data, _fail)
    torch.set_num_threads(1)
    out = Path(args.out)
    from bgrl._fileio import output_file_problem

    problem = output_file_problem("--out", out) or output_file_problem("--out", out.with_name(f"{out.stem}.part0.npz"))
    if problem:
        _fail(problem)
    parts = [load_data(d, MAX_PLY, fail=_fail) for d in args.data]
    boards = np.concatenate([b for b, _, _, _ in parts])
    targets = np.concatenate([t for _, t, _, _ in parts])
    if args.phases:
        boards, _ = select_phases(boards, targets, args.phases)
    if args.max_positions:
        boards = boards[: args.max_positions]
    if boards.shape[0] < MIN_POSITIONS:
        _fail(f"{boards.shape[0]} positions selected; expected at least {MIN_POSITIONS}")
    try:
        ev = load_evaluator(args.network)
    except CheckpointError as exc:
        _fail(f"--network: {exc}")
    out.parent.mkdir(parents=True, exist_ok=True)
    n = boards.shape[0]
    settings = f"network={args.network} trials={args.trials} vr={args.variance_reduction} truncate={args.truncate} seed={args.seed} chunk={args.chunk}"
    if args.ply:  # kept out of 0-ply runs' settings, so their parts written before --ply existed still resume
        settings += f" ply={args.ply}"
    chunks = range(0, n, args.chunk)
    t0 = time.perf_counter()
    got, got_boards = [], []
    for k, i in enumerate(chunks):
        part = out.with_name(f"{out.stem}.part{k}.npz")
        b = boards[i : i + args.chunk]
        if not part.exists():
            if args.max_seconds is not None and time.perf_counter() - t0 >= args.max_seconds:
                continue
            r = rollout_boards(ev, flip(b), trials=args.trials, seed=args.seed + k,
                               truncate=args.truncate, variance_reduction=args.variance_reduction, ply=args.ply)
            tgt = np.clip(flip_probs(r.probs), 0.0, 1.0).astype(np.float32)
            with atomic_writer(part) as f:
                np.savez_compressed(f, boards=b, targets=tgt, equity_se=r.equity_se.astype(np.float32), settings=settings)
            el = time.perf_counter() - t0
            print(f"  part {k}: positions {i + b.shape[0]}/{n} ({el:.0f} s, median equity SE "
                  f"{float(np.median(r.equity_se)):.4f})", flush=True)
        t = read_part_file(part, settings, b, ("targets",), fail=_fail, redo="roll its positions out again",
                           chosen_by="--phases or --max-positions",
                           pattern=f"{out.stem}.part*.npz")["targets"]
        got.append(t)
        got_boards.append(b)
    if not got:
        _fail(f"--max-seconds {args.max_seconds:g}: no chunk was rolled out, and none was there to join")
    tgt = np.concatenate(got)
    kept = np.concatenate(got_boards)
    teacher = (f"rollout:{args.network}:{args.trials}" + (f":p{args.ply}" if args.ply else "") + (":vr" if args.variance_reduction else "")
               + (f":t{args.truncate}" if args.truncate is not None else ""))
    with atomic_writer(out) as f:
        np.savez_compressed(f, boards=kept, targets=tgt, teacher=teacher, ply=0)
    note = "" if len(got) == len(chunks) else f" (partial: {len(got)} of {len(chunks)} chunks; rerun to go on)"
    print(f"wrote {out}: {kept.shape[0]} positions, targets {teacher}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
