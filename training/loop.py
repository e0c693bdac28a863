"""The training run: config, run folder, progress, tensorboard, checkpoints, resume.

A run folder holds ``config.json``, ``latest.pt`` (every ``checkpoint_every`` games),
``games_<n>.pt`` snapshots (every ``eval_every`` games, with an evaluation), ``final.pt``
and tensorboard logs under ``tb/``. Every checkpoint of a run holds, besides the network,
the whole trainer state: the games in flight with their histories (traces), the dice
generator and the loop's counters. ``--resume`` therefore continues bit for bit: a run
stopped after a checkpoint and resumed ends with exactly the weights of a run that was
never stopped (tests/test_training.py), and a run killed at any moment loses at most the
games since its last checkpoint (a new run writes ``latest.pt`` before its first game).
Ctrl-C and SIGTERM save ``latest.pt`` after the current step and stop.
"""

from __future__ import annotations

import json
import math
import signal
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from bgrl.evaluation.networks import CheckpointError, load_checkpoint, load_network, save_checkpoint
from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.model import TDNet

from bgrl.training.config import FLAG_NAMES, RESUME_OVERRIDES, TrainConfig, config_from_dict, load_config_file  # noqa: F401  (re-exported)
from bgrl.training.td import TDLambda
from bgrl._resources import resolve_checkpoint
from bgrl.agents.base import NetAgent, PubevalAgent, RandomAgent
from bgrl.arena.duel import play_match
from bgrl.evaluation.evaluator import NetEvaluator

__all__ = ["TrainConfig", "train", "load_config_file", "RESUME_OVERRIDES", "FLAG_NAMES", "Hook", "STOP_SIGNALS"]

# Names of the config fields as `bgrl train` flags, for error messages.


# A hook: (every N games, callable(evaluator, games) -> dict of figures).
Hook = tuple[int, Callable]

#: The signals after which :func:`train` finishes its step, saves ``latest.pt`` and raises
#: KeyboardInterrupt: Ctrl-C (SIGINT) and SIGTERM (``kill``, a scheduler or container stop).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def interrupt(signum: int) -> KeyboardInterrupt:
    """The KeyboardInterrupt that stops training after signal ``signum``; its ``signum``
    attribute tells the command line which exit status to give (128 + signum)."""
    exc = KeyboardInterrupt()
    exc.signum = int(signum)
    return exc


class _Stop(Exception):
    """Internal: stop after a checkpoint (tests simulate a killed run with it)."""


def _newest_snapshot(run_dir: Path) -> Path | None:
    best, best_n = None, -1
    for p in run_dir.glob("games_*.pt"):
        try:
            n = int(p.stem.split("_", 1)[1])
        except ValueError:
            continue
        if n > best_n:
            best, best_n = p, n
    return best


