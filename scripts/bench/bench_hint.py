"""Hint latency: ours (``LevelAgent.hint``, n-ply search) beside gnubg-nn's hint, same positions.

    python scripts/bench/bench_hint.py [--positions 60] [--seed 0]

One process, one thread, everything loaded before timing (latency inside a running
process). Positions: contact positions (not races) with at least two legal plays, from
self-play games of the shipped network; each ply gets its own third of them, so neither
engine's evaluation cache is warmed by another ply's run (gnubg-nn caches evaluations).
Ours: the full hint (every legal play with notation, ranked; the expert
level's network by default, ``--level NAME`` another's, and gnubg's normal move filters, 8 plays within 0.16 then 2 within 0.04).
gnubg-nn: ``best_move(board, d1, d2, n=ply, list=1)`` (its ranked list with its own move
filters; called only where there is a choice, as its n-ply ``best_move`` crashes on some
single-play positions).

Both wall-clock and CPU time (``time.thread_time``) are measured per call; on a shared
machine the CPU time is the fairer figure. Needs the ``gnubg`` extra.

    python scripts/bench/bench_hint.py --one-position [--positions 400] [--seed 0] [--level expert]

One position at a time (issue 39): ``bgrl.hint(pos, dice, level=LEVEL, ply=0, top=10)`` (every
play ranked, the top 10 named) and ``agent.choose_play(pos, dice)`` on their one-position fast
paths (compiled generator and forward pass, notation for the shown rows only, the level opened
once), beside the numpy path as it was before them (kept below: the level opened at each call,
every play named, the batch ranker, the numpy generator and evaluator) and, where gnubg-nn is
installed, ``best_move(..., n=0, list=1)`` and ``best_move(..., n=0)``. Distinct contact
positions, half for the hints and half for the plays (gnubg-nn caches evaluations), each
timed once per engine, the engines in turn; CPU time per call; ratios are speeds (``before /
new``: how many times faster; ``gnubg / new``: bgrl's speed as a share of gnubg's).

    python scripts/bench/bench_hint.py --done-when [--seconds 4] [--level expert] [--positions 200]

Every figure of issue 39's "Done when" list as a ratio, in one run, one thread, CPU time
(``time.process_time``) unless a row says wall: the generator at batch 1,024 beside
``gnubg_nn.moves`` (alternating slices; bench_env.py's runners, kept in tests/workloads.py), the one-position 0-ply hint
and ``choose_play`` beside gnubg-nn (as ``--one-position``), the native vector env (self-play,
N = 1,024) and one self-play env beside OpenSpiel's Python loop (bench_env.py's runners), TD
training's games per CPU second beside the numpy path of before (``compiled.disabled()``: the
numpy generator, table rows and table build; alternating slices, bench_train.py's trainer on
the shipped network), 1,296 rollout trials at 0-ply (bench_rollout.py's position and level)
now and before, the 2- and 3-ply hint of contact positions (``bgrl.hint``, the hint's default
level) against the 25 ms target, and ``bgrl --version`` beside ``python -c "import numpy"``
(wall time, best of 7). Needs the ``gnubg`` and ``bench`` extras for the gnubg and OpenSpiel rows.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from workloads import contact_decisions  # noqa: E402  (tests/workloads.py)

TARGET_MS = {0: 1.0, 1: 10.0, 2: 100.0}


def timed(fn):
    w, c = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - w) * 1e3, (time.thread_time() - c) * 1e3


def numpy_hint(pos, dice, level: str, top: int | None = 10):
    """``bgrl.hint(pos, dice, level=level, ply=0, top=top)`` as it ran before the one-position
    fast path: the level opened at each call, every play named (``legal_plays``), the batch
    ranker (``rank_many``), the rows cut at ``top`` afterwards. Run it inside
    ``bgrl.evaluation.compiled.disabled()`` for the numpy generator and evaluator."""
    from bgrl._resources import shipped_checkpoint
    from bgrl.agents.base import check_decision
    from bgrl.agents.hints import HintRanker
    from bgrl.agents.levels import LEVELS, LevelAgent
    from bgrl.evaluation.networks import open_network

    check_decision(pos, dice)
    lv = LEVELS[level]
    loaded = open_network(shipped_checkpoint(lv.network), backend="torch")
    rows = HintRanker.from_agent(LevelAgent(lv, loaded.evaluator, meta=loaded.meta), 0).rank_many([(pos, dice)])[0]
    return rows[:top] if top else rows


def numpy_choose_play(agent, pos, dice, rng=None):
    """``agent.choose_play(pos, dice)`` as it ran before the one-position fast path: every play
    named, a second generator call, a fresh generator, a level's choice through ``search_plays``,
    the chosen board looked up among the plays."""
    import numpy as np

    from bgrl.agents.base import check_decision
    from bgrl.agents.search import search_plays
    from bgrl.rules.movegen import generate
    from bgrl.rules.notation import legal_plays

    pos, d = check_decision(pos, dice)
    plays = legal_plays(pos, d)
    if not plays:
        return None
    rng = rng if rng is not None else np.random.default_rng()
    aft = generate(pos.board[None], np.array([d], dtype=np.int8))
    lv = getattr(agent, "level", None)
    if lv is not None and lv.noise <= 0:  # LevelAgent.select before: the search at every ply
        k = int(search_plays(agent.evaluator, aft.boards, aft.offsets, lv.ply, lv.filters, prune=agent.pruning()).best[0])
    else:
        k = int(agent.select(aft, rng)[0])
    chosen = aft.boards[k].tobytes()
    return next(p for p in plays if p.after_state.tobytes() == chosen)


def one_position(args) -> int:
    """The one-position table (see the module docstring)."""
    mean, agent, n, have_gnubg = _one_position_means(args.level, args.positions, args.seed)
    print(f"level {args.level} ({agent.level.network} network, 0-ply); machine: {platform.machine()}, "
          f"python {platform.python_version()}, torch {torch.__version__}, 1 thread; {n} contact positions "
          f"with a choice (seed {args.seed}), half for each row; mean CPU ms per call"
          + ("" if have_gnubg else "; gnubg-nn not installed"))
    print(f"{'':<32}  {'new':>7}  {'before':>7}  {'gnubg':>7}  {'before/new':>10}  {'gnubg/new':>9}")
    for key, label in (("hint", "0-ply hint, top 10 named"), ("play", "choose_play at 0-ply")):
        new, before, gn = mean[f"{key} new"], mean[f"{key} before"], mean.get(f"{key} gnubg")
        gcol = f"{gn:>7.3f}" if gn is not None else f"{'-':>7}"
        rcol = f"{gn / new:>8.2f}x" if gn is not None else f"{'-':>9}"
        print(f"{label:<32}  {new:>7.3f}  {before:>7.3f}  {gcol}  {before / new:>9.2f}x  {rcol}")
    return 0


def _one_position_means(level: str, positions: int, seed: int):
    """Mean CPU ms per call of the one-position rows: ``({"hint new", "hint before", "hint gnubg",
    "play new", ...}: ms, the agent, positions timed, whether gnubg-nn ran)``."""
    import bgrl
    from bgrl.agents.levels import load_level
    from bgrl.evaluation import compiled
    from bgrl.gnubg.adapter import to_gnubg
    from bgrl.rules.board import Position

    try:
        import gnubg_nn as g
    except ImportError:
        g = None
    agent = load_level(level)
    decisions = contact_decisions(positions + 1, seed)
    warm_b, warm_d = decisions.pop()
    warm = Position.from_board(warm_b)
    for _ in range(3):  # everything loaded and compiled before timing
        bgrl.hint(warm, warm_d, level=level, ply=0, top=10)
        agent.choose_play(warm, warm_d)
        with compiled.disabled():
            numpy_hint(warm, warm_d, level)
            numpy_choose_play(agent, warm, warm_d)
        if g is not None:
            g.best_move(to_gnubg(warm_b), warm_d[0], warm_d[1], n=0, s=b"X", list=1)
    assert compiled.active(), "the compiled kernels did not load (numba, or BGRL_COMPILED=0)"
    times = {k: [] for k in ("hint new", "hint before", "hint gnubg", "play new", "play before", "play gnubg")}

    def cpu(fn):
        c = time.thread_time()
        fn()
        return (time.thread_time() - c) * 1e3

    def off(fn):
        with compiled.disabled():
            return cpu(fn)

    for j, (board, dice) in enumerate(decisions):
        pos, pair = Position.from_board(board), to_gnubg(board)
        if j % 2 == 0:
            runs = [("hint new", lambda: cpu(lambda: bgrl.hint(pos, dice, level=level, ply=0, top=10))),
                    ("hint before", lambda: off(lambda: numpy_hint(pos, dice, level))),
                    ("hint gnubg", lambda: cpu(lambda: g.best_move(pair, dice[0], dice[1], n=0, s=b"X", list=1)))]
        else:
            runs = [("play new", lambda: cpu(lambda: agent.choose_play(pos, dice))),
                    ("play before", lambda: off(lambda: numpy_choose_play(agent, pos, dice))),
                    ("play gnubg", lambda: cpu(lambda: g.best_move(pair, dice[0], dice[1], n=0, s=b"X")))]
        if g is None:
            runs = runs[:2]
        for k in range(len(runs)):  # the engines in turn, a different one first at each position
            name, fn = runs[(j // 2 + k) % len(runs)]
            times[name].append(fn())
    mean = {k: statistics.fmean(v) for k, v in times.items() if v}
    return mean, agent, len(decisions), g is not None


def done_when(args) -> int:
    """Every figure of issue 39's "Done when" list as a ratio, in one run (see the module docstring)."""
    import subprocess

    import numba  # noqa: F401 - "auto": the compiled kernels run once numba is imported

    import workloads as be  # tests/workloads.py: bench_env.py's side-by-side runners
    import bgrl
    import numpy as np
    from bgrl.agents.levels import DEFAULT_HINT_LEVEL
    from bgrl.evaluation import compiled
    from bgrl.rules.board import Position

    assert compiled.ensure(), "the compiled kernels did not load (numba, or BGRL_COMPILED=0)"
    s = args.seconds
    rows = []  # (figure, bgrl, reference, ratio, target text, met)

    def row(figure, ours, ref, ratio, target, met):
        rows.append((figure, ours, ref, ratio, target, met))
        print(f"  {figure}: {ours} / {ref}: {ratio:.2f}x (target {target}){'' if met else '  NOT MET'}", flush=True)

    class Off:
        """A runner's ``run`` inside :func:`bgrl.evaluation.compiled.disabled` (the numpy code, as before issue 39)."""

        def __init__(self, runner):
            self.runner = runner

        def run(self, seconds):
            with compiled.disabled():
                return self.runner.run(seconds)

    from llvmlite import binding as llvm  # numba's: the CPU its kernels are compiled for (znver1's AVX2 is 128 bits wide)

    print(f"machine: {platform.machine()} ({llvm.get_host_cpu_name()}), os.cpu_count()={os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.2f}; "
          f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}, 1 thread; "
          f"--seconds {s:g}\n", flush=True)

    # 1. the generator, batch 1,024, beside gnubg-nn's moves (and the numpy generator)
    from positions import random_game_positions

    boards, dice = random_game_positions(np.random.default_rng(0), 16384, parallel=256)
    try:
        gnu = be.GnubgRunner(boards, dice)
    except ImportError:
        gnu = None
    gen, gen_np = be.GenRunner(boards, dice, 1024), be.GenRunner(boards, dice, 1024)
    if gnu is not None:
        tg, tn = be.side_by_side(gen, gnu, 2 * s)
        tp, tn2 = be.side_by_side(Off(gen_np), gnu, 2 * s)  # gnubg's slices of both runs count
        ours, theirs, old = gen.positions / tg, gnu.positions / (tn + tn2), gen_np.positions / tp
        row("move generation, batch 1,024, positions/s (gnubg_nn.moves)", f"{ours:,.0f}", f"{theirs:,.0f}", ours / theirs,
            ">= 3x", ours / theirs >= 3)
        print(f"    (the numpy generator {old:,.0f} positions/s: {old / theirs:.2f}x gnubg; compiled / numpy {ours / old:.2f}x)")

    # 2. one position at 0-ply: the hint (every play ranked, top 10 named) and choose_play, beside gnubg-nn
    mean, _agent, n, have = _one_position_means(args.level, args.positions or 200, args.seed)
    if have:
        for key, label, ref in (("hint", "0-ply hint of one position, ms (best_move list=1)", "hint gnubg"),
                                ("play", "choose_play at 0-ply, ms (best_move)", "play gnubg")):
            new, gn = mean[f"{key} new"], mean[ref]
            row(label, f"{new:.3f}", f"{gn:.3f}", gn / new, ">= 0.25x (aim 0.5x)", gn / new >= 0.25)
            print(f"    (before the fast path {mean[f'{key} before']:.3f} ms: {mean[f'{key} before'] / new:.1f}x slower; "
                  f"{n} positions, level {args.level})")

    # 3. the environments beside OpenSpiel's Python loop (decisions per second)
    try:
        osp = be.OpenSpielRunner()
    except ImportError:
        osp = None
    if osp is not None:
        vr = be.VectorRunner("bgrl/BackgammonSelfPlay-v0", 1024)
        d0 = osp.decisions
        tv, to = be.side_by_side(vr, osp, 2 * s)
        ours, theirs = vr.steps / tv, (osp.decisions - d0) / to
        row("native vector env, self-play, N = 1,024, decisions/s (OpenSpiel)", f"{ours:,.0f}", f"{theirs:,.0f}",
            ours / theirs, ">= 5x", ours / theirs >= 5)
        single = be.SingleRunner()
        d0 = osp.decisions
        ts, to = be.side_by_side(single, osp, 2 * s)
        ours, theirs = single.steps / ts, (osp.decisions - d0) / to
        row("one self-play env (notation=False), decisions/s (OpenSpiel)", f"{ours:,.0f}", f"{theirs:,.0f}", ours / theirs,
            ">= 1x", ours / theirs >= 1)

    # 4. TD training: games per CPU second, compiled beside the numpy path of before (alternating slices)
    tds = [_trainer(args.train_games, args.seed) for _ in range(2)]
    games, cpu = [0, 0], [0.0, 0.0]
    for _ in range(args.rounds):
        for k, td in enumerate(tds):
            with (compiled.disabled() if k == 1 else contextlib.nullcontext()):
                c = time.process_time()
                while time.process_time() - c < s / 2:
                    games[k] += len(td.step()["finished"])
                cpu[k] += time.process_time() - c
    new, old = games[0] / cpu[0], games[1] / cpu[1]
    row(f"TD training ({args.train_games} games in lockstep), games per CPU second (before)", f"{new:.0f}", f"{old:.0f}",
        new / old, ">= 2x", new / old >= 2)

    # 5. rollouts: 1,296 trials at 0-ply, CPU seconds, before / now
    from bgrl.agents.levels import load_level
    from bgrl.agents.rollout import rollout_boards
    from workloads import ROLLOUT_POSITION as POSITION

    ev = load_level(args.level).evaluator
    board = Position.from_id(POSITION).board[None]
    rollout_boards(ev, board, trials=8, seed=0)  # to the end: loads the bear-off database for both paths
    spent = {}
    for mode in ("now", "before", "now", "before")[: 2 * args.rollout_runs]:
        with (compiled.disabled() if mode == "before" else contextlib.nullcontext()):
            c = time.process_time()
            rollout_boards(ev, board, trials=1296, seed=args.seed, ply=0, variance_reduction=args.rollout_vr)
            spent.setdefault(mode, []).append(time.process_time() - c)
    now, before = min(spent["now"]), min(spent["before"])
    row(f"1,296 rollout trials at 0-ply ({args.level}, variance reduction {'on' if args.rollout_vr else 'off'}), "
        "CPU s (before)", f"{now:.2f}", f"{before:.2f}", before / now, ">= 2x (half the time)", before / now >= 2)

    # 6. a 2-ply hint of a typical contact position (bgrl.hint: the hint's default level, and --level),
    #    and a 3-ply one (the default level, fewer positions)
    decisions = contact_decisions(args.deep_positions + 1, args.seed + 1)
    wb, wd = decisions.pop()
    for level, plies in ((None, (2, 3)), (args.level, (2,))):
        name = level or DEFAULT_HINT_LEVEL
        for ply in plies:
            bgrl.hint(Position.from_board(wb), wd, ply=ply, **({"level": level} if level else {}))
        for ply in plies:
            some = decisions if ply == 2 else decisions[: args.deep3_positions]
            ms = [timed(lambda: bgrl.hint(Position.from_board(b), d, ply=ply, **({"level": level} if level else {})))[1]
                  for b, d in some]
            mean_ms, med_ms = statistics.fmean(ms), statistics.median(ms)
            if ply == 2:
                row(f"2-ply hint of a contact position (bgrl.hint, level {name}), mean CPU ms", f"{mean_ms:.1f}", "25",
                    25.0 / mean_ms, "<= 25 ms (ratio >= 1x)", mean_ms <= 25.0)
                print(f"    (median {med_ms:.1f} ms; {len(some)} contact positions)")
                if have and level is None:  # the machine's speed in the same run: gnubg-nn's 2-ply hint, same positions
                    from bgrl.gnubg.adapter import require_gnubg, to_gnubg

                    g = require_gnubg()
                    g.best_move(to_gnubg(wb), wd[0], wd[1], n=2, s=b"X", list=1)
                    gms = [timed(lambda: g.best_move(to_gnubg(b), d[0], d[1], n=2, s=b"X", list=1))[1] for b, d in some]
                    print(f"    (gnubg-nn's 2-ply hint, best_move(n=2, list=1), same positions and run: mean "
                          f"{statistics.fmean(gms):.1f} ms CPU; bgrl / gnubg {mean_ms / statistics.fmean(gms):.2f}x the time)")
            else:
                print(f"  3-ply hint of a contact position (bgrl.hint, level {name}): mean {mean_ms:.0f} ms CPU, "
                      f"median {med_ms:.0f} ms ({len(some)} contact positions; no target)")
                deep3 = (name, mean_ms, med_ms, len(some))

    # 7. start-up: bgrl --version beside python -c "import numpy" (wall time, best of n, alternating)
    exe = [sys.executable, "-c", "import sys; from bgrl.cli import main; sys.argv = ['bgrl', '--version']; main()"]
    bgrl_bin = Path(sys.executable).with_name("bgrl")
    if bgrl_bin.exists():
        exe = [str(bgrl_bin), "--version"]
    best = {"bgrl": [], "numpy": []}
    for _ in range(args.startup_runs):
        for key, cmd in (("bgrl", exe), ("numpy", [sys.executable, "-c", "import numpy"])):
            w = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            best[key].append(time.perf_counter() - w)
    b_ms, n_ms = 1e3 * min(best["bgrl"]), 1e3 * min(best["numpy"])
    row("bgrl --version, wall ms, best of runs (python -c 'import numpy')", f"{b_ms:.0f}", f"{n_ms:.0f}", n_ms / b_ms,
        "<= 3x the time (ratio >= 0.33x)", b_ms <= 3 * n_ms)

    print("\nissue 39, 'Done when' (ratios: bgrl's speed / the reference's, so higher is better; one run)")
    print(f"{'figure':<96} {'bgrl':>10} {'reference':>10} {'ratio':>8}  target")
    print("-" * 150)
    for figure, ours, ref, ratio, target, met in rows:
        print(f"{figure:<96} {ours:>10} {ref:>10} {ratio:>7.2f}x  {target}{'' if met else '  NOT MET'}")
    name, mean_ms, med_ms, n3 = deep3
    print(f"3-ply hint (level {name}), {n3} contact positions: mean {mean_ms:.0f} ms, median {med_ms:.0f} ms CPU (no target)")
    return 0


