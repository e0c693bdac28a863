"""The training run: config, run folder, progress, tensorboard, checkpoints, resume.

A run folder holds ``config.json``, ``latest.pt`` (every ``checkpoint_every`` games),
``games_<n>.pt`` snapshots (every ``eval_every`` games, with an evaluation), ``final.pt``
and tensorboard logs under ``tb/``. Every checkpoint of a run holds, besides the network,
the whole trainer state: the games in flight with their histories (traces), the dice
generator and the loop's counters. ``--resume`` therefore continues bit for bit: a run
stopped after a checkpoint and resumed ends with exactly the weights of a run that was
never stopped (tests/training/test_training.py), and a run killed at any moment loses at most the
games since its last checkpoint (a new run writes ``latest.pt`` before its first game).
Ctrl-C and SIGTERM save ``latest.pt`` after the current step and stop.

The steps of :func:`train`: open the run (:func:`_new_run`, or :func:`_resume_run` from
``latest.pt``), make its learner (:func:`_make_learner`), then a :class:`_Run` plays and
learns step by step (:meth:`_Run.play_step`), writes checkpoints
(:meth:`_Run.checkpoint_step`), evaluates and benchmarks (:meth:`_Run.periodic_step`) and
ends with its report (:meth:`_Run.finish`), while :class:`_StopSignals` turns Ctrl-C and
SIGTERM into "save, then stop". What to run next is the command line's to say
(:mod:`bgrl.cli.train`, from the :class:`TrainResult` passed to ``on_done``).
"""

from __future__ import annotations

import json
import math
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from bgrl.evaluation.networks import CheckpointError, load_checkpoint, load_network, save_checkpoint
from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.model import TDNet

from bgrl.training.config import FLAG_NAMES, RESUME_OVERRIDES, TrainConfig, config_from_dict, load_config_file  # noqa: F401  (re-exported)
from bgrl.training.td import TDLambda
from bgrl._resources import resolve_checkpoint
from bgrl.agents.base import NetAgent, PubevalAgent, RandomAgent
from bgrl.arena.duel import play_match
from bgrl.evaluation.evaluator import NetEvaluator

__all__ = ["TrainConfig", "TrainResult", "train", "load_config_file", "RESUME_OVERRIDES", "FLAG_NAMES", "Hook", "STOP_SIGNALS"]

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


@dataclass(frozen=True)
class TrainResult:
    """A finished :func:`train` call, as passed to its ``on_done``: the run folder, its
    ``final.pt`` and ``latest.pt``, the games played in all (``games``, possibly above the
    target: games end in lockstep) and the target."""

    run_dir: Path
    final: Path
    latest: Path
    games: int
    target: int


@dataclass
class _Start:
    """What a run starts (or resumes) from: its settings, network, dice generator, the loop's
    saved counters and the learner's saved state (None: fresh games)."""

    config: TrainConfig
    net: TDNet
    rng: np.random.Generator
    loop_state: dict = field(default_factory=dict)
    td_state: dict | None = None


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


# ----------------------------------------------------------------------------- opening a run
def _new_run(config: TrainConfig, run_dir: Path, log) -> _Start:
    """A new run in ``run_dir`` (refused when it already holds one): seeded weights, or those of
    ``config.init_from``."""
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
    return _Start(config, net, rng)


def _read_latest(run_dir: Path, latest: Path) -> tuple[dict, dict, dict]:
    """``(payload, meta, trainer state)`` of the run's ``latest.pt``; CheckpointError naming the
    problem (no folder, no latest.pt, a corrupt one, a network without trainer state)."""
    if not run_dir.is_dir():
        raise CheckpointError(f"cannot resume {run_dir}: no such run folder (expected a folder made by `bgrl train`)")
    if not latest.is_file():
        if (run_dir / "config.json").is_file():
            raise CheckpointError(f"cannot resume {run_dir}: it was stopped before its first checkpoint (no latest.pt); "
                                  f"start it again with: bgrl train --config {run_dir / 'config.json'} --run-dir {run_dir} "
                                  "(adding the --backend and --actors it was started with, if any)")
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
    return payload, meta, trainer_state


