"""Game records of a match (``bgrl match --save-games DIR``).

:func:`bgrl.arena.duel.play_match` plays many games in lockstep over after-states and never
builds notation. With a :class:`MatchRecorder` it hands over, for every ply, the boards
before the play, the dice and the chosen after-states (arrays, no per-game work); when a
game ends the recorder rebuilds each turn's Position ID and play notation from
(board, dice, after-state) (:func:`bgrl.rules.notation.notations`) and writes the game as one
``bgrl-game-1`` record (:mod:`bgrl.records.record`), atomically, to ``DIR/game-0001.jsonl``,
``DIR/game-0002.jsonl``, ... (game ``i`` of the match; in even-numbered files, counting
from 1, agent A plays Black).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bgrl.rules.board import position_ids
from bgrl._fileio import check_writable_dir
from bgrl.rules.notation import notations
from bgrl.rules.outcome import RESULT_NAMES
from bgrl.records.record import GameRecord, write_record

__all__ = ["MatchRecorder", "prepare_games_dir"]

HOW = RESULT_NAMES  # bgrl.rules.outcome


def prepare_games_dir(directory) -> Path:
    """Check (and create) the folder for saved games before a match starts.

    Raises ValueError (naming ``--save-games``) when ``directory`` is a file, already holds
    ``game-*.jsonl`` records (nothing is overwritten), or cannot be created or written in
    (a temporary file is created and removed there).
    """
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise ValueError(f"--save-games {d}: is a file; expected a folder for the game records")
    if d.is_dir() and any(d.glob("game-*.jsonl")):
        raise ValueError(f"--save-games {d}: already holds game records (game-*.jsonl); choose an empty or new folder")
    try:
        check_writable_dir(d)
    except OSError as exc:
        raise ValueError(f"--save-games {d}: cannot create or write in the folder ({exc.strerror or exc}); "
                         "expected a writable folder for the game records") from None
    return d


class MatchRecorder:
    """Collects the plies of a lockstep match and writes one record per finished game.

    Parameters
    ----------
    directory : folder for the records (see :func:`prepare_games_dir`)
    games : number of games in the match
    names : (name of A, name of B); A is White in games 0, 2, 4, ... (0-based)
    seed : the match seed, stored in every record's header
    """

    def __init__(self, directory, games: int, names: tuple[str, str], seed: int):
        self.directory = Path(directory)
        self.games = int(games)
        self.names = (str(names[0]), str(names[1]))
        self.seed = seed
        self.width = max(4, len(str(self.games)))
        self._plies: list[list[tuple]] = [[] for _ in range(self.games)]
        self.written: list[Path] = []
        self.date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    def plies(self, games: np.ndarray, before: np.ndarray, dice: np.ndarray, after: np.ndarray,
              dice_used: np.ndarray, white: bool) -> None:
        """Record one ply of several games: game indices int (n,), boards before int8 (n, 26)
        (mover's view), dice int (n, 2), chosen after-states int8 (n, 26), dice used (n,)
        (0 = no die could be played), and whether White was the mover."""
        before, dice, after, dice_used = before.copy(), np.asarray(dice).copy(), after.copy(), np.asarray(dice_used).copy()
        for j, g in enumerate(np.asarray(games).tolist()):
            self._plies[g].append((before[j], dice[j], after[j], int(dice_used[j]), white))

    def finish(self, games: np.ndarray, results: np.ndarray) -> None:
        """Games ``games`` just ended; ``results`` (1/2/3) are the points won by their last mover."""
        for g, res in zip(np.asarray(games).tolist(), np.asarray(results).tolist()):
            self.written.append(self._write(g, int(res)))

    def _write(self, g: int, res: int) -> Path:
        a_white = g % 2 == 0
        rec = GameRecord(white=self.names[0] if a_white else self.names[1],
                         black=self.names[1] if a_white else self.names[0],
                         start_on_roll="white", seed=self.seed, date=self.date)
        plies = self._plies[g]
        pids = position_ids(np.array([ply[0] for ply in plies]))
        for (before, dice, after, used, white), pid in zip(plies, pids):
            d = (int(max(dice)), int(min(dice)))
            play = None if used == 0 else notations(before, d, after[None], used)[0]
            rec.add_turn("white" if white else "black", pid, d, play)
        winner = "white" if plies[-1][4] else "black"
        rec.finish(winner, res, HOW[res])
        self._plies[g] = []
        path = self.directory / f"game-{g + 1:0{self.width}d}.jsonl"
        try:
            return write_record(rec, path)
        except OSError as exc:  # the folder was checked before the match; it went bad since
            raise ValueError(f"--save-games {self.directory}: cannot write {path.name} ({exc.strerror or exc})") from None
