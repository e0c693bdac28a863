"""Training recipes: a pipeline of stages in one config file (``bgrl train --config FILE``).

A recipe is a TOML (or JSON) file with a list of stages, run in order; each stage starts from
the network the previous one made (or the one its ``init`` names) and writes its own folder
``RUN_DIR/NN-NAME/`` holding its checkpoints and logs; its result is ``final.pt`` there, and
``done.json`` marks it finished. ``RUN_DIR/pipeline.json`` holds the recipe as it was read.
``bgrl train --resume RUN_DIR`` skips the finished stages and continues the current one where
it stopped, bit for bit (TD: from its ``latest.pt``, like any TD run; distillation: from the
last finished epoch, with the Adam moments and the shuffling generator's state; the data
files are written whole or not at all, and recomputing one gives the same bits).

Stages (``kind``) and their settings (types checked; a wrong one is a one-line error):

``td``
    TD(lambda) self-play (:func:`bgrl.training.loop.train`): the settings of
    :class:`bgrl.training.loop.TrainConfig` (``games``, ``alpha``, ``alpha_final``, ``lambda``,
    ``parallel``, ``seed``, ``hidden``, ``encoder``, ``eval_every``, ``eval_games``,
    ``checkpoint_every``, ``bearoff``, ``benchmark_every``), ``stop_at`` (end the segment after
    this many games while ``games`` stays the target of the alpha schedule), plus ``then``: a
    list of tables of later segments of the same run (``games``, ``stop_at`` and the settings a
    resume may change), each continued from the previous one as ``bgrl train --resume DIR
    --games N ...`` would.
``widen``
    :func:`bgrl.training.widen.widen_network`: ``encoder``, ``hidden``, ``noise``, ``seed``.
``distill``
    Search distillation (:mod:`bgrl.training.distill`): ``teacher`` (default: the stage's
    input network), ``games`` (self-play games per data seed), ``data_seeds`` (list of ints,
    default ``[seed]``), ``noise``, ``data_noises`` (one noise per data seed, in place of
    ``noise``), ``ply``, ``parallel``, ``extra_data`` (names of earlier
    distill stages whose positions and targets are joined before this stage's own), ``phases``
    (fit only the positions of these phases of :mod:`bgrl.evaluation.phase`, e.g. ``["race"]``
    for a race network; the data files keep every position), then the fit: ``epochs``, ``lr``,
    ``lr_final`` (decay the step size linearly per epoch from ``lr`` to it), ``batch``,
    ``holdout``, ``seed``, ``device`` (cpu, cuda, auto: where the fit runs, and where the
    teacher's network runs while it makes the targets). ``data_seeds = []`` with
    ``extra_data`` fits on the earlier stages' data only (a second fit of the same positions,
    e.g. with another ``seed``).
``average``
    :func:`bgrl.training.average.average_networks` of the epoch networks ``epochs = [FIRST,
    LAST]`` (inclusive) of the distill stage ``stage``, or of the checkpoints ``checkpoints``
    (checkpoint specs, or ``"@NAME"`` for an earlier stage's result: the mean of two fits that
    start from the same network, a "model soup", Wortsman et al. 2022, "Model soups: averaging
    weights of multiple fine-tuned models improves accuracy without increasing inference time").

Every stage also takes ``name`` (default: its kind) and ``init``: ``"previous"`` (default),
``"@NAME"`` (another stage's result) or a checkpoint spec (a shipped network name, a file, a
run folder). Top-level keys: ``name`` and ``description`` (text), ``stage`` (the list).

Shipped recipes (``bgrl train --config early``) are package data: ``training/recipes/*.toml``.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from bgrl._fileio import write_text_atomic
from bgrl._resources import resolve_checkpoint, shipped_path
from bgrl.agents.search import MAX_PLY
from bgrl.evaluation.phase import PHASE_NAMES
from bgrl.training.config import read_config_table
from bgrl.training.data import load_data, write_data

__all__ = ["STAGE_SETTINGS", "Stage", "Recipe", "load_recipe", "recipe_path", "shipped_recipes", "is_recipe",
           "run_pipeline", "is_pipeline_run"]

_INT, _FLOAT, _STR, _BOOL, _INTS, _STRS, _TABLES = "int", "float", "str", "bool", "list of ints", "list of strings", "list of tables"
_FLOATS = "list of numbers"

_TD = {"games": _INT, "hidden": _INT, "encoder": _STR, "alpha": _FLOAT, "alpha_final": _FLOAT, "lam": _FLOAT,
       "parallel": _INT, "seed": _INT, "eval_every": _INT, "eval_games": _INT, "checkpoint_every": _INT,
       "bearoff": _BOOL, "benchmark_every": _INT, "stop_at": _INT, "then": _TABLES}
_TD_THEN = {"games": _INT, "stop_at": _INT, "alpha": _FLOAT, "alpha_final": _FLOAT, "lam": _FLOAT, "parallel": _INT, "eval_every": _INT,
            "eval_games": _INT, "checkpoint_every": _INT, "benchmark_every": _INT}

#: kind -> {setting: type name}; every stage also takes ``name`` and ``init``.
STAGE_SETTINGS: dict[str, dict[str, str]] = {
    "td": _TD,
    "widen": {"encoder": _STR, "hidden": _INT, "noise": _FLOAT, "seed": _INT},
    "distill": {"teacher": _STR, "games": _INT, "data_seeds": _INTS, "noise": _FLOAT, "data_noises": _FLOATS, "ply": _INT, "parallel": _INT,
                "extra_data": _STRS, "phases": _STRS, "epochs": _INT, "lr": _FLOAT, "lr_final": _FLOAT, "batch": _INT, "holdout": _FLOAT, "seed": _INT,
                "device": _STR},
    "average": {"stage": _STR, "epochs": _INTS, "checkpoints": _STRS},
}
_COMMON = {"name": _STR, "init": _STR}
_DISTILL_DEFAULTS = {"games": 1000, "noise": 0.02, "ply": 1, "parallel": 256, "epochs": 4, "lr": 1e-4, "batch": 256,
                     "holdout": 0.05, "seed": 0, "device": "cpu", "extra_data": []}


def _type_ok(v, t: str) -> bool:
    is_int = isinstance(v, int) and not isinstance(v, bool)
    if t == _INT:
        return is_int
    if t == _FLOAT:
        return (is_int or isinstance(v, float)) and math.isfinite(v)
    if t == _STR:
        return isinstance(v, str)
    if t == _BOOL:
        return isinstance(v, bool)
    if t == _INTS:
        return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
    if t == _STRS:
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if t == _FLOATS:
        return isinstance(v, list) and all(_type_ok(x, _FLOAT) for x in v)
    if t == _TABLES:
        return isinstance(v, list) and all(isinstance(x, dict) for x in v)
    raise AssertionError(t)


@dataclass(frozen=True)
class Stage:
    """One stage: ``kind`` (a key of :data:`STAGE_SETTINGS`), ``name``, ``folder``
    (``NN-name``), ``init`` and its ``settings`` (checked)."""

    kind: str
    name: str
    folder: str
    init: str
    settings: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Recipe:
    """A checked recipe: its name, description, source file and stages."""

    name: str
    description: str
    source: str
    stages: tuple

    def as_dict(self) -> dict:
        return {"name": self.name, "description": self.description, "source": self.source,
                "stage": [{"kind": s.kind, "name": s.name, "init": s.init, **s.settings} for s in self.stages]}


def _recipes_dir() -> Path:
    return shipped_path("recipes", package="bgrl.training")


def shipped_recipes() -> list[str]:
    """Names of the shipped recipes (``training/recipes/<name>.toml``)."""
    d = _recipes_dir()
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


def recipe_path(spec) -> Path:
    """The file of a recipe spec: an existing path, else a shipped recipe's bare name.
    ValueError naming the shipped recipes when neither exists."""
    p = Path(spec)
    if p.exists():
        return p
    shipped = _recipes_dir() / f"{spec}.toml"
    if str(spec).replace("-", "").replace("_", "").isalnum() and shipped.is_file():
        return shipped
    raise ValueError(f"--config {spec}: no such file, and no shipped recipe of that name (shipped: {', '.join(shipped_recipes())})")


def _read_table(p: Path) -> dict:
    return read_config_table(p)


def is_recipe(spec) -> bool:
    """Whether a --config spec is a recipe (a table with ``stage``) rather than flat TD settings."""
    try:
        p = recipe_path(spec)
    except ValueError:
        return False
    try:
        return "stage" in _read_table(p)
    except ValueError:
        return False


def load_recipe(spec) -> Recipe:
    """Read and check a recipe (a path or a shipped recipe's name).

    Raises
    ------
    ValueError
        one line naming the file and the stage: unknown top-level key, stage kind or setting,
        a setting of the wrong type, a duplicated stage name, an ``init``/``extra_data``/
        ``stage`` reference to a stage that does not come earlier.
    """
    p = recipe_path(spec)
    data = _read_table(p)
    where = f"--config {spec}"
    unknown = set(data) - {"name", "description", "stage"}
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; expected name, description and [[stage]] tables")
    raw = data.get("stage")
    if not isinstance(raw, list) or not raw or not all(isinstance(s, dict) for s in raw):
        raise ValueError(f"{where}: expected one or more [[stage]] tables")
    for key in ("name", "description"):
        if key in data and not isinstance(data[key], str):
            raise ValueError(f"{where}: {key} must be a string, got {data[key]!r}")
    stages, seen = [], set()
    for n, st in enumerate(raw, start=1):
        kind = st.get("kind")
        if kind not in STAGE_SETTINGS:
            raise ValueError(f"{where}: stage {n}: unknown kind {kind!r}; expected one of {', '.join(STAGE_SETTINGS)}")
        allowed = {**_COMMON, **STAGE_SETTINGS[kind]}
        settings = {}
        for key, value in st.items():
            if key == "kind":
                continue
            k = "lam" if key == "lambda" else key.replace("-", "_")
            if k not in allowed:
                raise ValueError(f"{where}: stage {n} ({kind}): unknown setting {key!r}; expected some of "
                                 f"{', '.join(sorted(a if a != 'lam' else 'lambda' for a in allowed))}")
            if not _type_ok(value, allowed[k]):
                raise ValueError(f"{where}: stage {n} ({kind}): {key} must be {'a' if allowed[k][0] not in 'aeiou' else 'an'} "
                                 f"{allowed[k]}, got {type(value).__name__} {value!r:.40}")
            settings[k] = value
        for i, seg in enumerate(settings.get("then", []), start=1):
            for key, value in seg.items():
                k = "lam" if key == "lambda" else key.replace("-", "_")
                if k not in _TD_THEN:
                    raise ValueError(f"{where}: stage {n} (td): then[{i}]: unknown setting {key!r}; a later segment may "
                                     f"set {', '.join(sorted(_TD_THEN))}")
                if not _type_ok(value, _TD_THEN[k]):
                    raise ValueError(f"{where}: stage {n} (td): then[{i}]: {key} must be a {_TD_THEN[k]}, got {value!r:.40}")
            if "games" not in seg:
                raise ValueError(f"{where}: stage {n} (td): then[{i}] needs games (the run's new total)")
        name = settings.pop("name", kind)
        if not name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"{where}: stage {n}: name must be letters, digits, - and _, got {name!r}")
        if name in seen:
            raise ValueError(f"{where}: stage {n}: the name {name!r} is used twice; give each stage its own name")
        init = settings.pop("init", "previous")
        refs = [init[1:]] if init.startswith("@") else []
        refs += settings.get("extra_data", []) + ([settings["stage"]] if "stage" in settings else [])
        if kind == "average" and isinstance(settings.get("checkpoints"), list):
            refs += [c[1:] for c in settings["checkpoints"] if isinstance(c, str) and c.startswith("@")]
        for r in refs:
            if r not in seen:
                raise ValueError(f"{where}: stage {n} ({kind}): {r!r} is not an earlier stage (earlier: {', '.join(seen) or 'none'})")
        if kind in ("widen", "distill") and n == 1 and init == "previous":
            raise ValueError(f"{where}: stage 1 ({kind}) needs init: the network to start from (e.g. init = \"default\")")
        if kind == "average" and ("stage" in settings) == ("checkpoints" in settings):
            raise ValueError(f"{where}: stage {n} (average): give either stage (with epochs) or checkpoints")
        if kind == "average" and "stage" in settings:
            ep = settings.get("epochs")
            if not (isinstance(ep, list) and len(ep) == 2 and 1 <= ep[0] <= ep[1]):
                raise ValueError(f"{where}: stage {n} (average): epochs must be [FIRST, LAST] with 1 <= FIRST <= LAST, got {ep!r}")
        if kind == "td":
            from bgrl.training.loop import TrainConfig

            try:
                TrainConfig(**{k: v for k, v in settings.items() if k not in ("then", "stop_at")})
            except ValueError as exc:
                raise ValueError(f"{where}: stage {n} (td): {exc}") from None
        if kind == "distill":
            full = {**_DISTILL_DEFAULTS, **settings}
            checks = [(full["games"] >= 1, "games must be >= 1"), (full["noise"] >= 0, "noise must be >= 0"),
                      (0 <= full["ply"] <= 3, "ply must be 0..3"), (full["epochs"] >= 1, "epochs must be >= 1"),
                      (full["lr"] > 0, "lr must be > 0"), (full.get("lr_final", 1.0) > 0, "lr_final must be > 0"), (full["batch"] >= 1, "batch must be >= 1"),
                      (0 < full["holdout"] < 1, "holdout must lie in (0, 1)"), (full["parallel"] >= 1, "parallel must be >= 1"),
                      (full["device"] in ("cpu", "cuda", "auto"), "device must be cpu, cuda or auto"),
                      (all(ph in PHASE_NAMES for ph in full.get("phases", PHASE_NAMES)) and full.get("phases", True) != [],
                       f"phases must be a non-empty list of {', '.join(PHASE_NAMES)}"),
                      (full.get("data_seeds", [0]) != [] or full["extra_data"] != [],
                       "data_seeds must not be empty (an empty list needs extra_data: the positions to fit)"),
                      (all(x >= 0 for x in full.get("data_noises", [])), "data_noises must be >= 0"),
                      ("data_noises" not in full or len(full["data_noises"]) == len(full.get("data_seeds", [full["seed"]])),
                       "data_noises needs one noise per data seed")]
            for ok, msg in checks:
                if not ok:
                    raise ValueError(f"{where}: stage {n} (distill): {msg}")
        seen.add(name)
        stages.append(Stage(kind, name, f"{n:02d}-{name}", init, settings))
    return Recipe(str(data.get("name", p.stem)), str(data.get("description", "")), str(p), tuple(stages))


def is_pipeline_run(run_dir) -> bool:
    """Whether ``run_dir`` was made by :func:`run_pipeline` (it holds ``pipeline.json``)."""
    return (Path(run_dir) / "pipeline.json").is_file()


class _Stopped(Exception):
    """Internal: a test asked the pipeline to stop mid-stage, as if killed."""


def _meta_of(path: Path) -> dict:
    from bgrl.evaluation.networks import load_network

    _, meta = load_network(path)
    return meta


def _clean_meta(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in ("hidden", "n_inputs", "package_version")}


def run_pipeline(recipe: Recipe | None, run_dir, resume: bool = False, progress: bool = True, log=print,
                 stop_after: tuple | None = None) -> Path:
    """Run (or, with ``resume``, continue) a recipe in ``run_dir``; returns ``run_dir/final.pt``.

    Parameters
    ----------
    recipe : Recipe, or None with ``resume`` (read from ``run_dir/pipeline.json``)
    run_dir : the run folder (see the module docstring)
    resume : continue a run folder made by this function
    progress : tqdm bars (TD games, distillation targets)
    log : callable(str) for progress lines
    stop_after : (stage name, n), for tests: stop as if killed after the stage's n-th TD
        checkpoint write or n-th distillation epoch; the function then returns None

    Raises
    ------
    ValueError
        for a run folder that already holds a run (without ``resume``) or is not a pipeline
        run (with it); CheckpointError for an unreadable checkpoint.
    """
    run_dir = Path(run_dir)
    state_file = run_dir / "pipeline.json"
    if resume:
        if not state_file.is_file():
            raise ValueError(f"cannot resume {run_dir}: no pipeline.json there (expected a run folder of bgrl train --config RECIPE)")
        saved = json.loads(state_file.read_text(encoding="utf-8"))
        recipe = _recipe_from_dict(saved)
        log(f"resuming recipe {recipe.name} in {run_dir}")
    else:
        if run_dir.exists() and any(run_dir.iterdir()):
            raise ValueError(f"--run-dir {run_dir} is not empty; continue a recipe's run with --resume {run_dir} or pick a new --run-dir")
        run_dir.mkdir(parents=True, exist_ok=True)
        write_text_atomic(state_file, json.dumps(recipe.as_dict(), indent=2))
        log(f"recipe {recipe.name}: {len(recipe.stages)} stage(s) in {run_dir}")
    outputs: dict[str, Path] = {}
    previous: Path | None = None
    for stage in recipe.stages:
        folder = run_dir / stage.folder
        out = folder / "final.pt"
        init = _resolve_init(stage.init, previous, outputs)
        if (folder / "done.json").is_file() and out.is_file():
            log(f"stage {stage.folder}: done")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            log(f"stage {stage.folder} ({stage.kind})" + (f" from {init}" if init is not None else ""))
            stop = stop_after[1] if stop_after is not None and stop_after[0] == stage.name else None
            runner = {"td": _run_td, "widen": _run_widen, "distill": _run_distill, "average": _run_average}[stage.kind]
            try:
                runner(stage, folder, init, outputs, run_dir, progress, log, stop)
            except _Stopped:
                return None
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the recipe resumes from its run folder, not the stage's
                log(f"interrupted in stage {stage.folder} of recipe {recipe.name}; continue the recipe (this stage, then "
                    f"the ones after it) with: bgrl train --resume {run_dir}")
                raise
            write_text_atomic(folder / "done.json", json.dumps({"stage": stage.name, "kind": stage.kind,
                                                                "seconds_this_session": round(time.perf_counter() - t0, 1)}))
        outputs[stage.name] = out
        previous = out
    final = run_dir / "final.pt"
    shutil.copyfile(previous, final)
    log(f"recipe {recipe.name} done: {final}")
    return final


def _recipe_from_dict(d: dict) -> Recipe:
    stages = []
    for n, s in enumerate(d["stage"], start=1):
        s = dict(s)
        kind, name, init = s.pop("kind"), s.pop("name"), s.pop("init")
        stages.append(Stage(kind, name, f"{n:02d}-{name}", init, s))
    return Recipe(d["name"], d.get("description", ""), d.get("source", ""), tuple(stages))


def _resolve_init(init: str, previous: Path | None, outputs: dict) -> Path | None:
    if init == "previous":
        return previous
    if init.startswith("@"):
        return outputs[init[1:]]
    return resolve_checkpoint(init)


def _stage_log(log, folder: Path, run_dir: Path):
    """The TD trainer's messages inside a recipe: its closing "next:" block left out (the recipe
    goes on), and its resume command, which names the stage folder (resuming that alone would
    finish this stage and skip the ones after it), pointed at the recipe's run folder."""
    stage_cmd = f"bgrl train --resume {folder}"

    def say(message) -> None:
        m = str(message).split("\nnext:")[0]
        if m.endswith(stage_cmd) or stage_cmd + " " in m:
            m = m.replace(stage_cmd, f"bgrl train --resume {run_dir}") + "   # the recipe: this stage, then the ones after it"
        log(m)

    return say