def _resumed_config(run_dir: Path, old: TrainConfig, meta: dict, overrides: dict) -> TrainConfig:
    """The resumed run's settings: ``old`` with ``overrides`` (only :data:`RESUME_OVERRIDES` may
    change; ``games`` is the new total target, above the games played)."""
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
    return TrainConfig(**{**asdict(old), **changes, "games": target})


def _resume_run(run_dir: Path, overrides: dict, log) -> _Start:
    """The run in ``run_dir`` as its ``latest.pt`` left it, with ``overrides`` applied."""
    latest = run_dir / "latest.pt"
    payload, meta, trainer_state = _read_latest(run_dir, latest)
    old = config_from_dict(meta["config"])
    config = _resumed_config(run_dir, old, meta, overrides)
    played = int(meta["games"])
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
    return _Start(config, net, rng, loop_state, td_state)


def _make_learner(start: _Start, run_dir: Path, resume: bool, make_learner: Callable | None):
    """The run's learner (online :class:`TDLambda`, or ``make_learner``'s), with the saved state
    of a resumed run; a run keeps its trainer kind across resumes."""
    config, td_state = start.config, start.td_state
    exact = exact_probs if config.bearoff else None
    rounds_run = isinstance(td_state, dict) and td_state.get("algorithm") == "rounds"
    if resume and rounds_run != (make_learner is not None):
        raise ValueError(f"{run_dir} was trained with " + ("a rounds backend (--backend local-rounds or ray); resume it with one"
                         if rounds_run else "the online trainer (--backend local); resume it with --backend local"))
    if make_learner is not None:
        learner = make_learner(start.net, config, exact)
    else:
        learner = TDLambda(start.net, config.encoder, config.parallel, config.alpha, config.lam, start.rng, exact=exact)
    if td_state is not None:
        try:
            learner.load_state_dict(td_state)
        except ValueError as exc:
            raise CheckpointError(f"{run_dir / 'latest.pt'}: {exc}") from None
    return learner


# ----------------------------------------------------------------------------- Ctrl-C and SIGTERM
class _StopSignals:
    """While in its ``with`` block (from the main thread): Ctrl-C or SIGTERM (kill, a
    scheduler's stop) set :attr:`interrupted`, so that the loop finishes its step, saves
    ``latest.pt`` and stops (:meth:`check`); a second signal stops at once. The handlers in
    force before come back on leaving."""

    def __init__(self):
        self.interrupted = threading.Event()
        self.stopped_by: list[int] = []
        self._old: dict = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._old[sig] = signal.signal(sig, self._on_stop)
        return self

    def _on_stop(self, signum, frame):
        self.stopped_by.append(signum)
        if self.interrupted.is_set():
            raise interrupt(signum)
        self.interrupted.set()

    def check(self):
        """KeyboardInterrupt (with ``signum``) once a stop signal came."""
        if self.interrupted.is_set():
            raise interrupt(self.stopped_by[0] if self.stopped_by else signal.SIGINT)

    def __exit__(self, *exc_info) -> bool:
        for sig, handler in self._old.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        return False