def train(
    config: TrainConfig | None,
    run_dir: Path,
    resume: bool = False,
    progress: bool = True,
    log=print,
    overrides: dict | None = None,
    benchmark: Callable | None = None,
    stop_after_checkpoints: int | None = None,
    make_learner: Callable | None = None,
    stop_at: int | None = None,
) -> Path:
    """Run (or resume) self-play training in ``run_dir``; returns the final checkpoint.

    Writes ``run_dir/latest.pt`` (atomically, every ``checkpoint_every`` games and at the
    end), ``games_<n>.pt`` with each evaluation, ``final.pt`` at the end,
    ``config.json`` and tensorboard event files under ``run_dir/tb``.

    With ``resume=True`` (``config`` is then ignored and may be None) everything is read
    from ``run_dir/latest.pt``; ``overrides["games"]`` sets a new total target and
    ``overrides`` may change the settings in :data:`RESUME_OVERRIDES` (a changed alpha
    schedule then starts at the resumed game count; a changed ``parallel`` restarts the
    games in flight). Unchanged, the run continues bit for bit.

    ``benchmark``: optional ``f(evaluator, games) -> dict`` of figures (an evaluator maps
    after-states int8 (M, 26) to probabilities (M, 5)), called every
    ``config.benchmark_every`` games; its numbers are logged to tensorboard under
    ``benchmark/`` and shown in the progress bar. ``stop_after_checkpoints``: stop (raise
    nothing, return None) right after writing that many ``latest.pt`` in this call, as
    if the process had been killed there (for tests).

    ``make_learner``: optional ``f(net, config, exact) -> learner`` replacing the online
    :class:`TDLambda` (the synchronous-rounds backends, :mod:`bgrl.training.rounds`); a run
    keeps its trainer kind across resumes.

    ``stop_at``: end this call after the step that reaches this many games, with
    ``config.games`` still the target of the alpha schedule (as if the run were stopped there;
    ``--resume`` continues it). A recipe's segment uses it (:mod:`bgrl.training.pipeline`).

    A new run writes ``latest.pt`` before its first game, so a run killed at any moment can be
    resumed. Ctrl-C or SIGTERM (:data:`STOP_SIGNALS`, when called from the main thread) ends
    the current step, saves ``latest.pt`` and raises KeyboardInterrupt.

    Raises ValueError (bad settings or run folder; the message names the flag) and
    CheckpointError (a missing or corrupt checkpoint).
    """
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    torch.set_num_threads(1)  # deliberate: see bgrl.training.td (2 threads can be 100x slower under load)
    run_dir = Path(run_dir)
    latest = run_dir / "latest.pt"
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    loop_state: dict = {}
    td_state = None
    if resume:
        if not run_dir.is_dir():
            raise CheckpointError(f"cannot resume {run_dir}: no such run folder (expected a folder made by `bgrl train`)")
        if not latest.is_file():
            if (run_dir / "config.json").is_file():
                raise CheckpointError(f"cannot resume {run_dir}: it was stopped before its first checkpoint (no latest.pt); "
                                      f"start it again with: bgrl train --config {run_dir / 'config.json'} --run-dir {run_dir}")
            raise CheckpointError(f"cannot resume {run_dir}: no latest.pt there (expected a run folder made by `bgrl train`)")
        try:
            payload = load_checkpoint(latest)
        except CheckpointError as exc:
            snap = _newest_snapshot(run_dir)
            hint = (f"; its newest snapshot is {snap}: to continue from it, `cp {snap} {latest}` and resume again"
                    if snap is not None else "; the run has no games_<n>.pt snapshot to fall back on")
            raise CheckpointError(f"cannot resume {run_dir}: latest.pt is corrupt ({exc}){hint}") from None
        meta = payload["meta"]
        trainer_state = payload.get("trainer")
        if not isinstance(trainer_state, dict) or "rng" not in trainer_state or not isinstance(meta.get("config"), dict):
            raise CheckpointError(
                f"{latest} holds a network but no trainer state (an exported or shipped network, not a run checkpoint); "
                "it cannot be resumed"
            )
        load_network(latest)  # validates shapes and finite weights
        old = config_from_dict(meta["config"])
        overrides.pop("run_dir", None)
        for k in [k for k in overrides if k not in RESUME_OVERRIDES]:
            if k in asdict(old) and (overrides[k] == getattr(old, k) or (k == "init_from" and old.init_from)):
                overrides.pop(k)  # e.g. the run's own config file again
        bad = set(overrides) - set(RESUME_OVERRIDES)
        if bad:
            flags = ", ".join(sorted(FLAG_NAMES.get(b, b) for b in bad))
            raise ValueError(f"{flags} cannot change on --resume; changeable: "
                             + ", ".join(FLAG_NAMES[k] for k in RESUME_OVERRIDES))
        played = int(meta["games"])
        changes = dict(overrides)
        given_games = changes.pop("games", None)
        if ("alpha" in changes and changes["alpha"] != old.alpha) or ("alpha_final" in changes and changes["alpha_final"] != old.alpha_final):
            changes["schedule_from"] = played
        if given_games is None:
            target = old.games
            if target <= played:
                raise ValueError(f"{run_dir} is finished ({played} of its {old.games} games); to train on, give a larger "
                                 f"total with --games, e.g. --resume {run_dir} --games {2 * played}")
        else:
            target = given_games
            if target <= played:
                raise ValueError(f"--games is the run's total target and must exceed the {played} games already played, got {target}")
        config = TrainConfig(**{**asdict(old), **changes, "games": target})
        net = TDNet(num_features(config.encoder), config.hidden)
        net.load_state_dict(payload["model"])
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = json.loads(trainer_state["rng"])
        except (TypeError, ValueError, KeyError) as exc:
            raise CheckpointError(f"{latest}: the trainer's random-generator state is unreadable ({exc})") from None
        loop_state = trainer_state.get("loop") if isinstance(trainer_state.get("loop"), dict) else {}
        loop_state = {**loop_state, "games": played, "plies": int(meta.get("plies", 0)),
                      "train_seconds": float(meta.get("train_seconds", 0.0))}
        td_state = trainer_state.get("td") if isinstance(trainer_state.get("td"), dict) else None
        if td_state is not None and config.parallel != old.parallel and td_state.get("algorithm") != "rounds":
            log(f"--parallel changed from {old.parallel} to {config.parallel}: the games in flight restart")
            td_state = None
        log(f"resuming {run_dir} at {played} games (target {config.games})")
    else:
        if run_dir.exists() and not run_dir.is_dir():
            raise ValueError(f"--run-dir {run_dir} exists and is not a folder")
        if (run_dir / "latest.pt").exists() or (run_dir / "final.pt").exists():
            raise ValueError(f"--run-dir {run_dir} already holds a run; continue it with --resume {run_dir} or pick a new --run-dir")
        torch.manual_seed(config.seed)
        if config.init_from:
            src = resolve_checkpoint(config.init_from)
            net, init_meta = load_network(src)
            config = TrainConfig(**{**asdict(config), "init_from": str(src), "encoder": init_meta["encoder"], "hidden": int(init_meta["hidden"])})
            net.train(True)
            log(f"starting from the weights of {src} ({init_meta.get('games', '?')} games, {config.encoder}, {config.hidden} hidden)")
        else:
            net = TDNet(num_features(config.encoder), config.hidden)
        rng = np.random.default_rng(config.seed)
        log(f"run folder: {run_dir}  (tensorboard --logdir {run_dir / 'tb'})")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(config), indent=2))
    exact = None
    if config.bearoff:
        from bgrl.evaluation.exact import exact_probs as exact
    rounds_run = isinstance(td_state, dict) and td_state.get("algorithm") == "rounds"
    if resume and rounds_run != (make_learner is not None):
        raise ValueError(f"{run_dir} was trained with " + ("a rounds backend (--backend local-rounds or ray); resume it with one"
                         if rounds_run else "the online trainer (--backend local); resume it with --backend local"))
    if make_learner is not None:
        learner = make_learner(net, config, exact)
    else:
        learner = TDLambda(net, config.encoder, config.parallel, config.alpha, config.lam, rng, exact=exact)
    if td_state is not None:
        try:
            learner.load_state_dict(td_state)
        except ValueError as exc:
            raise CheckpointError(f"{latest}: {exc}") from None
    writer = SummaryWriter(str(run_dir / "tb"))

    st = {
        "games": int(loop_state.get("games", 0)),
        "plies": int(loop_state.get("plies", 0)),
        "train_seconds": float(loop_state.get("train_seconds", 0.0)),
    }
    acc = loop_state.get("acc") if isinstance(loop_state.get("acc"), dict) else {}
    lengths: list[int] = [int(v) for v in acc.get("lengths", [])]
    deltas: list[float] = [float(v) for v in acc.get("deltas", [])]
    results: list[int] = [int(v) for v in acc.get("results", [])]
    latest_eval: dict = dict(loop_state.get("latest_eval", {})) if isinstance(loop_state.get("latest_eval"), dict) else {}

    def next_mark(every: int) -> int | None:
        return (st["games"] // every + 1) * every if every else None

    next_ckpt = next_mark(config.checkpoint_every)
    next_eval = next_mark(config.eval_every)
    next_bench = next_mark(config.benchmark_every) if benchmark is not None else None

    def meta_now() -> dict:
        return {
            "encoder": config.encoder,
            "games": st["games"],
            "plies": st["plies"],
            "train_seconds": round(st["train_seconds"], 1),
            "config": asdict(config),
            "algorithm": "TD(lambda) self-play, accumulating eligibility traces, greedy 0-ply play"
                         + (", exact values where known (bgrl.evaluation.exact)" if config.bearoff else ""),
        }

    def save(path: Path):
        loop = {"acc": {"lengths": lengths, "deltas": deltas, "results": results}, "latest_eval": latest_eval}
        save_checkpoint(path, net, meta_now(), trainer={"rng": json.dumps(rng.bit_generator.state), "td": learner.state_dict(),
                                                         "loop": loop})

    bar = tqdm(total=config.games, initial=st["games"], unit="game", disable=not progress, smoothing=0.05, dynamic_ncols=True)

    def say(msg: str):
        if progress:
            bar.write(msg)
        else:
            log(msg)

    postfix: dict = {}

    def show(**kw):
        postfix.update(kw)
        bar.set_postfix(postfix, refresh=False)

    def evaluator():
        return NetEvaluator(net, config.encoder)

    def evaluate(label: str) -> dict:
        agent = NetAgent(evaluator(), name="net")
        out = {}
        g = st["games"]
        for name, opp in (("random", RandomAgent()), ("pubeval", PubevalAgent())):
            r = play_match(agent, opp, config.eval_games, seed=g, names=("net", name))
            lo, hi = r.ppg - r.ci95, r.ppg + r.ci95
            writer.add_scalar(f"eval/ppg_vs_{name}", r.ppg, g)
            writer.add_scalar(f"eval/ppg_vs_{name}_ci95_low", lo, g)
            writer.add_scalar(f"eval/ppg_vs_{name}_ci95_high", hi, g)
            writer.add_scalar(f"eval/win_rate_vs_{name}", r.win_rate, g)
            say(f"[{label} {g} games] vs {name}: {r.ppg:+.3f} ppg (95% CI {lo:+.3f} .. {hi:+.3f}), win {100 * r.win_rate:.1f}%, "
                f"{r.games} games")
            out[name] = {"ppg": r.ppg, "ci95": r.ci95, "win_rate": r.win_rate, "games": r.games}
        net.train(False)
        latest_eval.clear()
        latest_eval.update({"games": g, **{k: v for k, v in out.items()}})
        show(pubeval=f"{out['pubeval']['ppg']:+.2f}±{out['pubeval']['ci95']:.2f}")
        return out

    def log_training():
        if not lengths:
            return
        g = st["games"]
        writer.add_scalar("train/td_error_mse", float(np.mean(deltas)) if deltas else float("nan"), g)
        writer.add_scalar("train/game_length_plies", float(np.mean(lengths)), g)
        r = np.array(results)
        writer.add_scalar("train/gammon_rate", float((r >= 2).mean()), g)
        writer.add_scalar("train/backgammon_rate", float((r >= 3).mean()), g)
        writer.add_scalar("train/games_per_second", g / max(st["train_seconds"], 1e-9), g)
        writer.add_scalar("train/alpha", learner.alpha, g)
        show(len=f"{np.mean(lengths):.0f}", td=f"{np.mean(deltas):.4f}", gammons=f"{(r >= 2).mean():.2f}")
        lengths.clear()
        deltas.clear()
        results.clear()

    # Ctrl-C or SIGTERM (kill, a scheduler's stop): finish the step, save latest.pt, then stop
    # with KeyboardInterrupt (a second signal stops at once). STOP_SIGNALS names them.
    interrupted = threading.Event()
    stopped_by: list[int] = []
    old_handlers: dict = {}
    if threading.current_thread() is threading.main_thread():
        def on_stop(signum, frame):
            stopped_by.append(signum)
            if interrupted.is_set():
                raise interrupt(signum)
            interrupted.set()

        for sig in STOP_SIGNALS:
            old_handlers[sig] = signal.signal(sig, on_stop)

    checkpoints_written = 0
    t_segment = time.perf_counter()
    seconds_at_start = st["train_seconds"]
    t_last = time.perf_counter()
    try:
        if not resume:
            # the state before the first game: a run killed (even kill -9) before its first
            # checkpoint is resumed from here with --resume, bit for bit
            save(latest)
        while st["games"] < config.games and (stop_at is None or st["games"] < stop_at):
            if config.alpha_final is not None:
                span = max(config.games - config.schedule_from, 1)
                frac = min(max(st["games"] - config.schedule_from, 0) / span, 1.0)
                learner.alpha = config.alpha + (config.alpha_final - config.alpha) * frac
            else:
                learner.alpha = config.alpha
            out = learner.step()
            st["plies"] += out.get("plies", config.parallel)
            deltas.append(out["delta"])
            n = len(out["finished"])
            if n:
                st["games"] += n
                lengths.extend(out["lengths"].tolist())
                results.extend(out["finished"].tolist())
                bar.update(n)
            now = time.perf_counter()
            st["train_seconds"] += now - t_last
            t_last = now
            if len(lengths) >= 500:
                log_training()
            if next_ckpt is not None and st["games"] >= next_ckpt:
                save(latest)
                checkpoints_written += 1
                next_ckpt = next_mark(config.checkpoint_every)
                if stop_after_checkpoints is not None and checkpoints_written >= stop_after_checkpoints:
                    raise _Stop
            paused = time.perf_counter()
            if next_eval is not None and st["games"] >= next_eval:
                evaluate("eval")
                save(run_dir / f"games_{st['games']}.pt")
                next_eval = next_mark(config.eval_every)
            if next_bench is not None and st["games"] >= next_bench:
                figures = benchmark(evaluator(), st["games"])
                net.train(False)
                shown = []
                for k, v in figures.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                        writer.add_scalar(f"benchmark/{k}", v, st["games"])
                        shown.append(f"{k} {v:.4g}")
                say(f"[benchmark {st['games']} games] " + ", ".join(shown))
                if "all" in figures:
                    show(err=f"{figures['all']:.1f}")
                next_bench = next_mark(config.benchmark_every)
            t_last += time.perf_counter() - paused  # evaluation time is not training time
            if interrupted.is_set():
                raise interrupt(stopped_by[0] if stopped_by else signal.SIGINT)
    except _Stop:
        bar.close()
        writer.close()
        return None
    except KeyboardInterrupt:
        bar.close()
        save(latest)
        log_training()
        writer.close()
        log(f"interrupted: saved {latest} at {st['games']} games; continue with: bgrl train --resume {run_dir}")
        raise
    finally:
        for sig, handler in old_handlers.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    log_training()  # a short segment still logs its training figures
    save(latest)
    final = run_dir / "final.pt"
    save(final)
    final_eval = None
    if config.eval_every:
        if latest_eval.get("games") == st["games"]:
            final_eval = {k: latest_eval[k] for k in ("random", "pubeval")}
        else:
            final_eval = evaluate("final")
    bar.close()
    writer.flush()
    writer.close()
    seg = st["train_seconds"] - seconds_at_start
    g_seg = st["games"] - int(loop_state.get("games", 0))
    lines = [
        "",
        f"done: {st['games']:,} games"
        + (f" (target {config.games:,}; the last step finished {st['games'] - config.games:,} more: games end in lockstep)"
           if st["games"] > config.games else "")
        + f" ({g_seg:,} in this session, {seg:.0f} s of training, "
        f"{g_seg / max(seg, 1e-9):.1f} games/s; wall {time.perf_counter() - t_segment:.0f} s with evaluations)",
    ]
    if final_eval:
        for name in ("random", "pubeval"):
            e = final_eval[name]
            lines.append(f"  vs {name:8}: {e['ppg']:+.3f} ppg (95% CI {e['ppg'] - e['ci95']:+.3f} .. {e['ppg'] + e['ci95']:+.3f}), "
                         f"win {100 * e['win_rate']:.1f}% over {e['games']} games")
    else:
        lines.append("  not evaluated (--eval-every 0)")
    lines += [
        f"  network: {final}   resumable state: {latest}   logs: tensorboard --logdir {run_dir / 'tb'}",
        "next:",
        f"  bgrl match {final} pubeval --games 2000     # strength, with a 95% interval",
        f"  bgrl play --opponent {final}                 # play against it",
        f"  bgrl train --resume {run_dir} --games {2 * st['games']}   # train on",
    ]
    log("\n".join(lines))
    return final
