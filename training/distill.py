"""Search distillation: train a 0-ply network on its own (or a teacher's) 1-ply values.

TD(lambda) self-play (:mod:`bgrl.training.td`) learns from the next position's 0-ply value.
A 1-ply search of the same network plays better (issue "levels": about +0.1 to +0.2 ppg
against pubeval), so its values are better targets: fitting the 0-ply network to them moves
the network toward its own search. This is the idea behind GNU Backgammon's training on
deeper evaluations and rollouts, and, with self-generated search targets, behind TD-Leaf
(Baxter, Tridgell and Weaver 2000, "Learning to play chess using temporal differences")
and expert iteration (Anthony, Tian and Barber 2017, "Thinking fast and slow with deep
learning and tree search"). Nothing outside the project is used: positions come from
self-play of the teacher network, targets from :func:`bgrl.agents.search.after_state_probs`.

Three steps, each a function (``scripts/train/distill.py`` runs them and stores each result):

1. :func:`collect_positions` plays self-play games at 0-ply (optionally with equity noise,
   for variety) and keeps every after-state that is neither finished nor known exactly
   (:mod:`bgrl.evaluation.exact`: the network is never asked about those).
2. :func:`search_targets` values them at n-ply with the teacher.
3. :func:`fit` trains the student network on (position, target) pairs with Adam and a
   soft-target binary cross-entropy on the five outputs, holding out a share to report.

Boards follow :mod:`bgrl.rules.board` (int8 (N, 26), mover's view). Targets are float32 (N, 5),
outcome probabilities of the side that has just played, in :data:`bgrl.evaluation.probabilities.OUTPUTS` order;
the network sees ``flip(after_state)`` with the opponent on roll (as :class:`NetEvaluator`).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from bgrl.rules.board import Position, flip
from bgrl.rules.dice import random_rolls
from bgrl.evaluation.encoding import encode
from bgrl.evaluation.exact import exact_probs
from bgrl.evaluation.model import TDNet
from bgrl.evaluation.probabilities import equity, flip_probs
from bgrl.rules.movegen import generate
from bgrl.rules.outcome import game_results
from bgrl.agents.search import after_state_probs, group_argmax
from bgrl.evaluation.phase import PHASE_NAMES, classify

__all__ = ["collect_positions", "search_targets", "select_phases", "fit", "resolve_device"]


def select_phases(boards: np.ndarray, targets: np.ndarray, phases) -> tuple[np.ndarray, np.ndarray]:
    """The rows of (boards int8 (N, 26), targets float32 (N, 5)) whose phase
    (:func:`bgrl.evaluation.phase.classify`) is one of ``phases`` (names of
    :data:`bgrl.evaluation.phase.PHASE_NAMES`): the training set of a phase network.

    Raises ValueError for an unknown or empty list of phases.
    """
    phases = list(phases)
    bad = [p for p in phases if p not in PHASE_NAMES]
    if bad or not phases:
        raise ValueError(f"phases must be a non-empty list of {', '.join(PHASE_NAMES)}; got {phases}")
    keep = np.isin(classify(boards), [PHASE_NAMES.index(p) for p in phases])
    return boards[keep], targets[keep]


def collect_positions(evaluator, games: int, seed: int = 0, noise: float = 0.0, parallel: int = 256) -> np.ndarray:
    """After-states of ``games`` self-play games at 0-ply.

    evaluator : :mod:`bgrl.evaluation.evaluator` protocol (after-states -> probabilities of the mover);
    games : int >= 1; seed : dice and noise; noise : std of Gaussian equity noise added
    before each choice (points per game; 0 = greedy); parallel : games in lockstep.

    Returns int8 (M, 26): every after-state that was played, from the side that played it,
    except finished games and positions :func:`bgrl.evaluation.exact.exact_probs` knows.
    Raises ValueError for games < 1 or noise < 0.
    """
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    rng = np.random.default_rng(seed)
    start = Position.start().board.astype(np.int8)
    to_start = games
    n0 = min(parallel, games)
    boards = np.repeat(start[None], n0, axis=0)
    to_start -= n0
    kept = []
    while boards.shape[0]:
        n = boards.shape[0]
        dice = random_rolls(rng, n)
        aft = generate(boards, dice, validate=False)
        eq = equity(np.asarray(evaluator(aft.boards), dtype=np.float64))
        if noise > 0:
            eq = eq + rng.normal(0.0, noise, eq.shape)
        chosen = aft.boards[group_argmax(eq, aft.offsets)]
        live = game_results(chosen) == 0
        alive = chosen[live]
        if alive.shape[0]:
            known, _ = exact_probs(flip(alive))
            kept.append(alive[~known])
        nxt = flip(alive)
        new = min(to_start, int((~live).sum()))
        to_start -= new
        boards = np.concatenate([nxt, np.repeat(start[None], new, axis=0)]) if new else nxt
    return np.concatenate(kept) if kept else np.zeros((0, 26), dtype=np.int8)


def search_targets(evaluator, after_states: np.ndarray, ply: int = 1, chunk: int = 4096, progress=None) -> np.ndarray:
    """n-ply probabilities float32 (M, 5) of the side that played each after-state.

    Computed in chunks of ``chunk`` after-states (:func:`bgrl.agents.search.after_state_probs`);
    ``progress(done, total)`` is called after each chunk when given.
    """
    a = np.ascontiguousarray(after_states, dtype=np.int8)
    out = np.empty((a.shape[0], 5), dtype=np.float32)
    for i in range(0, a.shape[0], chunk):
        out[i : i + chunk] = after_state_probs(evaluator, a[i : i + chunk], ply)
        if progress is not None:
            progress(min(i + chunk, a.shape[0]), a.shape[0])
    return out


def fit(
    net: TDNet,
    encoder: str,
    after_states: np.ndarray,
    targets: np.ndarray,
    *,
    epochs: int = 4,
    lr: float = 1e-4,
    lr_final: float | None = None,
    batch: int = 256,
    holdout: float = 0.05,
    seed: int = 0,
    log=print,
    on_epoch=None,
    start_epoch: int = 0,
    state: dict | None = None,
    device: str = "cpu",
) -> dict:
    """Train ``net`` (in place) to give ``targets`` on ``after_states``.

    The network's input is ``encode(flip(after_state), encoder)`` and its target
    ``flip_probs(target)`` (the opponent on roll). Loss: binary cross-entropy of each output
    against the soft target, averaged. A ``holdout`` share (random, by ``seed``) is kept out
    of training; its loss and its mean absolute equity error are logged before training and
    after every epoch, and ``on_epoch(epoch, net)`` is called after each epoch; an
    ``on_epoch`` that takes three arguments gets ``(epoch, net, state)``, where ``state`` is
    the fit's own state after that epoch (``{"optimizer": Adam's state dict, "rng": the
    shuffling generator's state as JSON}``).

    Resuming: ``start_epoch=k`` with the ``state`` saved after epoch k and ``net`` holding
    that epoch's weights continues with epoch k + 1 exactly as an uninterrupted fit would
    (bit for bit on one device: the same shuffles and Adam moments).

    ``lr_final``: None (default) keeps Adam's step size at ``lr``; a number decays it linearly
    per epoch, from ``lr`` in epoch 1 to ``lr_final`` in epoch ``epochs`` (a resumed fit
    continues the same schedule).

    ``device``: ``"cpu"`` (default), ``"cuda"`` or ``"auto"`` (cuda when available): where
    the network and the batches live during the fit; ``net`` is back on the CPU afterwards.
    The same code runs on every device.

    Returns {"holdout_loss": [...], "holdout_equity_mae": [...]} (index 0: before training).
    Raises ValueError when shapes disagree or there are fewer than 100 pairs.
    """
    a = np.ascontiguousarray(after_states, dtype=np.int8)
    t = np.asarray(targets, dtype=np.float32)
    if a.ndim != 2 or a.shape[1] != 26 or t.shape != (a.shape[0], 5):
        raise ValueError(f"expected after_states (M, 26) and targets (M, 5), got {a.shape} and {t.shape}")
    if a.shape[0] < 100:
        raise ValueError(f"need at least 100 positions to fit, got {a.shape[0]}")
    import inspect
    import json

    dev = resolve_device(device)
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(np.concatenate([encode(flip(a[i : i + 65536]), encoder) for i in range(0, a.shape[0], 65536)])).to(dev)
    y = torch.from_numpy(flip_probs(t.astype(np.float64)).astype(np.float32)).to(dev)
    perm = rng.permutation(a.shape[0])
    n_hold = max(1, int(round(holdout * a.shape[0])))
    hold, train_idx = perm[:n_hold], perm[n_hold:]
    net.to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    if state is not None:
        opt.load_state_dict(state["optimizer"])
        rng.bit_generator.state = json.loads(state["rng"])
    bce = torch.nn.BCELoss()
    eq_w = torch.tensor([2.0, 1.0, 1.0, -1.0, -1.0], device=dev)
    with_state = on_epoch is not None and len(inspect.signature(on_epoch).parameters) >= 3

    def cpu_state() -> dict:
        sd = opt.state_dict()
        moved = {k: {n: (v.cpu() if torch.is_tensor(v) else v) for n, v in st.items()} for k, st in sd["state"].items()}
        return {"optimizer": {"state": moved, "param_groups": sd["param_groups"]}, "rng": json.dumps(rng.bit_generator.state)}

    def check() -> tuple[float, float]:
        with torch.no_grad():
            p = net(x[hold])
            loss = float(bce(p.clamp(1e-6, 1 - 1e-6), y[hold]))
            mae = float(((p - y[hold]) @ eq_w).abs().mean())
        return loss, mae

    hist = {"holdout_loss": [], "holdout_equity_mae": []}
    loss, mae = check()
    hist["holdout_loss"].append(loss)
    hist["holdout_equity_mae"].append(mae)
    log(f"before: holdout loss {loss:.5f}, equity error {mae:.4f} ({n_hold} positions held out, {train_idx.size} to train)")
    for ep in range(start_epoch + 1, epochs + 1):
        t0 = time.perf_counter()
        if lr_final is not None:
            step = lr if epochs == 1 else lr + (lr_final - lr) * (ep - 1) / (epochs - 1)
            for g in opt.param_groups:
                g["lr"] = step
        order = torch.from_numpy(rng.permutation(train_idx)).to(dev)
        net.train()
        for i in range(0, order.numel(), batch):
            idx = order[i : i + batch]
            opt.zero_grad()
            p = net(x[idx]).clamp(1e-6, 1 - 1e-6)
            bce(p, y[idx]).backward()
            opt.step()
        net.eval()
        loss, mae = check()
        hist["holdout_loss"].append(loss)
        hist["holdout_equity_mae"].append(mae)
        log(f"epoch {ep}: holdout loss {loss:.5f}, equity error {mae:.4f} ({time.perf_counter() - t0:.0f} s)")
        if on_epoch is not None:
            if dev.type != "cpu":
                net.to("cpu")
            on_epoch(ep, net, cpu_state()) if with_state else on_epoch(ep, net)
            net.to(dev)
    net.to("cpu")
    return hist


def resolve_device(device: str = "cpu") -> "torch.device":
    """``"cpu"``, ``"cuda"`` or ``"auto"`` (cuda when available, else cpu) as a torch device.

    Raises ValueError for another name, or ``"cuda"`` on a machine without CUDA.
    """
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"device must be cpu, cuda or auto, got {device!r}")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda: this torch has no CUDA device (use cpu or auto)")
    return torch.device(device)
