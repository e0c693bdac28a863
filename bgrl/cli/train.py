"""``bgrl train``: the training subcommand (registered by :mod:`bgrl.cli`)."""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from bgrl._resources import shipped_path
from bgrl.agents.levels import LEVEL_NAMES, LEVELS
from bgrl.agents.registry import load_agent
from bgrl.evaluation.networks import load_checkpoint
from bgrl.training.config import TrainConfig, load_config_file
from bgrl.training.pipeline import is_pipeline_run, is_recipe, load_recipe, recipe_path, run_pipeline, shipped_recipes

__all__ = ["add_train_parser", "cmd_train", "rate_after_training", "RATE_GAMES"]

#: Games of the short rating that ends a plain ``bgrl train`` (bgrl.arena.rating).
RATE_GAMES = 600

# flag dest -> TrainConfig field
_TUNABLE = {
    "alpha": "alpha", "alpha_final": "alpha_final", "lam": "lam", "parallel": "parallel", "eval_every": "eval_every",
    "eval_games": "eval_games", "checkpoint_every": "checkpoint_every", "benchmark_every": "benchmark_every",
}


def add_train_parser(sub) -> argparse.ArgumentParser:
    c = TrainConfig()
    t = sub.add_parser(
        "train",
        help="TD(lambda) self-play training",
        description="TD(lambda) self-play training. Settings come from the defaults, then --config FILE, then the flags. "
        "With --resume, only --games, --alpha, --alpha-final, --lambda, --parallel, --benchmark-every and the "
        "--eval/--checkpoint settings may change; they override the run's config. Unchanged, a resumed run continues "
        "bit for bit.",
    )
    t.add_argument("--config", metavar="FILE", default=None,
                   help="TOML or JSON file of settings (keys: the flag names, e.g. alpha-final = 0.02, or run_dir; flags override it), "
                   "or a recipe: a file of [[stage]] tables (td, widen, distill, average) or a shipped recipe's name "
                   f"({', '.join(shipped_recipes())}; see docs/training.md) (default: none)")
    t.add_argument("--games", type=int, default=None,
                   help=f"total games to reach (default {c.games}; with --resume: the new total). Training stops after the step "
                   "that reaches it, so the total can end slightly above: games played in lockstep that end on the same ply "
                   "all count (at most --parallel - 1 more); a rounds backend finishes whole rounds of --parallel games. "
                   "Stopping exactly would change the games in flight, and a resumed run would no longer match an "
                   "uninterrupted one bit for bit")
    t.add_argument("--run-dir", default=None, help="run folder (default runs/td-YYYYmmdd-HHMMSS)")
    t.add_argument("--resume", metavar="RUN_DIR", default=None, help="continue the run in RUN_DIR from its latest.pt (default: start a new run)")
    t.add_argument("--init-from", metavar="CHECKPOINT", default=None,
                   help="start a new run from this network's weights ('default' = the shipped one, or a .pt file or run folder); "
                   "default: random weights")
    t.add_argument("--hidden", type=int, default=None, help=f"hidden units (default {c.hidden})")
    t.add_argument("--alpha", type=float, default=None, help=f"TD step size of one game's update (default {c.alpha})")
    t.add_argument("--alpha-final", type=float, default=None, help="decay alpha linearly to this value (default: constant)")
    t.add_argument("--lambda", dest="lam", type=float, default=None, help=f"trace decay lambda (default {c.lam})")
    t.add_argument("--parallel", type=int, default=None,
                   help=f"games played in lockstep (default {c.parallel}); with a rounds backend: games per round (default 128)")
    t.add_argument("--seed", type=int, default=None, help=f"seed of dice and initial weights (default {c.seed})")
    t.add_argument("--eval-every", type=int, default=None,
                   help=f"games between evaluations vs random and pubeval (default {c.eval_every}; 0 = never)")
    t.add_argument("--eval-games", type=int, default=None, help=f"games per evaluation (default {c.eval_games})")
    t.add_argument("--checkpoint-every", type=int, default=None,
                   help=f"games between latest.pt writes (default {c.checkpoint_every}); a killed run loses at most this many")
    t.add_argument("--benchmark-every", type=int, default=None,
                   help="games between error-rate benchmark runs (needs bgrl.arena.benchmark; default 0 = never)")
    t.add_argument("--no-bearoff", dest="bearoff", action="store_const", const=False, default=None,
                   help="value bear-offs and one-checker positions with the network instead of exactly (bgrl.evaluation.exact) (default: exact)")
    t.add_argument("--no-progress", action="store_true", help="no tqdm bar (default: a bar)")
    t.add_argument("--rate-games", type=int, default=RATE_GAMES,
                   help="after training, rate the network on the ladder of levels (bgrl rate) with at most this many "
                   "games; 0 = skip; runs only when evaluations are on (--eval-every > 0) (default: %(default)s)")
    t.add_argument("--backend", choices=("local", "local-rounds", "ray"), default=None,
                   help="local: online TD(lambda) in this process; local-rounds / ray: rounds of --parallel games played "
                   "with the previous weights, here or on Ray actors (bgrl[ray]), and learned online by this process; "
                   "deterministic (default: local; with --resume: the backend the run folder records)")
    t.add_argument("--address", default=None,
                   help="with --backend ray: the cluster to join, 'auto' or HOST:PORT (default: start Ray on this machine)")
    t.add_argument("--actors", type=int, default=None,
                   help="with --backend ray: number of actors, one CPU each (default 2; with --resume: the run's own)")
    t.add_argument("--task-games", type=int, default=None,
                   help="with a rounds backend: games per task (one actor plays a task); fixed for a run (default 32); "
                   "make --parallel (the games of a round) a multiple of actors x task games")
    t.add_argument("--lockstep", type=int, default=None,
                   help="with a rounds backend: games played at once within a task; fixed for a run (default 16)")
    t.set_defaults(func=cmd_train)
    return t


