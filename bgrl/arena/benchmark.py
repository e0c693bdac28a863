"""Error-rate benchmark: decisions from GNU Backgammon games, every legal play scored by gnubg.

The shipped benchmark (``bgrl/data/benchmark.npz``, built by ``scripts/tools/build_benchmark.py``;
how it was built is stored in its ``meta``) holds D decisions with a choice (at least two
distinct legal plays) taken from games between GNU Backgammon 0-ply players with a little
equity noise, and for every legal play its cubeless money equity by GNU Backgammon
(gnubg-nn) at 2 plies (plays outside gnubg's 0-ply move filter carry an estimate; see
``ply`` below and the build script's docstring).

:func:`error_rate` measures a player against it: the equity its choice loses against the
best play, as judged by gnubg 2-ply, in millipoints per decision (1 millipoint = 0.001
points per game), overall and for contact, race and bear-off decisions separately. This is
the usual "error rate" scale of GNU Backgammon (its expert level, 0-ply, loses about
2-5 millipoints per decision; DESIGN.md and issue 7).

File format (numpy ``.npz``, no pickled objects)
------------------------------------------------
===============  ==============  =====================================================
name             dtype, shape    meaning
===============  ==============  =====================================================
position_id      str (D,)        gnubg Position ID of the decision (mover on roll)
board            int8 (D, 26)    the same position, :mod:`bgrl.rules.board` encoding
dice             int8 (D, 2)     the roll, higher die first
phase            int8 (D,)       0 contact, 1 race, 2 bear-off (:data:`PHASES`)
offsets          int64 (D + 1,)  plays of decision i are rows offsets[i]:offsets[i+1]
after_id         str (M,)        gnubg Position ID of each play's result (opponent on roll)
after_board      int8 (M, 26)    the after-state (mover's view, :mod:`bgrl.rules.movegen` order)
equity           float32 (M,)    the play's equity for the mover, gnubg 2-ply (``ply`` 2)
                                 or the 0-ply estimate for plays outside the filter
ply              int8 (M,)       2 where ``equity`` is gnubg 2-ply, 0 where estimated
equity_0ply      float32 (M,)    gnubg 0-ply equity of the play
best_0ply        int64 (D,)      index inside the group of gnubg 0-ply's choice
meta             str ()          JSON: how the file was built (command, seeds, timing)
===============  ==============  =====================================================

Phases: bear-off = no contact and every checker of both sides in its home board (or off);
race = no contact otherwise (:func:`bgrl.rules.outcome.is_race`); contact = everything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgrl.agents.base import group_argmax
from bgrl.arena.checks import checked_select
from bgrl._fileio import atomic_writer
from bgrl.rules.board import Position
from bgrl.rules.movegen import AfterStates, generate
from bgrl.evaluation.phase import CONTACT, CRASHED, classify
from bgrl._resources import shipped_path
from bgrl.evaluation.probabilities import equity

__all__ = [
    "PHASES",
    "Benchmark",
    "load_benchmark",
    "save_benchmark",
    "shipped_benchmark_path",
    "phase_of",
    "choices",
    "error_rate",
    "format_table",
]

PHASES = ("contact", "race", "bearoff")
_FIELDS = ("position_id", "board", "dice", "phase", "offsets", "after_id", "after_board", "equity", "ply",
           "equity_0ply", "best_0ply")


def shipped_benchmark_path() -> Path:
    """Path of the shipped benchmark file ``bgrl/data/benchmark.npz`` (package data of
    ``bgrl.data``, found with importlib.resources)."""
    return shipped_path("benchmark.npz", package="bgrl.data")


def phase_of(boards: np.ndarray) -> np.ndarray:
    """Phase of each position, int8 (N,): 0 contact, 1 race, 2 bear-off (see module docstring).

    boards : int (N, 26), either side on roll (the test is symmetric). The classes are
    :func:`bgrl.evaluation.phase.classify`'s, with its crashed positions counted as contact.
    """
    ph = classify(boards)
    ph[ph == CRASHED] = CONTACT
    return ph


@dataclass(frozen=True)
class Benchmark:
    """A loaded benchmark (arrays as in the module docstring's table)."""

    position_id: np.ndarray
    board: np.ndarray
    dice: np.ndarray
    phase: np.ndarray
    offsets: np.ndarray
    after_id: np.ndarray
    after_board: np.ndarray
    equity: np.ndarray
    ply: np.ndarray
    equity_0ply: np.ndarray
    best_0ply: np.ndarray
    meta: dict

    @property
    def decisions(self) -> int:
        return int(self.board.shape[0])

    @property
    def counts(self) -> np.ndarray:
        """Legal plays per decision, int64 (D,)."""
        return np.diff(self.offsets)

    @property
    def parent(self) -> np.ndarray:
        """Decision index of every play, int64 (M,)."""
        return np.repeat(np.arange(self.decisions), self.counts)

    def after_states(self) -> AfterStates:
        """The plays as a :class:`bgrl.rules.movegen.AfterStates` batch (what agents' ``select`` takes).

        Made by :func:`bgrl.rules.movegen.generate` from the positions and dice (one call), so
        every field is the generator's; ValueError if its plays differ from the stored ones.
        """
        aft = generate(self.board, self.dice)
        if not (np.array_equal(aft.offsets, self.offsets) and np.array_equal(aft.boards, self.after_board)):
            raise ValueError("benchmark file is malformed: expected its plays to be the generator's legal plays, in order")
        return aft

    def best_equity(self) -> np.ndarray:
        """Best play's equity of each decision, float64 (D,)."""
        return np.maximum.reduceat(self.equity.astype(np.float64), self.offsets[:-1])

    def subset(self, idx) -> "Benchmark":
        """A benchmark of decisions ``idx`` (int array), e.g. for a tiny test fixture."""
        idx = np.asarray(idx, dtype=np.int64)
        rows = np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in idx])
        off = np.concatenate([[0], np.cumsum(self.counts[idx])]).astype(np.int64)
        return Benchmark(self.position_id[idx], self.board[idx], self.dice[idx], self.phase[idx], off,
                         self.after_id[rows], self.after_board[rows], self.equity[rows], self.ply[rows],
                         self.equity_0ply[rows], self.best_0ply[idx], dict(self.meta))

    def validate(self) -> "Benchmark":
        """Check shapes and invariants; raise ValueError naming the first problem. Returns self."""
        d, m = self.board.shape[0], self.after_board.shape[0]
        checks = [
            (self.board.shape == (d, 26) and self.board.dtype == np.int8, "board int8 (D, 26)"),
            (self.dice.shape == (d, 2), "dice (D, 2)"),
            (self.position_id.shape == (d,) and self.phase.shape == (d,) and self.best_0ply.shape == (d,),
             "position_id, phase, best_0ply (D,)"),
            (self.offsets.shape == (d + 1,) and self.offsets[0] == 0 and self.offsets[-1] == m, "offsets (D+1,) from 0 to M"),
            (bool((np.diff(self.offsets) >= 2).all()), "at least two plays per decision"),
            (self.after_board.shape == (m, 26) and self.after_id.shape == (m,), "after_board (M, 26), after_id (M,)"),
            (self.equity.shape == (m,) and self.ply.shape == (m,) and self.equity_0ply.shape == (m,), "equity, ply, equity_0ply (M,)"),
            (bool(np.isfinite(self.equity).all() and np.isfinite(self.equity_0ply).all()), "finite equities"),
            (bool(((self.best_0ply >= 0) & (self.best_0ply < np.diff(self.offsets))).all()), "best_0ply inside its group"),
            (bool(np.isin(self.phase, (0, 1, 2)).all()), "phase in 0..2"),
        ]
        for ok, what in checks:
            if not ok:
                raise ValueError(f"benchmark file is malformed: expected {what}")
        return self