def _run_td(stage, folder, init, outputs, run_dir, progress, log, stop):
    from bgrl.training.loop import TrainConfig, train

    settings = {k: v for k, v in stage.settings.items() if k not in ("then", "stop_at")}
    then = stage.settings.get("then", [])
    # each segment ends at its stop_at, else at its games target
    segments = [stage.settings.get("stop_at") or settings.get("games", TrainConfig().games)]
    segments += [seg.get("stop_at") or seg["games"] for seg in then]
    overrides = [{}] + [{("lam" if k == "lambda" else k): v for k, v in seg.items() if k != "stop_at"} for seg in then]
    targets = [settings.get("games", TrainConfig().games)] + [seg["games"] for seg in then]
    latest = folder / "latest.pt"
    played = int(_meta_of(latest).get("games", 0)) if latest.is_file() else None
    for end, target, ov in zip(segments, targets, overrides):
        if played is not None and played >= end:
            continue  # this segment is behind us
        kw = dict(progress=progress, log=_stage_log(log, folder, run_dir), stop_after_checkpoints=stop,
                  stop_at=end if end < target else None)
        if played is None:
            cfg = TrainConfig(**{**settings, **({"init_from": str(init)} if init is not None else {})})
            res = train(cfg, folder, **kw)
        else:
            res = train(None, folder, resume=True, overrides={**ov, "games": target}, **kw)
        if res is None:
            raise _Stopped
        played = int(_meta_of(latest).get("games", 0))


