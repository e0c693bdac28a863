"""Search distillation: fit a 0-ply network to a teacher's 1-ply values (bgrl.training.distill).

    python scripts/distill.py --teacher td198g --games 5000 --data runs/distill/data.npz \\
        --out runs/distill/student.pt --epochs 4
    bgrl match runs/distill/student_ep4.pt pubeval --games 10000 --seed 2

Steps (each skipped when its result is already in --data): self-play positions of the
teacher at 0-ply, their n-ply values (the slow part: about 400-1,400 positions/s per core at
1-ply), then training of the student (default: a copy of the teacher; or --student, e.g. a
wider network made by scripts/widen_encoder.py from the teacher). Each epoch's network is
written to OUT with ``_epN`` before the suffix and scored on the error-rate benchmark.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--teacher", default="td198g", help="network that plays the games and gives the targets")
    p.add_argument("--student", default=None, help="network to train (default: the teacher)")
    p.add_argument("--games", type=int, default=5000, help="self-play games to collect positions from")
    p.add_argument("--noise", type=float, default=0.02, help="equity noise of the self-play choices")
    p.add_argument("--ply", type=int, default=1, help="search depth of the targets")
    p.add_argument("--data", required=True, nargs="+",
                   help="npz file of positions and targets (made if missing); several existing files are joined")
    p.add_argument("--out", required=True, help="student checkpoint to write")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    from bgrl.benchmark import error_rate, load_benchmark
    from bgrl.checkpoint import load_network, save_checkpoint
    from bgrl.fasteval import best_evaluator
    from bgrl.resources import resolve_checkpoint
    from bgrl.training.distill import collect_positions, fit, search_targets

    tnet, tmeta = load_network(resolve_checkpoint(args.teacher))
    teacher = best_evaluator(tnet, tmeta["encoder"])
    if len(args.data) > 1 or Path(args.data[0]).exists():
        missing = [d for d in args.data if not Path(d).exists()]
        if missing:
            sys.exit(f"distill: data file(s) not found: {', '.join(missing)}")
        parts = [np.load(d) for d in args.data]
        boards = np.concatenate([z["boards"] for z in parts])
        targets = np.concatenate([z["targets"] for z in parts])
        sources = sorted({f"{z['teacher']} at {int(z['ply'])}-ply" for z in parts})
        print(f"loaded {boards.shape[0]} positions with targets of {', '.join(sources)} from {', '.join(args.data)}")
    else:
        data = Path(args.data[0])
        t0 = time.perf_counter()
        boards = collect_positions(teacher, args.games, seed=args.seed, noise=args.noise)
        print(f"{boards.shape[0]} positions from {args.games} games ({time.perf_counter() - t0:.0f} s)", flush=True)
        t0 = time.perf_counter()

        def progress(done, total):
            el = time.perf_counter() - t0
            print(f"  targets {done}/{total} ({done / el:.0f} positions/s)", flush=True)

        targets = search_targets(teacher, boards, args.ply, progress=progress)
        data.parent.mkdir(parents=True, exist_ok=True)
        tmp = data.with_name(data.name + ".tmp.npz")
        np.savez_compressed(tmp, boards=boards, targets=targets, teacher=str(args.teacher), ply=args.ply)
        tmp.replace(data)
        sources = [f"{args.teacher} at {args.ply}-ply"]
    snet, smeta = load_network(resolve_checkpoint(args.student or args.teacher))
    if smeta["encoder"] != tmeta["encoder"] and args.student is None:
        sys.exit("distill: teacher and student encoders differ")
    bench = load_benchmark()
    out = Path(args.out)

    def on_epoch(ep, net):
        path = out.with_name(f"{out.stem}_ep{ep}{out.suffix}")
        meta = {k: v for k, v in smeta.items() if k not in ("hidden", "n_inputs", "package_version")}
        meta.update(distilled={"targets": sources, "data": [Path(d).name for d in args.data],
                               "positions": int(boards.shape[0]), "epochs": ep, "lr": args.lr, "batch": args.batch})
        save_checkpoint(path, net, meta)
        r = error_rate(best_evaluator(net, smeta["encoder"]), bench)
        print(f"  {path}: benchmark {r['all']:.2f} mp (contact {r['contact']:.2f}, race {r['race']:.2f})", flush=True)

    r0 = error_rate(best_evaluator(snet, smeta["encoder"]), bench)
    print(f"student before: benchmark {r0['all']:.2f} mp (contact {r0['contact']:.2f}, race {r0['race']:.2f})", flush=True)
    fit(snet, smeta["encoder"], boards, targets, epochs=args.epochs, lr=args.lr, batch=args.batch, seed=args.seed,
        on_epoch=on_epoch, log=lambda s: print(s, flush=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
