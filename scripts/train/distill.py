"""Search distillation: fit a 0-ply network to a teacher's 1-ply values (bgrl.training.distill).

    python scripts/train/distill.py --teacher td198g --games 5000 --data runs/distill/data.npz \\
        --out runs/distill/student.pt --epochs 4
    bgrl match runs/distill/student_ep4.pt pubeval --games 10000 --seed 2

Steps (each skipped when its result is already in --data): self-play positions of the
teacher at 0-ply, their n-ply values (the slow part: about 400-1,400 positions/s per core at
1-ply), then training of the student (default: a copy of the teacher; or --student, e.g. a
wider network made by scripts/train/widen_encoder.py from the teacher). Each epoch's network is
written to OUT with ``_epN`` before the suffix (``--out s.pt`` writes ``s_ep1.pt``,
``s_ep2.pt``, ...; OUT itself is not written) and scored on the error-rate benchmark.

A --data file holds ``boards`` (int8 (N, 26)), ``targets`` (float32 (N, 5), probabilities in
[0, 1]), ``teacher`` (str) and ``ply`` (int). With existing data files the targets' own
teacher and ply are used: --games, --noise and --ply do not apply (a note says so; an
explicit --ply that differs from the data's is refused), and --teacher only names the
default student. Bad input (arguments out of range, a duplicated or malformed data file,
fewer than 100 positions, an unreadable checkpoint, an unwritable --out) ends with a
one-line ``distill.py: error: ...`` on stderr and exit status 2, before any slow work.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

from bgrl._fileio import output_file_problem

from bgrl.training.data import MIN_POSITIONS, check_phases_and_files, load_data, write_data

PROG = "distill.py"


def _fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv=None) -> int:
    from bgrl.agents.search import MAX_PLY

    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--teacher", default="td198g", help="network that plays the games and gives the targets")
    p.add_argument("--student", default=None, help="network to train (default: the teacher)")
    p.add_argument("--games", type=int, default=5000, help="self-play games to collect positions from")
    p.add_argument("--noise", type=float, default=0.02, help="equity noise of the self-play choices")
    p.add_argument("--ply", type=int, default=argparse.SUPPRESS,
                   help=f"search depth of the targets, 0..{MAX_PLY} (default: 1; existing --data keep their own)")
    p.add_argument("--data", required=True, nargs="+",
                   help="npz file of positions and targets (made if missing); several existing files are joined")
    p.add_argument("--out", required=True,
                   help="student checkpoint path: each epoch's network is written to OUT with _epN before the suffix "
                        "(OUT_ep1.pt, OUT_ep2.pt, ...); OUT itself is not written")
    p.add_argument("--phases", nargs="+", default=None, metavar="PHASE",
                   help="fit only positions of these phases (contact, race, bearoff, crashed: bgrl.evaluation.phase)")
    p.add_argument("--epochs", type=int, default=4, help="training epochs (0: make --data and score the student only)")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--lr-final", type=float, default=None,
                   help="decay the step size linearly per epoch from --lr to this (default: constant --lr)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    ply_given = hasattr(args, "ply")
    ply = args.ply if ply_given else 1
    if args.games < 1:
        _fail(f"--games must be >= 1, got {args.games}")
    if not (math.isfinite(args.noise) and args.noise >= 0):
        _fail(f"--noise must be a finite number >= 0, got {args.noise}")
    if not 0 <= ply <= MAX_PLY:
        _fail(f"--ply must be 0..{MAX_PLY}, got {ply}")
    if args.epochs < 0:
        _fail(f"--epochs must be >= 0 (0: only make --data), got {args.epochs}")
    if not (math.isfinite(args.lr) and args.lr > 0):
        _fail(f"--lr must be a finite number > 0, got {args.lr}")
    if args.lr_final is not None and not (math.isfinite(args.lr_final) and args.lr_final > 0):
        _fail(f"--lr-final must be a finite number > 0, got {args.lr_final}")
    if args.batch < 1:
        _fail(f"--batch must be >= 1, got {args.batch}")
    check_phases_and_files(args.phases, args.data, _fail, flag="--data ")
    out = Path(args.out)
    problem = output_file_problem("--out", out) or output_file_problem("--out", out.with_name(f"{out.stem}_ep1{out.suffix}"))
    if problem:
        _fail(problem)

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    from bgrl.arena.benchmark import error_rate, load_benchmark
    from bgrl.evaluation.networks import CheckpointError, load_network, save_checkpoint
    from bgrl.evaluation.table import network_evaluator
    from bgrl._resources import resolve_checkpoint
    from bgrl.training.distill import collect_positions, fit, search_targets

    existing = len(args.data) > 1 or Path(args.data[0]).exists()
    if existing:
        missing = [d for d in args.data if not Path(d).exists()]
        if missing:
            _fail(f"data file(s) not found: {', '.join(missing)}")
        parts = [load_data(d, MAX_PLY, fail=_fail) for d in args.data]
        boards = np.concatenate([b for b, _, _, _ in parts])
        targets = np.concatenate([t for _, t, _, _ in parts])
        sources = sorted({f"{te} at {pl}-ply" for _, _, te, pl in parts})
        print(f"note: using the data's own targets ({', '.join(sources)}); --games, --noise and --ply apply only "
              f"when --data is made, --teacher only names the default student", flush=True)
        if ply_given:
            other = [f"{d} ({pl}-ply)" for d, (_, _, _, pl) in zip(args.data, parts) if pl != ply]
            if other:
                _fail(f"--ply {ply} differs from the data's: {', '.join(other)}; omit --ply or pass --data made at {ply}-ply")
        if boards.shape[0] < MIN_POSITIONS:
            _fail(f"--data holds {boards.shape[0]} positions; expected at least {MIN_POSITIONS} to fit")
        print(f"loaded {boards.shape[0]} positions with targets of {', '.join(sources)} from {', '.join(args.data)}")
    else:
        problem = output_file_problem("--data", Path(args.data[0]))
        if problem:
            _fail(problem)

    try:
        tnet, tmeta = load_network(resolve_checkpoint(args.teacher))
    except CheckpointError as exc:
        _fail(f"--teacher: {exc}")
    try:
        snet, smeta = load_network(resolve_checkpoint(args.student or args.teacher))
    except CheckpointError as exc:
        _fail(f"--student: {exc}")
    if smeta["encoder"] != tmeta["encoder"] and args.student is None:
        _fail("teacher and student encoders differ")
    teacher = network_evaluator(tnet, tmeta["encoder"])
    if not existing:
        data = Path(args.data[0])
        t0 = time.perf_counter()
        boards = collect_positions(teacher, args.games, seed=args.seed, noise=args.noise)
        print(f"{boards.shape[0]} positions from {args.games} games ({time.perf_counter() - t0:.0f} s)", flush=True)
        if boards.shape[0] < MIN_POSITIONS:
            _fail(f"{args.games} games gave {boards.shape[0]} positions; expected at least {MIN_POSITIONS} to fit "
                  f"(raise --games)")
        t0 = time.perf_counter()

        def progress(done, total):
            el = time.perf_counter() - t0
            print(f"  targets {done}/{total} ({done / el:.0f} positions/s)", flush=True)

        targets = search_targets(teacher, boards, ply, progress=progress)
        try:
            write_data(data, boards, targets, str(args.teacher), ply)
        except OSError as exc:
            _fail(f"cannot write {data}: {exc.strerror or exc}")
        sources = [f"{args.teacher} at {ply}-ply"]
    if args.phases:
        from bgrl.training.distill import select_phases

        n_all = boards.shape[0]
        boards, targets = select_phases(boards, targets, args.phases)
        print(f"phases {', '.join(args.phases)}: {boards.shape[0]} of {n_all} positions", flush=True)
        if boards.shape[0] < MIN_POSITIONS:
            _fail(f"--phases {' '.join(args.phases)} leaves {boards.shape[0]} positions; expected at least {MIN_POSITIONS} to fit")
    bench = load_benchmark()

    def on_epoch(ep, net):
        path = out.with_name(f"{out.stem}_ep{ep}{out.suffix}")
        meta = {k: v for k, v in smeta.items() if k not in ("hidden", "n_inputs", "package_version")}
        meta.update(distilled={"targets": sources, "data": [Path(d).name for d in args.data],
                               "positions": int(boards.shape[0]), "epochs": ep, "lr": args.lr, "lr_final": args.lr_final,
                               "batch": args.batch})
        try:
            save_checkpoint(path, net, meta)
        except OSError as exc:
            _fail(f"cannot write {path}: {exc.strerror or exc}")
        r = error_rate(network_evaluator(net, smeta["encoder"]), bench)
        print(f"  {path}: benchmark {r['all']:.2f} mp (contact {r['contact']:.2f}, race {r['race']:.2f})", flush=True)

    r0 = error_rate(network_evaluator(snet, smeta["encoder"]), bench)
    print(f"student before: benchmark {r0['all']:.2f} mp (contact {r0['contact']:.2f}, race {r0['race']:.2f})", flush=True)
    fit(snet, smeta["encoder"], boards, targets, epochs=args.epochs, lr=args.lr, lr_final=args.lr_final, batch=args.batch, seed=args.seed,
        on_epoch=on_epoch, log=lambda s: print(s, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
