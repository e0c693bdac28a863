"""Average the weights of several networks of one training run (stochastic weight averaging).

With a constant step size the weights keep wandering around a good region; the mean of
snapshots taken along the way is often a better network than any one of them (Polyak and
Juditsky 1992, "Acceleration of stochastic approximation by averaging"; Izmailov et al.
2018, "Averaging Weights Leads to Wider Optima and Better Generalization"). Only networks of
one run (or of runs that continue one another) make sense to average: networks trained
apart have their hidden units in different orders.

Used by the ``average`` stage of a recipe (:mod:`bgrl.training.pipeline`) and
``scripts/tools/average_checkpoints.py``.
"""

from __future__ import annotations

import copy

import torch

__all__ = ["average_networks"]


def average_networks(nets, names=None):
    """The element-wise mean (computed in float64, stored as float32) of same-shaped networks.

    nets : sequence of TDNet (same n_inputs and hidden); names : labels for errors.
    Returns a new TDNet. Raises ValueError for an empty sequence or differing shapes.
    """
    nets = list(nets)
    if not nets:
        raise ValueError("need at least one network to average")
    names = list(names or [f"network {i}" for i in range(len(nets))])
    n0 = nets[0]
    for net, name in zip(nets, names):
        if (net.n_inputs, net.hidden) != (n0.n_inputs, n0.hidden):
            raise ValueError(f"{name} is a {net.n_inputs}-{net.hidden}-5 network; expected "
                             f"{n0.n_inputs}-{n0.hidden}-5 like {names[0]}")
    out = copy.deepcopy(n0)
    sd = [n.state_dict() for n in nets]
    out.load_state_dict({k: torch.stack([s[k].double() for s in sd]).mean(0).float() for k in sd[0]})
    return out