def _run_widen(stage, folder, init, outputs, run_dir, progress, log, stop):
    from bgrl.evaluation.networks import load_network, save_checkpoint
    from bgrl.training.widen import widen_network

    s = stage.settings
    net, meta = load_network(init)
    wide = widen_network(net, meta["encoder"], s.get("encoder"), s.get("hidden"), noise=s.get("noise", 1e-3),
                         seed=s.get("seed", 0))
    new_meta = {**_clean_meta(meta), "encoder": s.get("encoder") or meta["encoder"], "widened_from": str(init)}
    save_checkpoint(folder / "final.pt", wide, new_meta)
    log(f"  widened {meta['encoder']} {net.n_inputs}-{net.hidden}-5 to {new_meta['encoder']} {wide.n_inputs}-{wide.hidden}-5")


def _data_files(stage, folder: Path) -> list[Path]:
    s = {**_DISTILL_DEFAULTS, **stage.settings}
    return [folder / f"data_{seed}.npz" for seed in s.get("data_seeds", [s["seed"]])]


def _run_distill(stage, folder, init, outputs, run_dir, progress, log, stop):
    import numpy as np

    from bgrl.evaluation.networks import load_checkpoint, load_network, save_checkpoint
    from bgrl.evaluation.table import network_evaluator
    from bgrl.training.distill import collect_positions, fit, resolve_device, search_targets, select_phases

    s = {**_DISTILL_DEFAULTS, **stage.settings}
    resolve_device(s["device"])  # a missing CUDA fails before the slow work
    teacher_path = init if "teacher" not in s else resolve_checkpoint(s["teacher"])
    teacher = None  # loaded only when a data file must be made (none with data_seeds = [] or on resume)
    seeds = s.get("data_seeds", [s["seed"]])
    noises = s.get("data_noises", [s["noise"]] * len(seeds))
    for seed, noise, path in zip(seeds, noises, _data_files(stage, folder)):
        if path.is_file():
            continue
        if teacher is None:
            tnet, tmeta = load_network(teacher_path)
            # the stage's device serves the targets too: the teacher's arithmetic on a GPU
            # (bgrl.evaluation.table.TableNetEvaluator), the board work on the CPU
            teacher = network_evaluator(tnet, tmeta["encoder"], device=resolve_device(s["device"]))
        t0 = time.perf_counter()
        boards = collect_positions(teacher, s["games"], seed=seed, noise=noise, parallel=s["parallel"])
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=boards.shape[0], unit="pos", desc=f"targets (seed {seed})")
        done = [0]

        def tick(n, total):
            if bar is not None:
                bar.update(n - done[0])
            done[0] = n

        targets = search_targets(teacher, boards, s["ply"], progress=tick)
        if bar is not None:
            bar.close()
        write_data(path, boards, targets, str(teacher_path), s["ply"])
        log(f"  {path.name}: {boards.shape[0]} positions from {s['games']} games, {s['ply']}-ply targets "
            f"({time.perf_counter() - t0:.0f} s)")
    files = [f for name in s["extra_data"] for f in _data_files(_stage_named(run_dir, name), run_dir / _stage_named(run_dir, name).folder)]
    files += _data_files(stage, folder)
    parts = [load_data(f, MAX_PLY)[:2] for f in files]  # checked: a damaged data file is named, not half-read
    boards = np.concatenate([b for b, _ in parts])
    targets = np.concatenate([t for _, t in parts])
    if "phases" in s:
        n_all = boards.shape[0]
        boards, targets = select_phases(boards, targets, s["phases"])
        log(f"  phases {', '.join(s['phases'])}: {boards.shape[0]} of {n_all} positions")
    done_epochs = sorted(int(p.stem.split("_")[1]) for p in folder.glob("epoch_*.pt"))
    start, fit_state = 0, None
    if done_epochs:
        start = done_epochs[-1]
        payload = load_checkpoint(folder / f"epoch_{start}.pt")
        fit_state = payload.get("trainer")
        net, meta = load_network(folder / f"epoch_{start}.pt")
        log(f"  continuing the fit after epoch {start}")
    else:
        net, meta = load_network(init)
    base_meta = _clean_meta(meta)
    written = [0]
    log_file = folder / "log.jsonl"

    def on_epoch(ep, net_, fstate):
        m = {**base_meta, "distilled": {"teacher": str(teacher_path), "ply": s["ply"], "positions": int(boards.shape[0]),
                                        "epochs": ep, "lr": s["lr"], "batch": s["batch"], "stage": stage.name}}
        save_checkpoint(folder / f"epoch_{ep}.pt", net_, m, trainer=fstate)
        written[0] += 1
        if stop is not None and written[0] >= stop:
            raise _Stopped

    def log_line(msg):
        log("  " + msg)
        with open(log_file, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"stage": stage.name, "message": msg}) + "\n")

    if start < s["epochs"]:
        fit(net, meta["encoder"], boards, targets, epochs=s["epochs"], lr=s["lr"], lr_final=s.get("lr_final"), batch=s["batch"], holdout=s["holdout"],
            seed=s["seed"], log=log_line, on_epoch=on_epoch, start_epoch=start, state=fit_state, device=s["device"])
    shutil.copyfile(folder / f"epoch_{s['epochs']}.pt", folder / "final.pt")


def _stage_named(run_dir: Path, name: str) -> Stage:
    rec = _recipe_from_dict(json.loads((run_dir / "pipeline.json").read_text(encoding="utf-8")))
    return next(st for st in rec.stages if st.name == name)


def _run_average(stage, folder, init, outputs, run_dir, progress, log, stop):
    from bgrl.evaluation.networks import load_network, save_checkpoint
    from bgrl.training.average import average_networks

    s = stage.settings
    if "stage" in s:
        src = run_dir / _stage_named(run_dir, s["stage"]).folder
        paths = [src / f"epoch_{e}.pt" for e in range(s["epochs"][0], s["epochs"][1] + 1)]
    else:
        paths = [outputs[c[1:]] if c.startswith("@") else resolve_checkpoint(c) for c in s["checkpoints"]]
    nets = [load_network(p) for p in paths]
    avg = average_networks([n for n, _ in nets], [str(p) for p in paths])
    meta = {**_clean_meta(nets[0][1]), "averaged_from": [str(p) for p in paths]}
    save_checkpoint(folder / "final.pt", avg, meta)
    log(f"  mean of {len(paths)} networks")
