"""bgrl: a backgammon reinforcement-learning engine.

Public API. Importing ``bgrl`` loads numpy only; names backed by torch (a network, a level,
a hint) load their module on first use.

>>> import bgrl
>>> pos = bgrl.Position.from_id("4HPwATDgc/ABMA")
>>> plays = bgrl.legal_plays(pos, (2, 1))
>>> len(plays), plays[0].notation, plays[0].position_id  # doctest: +SKIP
>>> agent = bgrl.load_agent("pubeval")
>>> agent.choose_play(pos, (2, 1)).notation  # doctest: +SKIP

Layers (``docs/architecture.md``): ``rules`` (numpy) -> ``evaluation`` -> ``agents`` ->
``records``, ``arena`` -> ``env``, ``training`` -> ``cli``, ``service``.
"""

from bgrl._lazy import lazy_names
from bgrl._version import __version__
from bgrl.rules import (
    START_BOARD,
    AfterStates,
    IllegalPlayError,
    Play,
    Position,
    board_from_position_id,
    flip,
    game_results,
    generate,
    legal_plays,
    parse_dice,
    play_from_notation,
    position_id,
    read_position,
)

__all__ = [
    "__version__",
    # rules (numpy): positions, dice, legal plays, notation, outcome
    "Position", "START_BOARD", "flip", "position_id", "board_from_position_id", "read_position",
    "parse_dice", "legal_plays", "Play", "play_from_notation", "IllegalPlayError",
    "generate", "AfterStates", "game_results",
    # evaluation
    "Probabilities", "load_evaluator",
    # agents: levels, hints
    "Agent", "load_agent", "LEVEL_NAMES", "hint", "RankedPlay",
]

__getattr__, __dir__ = lazy_names(__name__, {
    "Probabilities": "bgrl.evaluation.probabilities",
    "load_evaluator": "bgrl.evaluation.networks",
    "Agent": "bgrl.agents.base",
    "load_agent": "bgrl.agents.registry",
    "LEVEL_NAMES": "bgrl.agents.levels",
    "hint": "bgrl.agents.levels",
    "RankedPlay": "bgrl.agents.hints",
})