def _trainer(games: int, seed: int):
    """A TD(lambda) trainer on the shipped network (as ``scripts/bench/bench_train.py``), warmed up."""
    from bgrl._resources import shipped_checkpoint
    from bgrl.evaluation.bearoff import exact_probs
    from bgrl.evaluation.networks import load_network
    from bgrl.training.td import TDLambda

    import numpy as np

    net, meta = load_network(shipped_checkpoint())
    td = TDLambda(net, meta["encoder"], games, 1e-3 / games, 0.7, np.random.default_rng(seed), exact=exact_probs)
    for _ in range(120):
        td.step()
    return td


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=None,
                   help="positions in all, split over the three plies (default 60), or over the two rows with "
                        "--one-position (default 400)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--level", default="expert",
                   help="whose network and move filters search the hints (default expert; grandmaster: the top level's)")
    p.add_argument("--one-position", action="store_true",
                   help="time one-position 0-ply hints and choose_play: new, the numpy path before, gnubg-nn")
    p.add_argument("--done-when", action="store_true",
                   help="print every figure of issue 39's 'Done when' list as a ratio, in one run")
    g = p.add_argument_group("--done-when")
    g.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per side of each side-by-side row (default 4)")
    g.add_argument("--rounds", type=int, default=4, help="training slices per side (default 4)")
    g.add_argument("--train-games", type=int, default=128, help="games in lockstep of the TD trainer (default 128)")
    g.add_argument("--rollout-vr", action=argparse.BooleanOptionalAction, default=False,
                   help="variance reduction in the rollout row (default off: bench_rollout.py's 1,296-trial target)")
    g.add_argument("--rollout-runs", type=int, default=2, choices=(1, 2), help="rollouts per side, in turns, best taken (default 2)")
    g.add_argument("--deep-positions", type=int, default=20, help="contact positions for the 2-ply hints (default 20)")
    g.add_argument("--deep3-positions", type=int, default=6, help="of them, for the 3-ply hint (default 6)")
    g.add_argument("--startup-runs", type=int, default=7, help="start-ups of each command, best taken (default 7)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.done_when:
        return done_when(args)
    if args.positions is None:
        args.positions = 400 if args.one_position else 60
    if args.one_position:
        from bgrl.agents.levels import LEVELS

        if args.level not in LEVELS:
            p.error(f"unknown level {args.level!r}")
        return one_position(args)
    from bgrl.rules.board import Position
    from bgrl.gnubg.adapter import require_gnubg, to_gnubg
    from bgrl.agents.levels import load_level

    g = require_gnubg()
    try:
        agent = load_level(args.level)
    except ValueError as exc:
        p.error(str(exc))
    decisions = contact_decisions(args.positions + 1, args.seed)
    warm_b, warm_d = decisions.pop()
    for ply in (0, 1, 2):  # warm both engines up on a position not timed
        agent.hint(Position.from_board(warm_b), warm_d, ply=ply)
        g.best_move(to_gnubg(warm_b), warm_d[0], warm_d[1], n=ply, s=b"X", list=1)
    print(f"level {args.level} ({agent.level.network} network); "
          f"machine: {platform.machine()}, {platform.python_version()}, torch {torch.__version__}, 1 thread; "
          f"{len(decisions)} contact positions with a choice (seed {args.seed}), one third per ply")
    print(f"{'ply':>3}  {'n':>3}  {'ours wall':>10}  {'ours cpu':>9}  {'gnubg wall':>10}  {'gnubg cpu':>9}  {'ours/gnubg':>10}  {'target':>7}")
    print(f"{'':>3}  {'':>3}  {'median ms':>10}  {'mean ms':>9}  {'median ms':>10}  {'mean ms':>9}  {'(cpu)':>10}  {'ms':>7}")
    for ply in (0, 1, 2):
        ours_w, ours_c, gn_w, gn_c = [], [], [], []
        for board, dice in decisions[ply::3]:
            pos = Position.from_board(board)
            w, c = timed(lambda: agent.hint(pos, dice, ply=ply))
            ours_w.append(w)
            ours_c.append(c)
            pair = to_gnubg(board)
            w, c = timed(lambda: g.best_move(pair, dice[0], dice[1], n=ply, s=b"X", list=1))
            gn_w.append(w)
            gn_c.append(c)
        oc, gc = statistics.fmean(ours_c), statistics.fmean(gn_c)
        print(f"{ply:>3}  {len(ours_c):>3}  {statistics.median(ours_w):>10.2f}  {oc:>9.2f}  {statistics.median(gn_w):>10.2f}  "
              f"{gc:>9.2f}  {oc / gc:>9.2f}x  {TARGET_MS[ply]:>7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