def load_benchmark(path=None) -> Benchmark:
    """Load a benchmark file (default: the shipped one). ValueError for a missing or malformed file."""
    p = Path(path) if path is not None else shipped_benchmark_path()
    try:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in _FIELDS}
            meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
    except (OSError, KeyError, ValueError, EOFError) as exc:
        raise ValueError(f"cannot read benchmark file {str(p)!r}: expected an .npz written by save_benchmark ({exc})") from None
    return Benchmark(**arrays, meta=meta).validate()


def save_benchmark(path, bench: Benchmark) -> Path:
    """Write ``bench`` to ``path`` (compressed .npz) atomically: temp file, fsync, rename."""
    bench.validate()
    with atomic_writer(path) as f:
        np.savez_compressed(f, **{k: getattr(bench, k) for k in _FIELDS}, meta=np.array(json.dumps(bench.meta)))
    return Path(path)


#: Decisions per ``select`` call of an agent in :func:`choices` (a fixed size, so the result does
#: not depend on whether a progress bar is shown; large enough to keep a search batched).
SELECT_CHUNK = 250


def choices(chooser, bench: Benchmark | None = None, rng: np.random.Generator | None = None, progress=None,
            name: str | None = None) -> np.ndarray:
    """The play each decision's chooser picks: int64 (D,) index inside each decision's group.

    chooser : one of
        * an agent: an object with ``select(after: AfterStates, rng) -> int64 (D,)`` (global
          row indices), called once on all decisions;
        * an evaluator: a callable ``after_states int8 (M, 26) -> float (M, 5)`` outcome
          probabilities of the side that played (or ``(M,)`` equities), called once; the
          highest cubeless equity is chosen (ties: the first);
        * an object with only ``choose_play(position, dice, rng)`` (a
          :class:`bgrl.rules.board.Position` and a pair of ints, returning a
          :class:`bgrl.rules.notation.Play`), called once per decision.
    bench : default the shipped benchmark.
    rng : for agents that use randomness (default: seeded with 0, so results repeat).
    progress : optional callable(n_decisions_done), e.g. a tqdm bar's ``update``. An agent's
        ``select`` is called on :data:`SELECT_CHUNK` decisions at a time (with or without
        ``progress``), a ``choose_play`` object once per decision, an evaluator once.
    """
    b = bench if bench is not None else load_benchmark()
    rng = rng if rng is not None else np.random.default_rng(0)
    if hasattr(chooser, "select"):
        aft = b.after_states()  # checks the stored plays are the generator's
        k = np.empty(b.decisions, dtype=np.int64)
        for lo in range(0, b.decisions, SELECT_CHUNK):
            hi = min(lo + SELECT_CHUNK, b.decisions)
            part = aft if (lo, hi) == (0, b.decisions) else generate(b.board[lo:hi], b.dice[lo:hi])
            kk = checked_select(chooser, part, rng, name=name, games=np.arange(lo, hi), what="decision")
            k[lo:hi] = kk - part.offsets[:-1]
            if progress is not None:
                progress(hi - lo)
        return k
    if hasattr(chooser, "choose_play"):
        out = np.empty(b.decisions, dtype=np.int64)
        for i in range(b.decisions):
            play = chooser.choose_play(Position.from_id(str(b.position_id[i])), (int(b.dice[i, 0]), int(b.dice[i, 1])), rng)
            lookup = {row.tobytes(): j for j, row in enumerate(b.after_board[b.offsets[i]:b.offsets[i + 1]])}
            out[i] = lookup[np.asarray(play.after_state, dtype=np.int8).tobytes()]
            if progress is not None:
                progress(1)
        return out
    if callable(chooser):
        v = np.asarray(chooser(b.after_board), dtype=np.float64)
        if v.ndim == 2 and v.shape == (b.after_board.shape[0], 5):
            v = equity(v)
        if v.shape != (b.after_board.shape[0],):
            raise ValueError(f"an evaluator must return (M, 5) probabilities or (M,) equities, got shape {v.shape}")
        if progress is not None:
            progress(b.decisions)
        return group_argmax(v, b.offsets) - b.offsets[:-1]
    raise TypeError(f"expected an agent (select), an evaluator (callable) or an object with choose_play, got {type(chooser).__name__}")


