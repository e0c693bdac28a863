"""A session's engine and store on the player's own machine (the terminal's ``bgrl play``).

:class:`bgrl.session.game.GameSession` asks an *engine* for the computer's moves and for the
judge's equity (the service's :class:`bgrl.service.engine.Engine` on the web board).
:class:`AgentEngine` answers the same calls from one agent (any bgrl agent: a level, a
network, ``random``, ``pubeval``, ...) and two rankers, so the terminal game plays the very
same session without a server. :class:`LocalGames` keeps the session in the
:class:`bgrl.session.store.GameStore` under the player token of the user's bgrl folder
(:func:`bgrl.session.owner.local_player_token`), the token ``bgrl games`` lists.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from bgrl.agents.levels import JUDGE_LEVEL
from bgrl.session.game import GameSession, SessionError

__all__ = ["AgentEngine", "LocalGames"]


class AgentEngine:
    """The engine calls of :class:`GameSession` (``move``, ``hint``, ``evaluate``, ``level``,
    ``_agent``) over one agent.

    Parameters
    ----------
    agent : the computer (``choose_play(position, dice, rng)``; with an ``evaluator`` it also
        doubles and answers doubles, :mod:`bgrl.agents.cube`).
    judge : ranker ``(position, dice) -> list[RankedPlay]`` that judges resignations and draws
        (the session asks for :data:`bgrl.agents.levels.JUDGE_LEVEL`).
    hint : ranker of any other level name asked (default ``judge``).
    """

    def __init__(self, agent, judge, hint=None):
        self.agent = agent
        self.judge = judge
        self.hint_ranker = hint if hint is not None else judge

    def _ranker(self, level: str):
        return self.judge if level == JUDGE_LEVEL else self.hint_ranker

    def _agent(self, level: str, seed: int = 0, ply: int | None = None):
        """The agent (whatever level is named: one agent plays the session)."""
        return self.agent

    def level(self, name: str) -> SimpleNamespace:
        """``name`` and the ply of the ranker that answers for it."""
        return SimpleNamespace(name=name, ply=int(getattr(self._ranker(name), "ply", 0)))

    def move(self, pos, dice, level: str, seed: int | None = None) -> SimpleNamespace:
        """The agent's play (``.play``: a Play, or None when no die can be played), its
        randomness drawn from ``seed``."""
        rng = np.random.default_rng(seed)
        return SimpleNamespace(play=self.agent.choose_play(pos, dice, rng), seed=seed)

    def hint(self, pos, dice, level: str, top: int | None = None) -> list:
        """The plays ranked best first by the judge (``level`` = JUDGE_LEVEL) or the hint ranker."""
        rows = self._ranker(level)(pos, dice)
        return rows[:top] if top else rows

    def evaluate(self, pos, level: str) -> tuple[np.ndarray, int]:
        """Probabilities (5,) of the side on roll before it rolls, by the ranker's evaluator at
        its ply. SessionError ``no_judge`` for a ranker without an evaluator."""
        from bgrl.agents.cube import pre_roll_probs

        r = self._ranker(level)
        ev = getattr(r, "evaluator", None)
        if ev is None:
            raise SessionError("no_judge", f"{getattr(r, 'name', 'the judge')} cannot evaluate a position before the roll")
        ply = int(getattr(r, "ply", 0))
        return pre_roll_probs(ev, pos, ply, getattr(r, "prune", None)), ply


class LocalGames:
    """One session kept in the store under the player's token: :meth:`save` after every
    change (create, then update with the version check).

    Parameters
    ----------
    store : :class:`bgrl.session.store.GameStore`; token : the player token.
    version : the stored version of a resumed game (None: not stored yet).
    """

    def __init__(self, store, token: str, version: int | None = None):
        self.store = store
        self.token = token
        self.version = version

    @classmethod
    def open(cls, url: str | None = None, token: str | None = None) -> "LocalGames":
        """The store ``url`` (else ``$BGRL_STORE``, else the SQLite file in the user's bgrl
        folder) and the local player token (made on first use). Raises StoreError (a
        ValueError, one line naming the file or the masked URL), ValueError for a damaged token
        file, OSError when the bgrl folder cannot be written."""
        from bgrl.session.owner import local_player_token
        from bgrl.session.store import GameStore

        tok = token or local_player_token()
        return cls(GameStore.open(url), tok)

    def save(self, s: GameSession) -> None:
        """Store the session's state now. Raises StoreError (ConflictError when the game was
        changed elsewhere since it was read)."""
        if self.version is None:
            sg = self.store.create(self.token, s.to_state(), s.summary(), finished=s.finished, game_id=s.id)
        else:
            sg = self.store.update(s.id, self.token, self.version, s.to_state(), s.summary(), finished=s.finished)
        self.version = sg.version

    def resume(self, game_id: str | None = None) -> GameSession:
        """The unfinished game ``game_id`` of this player, or (None) the newest unfinished one.
        Raises ValueError with one line: no such game, a finished one, or none unfinished."""
        from bgrl._text import clip
        from bgrl.session.store import masked

        where = masked(self.store.url)
        if game_id:
            sg = self.store.get(game_id, self.token)
            if sg is None:
                raise ValueError(f"--resume: no game {clip(game_id, 40)!r} of this player in {where} "
                                 "(see bgrl games list)")
            if sg.finished:
                raise ValueError(f"--resume: game {sg.id} is finished (see bgrl games show {sg.id}); "
                                 "expected a game in progress")
        else:
            # the newest unfinished game that can be read (a damaged row is listed by bgrl games list)
            rows = [r for r in self.store.list(self.token, finished=False, limit=None, with_damaged=True) if not r.damaged][:1]
            if not rows:
                raise ValueError(f"--resume: no unfinished game of this player in {where} (see bgrl games list)")
            sg = rows[0]
        s = GameSession.from_state(sg.state)
        self.version = sg.version
        return s

    def close(self) -> None:
        self.store.close()
