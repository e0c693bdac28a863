"""Carry a trained network over to a wider input encoding and/or a wider hidden layer.

The maths is :func:`bgrl.training.widen.widen_network` (also the ``widen`` stage of
``bgrl train --config``).

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

    python scripts/train/widen_encoder.py runs/main/final.pt runs/widened.pt --encoder td198g
    python scripts/train/widen_encoder.py td198g runs/td198g-160.pt --hidden 160

Raises SystemExit with a message when the encodings are not prefix-compatible or the hidden
layer would shrink.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from bgrl.evaluation.networks import load_network, save_checkpoint
from bgrl._resources import resolve_checkpoint
from bgrl.training.widen import PREFIX_OF, widen_network


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
    try:
        wide = widen_network(net, enc_old, enc_new, h_new, noise=args.noise, seed=args.seed)
    except ValueError as exc:
        sys.exit(f"widen_encoder: {exc}")
    from bgrl.rules.board import Position
    from bgrl.evaluation.encoding import encode

    b = Position.start().board[None]
    with torch.no_grad():
        a = net(torch.from_numpy(encode(b, enc_old))).numpy()
        w = wide(torch.from_numpy(encode(b, enc_new))).numpy()
    n_old, n_new = net.n_inputs, wide.n_inputs
    new_meta = {k: v for k, v in meta.items() if k not in ("hidden", "n_inputs", "package_version")}
    new_meta.update(encoder=enc_new, widened_from=str(args.src))
    save_checkpoint(args.dst, wide, new_meta)
    print(f"wrote {args.dst}: {enc_old} -> {enc_new}, {n_old} -> {n_new} inputs, {h_old} -> {h_new} hidden; "
          f"max output change on the starting position {np.abs(a - w).max():.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
