"""Choosing a play: agents, search, hints, levels and the agent registry.

Modules
-------
base      the Agent protocol and the simple agents (random, pubeval, a network at 0-ply)
search    n-ply expectimax over ``AfterStates`` (numpy; any evaluator)
hints     the one ranker of candidate plays and its row, ``RankedPlay``
ranking   shared ranks of tied plays
levels    the named levels, a data table (``LEVELS``), and the level agent
gnubg     GNU Backgammon as an opponent (the ``gnubg`` extra; a referee, never a teacher)
registry  ``load_agent(spec)``, above every agent

Names load on first use, so ``import bgrl.agents`` loads no torch.
"""

from bgrl._lazy import lazy_names

__all__ = ["Agent", "RandomAgent", "PubevalAgent", "NetAgent", "DEFAULT_CHECKPOINT", "group_argmax", "load_agent",
           "LEVELS", "LEVEL_NAMES", "load_level", "RankedPlay", "rank_plays"]

__getattr__, __dir__ = lazy_names(__name__, {
    "Agent": "bgrl.agents.base", "RandomAgent": "bgrl.agents.base", "PubevalAgent": "bgrl.agents.base",
    "NetAgent": "bgrl.agents.base", "DEFAULT_CHECKPOINT": "bgrl.agents.base", "group_argmax": "bgrl.agents.base",
    "load_agent": "bgrl.agents.registry",
    "LEVELS": "bgrl.agents.levels", "LEVEL_NAMES": "bgrl.agents.levels", "load_level": "bgrl.agents.levels",
    "RankedPlay": "bgrl.agents.hints", "rank_plays": "bgrl.agents.hints",
})