# ----------------------------------------------------------------------------- the run's steps
class _Run:
    """One :func:`train` call on an opened run: its counters, progress bar, tensorboard
    writer and the steps of the loop."""

    def __init__(self, start: _Start, learner, run_dir: Path, writer, bar_class, progress: bool, log,
                 benchmark: Callable | None):
        self.config, self.net, self.rng, self.learner = start.config, start.net, start.rng, learner
        self.run_dir, self.latest, self.writer = run_dir, run_dir / "latest.pt", writer
        self.progress, self.log, self.benchmark = progress, log, benchmark
        loop_state = start.loop_state
        self.games = int(loop_state.get("games", 0))
        self.plies = int(loop_state.get("plies", 0))
        self.train_seconds = float(loop_state.get("train_seconds", 0.0))
        self.games_at_start = self.games
        acc = loop_state.get("acc") if isinstance(loop_state.get("acc"), dict) else {}
        self.lengths: list[int] = [int(v) for v in acc.get("lengths", [])]
        self.deltas: list[float] = [float(v) for v in acc.get("deltas", [])]
        self.results: list[int] = [int(v) for v in acc.get("results", [])]
        self.latest_eval: dict = (dict(loop_state.get("latest_eval", {}))
                                  if isinstance(loop_state.get("latest_eval"), dict) else {})
        config = self.config
        self.next_ckpt = self.next_mark(config.checkpoint_every)
        self.next_eval = self.next_mark(config.eval_every)
        self.next_bench = self.next_mark(config.benchmark_every) if benchmark is not None else None
        self.bar = bar_class(total=config.games, initial=self.games, unit="game", disable=not progress, smoothing=0.05,
                             dynamic_ncols=True)
        self.postfix: dict = {}
        self.checkpoints_written = 0
        self.t_segment = self.t_last = self.seconds_at_start = 0.0

    # --- helpers
    def next_mark(self, every: int) -> int | None:
        return (self.games // every + 1) * every if every else None

    def meta_now(self) -> dict:
        config = self.config
        return {
            "encoder": config.encoder,
            "games": self.games,
            "plies": self.plies,
            "train_seconds": round(self.train_seconds, 1),
            "config": asdict(config),
            "algorithm": "TD(lambda) self-play, accumulating eligibility traces, greedy 0-ply play"
                         + (", exact values where known (bgrl.evaluation.exact)" if config.bearoff else ""),
        }

    def save(self, path: Path):
        loop = {"acc": {"lengths": self.lengths, "deltas": self.deltas, "results": self.results}, "latest_eval": self.latest_eval}
        save_checkpoint(path, self.net, self.meta_now(), trainer={"rng": json.dumps(self.rng.bit_generator.state),
                                                                  "td": self.learner.state_dict(), "loop": loop})

    def say(self, msg: str):
        if self.progress:
            self.bar.write(msg)
        else:
            self.log(msg)

    def show(self, **kw):
        self.postfix.update(kw)
        self.bar.set_postfix(self.postfix, refresh=False)

    def evaluator(self):
        return NetEvaluator(self.net, self.config.encoder)

    # --- logging and evaluation
    def evaluate(self, label: str) -> dict:
        """Matches against random and pubeval, logged and shown; remembered as the latest evaluation."""
        agent = NetAgent(self.evaluator(), name="net")
        out = {}
        g = self.games
        for name, opp in (("random", RandomAgent()), ("pubeval", PubevalAgent())):
            r = play_match(agent, opp, self.config.eval_games, seed=g, names=("net", name))
            lo, hi = r.ppg - r.ci95, r.ppg + r.ci95
            self.writer.add_scalar(f"eval/ppg_vs_{name}", r.ppg, g)
            self.writer.add_scalar(f"eval/ppg_vs_{name}_ci95_low", lo, g)
            self.writer.add_scalar(f"eval/ppg_vs_{name}_ci95_high", hi, g)
            self.writer.add_scalar(f"eval/win_rate_vs_{name}", r.win_rate, g)
            self.say(f"[{label} {g} games] vs {name}: {r.ppg:+.3f} ppg (95% CI {lo:+.3f} .. {hi:+.3f}), win {100 * r.win_rate:.1f}%, "
                     f"{r.games} games")
            out[name] = {"ppg": r.ppg, "ci95": r.ci95, "win_rate": r.win_rate, "games": r.games}
        self.net.train(False)
        self.latest_eval.clear()
        self.latest_eval.update({"games": g, **{k: v for k, v in out.items()}})
        self.show(pubeval=f"{out['pubeval']['ppg']:+.2f}±{out['pubeval']['ci95']:.2f}")
        return out

    def run_benchmark(self):
        figures = self.benchmark(self.evaluator(), self.games)
        self.net.train(False)
        shown = []
        for k, v in figures.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                self.writer.add_scalar(f"benchmark/{k}", v, self.games)
                shown.append(f"{k} {v:.4g}")
        self.say(f"[benchmark {self.games} games] " + ", ".join(shown))
        if "all" in figures:
            self.show(err=f"{figures['all']:.1f}")

    def log_training(self):
        """The training figures since the last call, to tensorboard and the progress bar."""
        if not self.lengths:
            return
        g, w = self.games, self.writer
        w.add_scalar("train/td_error_mse", float(np.mean(self.deltas)) if self.deltas else float("nan"), g)
        w.add_scalar("train/game_length_plies", float(np.mean(self.lengths)), g)
        r = np.array(self.results)
        w.add_scalar("train/gammon_rate", float((r >= 2).mean()), g)
        w.add_scalar("train/backgammon_rate", float((r >= 3).mean()), g)
        w.add_scalar("train/games_per_second", g / max(self.train_seconds, 1e-9), g)
        w.add_scalar("train/alpha", self.learner.alpha, g)
        self.show(len=f"{np.mean(self.lengths):.0f}", td=f"{np.mean(self.deltas):.4f}", gammons=f"{(r >= 2).mean():.2f}")
        self.lengths.clear()
        self.deltas.clear()
        self.results.clear()

    # --- the loop
    def set_alpha(self):
        """The step size at this game count (linear decay to ``alpha_final``, if set)."""
        c = self.config
        if c.alpha_final is not None:
            span = max(c.games - c.schedule_from, 1)
            frac = min(max(self.games - c.schedule_from, 0) / span, 1.0)
            self.learner.alpha = c.alpha + (c.alpha_final - c.alpha) * frac
        else:
            self.learner.alpha = c.alpha

    def play_step(self):
        """One step of self-play and TD updates; counts games, plies and training time."""
        self.set_alpha()
        out = self.learner.step()
        self.plies += out.get("plies", self.config.parallel)
        self.deltas.append(out["delta"])
        n = len(out["finished"])
        if n:
            self.games += n
            self.lengths.extend(out["lengths"].tolist())
            self.results.extend(out["finished"].tolist())
            self.bar.update(n)
        now = time.perf_counter()
        self.train_seconds += now - self.t_last
        self.t_last = now
        if len(self.lengths) >= 500:
            self.log_training()

    def checkpoint_step(self, stop_after_checkpoints: int | None):
        """``latest.pt`` when due; _Stop after ``stop_after_checkpoints`` of them."""
        if self.next_ckpt is not None and self.games >= self.next_ckpt:
            self.save(self.latest)
            self.checkpoints_written += 1
            self.next_ckpt = self.next_mark(self.config.checkpoint_every)
            if stop_after_checkpoints is not None and self.checkpoints_written >= stop_after_checkpoints:
                raise _Stop

    def periodic_step(self):
        """The evaluation (with its ``games_<n>.pt``) and the benchmark when due; their time is
        not training time."""
        paused = time.perf_counter()
        if self.next_eval is not None and self.games >= self.next_eval:
            self.evaluate("eval")
            self.save(self.run_dir / f"games_{self.games}.pt")
            self.next_eval = self.next_mark(self.config.eval_every)
        if self.next_bench is not None and self.games >= self.next_bench:
            self.run_benchmark()
            self.next_bench = self.next_mark(self.config.benchmark_every)
        self.t_last += time.perf_counter() - paused

    def loop(self, signals: _StopSignals, resume: bool, stop_at: int | None, stop_after_checkpoints: int | None) -> bool:
        """Steps until the target (or ``stop_at``); False when stopped after a checkpoint (_Stop).
        On KeyboardInterrupt: ``latest.pt`` saved, the interrupt raised again."""
        self.t_segment = time.perf_counter()
        self.seconds_at_start = self.train_seconds
        self.t_last = time.perf_counter()
        try:
            if not resume:
                # the state before the first game: a run killed (even kill -9) before its first
                # checkpoint is resumed from here with --resume, bit for bit
                self.save(self.latest)
            while self.games < self.config.games and (stop_at is None or self.games < stop_at):
                self.play_step()
                self.checkpoint_step(stop_after_checkpoints)
                self.periodic_step()
                signals.check()
        except _Stop:
            self.bar.close()
            self.writer.close()
            return False
        except KeyboardInterrupt:
            self.bar.close()
            self.save(self.latest)
            self.log_training()
            self.writer.close()
            self.log(f"interrupted: saved {self.latest} at {self.games} games; continue with: bgrl train --resume {self.run_dir}")
            raise
        return True

    # --- the end
    def finish(self) -> TrainResult:
        """``latest.pt`` and ``final.pt``, the final evaluation (unless the last one is of this
        game count) and the closing report."""
        self.log_training()  # a short segment still logs its training figures
        self.save(self.latest)
        final = self.run_dir / "final.pt"
        self.save(final)
        final_eval = None
        if self.config.eval_every:
            if self.latest_eval.get("games") == self.games:
                final_eval = {k: self.latest_eval[k] for k in ("random", "pubeval")}
            else:
                final_eval = self.evaluate("final")
        self.bar.close()
        self.writer.flush()
        self.writer.close()
        self.log(self.report(final, final_eval))
        return TrainResult(self.run_dir, final, self.latest, self.games, self.config.games)

    def report(self, final: Path, final_eval: dict | None) -> str:
        """The closing summary: games, speed, the final evaluation and the files written."""
        games, target = self.games, self.config.games
        seg = self.train_seconds - self.seconds_at_start
        g_seg = games - self.games_at_start
        lines = [
            "",
            f"done: {games:,} games"
            + (f" (target {target:,}; the last step finished {games - target:,} more: games end in lockstep)"
               if games > target else "")
            + f" ({g_seg:,} in this session, {seg:.0f} s of training, "
            f"{g_seg / max(seg, 1e-9):.1f} games/s; wall {time.perf_counter() - self.t_segment:.0f} s with evaluations)",
        ]
        if final_eval:
            for name in ("random", "pubeval"):
                e = final_eval[name]
                lines.append(f"  vs {name:8}: {e['ppg']:+.3f} ppg (95% CI {e['ppg'] - e['ci95']:+.3f} .. {e['ppg'] + e['ci95']:+.3f}), "
                             f"win {100 * e['win_rate']:.1f}% over {e['games']} games")
        else:
            lines.append("  not evaluated (--eval-every 0)")
        lines.append(f"  network: {final}   resumable state: {self.latest}   logs: tensorboard --logdir {self.run_dir / 'tb'}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------- train
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
    on_done: Callable[[TrainResult], None] | None = None,
) -> Path | None:
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

    ``on_done``: optional ``f(TrainResult)``, called after the closing report of a call that
    ends (not one stopped or interrupted); ``bgrl train`` prints the next commands from it.

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
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    start = _resume_run(run_dir, overrides, log) if resume else _new_run(config, run_dir, log)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(start.config), indent=2))
    learner = _make_learner(start, run_dir, resume, make_learner)
    run = _Run(start, learner, run_dir, SummaryWriter(str(run_dir / "tb")), tqdm, progress, log, benchmark)
    with _StopSignals() as signals:
        if not run.loop(signals, resume, stop_at, stop_after_checkpoints):
            return None
    result = run.finish()
    if on_done is not None:
        on_done(result)
    return result.final
