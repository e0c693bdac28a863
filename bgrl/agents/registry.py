"""The one agent factory, above every kind of agent: ``load_agent(spec)``; and the one way from
a level or a checkpoint to a ranker of the legal plays: ``load_ranker(spec, ply)``.

It sits above :mod:`bgrl.agents.base`, :mod:`bgrl.agents.levels` and :mod:`bgrl.agents.gnubg`,
so none of them imports it and there is no import circle between them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bgrl.agents.base import DEFAULT_CHECKPOINT, Agent, NetAgent, PlayChooserAgent, PubevalAgent, RandomAgent
from bgrl.agents.hints import HintRanker
from bgrl.agents.search import check_ply
from bgrl.agents.levels import DEFAULT_HINT_LEVEL, LEVEL_NAMES, LEVELS, LevelAgent, load_level, reply_pruning
from bgrl._resources import resolve_checkpoint
from bgrl.agents.gnubg import GnubgAgent, parse_gnubg_spec

__all__ = ["load_agent", "load_ranker", "import_agent"]


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

    if s in LEVELS:
        return load_level(s, seed=seed)
    if s == "gnubg" or s.startswith("gnubg:"):
        plies = parse_gnubg_spec(s)
        try:
            return GnubgAgent(plies)
        except ImportError:
            from bgrl._extras import missing_extra

            raise ValueError(missing_extra("gnubg", f"agent {s!r}")) from None

    if ":" in s and not Path(s).exists():
        return import_agent(s)
    p = resolve_checkpoint(s)  # a run folder means its final.pt, else latest.pt
    if p.suffix == ".pt" or p.exists():
        from bgrl.evaluation.networks import open_network

        loaded = open_network(p)
        return NetAgent(loaded.evaluator, noise=noise, name=p.name, meta=loaded.meta)
    raise ValueError(f"unknown agent {s!r}: expected 'random', 'pubeval', 'default', a level ({', '.join(LEVELS)}), "
                     "'gnubg', 'gnubg:N', a checkpoint path (.pt) or module:object")


def load_ranker(spec: str | Path | None = None, ply: int | None = None, *, checkpoint: str | Path | None = None,
                backend: str = "torch", networks: Mapping[str, Callable] | None = None, name: str | None = None) -> HintRanker:
    """The noise-free ranker of the legal plays (:class:`bgrl.agents.hints.HintRanker`) that a level
    or a checkpoint names: the one way to get one, used by ``bgrl hint``, ``bgrl review``, the
    terminal game and the service (its engine, the web board and the game sessions it serves).

    Parameters
    ----------
    spec : a level name (:data:`bgrl.agents.levels.LEVELS`): that level's search without its
        noise; None: the hint default, :data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`;
        ``"default"`` (the shipped network), a checkpoint path (``.pt``) or a run folder (its
        ``final.pt``, else ``latest.pt``): that network searched at ``ply`` (default 0) with
        gnubg's move filters.
    ply : int 0..3, optional
        Overrides the level's ply (:meth:`bgrl.agents.levels.Level.with_ply`: its filters are
        kept when they reach that deep).
    checkpoint : a network replacing the level's (``bgrl hint --level L --checkpoint PATH``);
        only with a level ``spec``.
    backend : how networks are evaluated, as :func:`bgrl.evaluation.networks.open_network`
        (``"torch"``, ``"numpy"``, or ``"auto"``: numpy while torch is not imported).
    networks : ``{network name: evaluator}`` already opened (the service engine's, checked
        against the manifest): a level's network is taken from it, nothing is opened.
    name : the ranker's label; default ``"level <name> (<definition without the noise>,
        without noise)"`` for a level, ``"<file>, <ply>-ply"`` for a network.

    Returns
    -------
    HintRanker, with ``level`` (the :class:`bgrl.agents.levels.Level` searched, None for a
    network alone) and ``network`` (the checkpoint's file name, or the level's network name).

    Raises
    ------
    ValueError
        for an empty or unknown spec, a ply outside 0..3, or a checkpoint with a spec that is
        not a level; :class:`bgrl.evaluation.networks.CheckpointError` for a bad checkpoint.
    """
    s = DEFAULT_HINT_LEVEL if spec is None else str(spec)
    expected = f"expected a level ({', '.join(LEVEL_NAMES)}), 'default' or a checkpoint path (.pt file or run folder)"
    if not s.strip():
        raise ValueError(f"the ranker's level is empty: {expected}")
    if ply is not None:
        check_ply(ply)
    if s in LEVELS:
        lv = LEVELS[s]
        if checkpoint is not None:
            loaded = _open(checkpoint, backend)
            agent, network = LevelAgent(lv, loaded.evaluator, meta=loaded.meta, backend=backend), loaded.path.name
        elif networks is not None:
            agent, network = LevelAgent(lv, networks[lv.network], pruner=networks.get(lv.prune.network)), lv.network
        else:
            agent, network = load_level(s, backend=backend), lv.network
        ranker = HintRanker.from_agent(agent, ply, name=name)
    else:
        if checkpoint is not None:
            raise ValueError(f"a checkpoint replaces a level's network: {s!r} is not a level ({', '.join(LEVEL_NAMES)})")

        path = resolve_checkpoint(s)
        if s != "default" and path.suffix != ".pt" and not path.exists():
            raise ValueError(f"unknown level {s!r}: {expected}")
        loaded = _open(path, backend)
        use_ply = 0 if ply is None else int(ply)
        ranker = HintRanker(loaded.evaluator, use_ply, name=name or f"{loaded.path.name}, {use_ply}-ply",
                            prune=reply_pruning(use_ply, backend=backend))
        network = loaded.path.name
    ranker.network = network
    return ranker


def _open(spec, backend: str):
    from bgrl.evaluation.networks import open_network  # torch: loaded only for a network file

    return open_network(spec, backend=backend)
