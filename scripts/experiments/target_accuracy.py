"""How near long rollouts do training targets come? n-ply values and truncated rollouts against a reference.

    python scripts/experiments/target_accuracy.py runs/d11/d_151.npz --phases contact --positions 320 --seed 5 \\
        --network distilled7 --truth-trials 144 --trials 36 --truncate 2 4 7 11 --workers 2 \\
        --out runs/e2/accuracy.npz

Takes ``--positions`` after-states (the ``boards`` of ``scripts/train/distill.py`` data files) of the
given phases, drawn at random with ``--seed``, and values each several ways, all with
``--network`` and all for the side that played:

* the reference: a variance-reduced rollout played to the end (``--truth-trials`` trials,
  seed ``--truth-seed``; :func:`bgrl.agents.rollout.rollout_boards`: stratified dice, 0-ply
  play, the luck of every roll subtracted, exact bear-off values);
* the data file's own targets (for round-8 data: ``distilled7``'s 1-ply values);
* the n-ply values of :func:`bgrl.training.distill.search_targets` for each of ``--plies``;
* variance-reduced rollouts of ``--trials`` trials cut after each of ``--truncate`` plies, where
  the network's 0-ply value is taken;
* the 0-ply values of each of ``--candidates`` (other networks, for example ones fit to such
  targets: positions they were not fit to show what they learnt).

For each it prints the mean cubeless equity difference to the reference (bias), the root mean
square difference (RMS), the RMS with the reference's own noise taken out (the mean squared
standard error of the reference subtracted from the mean square), the mean squared difference
less that of the data's targets with a 95% bootstrap interval (2,000 resamples of the
positions), and the CPU time per position. The reference shares the network's 0-ply play with
the truncated rollouts; it measures how near a target comes to what that play scores, not to
perfect play.

The reference dominates the cost (about 10 s of CPU a contact position at 144 trials). It is rolled
out in ``--workers`` processes, one slice each, each slice written atomically to
``OUT.truthK.npz`` with its settings; a rerun with the same arguments reuses them (a slice made
with other settings is an error naming it). Bad input ends with a one-line
``target_accuracy.py: error: ...`` and exit status 2.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

PROG = "target_accuracy.py"


def _fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def _rollout(ev, boards: np.ndarray, trials: int, seed: int, truncate: int | None):
    """Probabilities (N, 5) and equity SE (N,) of the side that played each after-state, and the
    CPU seconds spent (this process)."""
    from bgrl.agents.rollout import rollout_boards
    from bgrl.rules.board import flip

    t = time.process_time()
    r = rollout_boards(ev, flip(boards), trials=trials, seed=seed, truncate=truncate, variance_reduction=True).flipped()
    return r.probs, r.equity_se, time.process_time() - t


def _truth_job(job):
    """One slice of the reference, in its own process: rolled out and written atomically."""
    network, boards, trials, seed, part, settings = job
    import torch

    from bgrl._fileio import atomic_writer
    from bgrl.evaluation.networks import load_evaluator

    torch.set_num_threads(1)
    p, se, cpu = _rollout(load_evaluator(network), boards, trials, seed, None)
    with atomic_writer(Path(part)) as f:
        np.savez(f, boards=boards, probs=p, se=se, cpu=cpu, settings=settings)
    return part, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("data", nargs="+", help="distill data files (npz from scripts/train/distill.py)")
    p.add_argument("--out", required=True, help="npz file of every value; the reference's slices go beside it")
    p.add_argument("--phases", nargs="+", default=["contact"], metavar="PHASE",
                   help="draw only positions of these phases (contact, race, bearoff, crashed)")
    p.add_argument("--positions", type=int, default=320, help="positions drawn")
    p.add_argument("--seed", type=int, default=5, help="seed of the draw")
    p.add_argument("--network", default="distilled7", help="the network of every value and every rollout")
    p.add_argument("--truth-trials", type=int, default=144, help="trials of the reference rollouts")
    p.add_argument("--truth-seed", type=int, default=101, help="dice seed of the reference rollouts")
    p.add_argument("--plies", type=int, nargs="*", default=[0, 1, 2], help="search depths valued (0..3)")
    p.add_argument("--truncate", type=int, nargs="*", default=[2, 4, 7, 11], metavar="P",
                   help="horizons of the truncated rollouts (plies)")
    p.add_argument("--trials", type=int, default=36, help="trials of each truncated rollout")
    p.add_argument("--rollout-seed", type=int, default=202, help="dice seed of the truncated rollouts")
    p.add_argument("--candidates", nargs="*", default=[], metavar="NET",
                   help="other networks whose 0-ply values join the table (for example fits to these targets)")
    p.add_argument("--workers", type=int, default=1, help="processes sharing the reference (one torch thread each)")
    args = p.parse_args(argv)
    for name in ("positions", "truth_trials", "trials", "workers"):
        if getattr(args, name) < 1:
            _fail(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if any(t < 0 for t in args.truncate):
        _fail(f"--truncate must be >= 0, got {min(args.truncate)}")
    if any(not 0 <= k <= 3 for k in args.plies):
        _fail(f"--plies must lie in 0..3, got {args.plies}")

    from bgrl.training.data import check_phases_and_files, load_data, read_part as read_part_file

    import torch

    from bgrl._fileio import atomic_writer, output_file_problem
    from bgrl.agents.search import MAX_PLY
    from bgrl.evaluation.networks import CheckpointError, load_evaluator
    from bgrl.evaluation.probabilities import equity
    from bgrl.training.distill import search_targets, select_phases

    torch.set_num_threads(1)

    check_phases_and_files(args.phases, args.data, _fail)
    out = Path(args.out)
    problem = output_file_problem("--out", out)
    if problem:
        _fail(problem)
    parts = [load_data(d, MAX_PLY, fail=_fail) for d in args.data]
    boards = np.concatenate([b for b, _, _, _ in parts])
    targets = np.concatenate([t for _, t, _, _ in parts])
    teacher = ", ".join(sorted({f"{t} {k}-ply" for _, _, t, k in parts}))
    boards, targets = select_phases(boards, targets, args.phases)
    if boards.shape[0] < args.positions:
        _fail(f"--positions {args.positions}: only {boards.shape[0]} positions of phases {' '.join(args.phases)} in the data")
    idx = np.random.default_rng(args.seed).choice(boards.shape[0], args.positions, replace=False)
    boards, targets = boards[idx], targets[idx]
    try:
        ev = load_evaluator(args.network)
    except CheckpointError as exc:
        _fail(f"--network: {exc}")
    out.parent.mkdir(parents=True, exist_ok=True)

    # the reference, in slices (resumable)
    settings = f"network={args.network} trials={args.truth_trials} seed={args.truth_seed} vr=True"
    slices = np.array_split(np.arange(args.positions), min(args.workers, args.positions))
    jobs, ref_p, ref_se, ref_cpu = [], [None] * len(slices), [None] * len(slices), 0.0

    def read(part, b):
        got = read_part_file(part, settings, b, ("probs", "se", "cpu"), fail=_fail, redo="roll it out again",
                             chosen_by="--phases, --positions, --seed or --workers",
                             pattern=f"{out.stem}.truth*.npz", what="reference slice")
        return None if got is None else (got["probs"], got["se"], float(got["cpu"]))

    for k, s in enumerate(slices):
        part = out.with_name(f"{out.stem}.truth{k}.npz")
        have = read(part, boards[s])
        if have is not None:
            ref_p[k], ref_se[k], c = have
            ref_cpu += c
        else:
            jobs.append((args.network, boards[s], args.truth_trials, args.truth_seed, str(part), settings))
    if jobs:
        print(f"reference: {sum(j[1].shape[0] for j in jobs)} positions, {args.truth_trials} trials, "
              f"{len(jobs)} process(es)", flush=True)
        if len(jobs) == 1:
            done = [_truth_job(jobs[0])]
        else:
            with mp.get_context("spawn").Pool(len(jobs)) as pool:
                done = pool.map(_truth_job, jobs)
        for part, _ in done:
            k = int(Path(part).stem.rsplit("truth", 1)[1])
            ref_p[k], ref_se[k], c = read(Path(part), boards[slices[k]])
            ref_cpu += c
    ref = np.concatenate(ref_p)
    se = np.concatenate(ref_se)

    # the candidates
    rows = {f"the data's targets ({teacher})": (targets, None)}
    for k in args.plies:
        t = time.process_time()
        v = search_targets(ev, boards, k)
        rows[f"{k}-ply"] = (v, time.process_time() - t)
    for spec in args.candidates:
        try:
            cev = load_evaluator(spec)
        except CheckpointError as exc:
            _fail(f"--candidates: {exc}")
        t = time.process_time()
        v = search_targets(cev, boards, 0)
        rows[f"0-ply of {spec}"] = (v, time.process_time() - t)
    for h in args.truncate:
        v, _, cpu = _rollout(ev, boards, args.trials, args.rollout_seed, h)
        rows[f"rollout, {args.trials} trials, cut after {h} plies"] = (v, cpu)

    e_ref = equity(ref)
    noise = float(np.mean(se ** 2))
    n = args.positions
    boot = np.random.default_rng(0).integers(0, n, (2000, n))
    print(f"{n} positions ({' '.join(args.phases)}); reference: {args.truth_trials} variance-reduced trials to the end, "
          f"median equity SE {np.median(se):.4f}, {1000 * ref_cpu / n:.0f} ms CPU a position")
    print(f"{'target':44s} {'bias':>8s} {'RMS':>7s} {'RMS-noise':>9s}  {'MSE - data targets (95%)':>34s} {'ms CPU':>7s}")
    base = None
    saved = {"boards": boards, "reference": ref, "reference_se": se}
    for i, (name, (v, cpu)) in enumerate(rows.items()):
        d = equity(v) - e_ref
        mse = float(np.mean(d ** 2))
        if base is None:
            base, rel = d, ""
        else:
            diff = d ** 2 - base ** 2
            bd = diff[boot].mean(1)
            rel = f"{diff.mean():+.5f} ({np.percentile(bd, 2.5):+.5f} .. {np.percentile(bd, 97.5):+.5f})"
        ms = "" if cpu is None else f"{1000 * cpu / n:.0f}"
        print(f"{name:44s} {d.mean():+8.4f} {np.sqrt(mse):7.4f} {np.sqrt(max(mse - noise, 0.0)):9.4f}  {rel:>34s} {ms:>7s}")
        saved[f"row{i}"] = v
        saved[f"row{i}_name"] = name
    with atomic_writer(out) as f:
        np.savez(f, **saved)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
