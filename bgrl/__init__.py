"""bgrl: a backgammon reinforcement-learning engine.

Public API (importing it loads numpy only; torch is imported when a network is used):

>>> import bgrl
>>> pos = bgrl.Position.from_id("4HPwATDgc/ABMA")
>>> plays = bgrl.legal_plays(pos, (2, 1))
>>> len(plays), plays[0].notation, plays[0].position_id  # doctest: +SKIP
>>> agent = bgrl.load_agent("pubeval")
>>> agent.choose_play(pos, (2, 1)).notation  # doctest: +SKIP
"""

__version__ = "0.1.0"

from .board import Position, flip, position_id, board_from_position_id  # noqa: E402
from .notation import Play, IllegalPlayError, legal_plays, play_from_notation, parse_dice  # noqa: E402
from .agents import load_agent  # noqa: E402

__all__ = [
    "__version__",
    "Position",
    "Play",
    "IllegalPlayError",
    "flip",
    "position_id",
    "board_from_position_id",
    "legal_plays",
    "play_from_notation",
    "parse_dice",
    "load_agent",
]