def _benchmark_hook():
    """The error-rate benchmark as a training hook, or None when bgrl.arena.benchmark is absent."""
    try:
        from bgrl.arena import benchmark as bm
    except ImportError:
        return None
    fn = getattr(bm, "error_rate", None)
    if fn is None:
        return None

    def hook(evaluator, games):
        return fn(evaluator)

    return hook


def _pipeline(args) -> bool:
    """Run a recipe (``--config`` naming a file with [[stage]] tables, or a shipped recipe) or
    resume a recipe's run folder; False when the command is a plain TD run."""
    resume = args.resume is not None and is_pipeline_run(args.resume)
    if args.resume is not None and not resume and is_pipeline_run(Path(args.resume).parent):
        # a stage folder of a recipe: resuming it alone would finish that stage and skip the rest
        raise ValueError(f"{args.resume} is a stage of the recipe run {Path(args.resume).parent}; continue the recipe "
                         f"(this stage, then the ones after it) with: bgrl train --resume {Path(args.resume).parent}")
    if not resume and not (args.config and is_recipe(args.config)):
        return False
    extra = [f"--{k.replace('_', '-')}" for k in ("games", "hidden", "alpha", "alpha_final", "lam", "parallel", "seed",
             "eval_every", "eval_games", "checkpoint_every", "benchmark_every", "init_from", "bearoff", "address", "actors",
             "task_games", "lockstep") if getattr(args, k, None) is not None]
    if extra or getattr(args, "backend", None) not in (None, "local"):
        raise ValueError(f"{', '.join(extra) or '--backend'}: a recipe's settings live in its stages; edit a copy of the "
                         "recipe instead (bgrl train --config FILE takes --run-dir, --resume and --no-progress only)")
    if resume:
        if args.config:
            raise ValueError("--config and --resume of a recipe's run exclude each other: the run folder holds its recipe")
        final = run_pipeline(None, Path(args.resume), resume=True, progress=not args.no_progress)
    else:
        recipe = load_recipe(args.config)
        run_dir = Path(args.run_dir or Path("runs") / f"{recipe.name}-{datetime.now().strftime('%Y%m%d-%H%M%S')}")
        final = run_pipeline(recipe, run_dir, progress=not args.no_progress)
    print(f"next:\n  bgrl rate {final}                 # place it on the ladder of levels\n"
          f"  bgrl match {final} pubeval --games 2000")
    return True


def cmd_train(args) -> int:
    """``bgrl train``. SIGTERM stops it as Ctrl-C does (:func:`_sigterm_as_ctrl_c`): the TD
    loop saves ``latest.pt`` after its step; the command then exits with status 143 (130
    after Ctrl-C), and ``--resume`` continues the run."""
    with _sigterm_as_ctrl_c():
        return _cmd_train(args)


