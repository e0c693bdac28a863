"""Choosing a play: agents, search, hints, levels and the agent registry.

Modules
-------
base      the Agent protocol and the simple agents (random, pubeval, a network at 0-ply)
search    n-ply expectimax over ``AfterStates`` (numpy; any evaluator)
hints     the one ranker of candidate plays (``HintRanker``), its row (``RankedPlay``),
          shared ranks of tied plays, and the one-call ``hint``
levels    the named levels, a data table (``LEVELS``), and the level agent
gnubg     GNU Backgammon as an opponent (the ``gnubg`` extra; a referee, never a teacher)
registry  ``load_agent(spec)``, above every agent

Names load on first use, so ``import bgrl.agents`` loads no torch.
"""

from bgrl._lazy import lazy_names

__all__ = ["Agent", "RandomAgent", "PubevalAgent", "NetAgent", "DEFAULT_CHECKPOINT", "group_argmax", "load_agent",
           "LEVELS", "LEVEL_NAMES", "DEFAULT_HINT_LEVEL", "load_level", "RankedPlay", "HintRanker", "hint", "rank_plays",
           "check_decision"]

__getattr__, __dir__ = lazy_names(__name__, {
    "Agent": "bgrl.agents.base", "RandomAgent": "bgrl.agents.base", "PubevalAgent": "bgrl.agents.base",
    "NetAgent": "bgrl.agents.base", "DEFAULT_CHECKPOINT": "bgrl.agents.base", "group_argmax": "bgrl.agents.base",
    "load_agent": "bgrl.agents.registry",
    "check_decision": "bgrl.agents.base",
    "LEVELS": "bgrl.agents.levels", "LEVEL_NAMES": "bgrl.agents.levels", "load_level": "bgrl.agents.levels",
    "DEFAULT_HINT_LEVEL": "bgrl.agents.levels",
    "RankedPlay": "bgrl.agents.hints", "HintRanker": "bgrl.agents.hints", "hint": "bgrl.agents.levels",
    "rank_plays": "bgrl.agents.hints",
})
