"""Carry a trained network over to a wider input encoding whose inputs extend the old one's.

``td198g`` is ``td198r`` plus 18 hand-made features (bgrl.encoding), so a td198r network
becomes a td198g network that computes exactly the same function by giving the new inputs
zero weights; TD training (``bgrl train --init-from OUT``) then learns to use them.

    python scripts/widen_encoder.py runs/main/final.pt runs/widened.pt --encoder td198g

Raises SystemExit with a message when the encodings are not prefix-compatible.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from bgrl.checkpoint import load_network, save_checkpoint
from bgrl.encoding import num_features
from bgrl.model import TDNet
from bgrl.resources import resolve_checkpoint

PREFIX_OF = {("td198r", "td198g")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", help="network checkpoint (.pt, run folder or 'default')")
    p.add_argument("dst", help="output checkpoint")
    p.add_argument("--encoder", default="td198g", help="wider encoding (default: %(default)s)")
    args = p.parse_args(argv)
    net, meta = load_network(resolve_checkpoint(args.src))
    if (meta["encoder"], args.encoder) not in PREFIX_OF:
        sys.exit(f"widen_encoder: {meta['encoder']} is not a prefix of {args.encoder}; supported: {sorted(PREFIX_OF)}")
    n_old, n_new = net.n_inputs, num_features(args.encoder)
    wide = TDNet(n_new, net.hidden)
    with torch.no_grad():
        wide.fc1.weight.zero_()
        wide.fc1.weight[:, :n_old] = net.fc1.weight
        wide.fc1.bias.copy_(net.fc1.bias)
        wide.fc2.load_state_dict(net.fc2.state_dict())
    # the widened network must compute the same function on real positions
    from bgrl.encoding import encode
    from bgrl.board import Position

    b = Position.start().board[None]
    a = net(torch.from_numpy(encode(b, meta["encoder"]))).detach().numpy()
    w = wide(torch.from_numpy(encode(b, args.encoder))).detach().numpy()
    assert np.allclose(a, w, atol=1e-6), (a, w)
    new_meta = {k: v for k, v in meta.items() if k not in ("hidden", "n_inputs", "package_version")}
    new_meta.update(encoder=args.encoder, widened_from=str(args.src))
    save_checkpoint(args.dst, wide, new_meta)
    print(f"wrote {args.dst}: {meta['encoder']} -> {args.encoder}, {n_old} -> {n_new} inputs, {net.hidden} hidden")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
