"""Widen a network without changing the function it computes (inputs and/or hidden units).

Inputs: ``td198g`` is ``td198r`` plus 18 hand-made features (:mod:`bgrl.evaluation.encoding`),
so a td198r network becomes a td198g network computing exactly the same function by giving
the new inputs zero weights.

Hidden layer: growing it to ``hidden`` units follows Net2WiderNet (Chen, Goodfellow and
Shlens, "Net2Net: Accelerating Learning via Knowledge Transfer", ICLR 2016): each new unit
copies the incoming weights of a randomly drawn old unit, and the outgoing weights of that
unit are shared equally among it and its copies. A small noise (``noise``) on the copies'
incoming weights breaks the symmetry so that training can pull them apart (the function then
changes by at most about that much).

Used by the ``widen`` stage of a training recipe (:mod:`bgrl.training.pipeline`) and by
``scripts/train/widen_encoder.py``.
"""

from __future__ import annotations

import numpy as np
import torch

from bgrl.evaluation.encoding import encode, num_features
from bgrl.evaluation.model import TDNet
from bgrl.rules.board import Position

__all__ = ["PREFIX_OF", "widen_network"]

#: (old, new) encoder pairs where the old encoding is a prefix of the new one.
PREFIX_OF = {("td198r", "td198g")}


def widen_network(net: TDNet, encoder: str, new_encoder: str | None = None, hidden: int | None = None,
                  noise: float = 1e-3, seed: int = 0) -> TDNet:
    """A wider copy of ``net`` that computes the same function (see the module docstring).

    Parameters
    ----------
    net : TDNet, n_inputs = num_features(encoder), H hidden units
    encoder : str, the encoder of ``net``
    new_encoder : str, optional; an encoding that has ``encoder`` as a prefix (:data:`PREFIX_OF`)
    hidden : int >= H, optional; the new hidden size
    noise : float >= 0, std of the noise on the copied units' incoming weights
    seed : int, seed of the unit draw and the noise

    Returns
    -------
    TDNet with num_features(new_encoder) inputs and ``hidden`` units. On the starting position
    its outputs equal the old ones within 1e-6 (no new units) or 50 x noise.

    Raises
    ------
    ValueError
        when the encodings are not prefix-compatible or ``hidden`` < H.
    """
    new_encoder = new_encoder or encoder
    if new_encoder != encoder and (encoder, new_encoder) not in PREFIX_OF:
        raise ValueError(f"cannot widen {encoder} to {new_encoder}: expected an encoding that extends it, one of "
                         f"{sorted(PREFIX_OF)}")
    h_old = net.hidden
    h_new = int(hidden or h_old)
    if h_new < h_old:
        raise ValueError(f"hidden {h_new} is smaller than the network's {h_old} hidden units; widening only grows it")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    n_old, n_new = net.n_inputs, num_features(new_encoder)
    rng = np.random.default_rng(seed)
    mapping = np.concatenate([np.arange(h_old), rng.integers(0, h_old, h_new - h_old)])  # new unit -> old unit
    counts = np.bincount(mapping, minlength=h_old).astype(np.float32)
    wide = TDNet(n_new, h_new)
    m = torch.from_numpy(mapping)
    with torch.no_grad():
        w1 = torch.zeros(h_new, n_new)
        w1[:, :n_old] = net.fc1.weight[m]
        b1 = net.fc1.bias[m].clone()
        if h_new > h_old:
            g = torch.Generator().manual_seed(seed)
            w1[h_old:, :n_old] += noise * torch.randn(h_new - h_old, n_old, generator=g)
        w2 = net.fc2.weight[:, m] / torch.from_numpy(counts[mapping])[None, :]
        wide.fc1.weight.copy_(w1)
        wide.fc1.bias.copy_(b1)
        wide.fc2.weight.copy_(w2)
        wide.fc2.bias.copy_(net.fc2.bias)

        b = Position.start().board[None]
        a = net(torch.from_numpy(encode(b, encoder))).numpy()
        w = wide(torch.from_numpy(encode(b, new_encoder))).numpy()
    tol = 1e-6 if h_new == h_old else max(1e-6, 50 * noise)
    if not np.allclose(a, w, atol=tol):  # pragma: no cover - a bug guard
        raise RuntimeError(f"widening changed the function by {np.abs(a - w).max():.2e} (tolerance {tol:.1e})")
    return wide
