"""The settings of a self-play TD(lambda) run (``bgrl train``): the frozen ``TrainConfig``, the
settings a resumed run may change, and config files. No torch here, so building the ``bgrl``
command line stays cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path

from bgrl.evaluation.encoding import ENCODER, num_features
from bgrl._fileio import InputFileError, MAX_JSON_DEPTH, check_parsed, loads_json, read_input_bytes

__all__ = ["TrainConfig", "RESUME_OVERRIDES", "FLAG_NAMES", "load_config_file", "read_config_table", "config_from_dict"]

FLAG_NAMES = {
    "games": "--games", "hidden": "--hidden", "encoder": "encoder", "alpha": "--alpha", "alpha_final": "--alpha-final",
    "schedule_from": "schedule_from", "lam": "--lambda", "parallel": "--parallel", "seed": "--seed",
    "eval_every": "--eval-every", "eval_games": "--eval-games", "checkpoint_every": "--checkpoint-every",
    "init_from": "--init-from", "bearoff": "--no-bearoff", "benchmark_every": "--benchmark-every",
}


@dataclass(frozen=True)
class TrainConfig:
    """Settings of a self-play TD(lambda) run. Frozen: a run's config is recorded in its
    checkpoints and a resumed run keeps it (only the settings in RESUME_OVERRIDES may
    change). Invalid values raise ValueError naming the ``bgrl train`` flag."""

    games: int = 20_000
    """Total self-play games to reach (a resumed run continues up to this count). The run
    stops after the step that reaches it, so it can end above it: by the games that end on
    the same lockstep ply (at most ``parallel - 1``), or, with a rounds backend, at the end
    of a round of ``parallel`` games; kept so that a resumed run matches an uninterrupted
    one bit for bit."""
    hidden: int = 80
    """Hidden units of the one-hidden-layer network."""
    encoder: str = ENCODER
    """Input encoding (bgrl.evaluation.encoding.ENCODERS)."""
    alpha: float = 0.1
    """TD step size of one game's update; each step adds the updates of all ``parallel``
    games, so a larger ``parallel`` usually wants a smaller alpha."""
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
    bearoff: bool = True
    """Value positions whose exact value is known (bgrl.evaluation.exact: no-contact bear-offs from the
    bear-off database, one checker a side) exactly, in play and as TD targets, instead of
    by the network."""
    benchmark_every: int = 0
    """Call the benchmark hook (e.g. the error-rate benchmark) every this many games (0 = never)."""

    def __post_init__(self):
        def need(ok: bool, field: str, what: str, value):
            if not ok:
                raise ValueError(f"{FLAG_NAMES.get(field, field)} {what}, got {value!r}")

        def is_int(v):
            return isinstance(v, int) and not isinstance(v, bool)

        def is_num(v):
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        need(is_int(self.games) and self.games >= 1, "games", "must be an integer >= 1", self.games)
        need(is_int(self.hidden) and 1 <= self.hidden <= 4096, "hidden", "must be an integer in 1..4096", self.hidden)
        need(is_num(self.alpha) and self.alpha > 0, "alpha", "must be a finite number > 0", self.alpha)
        need(self.alpha_final is None or (is_num(self.alpha_final) and self.alpha_final >= 0), "alpha_final",
             "must be a finite number >= 0", self.alpha_final)
        need(is_num(self.lam) and 0.0 <= self.lam <= 1.0, "lam", "must lie in [0, 1]", self.lam)
        need(is_int(self.parallel) and 1 <= self.parallel <= 4096, "parallel", "must be an integer in 1..4096", self.parallel)
        need(is_int(self.seed) and self.seed >= 0, "seed", "must be an integer >= 0", self.seed)
        need(is_int(self.eval_every) and self.eval_every >= 0, "eval_every", "must be an integer >= 0 (0 = never)", self.eval_every)
        need(is_int(self.eval_games) and self.eval_games >= 2, "eval_games", "must be an integer >= 2", self.eval_games)
        need(is_int(self.checkpoint_every) and self.checkpoint_every >= 1, "checkpoint_every", "must be an integer >= 1",
             self.checkpoint_every)
        need(is_int(self.schedule_from) and self.schedule_from >= 0, "schedule_from", "must be an integer >= 0", self.schedule_from)
        need(isinstance(self.bearoff, bool), "bearoff", "must be true or false", self.bearoff)
        need(is_int(self.benchmark_every) and self.benchmark_every >= 0, "benchmark_every", "must be an integer >= 0 (0 = never)",
             self.benchmark_every)
        need(self.init_from is None or isinstance(self.init_from, str), "init_from", "must be a checkpoint path", self.init_from)
        num_features(self.encoder)  # ValueError for an unknown encoder


RESUME_OVERRIDES = ("games", "alpha", "alpha_final", "lam", "parallel", "eval_every", "eval_games", "checkpoint_every",
                    "benchmark_every")

# Config-file keys: the field names, the flag spellings and "lambda".
_KEY_ALIASES = {"lambda": "lam", "run-dir": "run_dir"}


def read_config_table(path) -> dict:
    """The table in a ``--config`` file, TOML or JSON: the one reader of config files and recipes.

    ``.json`` is read as JSON, ``.toml`` as TOML (tomllib), any other name as JSON, else TOML.
    Returns the top-level table (a dict). Raises ValueError, one line naming the file, when it
    cannot be read (missing, a folder, a device or FIFO, larger than
    :data:`bgrl._fileio.MAX_INPUT_BYTES`), is not UTF-8 text, does not parse, nests lists or
    tables more than :data:`bgrl._fileio.MAX_JSON_DEPTH` deep, holds a lone surrogate, or is
    not a table.
    """
    import tomllib

    p = Path(path)
    expected = "a TOML or JSON table of settings or recipe (UTF-8)"
    # at most bgrl._fileio.MAX_INPUT_BYTES; a folder, device or FIFO is refused
    raw = read_input_bytes(p, "--config", expected)  # InputFileError, a ValueError
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"--config {p}: not a text file; expected {expected}") from None
    where = f"--config {p}"
    try:
        if p.suffix.lower() == ".json":
            data = loads_json(text, where)
        elif p.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        else:
            try:
                data = loads_json(text, where)
            except InputFileError:
                raise
            except ValueError:
                data = tomllib.loads(text)
        check_parsed(data, where)  # nesting and lone surrogates, JSON or TOML alike
    except InputFileError:
        raise
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ValueError(f"{where}: lists and tables nested more than {MAX_JSON_DEPTH} deep; expected at most "
                         f"{MAX_JSON_DEPTH}") from None
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{where}: expected a TOML or JSON table ({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a table, got {type(data).__name__}")
    return data


def load_config_file(path) -> dict:
    """Read a training config file: TOML (``.toml``, via tomllib) or JSON (``.json``).

    Keys are TrainConfig field names or the flag spellings (``alpha-final``, ``lambda``,
    ``eval-every``, ...), plus ``run_dir``. Returns a dict keyed by field name.
    Raises ValueError naming the file for an unreadable file (:func:`read_config_table`) or an
    unknown key.
    """
    p = Path(path)
    data = read_config_table(p)
    names = {f.name for f in fields(TrainConfig)} | {"run_dir"}
    out = {}
    for key, value in data.items():
        k = _KEY_ALIASES.get(key, key.replace("-", "_"))
        if k not in names:
            raise ValueError(f"--config {p}: unknown setting {key!r}; expected some of {sorted(names - {'schedule_from'})}")
        out[k] = value
    return out


def config_from_dict(d: dict) -> TrainConfig:
    names = {f.name for f in fields(TrainConfig)}
    return TrainConfig(**{k: v for k, v in d.items() if k in names})

