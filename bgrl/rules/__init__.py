"""The rules of backgammon, numpy only: positions, dice, legal plays, notation, outcome.

This layer imports numpy and the standard library and nothing else of bgrl's (a test imports
it in a fresh interpreter and asserts that neither torch nor gymnasium was loaded).

Modules
-------
board     the board array seen from the mover's side, ``Position``, gnubg Position IDs
dice      the one owner of dice: the 21 rolls and their weights, parsing, counter streams
movegen   the batched legal-play generator (``generate`` -> ``AfterStates``)
outcome   game over and scoring (single, gammon, backgammon), ``is_race``
notation  plays in standard notation, parsing them, reasons a play is illegal
xgid      eXtreme Gammon XGIDs and the one reader of typed positions (``read_position``)
game      one game between two sides: colours, opening roll, resignation, draws
render    the board as text
"""

from bgrl.rules.board import Position, START_BOARD, board_from_position_id, flip, position_id
from bgrl.rules.movegen import AfterStates, generate
from bgrl.rules.dice import parse_dice
from bgrl.rules.notation import IllegalPlayError, Play, legal_plays, play_from_notation
from bgrl.rules.outcome import BACKGAMMON, GAMMON, SINGLE, game_result, game_results, is_race
from bgrl.rules.xgid import XGIDError, read_position

__all__ = [
    "Position", "START_BOARD", "board_from_position_id", "flip", "position_id",
    "AfterStates", "generate",
    "IllegalPlayError", "Play", "legal_plays", "parse_dice", "play_from_notation",
    "SINGLE", "GAMMON", "BACKGAMMON", "game_result", "game_results", "is_race",
    "XGIDError", "read_position",
]
