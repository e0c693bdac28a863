"""One interactive game against the computer: :class:`GameSession`.

A session holds the whole game of a person against one level: the opening roll or a set-up
position, the rolls (drawn from the session's seeded generator, or entered), the computer's
turns, forced plays and passes, the player's play, resignation and draw offers valued with the
cube, the cube exchange, Crawford and post-Crawford games, the match's end and the game
record. It takes commands (:meth:`GameSession.play`, :meth:`~GameSession.cube_action`,
:meth:`~GameSession.resign`, ...) and emits events (``events``: one dict a thing that
happened, with a sentence); it prints nothing and knows no HTTP. The web routes
(:mod:`bgrl.service.web`) render it; every command is stored with
:class:`bgrl.session.store.GameStore` before its answer is sent, and :meth:`to_state` /
:meth:`from_state` carry a session in and out of the store as JSON.

Numbering: every board and point a session returns is in the *player's* numbering (docs/rules.md:
the same physical point is ``p`` for one side and ``25 - p`` for the other).

The computer's moves come from an *engine* with the service engine's methods
(:class:`bgrl.service.engine.Engine`): ``move(pos, dice, level, seed)``, ``hint(pos, dice,
level, top)``, ``evaluate(pos, level)``, ``level(name)`` and ``_agent(level, seed)``.

Errors are :class:`SessionError` (a ValueError) with a ``code`` (``game_over``, ``no_roll``,
``illegal_play``, ``bad_cube_action``, ``no_cube``, ``no_draw``, ``bad_position``, ...) and one
line naming what was expected.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

import numpy as np

from bgrl.agents.levels import JUDGE_LEVEL
from bgrl.agents.offers import draw_decision, resign_decision
from bgrl.evaluation.probabilities import equity as equity_of
from bgrl.records.record import CubeEvent, GameRecord, Turn
from bgrl.rules.board import Position, borne_off, flip, pip_counts
from bgrl.rules.dice import opening_roll, random_roll
from bgrl.rules.game import BLACK, RESIGN_VALUES, WHITE, Game, GameOver
from bgrl.rules.match import GameScore, Match, MatchRules
from bgrl.rules.notation import legal_plays
from bgrl.rules.outcome import RESULT_NAMES
from bgrl.rules.xgid import to_xgid

__all__ = ["GameSession", "SessionError", "MAX_SEED", "STATE_FORMAT", "play_steps"]

#: The largest seed a session draws: 2^53 - 1, so that a JavaScript client holds it exactly.
MAX_SEED = 2**53 - 1
#: The format tag of :meth:`GameSession.to_state`.
STATE_FORMAT = "bgrl-session-1"
#: Events kept in a session (the page shows the last 12).
MAX_EVENTS = 64


class SessionError(ValueError):
    """A command the session cannot take now: ``code`` (e.g. ``game_over``) and ``message``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def play_steps(moves, other_side: bool = False) -> list[list[int]]:
    """Single-die steps ``[from, to, hit]`` of a play's checker moves (``Play.moves``),
    bar = 25, off = 0, hit 0/1; with ``other_side`` in the opponent's numbering (point
    ``p`` -> ``25 - p``; the bar stays 25 and off 0, as seen by the side that moved)."""
    out = []
    for s, d, h in moves:
        s, d = int(s), max(int(d), 0)
        if other_side:
            s = s if s == 25 else 25 - s
            d = 0 if d == 0 else 25 - d
        out.append([s, d, int(bool(h))])
    return out


def _orders(board: np.ndarray, steps: list[list[int]], dice) -> list[list[list[int]]]:
    """The step lists the page may take for one play: the generator's path and, for a
    checker that uses both dice of a non-double, the other order of the dice when its
    intermediate point is empty or the player's own (then it reaches the same after-state:
    no hit on the way, nothing blocked). Orders of independent steps are free on the page."""
    out = [steps]
    if dice[0] == dice[1] or len(steps) != 2:
        return out
    (a, b, h1), (b2, c, h2) = sorted(steps, key=lambda t: -t[0])
    if b2 != b or c <= 0 or h1:
        return out
    mid = a - (b - c)  # the other die first
    if 1 <= mid <= 24 and board[mid] >= 0 and mid != b:
        out.append([[a, mid, 0], [mid, c, h2]])
    return out


