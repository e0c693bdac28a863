"""The training run: config, run folder, progress, tensorboard, checkpoints, resume."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch

from bgrl.checkpoint import load_checkpoint, save_checkpoint
from bgrl.encoding import ENCODER, num_features
from bgrl.model import TDNet

from bgrl.training.td import TDLambda

__all__ = ["TrainConfig", "train"]


@dataclass(frozen=True)
class TrainConfig:
    """Settings of a self-play TD(lambda) run. Frozen: a run's config is recorded in its
    checkpoints and a resumed run keeps it (only ``games`` may grow)."""

    games: int = 20_000
    """Total self-play games to reach (a resumed run continues up to this count)."""
    hidden: int = 80
    """Hidden units of the one-hidden-layer network."""
    encoder: str = ENCODER
    """Input encoding (bgrl.encoding.ENCODERS)."""
    alpha: float = 0.1
    """TD step size (summed over the games played in lockstep)."""
    alpha_final: float | None = None
    """If set, alpha decays linearly to this value at ``games``."""
    schedule_from: int = 0
    """Game count where the alpha schedule starts (set when a resume changes alpha)."""
    lam: float = 0.7
    """lambda, the eligibility-trace decay (TD-Gammon used 0.7)."""
    parallel: int = 32
    """Games played at once (G)."""
    seed: int = 0
    """Seed of the dice and the weight initialisation."""
    eval_every: int = 5_000
    """Evaluate against baselines every this many games (0 = never)."""
    eval_games: int = 400
    """Games per baseline evaluation (paired dice)."""
    checkpoint_every: int = 2_000
    """Write ``latest.pt`` every this many games."""
    init_from: str | None = None
    """Start from this checkpoint's weights (fine-tuning) instead of random weights; its
    encoder and hidden size then replace ``encoder`` and ``hidden``."""


    def __post_init__(self):
        import math

        def need(ok: bool, what: str, value):
            if not ok:
                raise ValueError(f"{what}, got {value!r}")

        need(isinstance(self.games, int) and self.games >= 1, "games must be an integer >= 1", self.games)
        need(isinstance(self.hidden, int) and 1 <= self.hidden <= 4096, "hidden must be an integer in 1..4096", self.hidden)
        need(math.isfinite(self.alpha) and self.alpha > 0, "alpha must be a finite number > 0", self.alpha)
        need(
            self.alpha_final is None or (math.isfinite(self.alpha_final) and self.alpha_final >= 0),
            "alpha_final must be a finite number >= 0",
            self.alpha_final,
        )
        need(0.0 <= self.lam <= 1.0, "lambda must lie in [0, 1]", self.lam)
        need(isinstance(self.parallel, int) and 1 <= self.parallel <= 4096, "parallel must be an integer in 1..4096", self.parallel)
        need(isinstance(self.eval_every, int) and self.eval_every >= 0, "eval_every must be an integer >= 0 (0 = never)", self.eval_every)
        need(isinstance(self.eval_games, int) and self.eval_games >= 2, "eval_games must be an integer >= 2", self.eval_games)
        need(isinstance(self.checkpoint_every, int) and self.checkpoint_every >= 1, "checkpoint_every must be an integer >= 1", self.checkpoint_every)
        need(isinstance(self.schedule_from, int) and self.schedule_from >= 0, "schedule_from must be an integer >= 0", self.schedule_from)
        num_features(self.encoder)  # ValueError for an unknown encoder


def _config_from_dict(d: dict) -> TrainConfig:
    names = {f.name for f in fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in d.items() if k in names})


def _rng_state(rng: np.random.Generator) -> str:
    return json.dumps(rng.bit_generator.state)


RESUME_OVERRIDES = ("games", "alpha", "alpha_final", "lam", "parallel", "eval_every", "eval_games", "checkpoint_every")


def train(
    config: TrainConfig | None, run_dir: Path, resume: bool = False, progress: bool = True, log=print, overrides: dict | None = None
) -> Path:
    """Run (or resume) self-play training in ``run_dir``.

    Writes ``run_dir/latest.pt`` (atomically, every ``checkpoint_every`` games and at the
    end), ``run_dir/final.pt`` at the end, ``run_dir/config.json`` and tensorboard event
    files under ``run_dir/tb``. Returns the path of the final checkpoint.

    With ``resume=True`` (``config`` is then ignored and may be None) the network, game
    count, dice RNG state and config are read from
    ``run_dir/latest.pt``; ``overrides["games"]`` sets a new total target and ``overrides`` may
    change the settings named in :data:`RESUME_OVERRIDES` (a changed alpha schedule then
    starts at the resumed game count). Games in flight at the checkpoint are not saved
    (they restart), traces with them.
    """
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from bgrl.agents import NetAgent, PubevalAgent, RandomAgent
    from bgrl.evaluator import NetEvaluator
    from bgrl.match import play_match

    from bgrl.checkpoint import CheckpointError, load_network

    torch.set_num_threads(1)
    run_dir = Path(run_dir)
    latest = run_dir / "latest.pt"
    if resume:
        if not latest.is_file():
            raise CheckpointError(f"cannot resume {run_dir}: no latest.pt there (expected a run folder made by `bgrl train`)")
    else:
        if run_dir.exists() and not run_dir.is_dir():
            raise ValueError(f"run folder {run_dir} exists and is not a folder")
        if (run_dir / "latest.pt").exists() or (run_dir / "final.pt").exists():
            raise ValueError(f"run folder {run_dir} already holds a run; continue it with --resume {run_dir} or pick a new --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    games_done = 0
    plies_done = 0
    seconds_done = 0.0
    if resume:
        payload = load_checkpoint(latest)
        meta = payload["meta"]
        trainer_state = payload.get("trainer")
        if not isinstance(trainer_state, dict) or "rng" not in trainer_state or not isinstance(meta.get("config"), dict):
            raise CheckpointError(
                f"{latest} holds a network but no trainer state (an exported or shipped network, not a run checkpoint); "
                "it cannot be resumed"
            )
        load_network(latest)  # validates shapes and finite weights
        old = _config_from_dict(meta["config"])
        changes = {k: v for k, v in (overrides or {}).items() if v is not None}
        bad = set(changes) - set(RESUME_OVERRIDES)
        if bad:
            raise ValueError(f"cannot change {sorted(bad)} when resuming; changeable: {list(RESUME_OVERRIDES)}")
        changes.pop("games", None)
        if "alpha" in changes or "alpha_final" in changes:
            changes["schedule_from"] = int(meta["games"])
        target = (overrides or {}).get("games") or old.games
        if target <= int(meta["games"]):
            raise ValueError(f"--games is the run's total target and must exceed the {meta['games']} games already played, got {target}")
        config = TrainConfig(**{**asdict(old), **changes, "games": target})
        net = TDNet(num_features(config.encoder), config.hidden)
        net.load_state_dict(payload["model"])
        games_done = int(meta["games"])
        plies_done = int(meta.get("plies", 0))
        seconds_done = float(meta.get("train_seconds", 0.0))
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = json.loads(trainer_state["rng"])
        except (TypeError, ValueError, KeyError) as exc:
            raise CheckpointError(f"{latest}: the trainer's random-generator state is unreadable ({exc})") from None
        log(f"resuming {run_dir} at {games_done} games")
    else:
        torch.manual_seed(config.seed)
        if config.init_from:
            from bgrl.resources import resolve_checkpoint

            src = resolve_checkpoint(config.init_from)
            net, init_meta = load_network(src)
            config = TrainConfig(**{**asdict(config), "init_from": str(src), "encoder": init_meta["encoder"], "hidden": int(init_meta["hidden"])})
            net.train(True)
            log(f"starting from the weights of {src} ({init_meta.get('games', '?')} games, {config.encoder}, {config.hidden} hidden)")
        else:
            net = TDNet(num_features(config.encoder), config.hidden)
        rng = np.random.default_rng(config.seed)
    (run_dir / "config.json").write_text(json.dumps(asdict(config), indent=2))
    learner = TDLambda(net, config.encoder, config.parallel, config.alpha, config.lam, rng)
    writer = SummaryWriter(str(run_dir / "tb"))

    def meta_now() -> dict:
        return {
            "encoder": config.encoder,
            "games": games_done,
            "plies": plies_done,
            "train_seconds": round(seconds_done, 1),
            "config": asdict(config),
            "algorithm": "TD(lambda) self-play, accumulating eligibility traces, greedy 0-ply play",
        }

    def save(path: Path):
        save_checkpoint(path, net, meta_now(), trainer={"rng": _rng_state(rng)})

    def evaluate():
        agent = NetAgent(NetEvaluator(net, config.encoder), name="net")
        for name, opp in (("random", RandomAgent()), ("pubeval", PubevalAgent())):
            r = play_match(agent, opp, config.eval_games, seed=games_done, names=("net", name))
            writer.add_scalar(f"eval/ppg_vs_{name}", r.ppg, games_done)
            writer.add_scalar(f"eval/win_rate_vs_{name}", r.win_rate, games_done)
            log(f"[{games_done} games] vs {name}: {r.ppg:+.3f} ppg (+-{r.ci95:.3f}), win {100 * r.win_rate:.1f}%")
        net.train(False)

    bar = tqdm(total=config.games, initial=games_done, unit="game", disable=not progress, smoothing=0.05)
    next_ckpt = games_done + config.checkpoint_every
    next_eval = games_done + config.eval_every if config.eval_every else None
    t_last = time.perf_counter()
    lengths: list[int] = []
    deltas: list[float] = []
    results: list[int] = []
    try:
        while games_done < config.games:
            if config.alpha_final is not None:
                span = max(config.games - config.schedule_from, 1)
                frac = min(max(games_done - config.schedule_from, 0) / span, 1.0)
                learner.alpha = config.alpha + (config.alpha_final - config.alpha) * frac
            out = learner.step()
            plies_done += config.parallel
            deltas.append(out["delta"])
            n = len(out["finished"])
            if n:
                games_done += n
                lengths.extend(out["lengths"].tolist())
                results.extend(out["finished"].tolist())
                bar.update(n)
            now = time.perf_counter()
            seconds_done += now - t_last
            t_last = now
            if len(lengths) >= 500:
                writer.add_scalar("train/td_error_mse", float(np.mean(deltas)), games_done)
                writer.add_scalar("train/game_length_plies", float(np.mean(lengths)), games_done)
                r = np.array(results)
                writer.add_scalar("train/gammon_rate", float((r >= 2).mean()), games_done)
                writer.add_scalar("train/backgammon_rate", float((r >= 3).mean()), games_done)
                writer.add_scalar("train/games_per_second", games_done / max(seconds_done, 1e-9), games_done)
                writer.add_scalar("train/alpha", learner.alpha, games_done)
                bar.set_postfix(len=f"{np.mean(lengths):.0f}", td=f"{np.mean(deltas):.4f}", g=f"{(r >= 2).mean():.2f}")
                lengths, deltas, results = [], [], []
            if games_done >= next_ckpt:
                save(latest)
                next_ckpt += config.checkpoint_every
            if next_eval is not None and games_done >= next_eval:
                t_ev = time.perf_counter()
                evaluate()
                save(run_dir / f"games_{games_done}.pt")
                next_eval += config.eval_every
                t_last += time.perf_counter() - t_ev  # evaluation time is not training time
    except KeyboardInterrupt:
        bar.close()
        save(latest)
        writer.close()
        log(f"interrupted: saved {latest} at {games_done} games; continue with: bgrl train --resume {run_dir}")
        raise
    bar.close()
    save(latest)
    final = run_dir / "final.pt"
    save(final)
    writer.flush()
    writer.close()
    log(f"trained {games_done} games in {seconds_done:.0f} s ({games_done / max(seconds_done, 1e-9):.1f} games/s); final checkpoint {final}")
    return final