@contextmanager
def _sigterm_as_ctrl_c():
    """While the command runs, SIGTERM is Ctrl-C: it runs the SIGINT handler in force (the
    training loop's "save, then stop", :data:`bgrl.training.loop.STOP_SIGNALS`, or Python's
    KeyboardInterrupt between stages), and the KeyboardInterrupt carries ``signum`` so that
    the command exits with 128 + 15 = 143."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler) and handler is not signal.default_int_handler:
            handler(signum, frame)
            return
        exc = KeyboardInterrupt()
        exc.signum = int(signum)
        raise exc

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old if old is not None else signal.SIG_DFL)


def _cmd_train(args) -> int:
    if _pipeline(args):
        return 0

    file_cfg = load_config_file(recipe_path(args.config)) if args.config else {}
    flags = {dest: getattr(args, dest) for dest in _TUNABLE}
    for name in ("games", "hidden", "seed", "init_from", "bearoff"):
        flags[name] = getattr(args, name)
    given = {**file_cfg, **{k: v for k, v in flags.items() if v is not None}}
    run_dir_cfg = given.pop("run_dir", None)
    if run_dir_cfg is not None and not isinstance(run_dir_cfg, str):
        raise ValueError(f"--config {args.config}: run_dir must be a string (a folder path), got {run_dir_cfg!r}")
    if args.games is not None and args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    benchmark = None
    if given.get("benchmark_every"):
        benchmark = _benchmark_hook()
        if benchmark is None:
            raise ValueError("--benchmark-every needs the error-rate benchmark (bgrl.arena.benchmark), which this installation lacks")
    progress = not args.no_progress
    backend, actors = _backend(args)
    if backend != "local" and not args.resume and "parallel" not in given:
        from bgrl.training.rounds import DEFAULT_ROUND_GAMES

        given["parallel"] = DEFAULT_ROUND_GAMES  # the rounds backends' default (docs/training.md)
    make_learner, close = None, None
    if backend == "local":
        for flag, v in (("--address", args.address), ("--actors", args.actors), ("--task-games", args.task_games),
                        ("--lockstep", args.lockstep)):
            if v is not None:
                raise ValueError(f"{flag} needs --backend ray" + (" or local-rounds" if flag in ("--task-games", "--lockstep") else ""))
    else:
        if backend != "ray" and (args.address is not None or args.actors is not None):
            raise ValueError("--address and --actors need --backend ray")
        from bgrl.training.ray_backend import rounds_learner_factory

        make_learner, close = rounds_learner_factory(backend, task_games=args.task_games, actors=actors,
                                                     address=args.address, lockstep=args.lockstep)
    try:
        _run(args, given, flags, progress, benchmark, run_dir_cfg, make_learner)
    finally:
        if close is not None:
            close()
    return 0


def _backend(args) -> tuple[str, int]:
    """``(backend, actors)``: the flags, else with ``--resume`` what the run folder records
    (its ``latest.pt``), else ``local`` and 2 actors. A Ray run resumed where Ray is not
    installed continues with ``local-rounds``, which gives the same weights."""
    backend, actors = getattr(args, "backend", None), getattr(args, "actors", None)
    if backend is None and getattr(args, "resume", None):
        recorded = _recorded_backend(Path(args.resume))
        if recorded is not None:
            backend = recorded[0]
            if backend == "ray":
                from bgrl.training.ray_backend import ray_available

                if not ray_available() and args.address is None and actors is None:
                    print(f"{args.resume} was trained with --backend ray; Ray is not installed here, so it continues with "
                          "--backend local-rounds (the same algorithm, the same weights)")
                    backend = "local-rounds"
                elif actors is None:
                    actors = recorded[1]
            if backend != "local":
                print(f"resuming with --backend {backend}" + (f" --actors {actors}" if backend == "ray" else "")
                      + " (recorded in the run folder)")
    return backend or "local", 2 if actors is None else actors


def _recorded_backend(run_dir: Path):
    """The backend recorded in ``run_dir/latest.pt`` (:func:`bgrl.training.rounds.recorded_backend`),
    or None when there is none to read (``bgrl train`` then reports the folder's problem)."""
    latest = run_dir / "latest.pt"
    if not latest.is_file():
        return None
    try:
        from bgrl.training.rounds import recorded_backend

        trainer = load_checkpoint(latest).get("trainer")
        return recorded_backend(trainer.get("td") if isinstance(trainer, dict) else None)
    except Exception:  # a damaged checkpoint: train() names the problem
        return None


def _print_next_steps(result) -> None:
    """What to run after a plain TD run (``on_done`` of :func:`bgrl.training.loop.train`, a
    :class:`~bgrl.training.loop.TrainResult`): a match, a game against it, more training."""
    final, run_dir = result.final, result.run_dir
    print("\n".join([
        "next:",
        f"  bgrl match {final} pubeval --games 2000     # strength, with a 95% interval",
        f"  bgrl play --opponent {final}                 # play against it",
        f"  bgrl train --resume {run_dir} --games {2 * result.games}   # train on",
    ]))


def _run(args, given, flags, progress, benchmark, run_dir_cfg, make_learner):
    from bgrl.training.loop import train

    if args.resume:
        fixed = [f for f in ("hidden", "seed", "init_from", "bearoff", "encoder") if flags.get(f) is not None]
        if fixed:
            names = {"hidden": "--hidden", "seed": "--seed", "init_from": "--init-from", "bearoff": "--no-bearoff", "encoder": "encoder"}
            raise ValueError(", ".join(names[f] for f in fixed) + " cannot change on --resume: they are fixed for a run")
        if args.run_dir is not None:
            raise ValueError("--run-dir and --resume exclude each other: --resume names the run folder")
        if args.init_from is None and "init_from" in given:
            given.pop("init_from")  # a config file shared with the first segment
        train(None, Path(args.resume), resume=True, progress=progress, overrides=given, benchmark=benchmark,
              make_learner=make_learner, on_done=_print_next_steps)
        return
    if args.init_from is not None and args.hidden is not None:
        raise ValueError("--hidden and --init-from exclude each other: the network's size comes from the checkpoint")
    run_dir = Path(args.run_dir or run_dir_cfg or Path("runs") / datetime.now().strftime("td-%Y%m%d-%H%M%S"))
    cfg = TrainConfig(**given)
    rating = bool(cfg.eval_every) and getattr(args, "rate_games", 0) > 0
    # the rating prints the next steps; without it, the run's own (_print_next_steps)
    try:
        final = train(cfg, run_dir, progress=progress, benchmark=benchmark, make_learner=make_learner,
                      on_done=None if rating else _print_next_steps)
    except KeyboardInterrupt:
        if not (run_dir / "latest.pt").is_file() and (run_dir / "config.json").is_file():
            # stopped before the first checkpoint (a rounds backend starting up): nothing to resume,
            # so the command that starts it again, with the backend it was started with
            again = "" if args.backend in (None, "local") else f" --backend {args.backend}" + (
                f" --actors {args.actors}" if args.actors is not None else "") + (
                f" --address {args.address}" if args.address is not None else "")
            print(f"interrupted before the first checkpoint: nothing to resume; start it again with: "
                  f"bgrl train{again} --config {run_dir / 'config.json'} --run-dir {run_dir}")
        raise
    if final is not None and rating:
        rate_after_training(final, run_dir, cfg.games, args.rate_games, progress)


def rate_after_training(final: Path, run_dir: Path, games: int, rate_games: int, progress: bool, log=print):
    """The short rating that ends ``bgrl train``: where the network sits on the ladder and what to run next.

    Plays at most ``rate_games`` paired-dice games against the nearest levels
    (:func:`bgrl.arena.rating.rate`, first opponent by benchmark error rate) and prints the
    result ("between beginner and casual"), then the next commands: a longer budget, and the
    shipped recipe of the level above it (:mod:`bgrl.training.pipeline`).
    """
    from bgrl.arena.rating import rate

    import json as _json

    from tqdm import tqdm

    bar = tqdm(total=rate_games, unit="game", desc="rating", disable=not progress, leave=False)
    try:
        r = rate(load_agent(str(final)), name=str(final), max_games=rate_games, first_batch=min(200, rate_games),
                 progress=bar.update)
    finally:
        bar.close()
    manifest = _json.loads(shipped_path("manifest.json").read_text(encoding="utf-8"))
    above = r.between[1]
    lines = ["", f"rating ({sum(m.games for m in r.matches)} games, bgrl rate; short, so the intervals are wide):",
             *["  " + line for line in r.summary().splitlines()],
             f"where it sits: {r.where()} on the ladder " + " < ".join(LEVEL_NAMES),
             "next:",
             f"  bgrl train --resume {run_dir} --games {max(5 * games, 100_000)}   # a longer budget",
             f"  bgrl play --opponent {final}   # play against it"]
    if above is not None:
        net = LEVELS[above].network
        entry = manifest.get(net, {})
        secs = entry.get("train_seconds")
        how_long = (f"; estimate from the manifest's recorded training time: about {_duration(secs)} on one core"
                    if isinstance(secs, (int, float)) else
                    (f"; manifest estimate: {entry['wall_seconds_approx']}" if entry.get("wall_seconds_approx") else ""))
        lines.append(f"  bgrl train --config {entry.get('recipe', net)}   # the recipe of {above}'s network ({net}){how_long}")
    lines.append(f"  bgrl rate {final} --max-games 4000   # a longer rating, tighter intervals")
    log("\n".join(lines))
    return r


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min`` or ``1.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
