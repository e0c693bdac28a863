"""Carry a trained network over to a wider input encoding and/or a wider hidden layer.

Inputs: ``td198g`` is ``td198r`` plus 18 hand-made features (bgrl.evaluation.encoding), so a td198r
network becomes a td198g network that computes exactly the same function by giving the new
inputs zero weights.

Hidden layer: ``--hidden H`` grows the hidden layer function-preservingly in the manner of
Net2WiderNet (Chen, Goodfellow and Shlens, "Net2Net: Accelerating Learning via Knowledge
Transfer", ICLR 2016): each new unit copies the incoming weights of a randomly drawn old unit,
and the outgoing weights of that unit are shared equally among it and its copies. A small
noise (``--noise``, default 1e-3) on the copies' incoming weights breaks the symmetry so TD
training can pull them apart.

TD training (``bgrl train --init-from OUT``) then continues from OUT.

    python scripts/widen_encoder.py runs/main/final.pt runs/widened.pt --encoder td198g
    python scripts/widen_encoder.py td198g runs/td198g-160.pt --hidden 160

Raises SystemExit with a message when the encodings are not prefix-compatible or the hidden
layer would shrink.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from bgrl.evaluation.networks import load_network, save_checkpoint
from bgrl.evaluation.encoding import num_features
from bgrl.evaluation.model import TDNet
from bgrl._resources import resolve_checkpoint

PREFIX_OF = {("td198r", "td198g")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", help="network checkpoint (.pt, run folder or shipped name)")
    p.add_argument("dst", help="output checkpoint")
    p.add_argument("--encoder", default=None, help="wider encoding (default: keep the source's)")
    p.add_argument("--hidden", type=int, default=None, help="wider hidden layer (default: keep the source's)")
    p.add_argument("--noise", type=float, default=1e-3, help="std of the noise on copied units' weights (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the unit draw and noise (default: %(default)s)")
    args = p.parse_args(argv)
    net, meta = load_network(resolve_checkpoint(args.src))
    enc_old = meta["encoder"]
    enc_new = args.encoder or enc_old
    if enc_new != enc_old and (enc_old, enc_new) not in PREFIX_OF:
        sys.exit(f"widen_encoder: {enc_old} is not a prefix of {enc_new}; supported: {sorted(PREFIX_OF)}")
    h_old = net.hidden
    h_new = args.hidden or h_old
    if h_new < h_old:
        sys.exit(f"widen_encoder: --hidden {h_new} is smaller than the source's {h_old} hidden units")
    n_old, n_new = net.n_inputs, num_features(enc_new)
    rng = np.random.default_rng(args.seed)
    # mapping of new hidden units to old ones: the first h_old are themselves
    mapping = np.concatenate([np.arange(h_old), rng.integers(0, h_old, h_new - h_old)])
    counts = np.bincount(mapping, minlength=h_old).astype(np.float32)
    wide = TDNet(n_new, h_new)
    with torch.no_grad():
        w1 = torch.zeros(h_new, n_new)
        w1[:, :n_old] = net.fc1.weight[torch.from_numpy(mapping)]
        b1 = net.fc1.bias[torch.from_numpy(mapping)].clone()
        if h_new > h_old:
            g = torch.Generator().manual_seed(args.seed)
            w1[h_old:, :n_old] += args.noise * torch.randn(h_new - h_old, n_old, generator=g)
        w2 = net.fc2.weight[:, torch.from_numpy(mapping)] / torch.from_numpy(counts[mapping])[None, :]
        wide.fc1.weight.copy_(w1)
        wide.fc1.bias.copy_(b1)
        wide.fc2.weight.copy_(w2)
        wide.fc2.bias.copy_(net.fc2.bias)
    # the widened network must compute (nearly) the same function on real positions
    from bgrl.rules.board import Position
    from bgrl.evaluation.encoding import encode

    b = Position.start().board[None]
    a = net(torch.from_numpy(encode(b, enc_old))).detach().numpy()
    w = wide(torch.from_numpy(encode(b, enc_new))).detach().numpy()
    tol = 1e-6 if h_new == h_old else max(1e-6, 50 * args.noise)
    assert np.allclose(a, w, atol=tol), (a, w)
    new_meta = {k: v for k, v in meta.items() if k not in ("hidden", "n_inputs", "package_version")}
    new_meta.update(encoder=enc_new, widened_from=str(args.src))
    save_checkpoint(args.dst, wide, new_meta)
    print(f"wrote {args.dst}: {enc_old} -> {enc_new}, {n_old} -> {n_new} inputs, {h_old} -> {h_new} hidden; "
          f"max output change on the starting position {np.abs(a - w).max():.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