def error_rate(chooser, bench: Benchmark | None = None, rng: np.random.Generator | None = None, progress=None,
               name: str | None = None) -> dict:
    """Equity a chooser loses per decision against gnubg 2-ply's best play, in millipoints.

    Parameters
    ----------
    chooser : an agent, an evaluator or a ``choose_play`` object (see :func:`choices`). An
        evaluator is called once on all M after-states (one batched network call), so the
        shipped benchmark costs well under a second at 0-ply.
    bench : default the shipped benchmark (:func:`load_benchmark`).
    rng : for agents with randomness (default seeded, reproducible).
    progress : optional callable(n_decisions_done) (see :func:`choices`).
    name : the chooser's name in errors (default its ``name`` attribute), e.g. the spec typed.

    Returns
    -------
    dict with ``"all"``, ``"contact"``, ``"race"``, ``"bearoff"``: mean loss in millipoints per
    decision (1000 x (best equity - chosen play's equity), equities by gnubg 2-ply, cubeless
    money); ``"n_all"``, ``"n_contact"``, ...: decisions in each; ``"agree_2ply"``: share of
    decisions where the choice loses nothing (it is, or ties with, gnubg 2-ply's best); ``"agree_0ply"``: share where it
    is (or ties with) gnubg 0-ply's choice. A phase without decisions gets NaN.
    """
    b = bench if bench is not None else load_benchmark()
    k = choices(chooser, b, rng, progress, name=name)
    eq = b.equity.astype(np.float64)
    best = b.best_equity()
    loss = 1000.0 * (best - eq[b.offsets[:-1] + k])
    out: dict = {"all": float(loss.mean()), "n_all": int(loss.size)}
    for ph, name in enumerate(PHASES):
        sel = b.phase == ph
        out[name] = float(loss[sel].mean()) if sel.any() else float("nan")
        out[f"n_{name}"] = int(sel.sum())
    out["agree_2ply"] = float((loss == 0.0).mean())
    e0 = b.equity_0ply.astype(np.float64)
    out["agree_0ply"] = float((e0[b.offsets[:-1] + k] == np.maximum.reduceat(e0, b.offsets[:-1])).mean())
    return out


def format_table(rows: dict[str, dict]) -> str:
    """Text table of several :func:`error_rate` results keyed by agent name."""
    head = f"{'agent':<28} {'all':>8} {'contact':>8} {'race':>8} {'bearoff':>8} {'=2ply':>7} {'=0ply':>7}"
    lines = [head, "-" * len(head)]
    for name, r in rows.items():
        lines.append(f"{name:<28} {r['all']:8.2f} {r['contact']:8.2f} {r['race']:8.2f} {r['bearoff']:8.2f} "
                     f"{100 * r['agree_2ply']:6.1f}% {100 * r['agree_0ply']:6.1f}%")
    any_r = next(iter(rows.values()), None)
    if any_r is not None:
        lines.append(f"millipoints lost per decision (gnubg 2-ply equities); decisions: {any_r['n_all']} "
                     f"({any_r['n_contact']} contact, {any_r['n_race']} race, {any_r['n_bearoff']} bear-off)")
    return "\n".join(lines)
