"""The one agent factory, above every kind of agent: ``load_agent(spec)``.

It sits above :mod:`bgrl.agents.base`, :mod:`bgrl.agents.levels` and :mod:`bgrl.agents.gnubg`,
so none of them imports it and there is no import circle between them.
"""

from __future__ import annotations

from pathlib import Path

from bgrl.agents.base import DEFAULT_CHECKPOINT, Agent, NetAgent, PlayChooserAgent, PubevalAgent, RandomAgent

__all__ = ["load_agent", "import_agent"]


def import_agent(spec: str) -> Agent:
    """The agent named by a ``module:object`` spec (the user's own agent).

    ``module`` is a dotted module name importable from the current directory or
    ``sys.path`` (``mypkg.players``), or a path to a ``.py`` file (``players/mine.py``);
    ``object`` is an attribute of it (dots go deeper: ``players:Greedy.default``). A class is
    instantiated with no arguments. The result is used as it is when it has
    ``select(after, rng)`` (a :class:`bgrl.agents.base.Agent`), else wrapped in
    :class:`bgrl.agents.base.PlayChooserAgent` (``choose_play(position, dice, rng)`` or a
    callable ``f(position, dice, rng)``).

    Raises
    ------
    ValueError
        one line, when the module cannot be imported (with the import error), the object is
        missing, or it is neither an agent nor a callable.
    """
    import importlib
    import importlib.util
    import sys

    mod_name, _, obj_path = spec.rpartition(":")
    if not mod_name or not obj_path:
        raise ValueError(f"agent spec {spec!r}: expected module:object, e.g. mypkg.players:Greedy or players.py:choose")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise FileNotFoundError(f"no file {mod_name}")
            key = f"bgrl_user_agent_{abs(hash(str(path.resolve())))}"
            module = sys.modules.get(key)
            if module is None:
                loader_spec = importlib.util.spec_from_file_location(key, path)
                module = importlib.util.module_from_spec(loader_spec)
                sys.modules[key] = module
                try:
                    loader_spec.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(key, None)
                    raise
        else:
            if "" not in sys.path and "." not in sys.path:
                sys.path.insert(0, "")  # the current directory, as `python -m` has it
            module = importlib.import_module(mod_name)
    except Exception as exc:  # noqa: BLE001 - any failure of the user's module is reported in one line
        raise ValueError(f"cannot import agent {spec!r}: {type(exc).__name__}: {exc}".replace("\n", " ")) from None
    obj = module
    for part in obj_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"cannot import agent {spec!r}: module {mod_name!r} has no attribute {obj_path!r}") from None
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"cannot make agent {spec!r}: {obj_path}() failed: {type(exc).__name__}: {exc}") from None
    if callable(getattr(obj, "select", None)) and not isinstance(obj, type(sys)):
        if not hasattr(obj, "name"):
            obj.name = spec
        return obj
    if not (hasattr(obj, "choose_play") or callable(obj)):
        raise ValueError(f"agent {spec!r} is a {type(obj).__name__}: expected an object with "
                         "choose_play(position, dice, rng), a callable f(position, dice, rng), or an agent with select")
    return PlayChooserAgent(obj, name=spec)


def load_agent(spec: str | Path | None = None, noise: float = 0.0, seed: int = 0) -> Agent:
    """Build an agent from a spec.

    spec : ``"random"``, ``"pubeval"``, a level name (``"beginner"``, ``"casual"``,
        ``"intermediate"``, ``"advanced"``, ``"expert"``, ``"world-class"``; see
        :mod:`bgrl.agents.levels`), a checkpoint path, a run folder (its ``final.pt``, else
        ``latest.pt``), or None / ``"default"`` for the shipped network
        (checkpoints/default.pt) at 0-ply; ``"gnubg"`` / ``"gnubg:N"`` for GNU Backgammon
        at 0 / N plies (:mod:`bgrl.agents.gnubg`, needs the ``gnubg`` extra); or
        ``module:object`` for your own agent (:func:`import_agent`: an object with
        ``choose_play(position, dice, rng)``, a callable, or an agent with ``select``).
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
        raise ValueError("an agent spec must not be empty: expected random, pubeval, a level name, a shipped network name, "
                         "gnubg[:N], a checkpoint path or module:object")
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
            from bgrl._extras import missing_extra

            raise ValueError(missing_extra("gnubg", f"agent {s!r}")) from None
    from bgrl._resources import resolve_checkpoint

    if ":" in s and not Path(s).exists():
        return import_agent(s)
    p = resolve_checkpoint(s)  # a run folder means its final.pt, else latest.pt
    if p.suffix == ".pt" or p.exists():
        from bgrl.evaluation.networks import open_network

        loaded = open_network(p)
        return NetAgent(loaded.evaluator, noise=noise, name=p.name, meta=loaded.meta)
    raise ValueError(f"unknown agent {s!r}: expected 'random', 'pubeval', 'default', a level ({', '.join(LEVELS)}), "
                     "'gnubg', 'gnubg:N', a checkpoint path (.pt) or module:object")