def board_view(board: np.ndarray) -> dict:
    """The board (player's view, int8 (26,)) as the page draws it: points, pips and checkers off."""
    b = np.asarray(board, dtype=np.int8)
    pm, po = pip_counts(b)
    om, oo = borne_off(b)
    return {"points": [int(x) for x in b], "pips": {"you": int(pm), "computer": int(po)},
            "off": {"you": int(om), "computer": int(oo)}}


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class GameSession:
    """One game (or cube session / match) of a person against a level (module docstring).

    Build one with :meth:`new`; read one back with :meth:`from_state`.

    Attributes (read them; change them through the commands)
    ----------
    id : str; level, hint_level : level names; human, computer : colours
    seed : int <= MAX_SEED; game : :class:`bgrl.rules.game.Game`; record : GameRecord
    dice : the player's roll on the table (high die first) or None; plays : its legal plays
    match : :class:`bgrl.rules.match.Match` for a cube session, else None
    awaiting : cube sessions: ``"cube"`` (roll or double) or ``"answer"`` (take or pass)
    events : list of dicts, the newest last
    """

    def __init__(self):
        self.id = ""
        self.level = "beginner"
        self.hint_level = JUDGE_LEVEL
        self.human, self.computer = WHITE, BLACK
        self.seed = 0
        self.rng = np.random.default_rng(0)
        self.first_dice: tuple[int, int] | None = None
        self.game = Game()
        self.set_up = False
        self.opening = False
        self.record = GameRecord()
        self.dice: tuple[int, int] | None = None
        self.plays: list = []
        self.events: list[dict] = []
        self.last_computer: dict | None = None
        self.match: Match | None = None
        self.awaiting: str | None = None
        self.cube_turn: int | None = None  # the turn whose cube action was decided
        self.scored = False  # the game in play has been scored in the match
        self.records: list = []  # a cube session's earlier games (record lines), oldest first
        self.cube_actions: list[dict] = []  # the game in play's cube actions (CubeAction fields)
        self.game_start: dict | None = None  # cube sessions: the score and Crawford state the game in play began with
        self.cube_infos: list[dict] = []  # per earlier game: its cube_actions and game_start
        self.names: tuple[str, str] | None = None  # (player, computer) in the records; None: "you", "bgrl LEVEL"
        self.event_seq = 0  # events emitted so far (each event's "seq"), so a view renders each once

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, *, level: str, colour: str = WHITE, seed: int | None = None, hint_level: str | None = None,
            opening: bool = False, start: Position | None = None, first_dice=None, rules: MatchRules | None = None,
            game_id: str | None = None, match: Match | None = None, names: tuple[str, str] | None = None) -> "GameSession":
        """A new session. ``start``: a set-up position with the player on roll (then
        ``first_dice`` is the player's first roll, or None to roll); ``rules``: the cube and
        match options (None: the cubeless money game); ``match``: a :class:`Match` to continue
        instead (e.g. an XGID's cube and score, with ``start``); ``names``: (player, computer)
        as the game records name them (default ``"you"``, ``"bgrl LEVEL"``). SessionError
        ``bad_position`` for a finished position, ``bad_request`` for a set-up position with the
        opening roll."""
        if colour not in (WHITE, BLACK):
            raise SessionError("bad_request", f"colour must be 'white' or 'black', got {colour!r}")
        if start is not None and opening:
            raise SessionError("bad_request", "a set-up position and the opening roll exclude each other: in a set-up "
                               "position you are on roll")
        if start is not None and 15 in start.off:
            raise SessionError("bad_position", f"position {start.position_id}: the game is over (a side has borne off all 15 checkers)")
        if first_dice is not None and start is None:
            raise SessionError("bad_request", "dice need a position: they are the first roll of a set-up position")
        if seed is not None and not 0 <= int(seed) <= 2**63 - 1:
            raise SessionError("bad_request", f"seed must be in 0..2^63-1, got {seed}")
        s = cls()
        s.id = game_id or secrets.token_hex(8)
        s.level = level
        s.hint_level = hint_level or JUDGE_LEVEL
        s.human = colour
        s.computer = BLACK if colour == WHITE else WHITE
        s.seed = int(seed) if seed is not None else secrets.randbelow(MAX_SEED + 1)
        s.rng = np.random.default_rng(s.seed)
        s.first_dice = None if first_dice is None else (max(first_dice), min(first_dice))
        s.game = Game() if start is None else Game(start.board, white_on_roll=(colour == WHITE))
        s.set_up = start is not None
        s.opening = opening
        s.match = match if match is not None else (None if rules is None else Match(rules))
        s.names = None if names is None else (str(names[0]), str(names[1]))
        s._new_record()
        s._mark_game_start()
        return s

    def _mark_game_start(self) -> None:
        m = self.match
        self.cube_actions = []
        self.game_start = None if m is None else {"score": [m.score[WHITE], m.score[BLACK]], "crawford": m.crawford}
        if m is not None:  # the record's cube header: the rules and the cube the game begins with
            self.record.cube = _cube_header(m.rules, self.game_start, m.cube_value, m.cube_owner)

    def _cube_event(self, player: str, action: str, value: int, position_id: str | None = None) -> None:
        """Record one cube action of the game in play (the fields of
        :class:`bgrl.records.matfile.CubeAction`): ``turn`` is the index of the doubler's roll
        that follows, ``position_id`` the doubler's position before it."""
        if position_id is None:
            position_id = self.cube_actions[-1]["position_id"] if self.cube_actions else self.game.position.position_id
        self.cube_actions.append({"line": 0, "player": player, "action": action, "value": int(value),
                                  "turn": len(self.record.turns), "position_id": position_id})
        self.record.add_cube(player, action, int(value))

    def cube_info(self, index: int | None = None) -> dict | None:
        """What :func:`bgrl.records.cube_review.review_cube` needs of one game of a cube session
        (``index`` into :meth:`all_records`; None = the game in play), or None without the cube."""
        from bgrl.records.matfile import CubeAction

        if self.match is None:
            return None
        records = self.all_records()
        i = len(records) - 1 if index is None else index
        info = self.cube_infos[i] if i < len(self.cube_infos) else {"actions": self.cube_actions, "start": self.game_start}
        r = self.match.rules
        start = info["start"] or {"score": [0, 0], "crawford": False}
        return {"record": records[i], "actions": [CubeAction(**a) for a in info["actions"]], "match_length": r.match_length,
                "score": tuple(start["score"]), "crawford": bool(start["crawford"]), "jacoby": r.jacoby}

    def _new_record(self) -> None:
        you, computer = self.names or ("you", f"bgrl {self.level}")
        self.record = GameRecord(white=you if self.human == WHITE else computer,
                                 black=you if self.human == BLACK else computer,
                                 start_position_id=self.game.position.position_id, start_on_roll=self.game.on_roll,
                                 seed=self.seed, date=_now())

    # ------------------------------------------------------------------ the store's form
    def to_state(self) -> dict:
        """The whole session as JSON-able values (:data:`STATE_FORMAT`); the legal plays of
        the roll on the table are not stored (they follow from the board and the dice)."""
        g = self.game
        return {
            "format": STATE_FORMAT, "id": self.id, "level": self.level, "hint_level": self.hint_level, "human": self.human,
            "seed": self.seed, "rng": self.rng.bit_generator.state, "first_dice": self.first_dice, "set_up": self.set_up,
            "opening": self.opening,
            "game": {"board": [int(x) for x in g.board], "white_on_roll": g.white_on_roll, "plies": g.plies,
                     "over": None if g.over is None else {"winner": g.over.winner, "points": g.over.points, "how": g.over.how}},
            "record": self.record.lines(), "records": self.records, "dice": None if self.dice is None else list(self.dice),
            "events": self.events[-MAX_EVENTS:], "last_computer": self.last_computer,
            "match": None if self.match is None else self.match.to_state(), "awaiting": self.awaiting,
            "cube_turn": self.cube_turn, "scored": self.scored, "cube_actions": self.cube_actions,
            "game_start": self.game_start, "cube_infos": self.cube_infos,
            "names": None if self.names is None else list(self.names), "event_seq": self.event_seq,
        }

    @classmethod
    def from_state(cls, d: dict) -> "GameSession":
        """The session :meth:`to_state` wrote. SessionError ``bad_state`` for anything else."""
        try:
            if d.get("format") != STATE_FORMAT:
                raise ValueError(f"format {str(d.get('format'))[:40]!r}, expected {STATE_FORMAT!r}")
            s = cls()
            s.id, s.level, s.hint_level, s.human = str(d["id"]), str(d["level"]), str(d["hint_level"]), str(d["human"])
            s.computer = BLACK if s.human == WHITE else WHITE
            s.seed = int(d["seed"])
            s.rng = np.random.default_rng()
            s.rng.bit_generator.state = d["rng"]
            s.first_dice = None if d["first_dice"] is None else tuple(int(x) for x in d["first_dice"])
            s.set_up, s.opening = bool(d["set_up"]), bool(d["opening"])
            gd = d["game"]
            s.game = Game.__new__(Game)
            s.game.board = Position(np.array(gd["board"], dtype=np.int64)).board.copy()
            s.game.white_on_roll, s.game.plies = bool(gd["white_on_roll"]), int(gd["plies"])
            s.game.over = None if gd["over"] is None else GameOver(**gd["over"])
            s.record = _record_from_lines(d["record"])
            s.records = list(d["records"])
            s.dice = None if d["dice"] is None else tuple(int(x) for x in d["dice"])
            s.plays = legal_plays(s.game.position, s.dice) if s.dice is not None else []
            s.events, s.last_computer = list(d["events"]), d["last_computer"]
            s.match = None if d["match"] is None else Match.from_state(d["match"])
            s.awaiting, s.cube_turn, s.scored = d["awaiting"], d["cube_turn"], bool(d["scored"])
            s.cube_actions, s.game_start, s.cube_infos = list(d["cube_actions"]), d["game_start"], list(d["cube_infos"])
            names = d.get("names")  # absent in games stored before the terminal kept them
            s.names = None if names is None else (str(names[0]), str(names[1]))
            s.event_seq = int(d.get("event_seq", len(s.events)))
            m = s.match
            if m is not None and s.record.cube is None and not s.set_up:  # stored before records held the cube
                gs = m.games[len(s.records)] if len(s.records) < len(m.games) else None
                _add_cube(s.record, {"actions": s.cube_actions, "start": s.game_start}, m.rules, gs)
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionError("bad_state", f"a stored game that cannot be read ({type(exc).__name__}: {str(exc)[:120]})") from None
        return s

    def summary(self) -> dict:
        """The few fields a list of games and the statistics need, without reading the state."""
        over = self.game.over
        m = self.match
        return {"level": self.level, "colour": self.human, "cube": m is not None, "set_up": self.set_up,
                "match_length": 0 if m is None else m.rules.match_length,
                "turns": len(self.record.turns) + sum(sum(o.get("type") == "turn" for o in r) for r in self.records),
                "date": self.record.date,
                "over": over is not None and (m is None or m.over or not m.rules.is_match),
                "result": None if over is None else self._result_for_you(),
                "score": None if m is None else {"you": m.score[self.human], "computer": m.score[self.computer]}}

    def all_records(self) -> list[GameRecord]:
        """The game records of the session, oldest first: a cube session's earlier games and
        the game in play (its record so far)."""
        out = [_record_from_lines(lines) for lines in self.records] + [self.record]
        m = self.match
        if m is not None and not self.set_up:  # games stored before records held the cube
            for i, (rec, info) in enumerate(zip(out, self.cube_infos)):
                if rec.cube is None:
                    _add_cube(rec, info, m.rules, m.games[i] if i < len(m.games) else None)
        return out

    def _result_for_you(self) -> int:
        """The session's result in points for the player: a cubeless game's points; a money
        session's sum over its games (cube x result); a match's change of the score
        difference since the session began (match points, so capped at the match length)."""
        m = self.match
        if m is not None and m.games:
            if m.rules.is_match:
                w, b = self.cube_info(0)["score"]  # the score the session began with (an XGID's, else 0-0)
                start = {WHITE: int(w), BLACK: int(b)}
                return (m.score[self.human] - start[self.human]) - (m.score[self.computer] - start[self.computer])
            return sum(g.points_for(self.human) for g in m.games)
        return self.game.over.points_for(self.human)

    @property
    def finished(self) -> bool:
        """The session can go no further: the game is over (cubeless), or the match is over.
        A money session with the cube is finished when its game in play has ended."""
        if self.game.over is None:
            return False
        return self.match is None or self.match.over or not self.match.rules.is_match

    # ------------------------------------------------------------------ views
    def human_board(self) -> np.ndarray:
        """The board from the player's side (int8 (26,))."""
        g = self.game
        mover = g.over.winner if (g.over is not None and g.over.how == "bear-off") else g.on_roll
        return g.board.copy() if mover == self.human else flip(g.board)

    def _event(self, ev: dict) -> None:
        self.event_seq += 1
        ev["seq"] = self.event_seq
        self.events.append(ev)
        del self.events[:-MAX_EVENTS]

    def state(self) -> dict:
        """What the page draws (docs/service.md, "Game sessions")."""
        g = self.game
        over = None
        if g.over is not None:
            res = g.over
            who = None if res.winner is None else ("you" if res.winner == self.human else "computer")
            how = {"bear-off": "by bearing off", "resign": "by resignation", "draw": "drawn by agreement",
                   "pass": "as the double was passed"}[res.how]
            pts = int(res.points) if self.match is None or not self.match.games else int(self.match.games[-1].points)
            text = "Game drawn by agreement." if who is None else (
                f"{'You win' if who == 'you' else 'The computer wins'} {pts} point{'s' if pts > 1 else ''} {how}.")
            over = {"winner": who, "points": pts, "how": res.how, "text": text}
        board = self.human_board()
        pos = Position(board)
        return {
            "id": self.id, "level": self.level, "hint_level": self.hint_level, "colour": self.human, "computer_colour": self.computer,
            "seed": self.seed, "opening_roll": self.opening, "turns": len(self.record.turns),
            "board": board_view(board), "position_id": pos.position_id, "xgid": to_xgid(pos, self.dice), "set_up": self.set_up,
            "dice": None if self.dice is None else list(self.dice),
            "plays": [{"play": p.compact, "position_id": p.position_id, "steps": play_steps(p.moves),
                       "orders": _orders(board, play_steps(p.moves), self.dice)} for p in self.plays],
            "events": self.events[-12:], "last_computer": self.last_computer, "over": over,
            "may_draw": g.over is None and (self.match is None or not self.match.rules.is_match),
            **({} if self.match is None else {"cube": self._cube_view()}),
        }

    def _cube_view(self) -> dict:
        m = self.match
        who = {self.human: "you", self.computer: "computer", None: None}
        r = m.rules
        live = self.game.over is None
        return {"value": m.cube_value, "owner": who[m.cube_owner], "offered_by": who[m.offered_by],
                "awaiting": self.awaiting if live else None,
                "may_double": live and self.awaiting == "cube" and m.may_double(self.human),
                "may_answer": live and self.awaiting == "answer",
                "may_beaver": live and self.awaiting == "answer" and m.why_no_beaver(self.human) is None,
                "crawford": m.crawford, "post_crawford": m.post_crawford, "match_length": r.match_length,
                "jacoby": r.jacoby, "beavers": r.beavers, "cap": r.max_value, "game": m.game_number,
                "score": {"you": m.score[self.human], "computer": m.score[self.computer]},
                "match_over": m.over, "match_winner": who[m.winner],
                "text": m.describe_cube(names={self.human: "you", self.computer: "the computer"})}

    # ------------------------------------------------------------------ the dice and the turns
    def roll(self) -> tuple[int, int]:
        """The next throw; the first comes from the opening roll when that option is on, or
        from the set-up position's dice."""
        if self.first_dice is not None:
            d, self.first_dice = self.first_dice, None
            return d
        if self.opening and not self.record.turns and self.dice is None:
            white_first, dice, throws = opening_roll(self.rng)
            self.game.white_on_roll = white_first
            self.record.start_on_roll = self.game.on_roll
            self._event({"who": "both", "kind": "opening", "throws": [list(t) for t in throws], "note": "Opening roll: " + ", ".join(f"White {w}, Black {b}" for w, b in throws)
                         + f"; {self.game.on_roll.capitalize()} moves first with {dice[0]}-{dice[1]}."})
            return dice
        a, b = random_roll(self.rng)
        return (max(a, b), min(a, b))

    def finish_record(self) -> None:
        """Score a finished game of a cube session and write its record's result: the points
        scored (cube x result, as the match scored them); a dropped double as the doubler's
        single game resigned at the cube before the double (after the record's drop line, as
        :mod:`bgrl.records.record` reads it)."""
        res = self.game.over
        if res is not None and self.match is not None and not self.scored:
            self._score_cube_game()
        if res is not None and self.record.result is None:
            pts = res.points
            if self.match is not None and self.match.games:
                pts = self.match.games[-1].points
            how = {"bear-off": RESULT_NAMES.get(res.points), "pass": "resign"}.get(res.how, res.how)
            self.record.finish(res.winner, pts, how)

    def _seed(self) -> int:
        return int(self.rng.integers(0, 2**63 - 1))

    def advance(self, engine) -> None:
        """Play the computer's turns and the player's forced or impossible rolls until the
        player has a choice or the game is over (bounded by :data:`bgrl.rules.game.MAX_PLIES`)."""
        g = self.game
        while g.over is None:
            if self.match is not None and self._cube_stop(engine):
                return
            dice = self.roll()
            pos = g.position
            if g.on_roll == self.computer:
                if self.match is not None:
                    from bgrl.agents.cube import cubeful_choose_play

                    play = cubeful_choose_play(self._level_agent(engine), pos, dice, self.match.cube_for(self.computer))
                else:
                    play = engine.move(pos, dice, self.level, self._seed()).play
                self.record.add_turn(g.on_roll, pos, dice, play)
                if play is None:
                    ev = {"who": "computer", "dice": list(dice), "play": None, "steps": [],
                          "note": f"The computer rolls {dice[0]}-{dice[1]} and cannot move."}
                    g.apply(g.board, dice)
                else:
                    text = play.shown(True, other_side=True)
                    ev = {"who": "computer", "dice": list(dice), "play": text, "play_dice": play.shown(False, other_side=True),
                          "steps": play_steps(play.moves, other_side=True),
                          "before": board_view(flip(pos.board))["points"],
                          "note": f"The computer rolls {dice[0]}-{dice[1]} and plays {text} (in your numbering)."}
                    g.apply(play.after_state, dice)
                self._event(ev)
                self.last_computer = ev
                continue
            plays = legal_plays(pos, dice)
            if len(plays) > 1:
                self.dice, self.plays = dice, plays
                return
            self.record.add_turn(g.on_roll, pos, dice, plays[0] if plays else None)
            if plays:
                self._event({"who": "you", "dice": list(dice), "play": plays[0].compact, "play_dice": plays[0].shown(False),
                             "forced": True, "steps": play_steps(plays[0].moves),
                             "note": f"You roll {dice[0]}-{dice[1]}: forced play {plays[0].compact}, played for you."})
                g.apply(plays[0].after_state, dice)
            else:
                self._event({"who": "you", "dice": list(dice), "play": None, "steps": [],
                             "note": f"You roll {dice[0]}-{dice[1]}: no legal play, the turn passes."})
                g.apply(g.board, dice)
        self.dice, self.plays = None, []
        self.finish_record()

    def _check_live(self) -> None:
        if self.game.over is not None:
            raise SessionError("game_over", "the game is over")

    def play(self, engine, position_id: str) -> None:
        """The player's play, named by the Position ID after it (the computer on roll); then
        :meth:`advance`. SessionError ``game_over``, ``no_roll`` or ``illegal_play``."""
        self._check_live()
        if self.dice is None:  # before the roll of a cube session, or a double waiting for its answer
            raise SessionError("no_roll", "no roll is on the table: "
                               + ("answer the double first (take or pass)" if self.awaiting == "answer" else "roll first (or double)"))
        chosen = next((p for p in self.plays if p.position_id == position_id), None)
        if chosen is None:
            raise SessionError("illegal_play", f"{str(position_id)[:20]!r} is not the result of a legal play of "
                               f"{self.dice[0]}-{self.dice[1]}")
        g = self.game
        self.record.add_turn(g.on_roll, g.position, self.dice, chosen)
        g.apply(chosen.after_state, self.dice)
        self._event({"who": "you", "dice": list(self.dice), "play": chosen.compact, "steps": play_steps(chosen.moves), "note": None})
        self.dice, self.plays = None, []
        self.advance(engine)

    # ------------------------------------------------------------------ resignation and draw
    def computer_equity(self, engine, level: str = JUDGE_LEVEL) -> float:
        """The computer's cubeless equity (points per game, per unit of the cube) in the current
        position, by ``level``: after the player's best play of the roll when there is one,
        else before the computer's roll."""
        g = self.game
        if self.dice is not None and self.plays:
            return -float(engine.hint(g.position, self.dice, level, 1)[0].equity)
        p, _ = engine.evaluate(Position(flip(g.board)) if g.on_roll == self.human else g.position, level)
        return float(equity_of(p))

    def resign(self, engine, value: str = "single") -> dict:
        """Offer to resign a single game, a gammon or a backgammon; the judge level
        (:data:`bgrl.agents.levels.JUDGE_LEVEL`) decides. Accepted: the game ends at cube x
        result. Returns ``{"accepted", "reason", "judge", "computer_equity"}``."""
        self._check_live()
        if value not in RESIGN_VALUES:
            raise SessionError("bad_request", f"value must be single, gammon or backgammon, got {str(value)[:20]!r}")
        pts = RESIGN_VALUES[value]
        cube = 1 if self.match is None else self.match.cube_value
        eq = self.computer_equity(engine, JUDGE_LEVEL)
        ok, reason = resign_decision(eq, pts, cube)
        if ok:
            self.game.resign(self.human, pts)
            self.dice, self.plays, self.awaiting = None, [], None
            if self.match is not None:
                self.match.offered_by = None
            self.finish_record()
        return {"accepted": ok, "reason": reason, "judge": JUDGE_LEVEL, "computer_equity": round(eq * cube, 6)}

    def draw(self, engine) -> dict:
        """Offer a draw (money play only); the judge level decides. Accepted: no points."""
        self._check_live()
        if self.match is not None and self.match.rules.is_match:
            raise SessionError("no_draw", "a game of a match cannot end in a draw")
        eq = self.computer_equity(engine, JUDGE_LEVEL)
        ok, reason = draw_decision(eq)
        if ok:
            self.game.agree_draw()
            self.dice, self.plays, self.awaiting = None, [], None
            if self.match is not None:
                self.match.offered_by = None
            self.finish_record()
        return {"accepted": ok, "reason": reason, "judge": JUDGE_LEVEL, "computer_equity": round(eq, 6)}

    # ------------------------------------------------------------------ the cube (docs/cube.md)
    def _level_agent(self, engine):
        return engine._agent(self.level, seed=self._seed())

    def _cube_stop(self, engine) -> bool:
        """Before a roll in a cube session: the computer's cube action, or the player's turn to
        roll or double. True when the session waits for the player (``awaiting``)."""
        from bgrl.agents.cube import cube_decisions, wants_double

        m, g = self.match, self.game
        if self.awaiting is not None:
            return True
        if self.first_dice is not None:  # a set-up position with its roll on the table: no cube action before it
            return False
        if self.opening and not self.record.turns:  # nobody is on roll before the opening roll
            return False
        turn = len(self.record.turns)
        if self.cube_turn == turn:
            return False
        side = g.on_roll
        if not m.may_double(side):
            return False
        if side == self.human:
            self.awaiting = "cube"
            return True
        self.cube_turn = turn
        cube = m.cube_for(side)
        d = cube_decisions(self._level_agent(engine), g.board[None], [cube])[0]
        if not wants_double(d, cube):
            return False
        m.double(side)
        self._cube_event(side, "double", 2 * cube.value, g.position.position_id)
        self.awaiting = "answer"
        self._event({"who": "computer", "cube": "double", "note": f"The computer doubles to {2 * cube.value}: take or pass?"})
        return True

    def _score_cube_game(self) -> None:
        res, m = self.game.over, self.match
        if res.how == "draw":
            m.end_game(None, 0, "draw")
        elif res.how != "pass":  # a pass is scored by the pass itself
            m.end_game(res.winner, res.points, res.how)
        self.scored = True

    def cube_question(self) -> tuple[str, np.ndarray, object] | None:
        """The cube decision waiting for the player, as a hint judges it: ``(role, board,
        cube)`` with ``role`` ``"double"`` (the player's double before the roll) or
        ``"answer"`` (the computer's double), ``board`` the doubler's position before its roll
        (int8 (26,), from the doubler's side) and ``cube`` the doubler's
        :class:`bgrl.rules.cube.CubeState` before the double; None when no cube decision waits."""
        m = self.match
        if m is None or self.game.over is not None or self.awaiting not in ("cube", "answer"):
            return None
        if self.awaiting == "cube":
            return "double", self.game.board.copy(), m.cube_for(self.human)
        return "answer", self.game.board.copy(), m.cube_for(m.offered_by)  # the value before the double

    def _cube_session(self) -> Match:
        if self.match is None:
            raise SessionError("no_cube", "this game is played without the cube (start one with cube: true)")
        self._check_live()
        return self.match

    def cube_action(self, engine, action: str) -> str | None:
        """One cube action of the player: ``roll``, ``double``, ``take``, ``pass`` or
        ``beaver``. Returns the computer's answer to a double (``take``, ``pass`` or
        ``beaver``), else None. SessionError ``no_cube``, ``game_over`` or
        ``bad_cube_action`` naming why the action does not apply now."""
        from bgrl.agents.cube import answer_double

        m = self._cube_session()
        g = self.game
        answer = None
        try:
            if action in ("roll", "double"):
                if self.awaiting == "answer":
                    raise ValueError(f"cannot {action}: a double is waiting for your answer (take or pass)")
                if self.awaiting != "cube":
                    why = m.why_no_double(self.human) if g.on_roll == self.human else "it is not your turn"
                    raise ValueError(f"cannot {action} now: " + ("you have rolled; you can double only before you roll"
                                                                  if self.dice is not None else why))
                if action == "double":
                    cube = m.cube_for(self.human)
                    m.double(self.human)
                    self._cube_event(self.human, "double", 2 * cube.value, g.position.position_id)
                    answer = answer_double(self._level_agent(engine), g.board, cube)
                    self._cube_event(self.computer, "drop" if answer == "pass" else answer,
                                     {"pass": cube.value, "take": 2 * cube.value, "beaver": 4 * cube.value}[answer])
                    if answer == "pass":
                        gs = m.drop(self.computer)
                        g.over = GameOver(self.human, gs.result, "pass")
                        self.scored = True
                    elif answer == "beaver":
                        m.beaver(self.computer)
                    else:
                        m.take(self.computer)
                    self._event({"who": "computer", "cube": answer, "note": {
                        "pass": f"You double to {2 * cube.value}; the computer passes.",
                        "take": f"You double to {2 * cube.value}; the computer takes.",
                        "beaver": f"You double to {2 * cube.value}; the computer beavers: the cube is at {m.cube_value}, its own."}[answer]})
                self.awaiting = None
                self.cube_turn = len(self.record.turns)
            elif action in ("take", "pass", "beaver"):
                if self.awaiting != "answer":
                    raise ValueError(f"cannot {action}: no double was offered")
                offered = 2 * m.cube_value
                if action == "take":
                    m.take(self.human)
                elif action == "beaver":
                    m.beaver(self.human)
                else:
                    gs = m.drop(self.human)
                self._cube_event(self.human, "drop" if action == "pass" else action, m.cube_value if action != "pass" else offered // 2)
                if action == "pass":
                    g.over = GameOver(self.computer, gs.result, "pass")
                    self.scored = True
                self.awaiting = None
                self._event({"who": "you", "cube": action, "note": {"take": "You take.", "beaver": "You beaver.",
                                                                      "pass": "You pass."}[action]})
            else:
                raise ValueError(f"unknown cube action {str(action)[:20]!r}; expected roll, double, take, pass or beaver")
        except SessionError:
            raise
        except ValueError as exc:
            raise SessionError("bad_cube_action", str(exc)) from None
        if g.over is not None:
            self.dice, self.plays = None, []
            self.finish_record()
        else:
            self.advance(engine)
        return answer

    def next_game(self, engine) -> None:
        """The next game of a cube session (a money session goes on for ever; a match to N)."""
        m = self.match
        if m is None:
            raise SessionError("no_cube", "this game is played without the cube: start a new one")
        if self.game.over is None:
            raise SessionError("game_not_over", "the game in play has not ended")
        if m.over:
            raise SessionError("match_over", f"the match is over: {'you' if m.winner == self.human else 'the computer'} won")
        m.next_game()
        self.records.append(self.record.lines())
        self.cube_infos.append({"actions": self.cube_actions, "start": self.game_start})
        self.game = Game()
        self.game.white_on_roll = m.game_number % 2 == 1
        self._new_record()
        self._mark_game_start()
        self.dice, self.plays, self.awaiting, self.scored, self.last_computer = None, [], None, False, None
        self.cube_turn = None
        note = f"Game {m.game_number}" + (f" of the {m.rules.match_length}-point match" if m.rules.is_match else "") + "."
        if m.crawford:
            note += " The Crawford game: no doubling."
        elif m.post_crawford:
            note += " Post-Crawford: the cube is back in play."
        self._event({"who": "both", "kind": "game", "note": note + f" {self.game.on_roll.capitalize()} moves first."})
        self.advance(engine)


def _record_from_lines(lines: list) -> GameRecord:
    """A GameRecord from its own :meth:`GameRecord.lines` (the store's copy, not a user's file)."""
    head = lines[0]
    rec = GameRecord(white=head["white"], black=head["black"], start_position_id=head["start_position_id"],
                     start_on_roll=head["start_on_roll"], seed=head["seed"], date=head["date"], cube=head.get("cube"))
    for obj in lines[1:]:
        if obj.get("type") == "result":
            rec.result = obj
        elif obj.get("type") == "cube":
            rec.add_cube(obj["player"], obj["action"], obj["value"])
        else:
            rec.turns.append(Turn(obj["player"], obj["position_id"], tuple(obj["dice"]), obj["play"]))
    return rec


def _cube_header(rules: MatchRules, start: dict | None, value: int, owner: str | None) -> dict:
    """A cube game's record header ``cube`` (:mod:`bgrl.records.record`): the rules, the
    score and Crawford state the game began with (``start``, as ``game_start``; money play:
    0-0) and its cube ``value`` and ``owner`` (None = centred)."""
    start = start or {"score": [0, 0], "crawford": False}
    return {"match_length": rules.match_length,
            "score": [int(x) for x in start["score"]] if rules.is_match else [0, 0],
            "crawford": bool(start["crawford"]) and rules.is_match, "jacoby": rules.jacoby, "beavers": rules.beavers,
            "max_value": rules.max_value, "value": int(value), "owner": owner}


def _add_cube(rec: GameRecord, info: dict, rules: MatchRules, score: GameScore | None) -> None:
    """Give the record of a game stored before records held the cube (a session from the
    opening position: its games begin with the cube at 1, centred) its cube header and cube
    lines from ``info`` (``{"actions", "start"}``, as ``cube_infos`` holds them), and, for a
    game ended by a dropped double (``score``, its :class:`GameScore`), its result."""
    rec.cube = _cube_header(rules, info.get("start"), 1, None)
    rec.cube_actions = [CubeEvent(a["player"], a["action"], int(a["value"]), int(a["turn"])) for a in info.get("actions", [])]
    if rec.result is None and score is not None and score.how == "pass":
        rec.finish(score.winner, score.points, "resign")
