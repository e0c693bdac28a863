"""The one agent factory, above every kind of agent: ``load_agent(spec)``.

It sits above :mod:`bgrl.agents.base`, :mod:`bgrl.agents.levels` and :mod:`bgrl.agents.gnubg`,
so none of them imports it and there is no import circle between them.
"""

from __future__ import annotations

from pathlib import Path

from bgrl.agents.base import DEFAULT_CHECKPOINT, Agent, NetAgent, PubevalAgent, RandomAgent

__all__ = ["load_agent"]


def load_agent(spec: str | Path | None = None, noise: float = 0.0, seed: int = 0) -> Agent:
    """Build an agent from a spec.

    spec : ``"random"``, ``"pubeval"``, a level name (``"beginner"``, ``"casual"``,
        ``"intermediate"``, ``"advanced"``, ``"expert"``, ``"world-class"``; see
        :mod:`bgrl.agents.levels`), a checkpoint path, a run folder (its ``final.pt``, else
        ``latest.pt``), or None / ``"default"`` for the shipped network
        (checkpoints/default.pt) at 0-ply; ``"gnubg"`` / ``"gnubg:N"`` for GNU Backgammon
        at 0 / N plies (:mod:`bgrl.agents.gnubg`, needs the ``gnubg`` extra).
    seed : int, the noise seed of a level agent (same seed -> same plays).

    A level agent also has ``hint(position, dice)``.

    Raises
    ------
    ValueError
        for an unknown spec; :class:`bgrl.evaluation.networks.CheckpointError` for a bad checkpoint.
    """
    if spec is None or str(spec) == "default":
        spec = DEFAULT_CHECKPOINT
    s = str(spec)
    if not s.strip():
        raise ValueError("an agent spec must not be empty: expected random, pubeval, a level name, a shipped network name, gnubg[:N], or a checkpoint path")
    if s == "random":
        return RandomAgent()
    if s == "pubeval":
        return PubevalAgent()
    from bgrl.agents.levels import LEVELS, load_level  # torch: loaded only for a level

    if s in LEVELS:
        return load_level(s, seed=seed)
    if s == "gnubg" or s.startswith("gnubg:"):
        from bgrl.agents.gnubg import GnubgAgent, parse_gnubg_spec

        plies = parse_gnubg_spec(s)
        try:
            return GnubgAgent(plies)
        except ImportError:
            raise ValueError(f"agent {s!r} needs GNU Backgammon's evaluator (PyPI gnubg-nn), an optional extra: "
                             "pip install -e '.[gnubg]'") from None
    from bgrl._resources import resolve_checkpoint

    p = resolve_checkpoint(s)  # a run folder means its final.pt, else latest.pt
    if p.suffix == ".pt" or p.exists():
        from bgrl.evaluation.networks import open_network

        loaded = open_network(p)
        return NetAgent(loaded.evaluator, noise=noise, name=p.name, meta=loaded.meta)
    raise ValueError(f"unknown agent {s!r}: expected 'random', 'pubeval', 'default', a level ({', '.join(LEVELS)}), "
                     "'gnubg', 'gnubg:N' or a checkpoint path (.pt)")
