"""Search targets for distillation: value the positions of distill data files at n-ply.

    python scripts/train/search_targets.py runs/d11/d_151.npz runs/d11/d_152.npz --teacher distilled7 \\
        --ply 2 --positions 20000 --out runs/t2/t2.npz
    # on a machine with a GPU and many cores (the network on the GPU, one process a core):
    python scripts/train/search_targets.py ... --device cuda --workers 15 --max-seconds 480
    python scripts/train/distill.py --student distilled7 --data runs/t2/t2.npz --out runs/t2/s.pt ...

Reads the positions (after-states, ``boards`` of ``scripts/train/distill.py`` data files), takes
``--positions`` of them in a seeded random order, and values each at ``--ply`` with
``--teacher`` (:func:`bgrl.training.distill.search_targets`, the values ``scripts/train/distill.py
--ply`` computes for its own positions). The result is a file ``scripts/train/distill.py --data``
reads (teacher ``--teacher``, ply ``--ply``).

Why beside ``scripts/train/distill.py``: that script values the positions it collects itself; this one
values positions that already exist at another depth (for example 2-ply values of positions
that a 1-ply round collected), split over ``--workers`` processes and, with ``--device cuda``,
with the network's arithmetic on a GPU (:class:`bgrl.evaluation.table.TableNetEvaluator`
``device``), about nine tenths of a 2-ply value's CPU time on one core.

Resumable and bounded: the positions are valued in chunks of ``--chunk``, each written
atomically to ``OUT.partK.npz`` beside ``--out``; a rerun with the same arguments skips the
chunks already written. Every part there is checked before any work: one made from other
positions or settings, or damaged, is an error naming it (and its settings). With ``--max-seconds`` no chunk is started after that time; ``--out`` then holds the
chunks done so far (a note says how many), and a rerun goes on. Bad input ends with a
one-line ``search_targets.py: error: ...`` and exit status 2.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

PROG = "search_targets.py"
_STATE: dict = {}


def _fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def _init(teacher: str, device: str, deadline: float) -> None:
    """Worker start: one torch thread, the teacher's evaluator on ``device``."""
    import torch

    torch.set_num_threads(1)
    from bgrl._resources import resolve_checkpoint
    from bgrl.evaluation.networks import load_network
    from bgrl.evaluation.table import network_evaluator

    net, meta = load_network(resolve_checkpoint(teacher))
    _STATE.update(ev=network_evaluator(net, meta["encoder"], device=device), deadline=deadline)


