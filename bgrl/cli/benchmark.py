"""``bgrl benchmark AGENT [AGENT ...]``: error rate on the shipped benchmark (bgrl.arena.benchmark)."""

from __future__ import annotations

import json

from bgrl.arena.benchmark import error_rate, format_table, load_benchmark, shipped_benchmark_path
from bgrl.cli._common import CLIError, agent_code, show_progress
from bgrl._fileio import check_npz
from bgrl.agents.registry import load_agent

__all__ = ["add_parser", "cmd_benchmark"]


def cmd_benchmark(args) -> int:
    """``bgrl benchmark AGENT [AGENT ...] [--file PATH] [--json]``: print :func:`error_rate` of each agent.

    AGENT is any spec :func:`bgrl.agents.registry.load_agent` accepts. Bad specs and files raise
    ValueError (the CLI turns it into a one-line error, exit status 2).
    """
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch is a core dependency
        pass
    bench = _load(args.file)
    with agent_code(args.agents):  # an agent calling sys.exit is an error, not exit 0
        return _run(args, bench, load_agent)


def _load(file):
    """The benchmark of ``--file`` (default: the shipped one), its .npz checked first
    (:func:`bgrl._fileio.check_npz`: a regular file, a whole archive, array headers within
    numpy's limit and arrays the size their headers say); CLIError (one line, exit 2) otherwise."""
    import zipfile
    import zlib

    expected = "a benchmark .npz written by bgrl.arena.benchmark.save_benchmark"
    if file is not None:
        check_npz(file, "benchmark file", expected)  # InputFileError, a ValueError: one line, exit 2
    try:
        return load_benchmark(file)
    except (zipfile.BadZipFile, zlib.error, EOFError, KeyError, MemoryError) as exc:
        raise CLIError(f"cannot read benchmark file {file} ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}); "
                       f"expected {expected}") from None


def _run(args, bench, load_agent) -> int:
    from bgrl.agents.registry import load_agent

    import sys
    import time

    from tqdm import tqdm

    agents = [(spec, load_agent(spec)) for spec in args.agents]  # all specs checked before any work
    rows = {}
    quiet = not show_progress(args.json)
    for spec, agent in agents:
        t0 = time.perf_counter()
        with tqdm(total=bench.decisions, unit="decision", desc=str(spec)[:28], disable=quiet, leave=False) as bar:
            rows[spec] = error_rate(agent, bench, progress=bar.update, name=str(spec))
        rows[spec]["seconds"] = round(time.perf_counter() - t0, 3)
    if args.json:
        print(json.dumps({"benchmark": str(args.file or shipped_benchmark_path()), "results": rows}))
    else:
        print(format_table(rows))
        sys.stdout.flush()
    return 0


def add_parser(sub) -> None:
    bm = sub.add_parser("benchmark", help="error rate (millipoints lost per decision, gnubg 2-ply) of agents")
    bm.add_argument("agents", nargs="+", metavar="AGENT", help="any agent spec of match (random, pubeval, a level, default, gnubg, gnubg:N, a checkpoint)")
    bm.add_argument("--file", default=None, help="benchmark file: an .npz written by save_benchmark, at most 1 GiB of "
                    "arrays (default: the shipped bgrl/data/benchmark.npz)")
    bm.add_argument("--json", action="store_true")
    bm.set_defaults(func=cmd_benchmark)