def _value(job) -> tuple[int, float] | None:
    """Value one chunk and write its part file; None when the deadline has passed."""
    k, part, boards, ply, settings = job
    if time.time() > _STATE["deadline"]:
        return None
    from bgrl._fileio import atomic_writer
    from bgrl.training.distill import search_targets

    t0 = time.perf_counter()
    tgt = np.clip(search_targets(_STATE["ev"], boards, ply=ply, chunk=128), 0.0, 1.0).astype(np.float32)
    with atomic_writer(Path(part)) as f:
        np.savez_compressed(f, boards=boards, targets=tgt, settings=settings)
    return k, time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("data", nargs="+", help="distill data files (npz from scripts/train/distill.py)")
    p.add_argument("--out", required=True, help="npz file of positions and their n-ply targets")
    p.add_argument("--teacher", default="distilled7", help="network whose search gives the values")
    p.add_argument("--ply", type=int, default=2, help="search depth of the values (1..3)")
    p.add_argument("--positions", type=int, default=None, help="value this many positions (None: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the positions' random order, >= 0")
    p.add_argument("--chunk", type=int, default=512, help="positions per part file")
    p.add_argument("--workers", type=int, default=1, help="processes (one torch thread each)")
    p.add_argument("--device", default="cpu", help="where the network runs: cpu, cuda or auto")
    p.add_argument("--max-seconds", type=float, default=None, help="start no chunk after this many seconds")
    args = p.parse_args(argv)

    from bgrl.training.data import MIN_POSITIONS, check_phases_and_files, load_data, read_part as read_part_file

    from bgrl._fileio import atomic_writer, output_file_problem
    from bgrl._resources import resolve_checkpoint
    from bgrl.agents.search import MAX_PLY
    from bgrl.evaluation.networks import CheckpointError, load_network
    from bgrl.training.distill import resolve_device

    if not 1 <= args.ply <= MAX_PLY:
        _fail(f"--ply must be 1..{MAX_PLY}, got {args.ply}")
    for name in ("positions", "chunk", "workers"):
        v = getattr(args, name)
        if v is not None and v <= 0:
            _fail(f"--{name} must be >= 1, got {v}")
    if args.seed < 0:
        _fail(f"--seed must be >= 0, got {args.seed}")
    if args.max_seconds is not None and not args.max_seconds > 0:
        _fail(f"--max-seconds must be > 0, got {args.max_seconds}")
    try:
        device = str(resolve_device(args.device))
    except ValueError as exc:
        _fail(f"--device: {exc}")
    try:
        load_network(resolve_checkpoint(args.teacher))
    except CheckpointError as exc:
        _fail(f"--teacher: {exc}")
    check_phases_and_files(None, args.data, _fail)
    out = Path(args.out)
    if any(Path(d).resolve() == out.resolve() for d in args.data):
        _fail(f"--out {out} is also one of the data files; expected a new file (it would be replaced)")
    problem = output_file_problem("--out", out) or output_file_problem("--out", out.with_name(f"{out.stem}.part0.npz"))
    if problem:
        _fail(problem)
    parts = [load_data(d, MAX_PLY, fail=_fail) for d in args.data]
    boards = np.concatenate([b for b, _, _, _ in parts])
    order = np.random.default_rng(args.seed).permutation(boards.shape[0])
    if args.positions is not None and args.positions > boards.shape[0]:
        print(f"note: --positions {args.positions}, but the data hold {boards.shape[0]}: valuing all of them")
    boards = boards[order[: args.positions]]
    n = boards.shape[0]
    if n < MIN_POSITIONS:
        _fail(f"{n} positions selected; expected at least {MIN_POSITIONS}")
    out.parent.mkdir(parents=True, exist_ok=True)
    settings = f"teacher={args.teacher} ply={args.ply} seed={args.seed} chunk={args.chunk} data={','.join(Path(d).name for d in args.data)}"

    def part_of(k: int) -> Path:
        return out.with_name(f"{out.stem}.part{k}.npz")

    starts = list(range(0, n, args.chunk))

    def read_part(k: int) -> np.ndarray | None:
        """The targets of part ``k`` (None when it is not there yet); exits on a damaged or
        foreign part, naming it."""
        part = part_of(k)
        b = boards[starts[k] : starts[k] + args.chunk]
        got = read_part_file(part, settings, b, ("targets",), fail=_fail, redo="value its positions again",
                             chosen_by="--positions",
                             pattern=f"{out.stem}.part*.npz")
        if got is None:
            return None
        return got["targets"]

    have_parts = {k: read_part(k) for k in range(len(starts))}  # every part checked before any work
    jobs = [(k, str(part_of(k)), boards[i : i + args.chunk], args.ply, settings)
            for k, i in enumerate(starts) if have_parts[k] is None]
    t0 = time.time()
    deadline = t0 + args.max_seconds if args.max_seconds else float("inf")
    print(f"{n} positions in {len(starts)} chunks, {len(starts) - len(jobs)} already done; "
          f"{args.teacher} at {args.ply}-ply on {device}, {args.workers} workers", flush=True)
    done = valued = 0
    sizes = {k: b.shape[0] for k, _, b, _, _ in jobs}
    if jobs:
        pool = None
        if args.workers == 1:
            _init(args.teacher, device, deadline)
            results = map(_value, jobs)
        else:
            pool = mp.get_context("spawn").Pool(args.workers, _init, (args.teacher, device, deadline))
            results = pool.imap_unordered(_value, jobs)
        try:
            for r in results:
                if r is None:
                    continue
                done += 1
                valued += sizes[r[0]]
                el = time.time() - t0
                print(f"  part {r[0]} ({r[1]:.0f} s); {done}/{len(jobs)} chunks this run, "
                      f"{valued / el:.0f} positions/s", flush=True)
        except OSError as exc:  # a part cannot be written (disk full, permissions): the parts done stay
            if pool is not None:
                pool.terminate()
            _fail(f"cannot write a part file beside --out {out} ({exc}); the parts written so far are kept, "
                  "rerun to go on")
        if pool is not None:
            pool.close()
            pool.join()

    got_b, got_t, have = [], [], 0
    for k, i in enumerate(starts):
        t = have_parts[k] if have_parts[k] is not None else read_part(k)  # parts found at the start were read then
        if t is None:
            continue
        got_b.append(boards[i : i + args.chunk])
        got_t.append(t)
        have += 1
    if not have:
        _fail("no chunk was finished before --max-seconds; nothing to write")
    try:
        with atomic_writer(out) as f:
            np.savez_compressed(f, boards=np.concatenate(got_b), targets=np.concatenate(got_t),
                                teacher=args.teacher, ply=args.ply)
    except OSError as exc:
        _fail(f"cannot write --out {out} ({exc}); the part files are kept, rerun to join them")
    m = sum(x.shape[0] for x in got_b)
    note = "" if have == len(starts) else f" (partial: {have} of {len(starts)} chunks; rerun to go on)"
    print(f"wrote {out}: {m} positions, targets of {args.teacher} at {args.ply}-ply{note}; {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
