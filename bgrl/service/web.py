"""The web board: the page at ``/``, its assets under ``/web/``, and the game-session
endpoints ``/v1/games/...`` it plays through (docs/web.md, docs/service.md).

A game session is a money game (no cube) between the player and one level, held in the
server's memory (lost on restart; at most :data:`MAX_GAMES` at once, the oldest dropped).
Every board, point number and play a session returns is in the *player's* numbering
(RULES.md: the same physical point is ``p`` for one side and ``25 - p`` for the other):
the board is the player's view (index 1..24 the player's points, positive = the player's
checkers, 25 = the player's bar, 0 = the computer's bar as a negative count), and the
computer's plays are written in the player's numbering.

Each turn of the player comes with every legal play of the whole roll
(:func:`bgrl.rules.notation.legal_plays`, move paths from
:func:`bgrl.rules.movegen.generate`) as single-die steps, so the page highlights only the
landing points of legal plays and never loses a die that must be played. A forced play (one
legal play) is played for the player, and a roll that cannot be played is passed, each with
a note. Resignations and draws are judged by ``world-class``, the strongest 1-ply level
(:data:`bgrl.agents.levels.JUDGE_LEVEL`), whatever the session's hint level; hints and
reviews use it too unless the request names another level.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from importlib import resources
from typing import Literal

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from bgrl.agents.explain import compare_facts, fact_sentences, play_facts
from bgrl.agents.levels import JUDGE_LEVEL
from bgrl.agents.offers import draw_decision, resign_decision
from bgrl.evaluation.probabilities import equity as equity_of
from bgrl.records.matfile import mat_text
from bgrl.records.files import read_games_text
from bgrl.records.record import GameRecord
from bgrl.records.review import by_player, review_records
from bgrl.rules.board import Position, flip, pip_counts, borne_off
from bgrl.rules.dice import opening_roll, random_roll
from bgrl.rules.game import BLACK, RESIGN_VALUES, WHITE, Game
from bgrl.rules.notation import legal_plays
from bgrl.rules.xgid import read_position, to_xgid
from bgrl.service.engine import ServiceError, parse_dice_value, parse_position
from bgrl.service import schemas as S

__all__ = ["router", "JUDGE_LEVEL", "MAX_GAMES", "UPLOAD_MAX_BYTES", "UPLOAD_PATH", "WebGame", "play_steps", "start_position"]

#: The route of the review of an uploaded game file.
UPLOAD_PATH = "/v1/review/upload"

#: Game sessions kept in memory at once (the oldest is dropped beyond this).
MAX_GAMES = 256
#: Largest uploaded game file (POST /v1/review/upload), in bytes; the service's body limit
#: allows this much on that route only.
UPLOAD_MAX_BYTES = 1_048_576
_HOW = {1: "single", 2: "gammon", 3: "backgammon"}

router = APIRouter(responses={404: {"model": S.ErrorResponse, "description": "no game with this id on this server (sessions are kept in memory)"}})


# ----------------------------------------------------------------------------- requests
class NewGame(BaseModel):
    level: str = Field("beginner", description="the computer's level (see GET /v1/version)")
    colour: Literal["white", "black"] = Field("white", description="the player's colour; White moves first, so black = the computer opens")
    opening_roll: bool = Field(False, description="RULES.md option: each side throws one die, the higher moves first with both")
    seed: int | None = Field(None, ge=0, le=2**63 - 1, description="seed of the dice and the computer's noise (default: random)")
    hint_level: str | None = Field(None, description=f"level of hints (default {JUDGE_LEVEL}); resignations, draws and reviews are judged by {JUDGE_LEVEL}")
    position: str | None = Field(None, max_length=120, description="start from this position, the player on roll: a gnubg "
                                 "Position ID (as GNU Backgammon shows it for the side on roll) or an XGID (its side on roll "
                                 "is the player; its dice, if any, are the first roll); default: the start position")
    board: list[int] | None = Field(None, min_length=26, max_length=26, description="start from this board instead of "
                                    "`position` (the board editor): 26 ints, the player's view, the player on roll (1..24 "
                                    "the player's points, + the player's checkers, 25 the player's bar, 0 the computer's bar "
                                    "as a negative count)")
    dice: list[int] | None = Field(None, min_length=2, max_length=2, description="the player's first roll with `position` "
                                   "or `board`, e.g. [3, 1] (default: the XGID's dice, else a random roll)")
    cube: bool = Field(False, description="play with the doubling cube (docs/cube.md): POST .../double, .../roll, .../take, .../pass")
    match_length: int = Field(0, ge=0, le=25, description="with cube: an N-point match (Crawford rule); 0 = money play")
    jacoby: bool = Field(False, description="with cube, money play: the Jacoby rule")
    beavers: bool = Field(False, description="with cube, money play: beavers allowed (POST .../beaver)")
    cube_cap: int | None = Field(None, ge=2, le=2**15, description="with cube: the largest cube value, a power of 2 (default 32768)")


class PlayIn(BaseModel):
    position_id: str = Field(..., max_length=20, description="Position ID after the play (the computer on roll), one of the turn's plays")


class HintIn(BaseModel):
    level: str | None = Field(None, description="hint level (default: the session's hint level)")
    top: int = Field(10, ge=0, le=10_000, description="rows (0 = all)")


class ResignIn(BaseModel):
    value: Literal["single", "gammon", "backgammon"] = "single"


class UploadIn(BaseModel):
    text: str = Field(..., max_length=UPLOAD_MAX_BYTES, description="the file's text: a bgrl game record (bgrl-game-1 JSON "
                      "lines) or a Jellyfish .mat export (GNU Backgammon)")
    name: str = Field("upload", max_length=200, description="the file's name, for messages")
    level: str | None = Field(None, description=f"judge level (default {JUDGE_LEVEL}, the strongest)")
    viewer: Literal["white", "black"] = Field("white", description="whose numbering the boards and plays are shown in")


class ReviewIn(BaseModel):
    level: str | None = Field(None, description=f"judge level (default {JUDGE_LEVEL}, the strongest)")


# ----------------------------------------------------------------------------- helpers
def _name(p: int) -> str:
    return "bar" if p == 25 else ("off" if p <= 0 else str(p))


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


def _view(board: np.ndarray) -> dict:
    b = np.asarray(board, dtype=np.int8)
    pm, po = pip_counts(b)
    om, oo = borne_off(b)
    return {"points": [int(x) for x in b], "pips": {"you": int(pm), "computer": int(po)},
            "off": {"you": int(om), "computer": int(oo)}}


def start_position(req: NewGame) -> tuple[Position | None, tuple[int, int] | None]:
    """The position (from the player, on roll) and first dice a session starts from:
    ``req.position`` read by :func:`bgrl.rules.xgid.read_position`, or ``req.board`` (checked
    by :func:`bgrl.service.engine.parse_position`), ``req.dice`` (else the
    XGID's). (None, None) for the start position. Raises ServiceError ``bad_position``
    (unreadable, or a finished game), ``bad_dice`` and ``bad_request`` (dice without a
    position, or a position with the opening roll)."""
    if req.position is None and req.board is None:
        if req.dice is not None:
            raise ServiceError("bad_request", "dice need a position: they are the first roll of a set-up position")
        return None, None
    if req.position is not None and req.board is not None:
        raise ServiceError("bad_request", "give a position or a board, not both")
    if req.opening_roll:
        raise ServiceError("bad_request", "a set-up position and the opening roll exclude each other: in a set-up position you are on roll")
    if req.board is not None:
        pos, dice = parse_position(board=req.board)
    else:
        try:
            pos, dice = read_position(req.position)
        except (TypeError, ValueError) as exc:
            raise ServiceError("bad_position", f"{exc}; expected a Position ID or an XGID") from None
    if 15 in pos.off:
        raise ServiceError("bad_position", f"position {pos.position_id}: the game is over (a side has borne off all 15 checkers)")
    if req.dice is not None:
        dice = parse_dice_value(list(req.dice))
    return pos, None if dice is None else (max(dice), min(dice))


class WebGame:
    """One game session: the :class:`bgrl.rules.game.Game`, its record, the dice and the
    legal plays of the player's current roll. Methods that need the engine take it."""

    def __init__(self, gid: str, req: NewGame):
        self.id = gid
        self.level = req.level
        self.hint_level = req.hint_level or JUDGE_LEVEL
        self.human = req.colour
        self.computer = BLACK if self.human == WHITE else WHITE
        self.seed = req.seed if req.seed is not None else secrets.randbits(63)
        self.rng = np.random.default_rng(self.seed)
        start, self.first_dice = start_position(req)
        self.game = Game() if start is None else Game(start.board, white_on_roll=(self.human == WHITE))
        self.set_up = start is not None
        self.opening = req.opening_roll
        self.record = GameRecord(white="you" if self.human == WHITE else f"bgrl {self.level}",
                                 black="you" if self.human == BLACK else f"bgrl {self.level}",
                                 start_position_id=self.game.position.position_id, start_on_roll=self.game.on_roll, seed=self.seed,
                                 date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.dice: tuple[int, int] | None = None
        self.plays = []
        self.events: list[dict] = []
        self.last_computer: dict | None = None
        self.lock = threading.Lock()
        self.match = _cube_match(req)  # None: the default cubeless money game
        self.awaiting: str | None = None  # cube sessions: "cube" (roll or double), "answer" (take or pass)
        self._cube_decided = False  # the player has chosen to roll (or doubled) this turn
        self._scored = False

    # -- the board from the player's side
    def human_board(self) -> np.ndarray:
        g = self.game
        mover = g.over.winner if (g.over is not None and g.over.how == "bear-off") else g.on_roll
        return g.board.copy() if mover == self.human else flip(g.board)

    def roll(self):
        """The next throw; the first comes from the opening roll when that option is on, or
        from the set-up position's dice."""
        if self.first_dice is not None:
            d, self.first_dice = self.first_dice, None
            return d
        if self.opening and not self.record.turns and self.dice is None:
            white_first, dice, throws = opening_roll(self.rng)
            self.game.white_on_roll = white_first
            self.record.start_on_roll = self.game.on_roll
            self.events.append({"who": "both", "note": "Opening roll: " + ", ".join(f"White {w}, Black {b}" for w, b in throws)
                                + f"; {self.game.on_roll.capitalize()} moves first with {dice[0]}-{dice[1]}."})
            return dice
        a, b = random_roll(self.rng)
        return (max(a, b), min(a, b))

    def finish_record(self) -> None:
        res = self.game.over
        if res is not None and self.match is not None and not self._scored:
            _score_cube_game(self)
        if res is not None and self.record.result is None and res.how != "pass":
            self.record.finish(res.winner, res.points, _HOW[res.points] if res.how == "bear-off" else res.how)

    def advance(self, engine) -> None:
        """Play the computer's turns and the player's forced or impossible rolls until the
        player has a choice or the game is over."""
        g = self.game
        while g.over is None:
            if self.match is not None and _cube_stop(self, engine):
                return
            dice = self.roll()
            pos = g.position
            if g.on_roll == self.computer:
                if self.match is not None:
                    r = _cubeful_move(self, engine, pos, dice)
                else:
                    r = engine.move(pos, dice, self.level, int(self.rng.integers(0, 2**63 - 1)))
                self.record.add_turn(g.on_roll, pos, dice, r.play)
                if r.play is None:
                    ev = {"who": "computer", "dice": list(dice), "play": None, "steps": [],
                          "note": f"The computer rolls {dice[0]}-{dice[1]} and cannot move."}
                    g.apply(g.board, dice)
                else:
                    text = r.play.shown(True, other_side=True)
                    ev = {"who": "computer", "dice": list(dice), "play": text, "steps": play_steps(r.play.moves, other_side=True),
                          "before": _view(flip(pos.board))["points"],
                          "note": f"The computer rolls {dice[0]}-{dice[1]} and plays {text} (in your numbering)."}
                    g.apply(r.play.after_state, dice)
                self.events.append(ev)
                self.last_computer = ev
                continue
            plays = legal_plays(pos, dice)
            if len(plays) > 1:
                self.dice, self.plays = dice, plays
                return
            self.record.add_turn(g.on_roll, pos, dice, plays[0] if plays else None)
            if plays:
                self.events.append({"who": "you", "dice": list(dice), "play": plays[0].compact, "steps": play_steps(plays[0].moves),
                                    "note": f"You roll {dice[0]}-{dice[1]}: forced play {plays[0].compact}, played for you."})
                g.apply(plays[0].after_state, dice)
            else:
                self.events.append({"who": "you", "dice": list(dice), "play": None, "steps": [],
                                    "note": f"You roll {dice[0]}-{dice[1]}: no legal play, the turn passes."})
                g.apply(g.board, dice)
        self.dice, self.plays = None, []
        self.finish_record()

    def play(self, engine, position_id: str) -> None:
        """The player's play, named by its result; then :meth:`advance`."""
        if self.game.over is not None:
            raise ServiceError("game_over", "the game is over")
        if self.dice is None:  # before the roll of a cube session, or a double waiting for its answer
            raise ServiceError("no_roll", "no roll is on the table: "
                               + ("answer the double first (take or pass)" if self.awaiting == "answer" else "roll first (or double)"))
        chosen = next((p for p in self.plays if p.position_id == position_id), None)
        if chosen is None:
            raise ServiceError("illegal_play", f"{position_id[:20]!r} is not the result of a legal play of {self.dice[0]}-{self.dice[1]}")
        g = self.game
        self.record.add_turn(g.on_roll, g.position, self.dice, chosen)
        g.apply(chosen.after_state, self.dice)
        self.events.append({"who": "you", "dice": list(self.dice), "play": chosen.compact, "steps": play_steps(chosen.moves), "note": None})
        self.dice, self.plays = None, []
        self.advance(engine)

    def computer_equity(self, engine, level: str) -> float:
        """The computer's cubeless equity (points per game) in the current position, by
        ``level``: after the player's best play of the roll when there is one, else before
        the computer's roll."""
        g = self.game
        if self.dice is not None and self.plays:
            return -float(engine.hint(g.position, self.dice, level, 1)[0].equity)
        p, _ = engine.evaluate(Position(flip(g.board)) if g.on_roll == self.human else g.position, level)
        return float(equity_of(p))

    def state(self) -> dict:
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
            "board": _view(board), "position_id": pos.position_id, "xgid": to_xgid(pos, self.dice), "set_up": self.set_up,
            "dice": None if self.dice is None else list(self.dice),
            "plays": [{"play": p.compact, "position_id": p.position_id, "steps": play_steps(p.moves),
                       "orders": _orders(board, play_steps(p.moves), self.dice)} for p in self.plays],
            "events": self.events[-12:], "last_computer": self.last_computer, "over": over,
            **({} if self.match is None else {"cube": _cube_view(self)}),
        }


def _games(request: Request) -> OrderedDict:
    st = request.app.state
    if not hasattr(st, "web_games"):
        st.web_games = OrderedDict()
        st.web_lock = threading.Lock()
    return st.web_games


def _get(request: Request, gid: str) -> WebGame:
    g = _games(request).get(gid)
    if g is None:
        raise HTTPException(404, f"no game {gid[:40]!r} on this server (sessions are kept in memory and lost on restart)")
    return g


async def _locked(game: WebGame, fn, *args):
    """``fn(*args)`` in a thread, one call per session at a time."""
    def run():
        with game.lock:
            return fn(*args)
    return await asyncio.to_thread(run)


def _engine(request: Request):
    return request.app.state.engine


def _rate_limit(request: Request) -> None:
    """Spend one of the client address's new-game tokens (``Settings.games_per_minute``,
    ``games_burst``): 429 ``too_many_games`` with ``Retry-After`` when there is none."""
    bucket = getattr(request.app.state, "game_rate", None)
    if bucket is None:
        return
    wait = bucket.take(request.client.host if request.client else "-")
    if wait > 0:
        cfg = request.app.state.settings
        raise TooManyGames(f"more than {cfg.games_burst} new games at once or {cfg.games_per_minute:g} a minute "
                              f"from this address; retry in {math.ceil(wait)} s", math.ceil(wait))


class TooManyGames(HTTPException):
    """429 ``too_many_games`` (answered by the app's HTTP error handler with ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(429, message, headers={"Retry-After": str(retry_after)})


# ----------------------------------------------------------------------------- the page
def _asset(name: str):
    return resources.files("bgrl.service").joinpath("webapp", name)


_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml"}
_ASSETS: frozenset[str] | None = None


def _asset_names() -> frozenset[str]:
    """The names of the page's files (``webapp/``, of a served type): a request's name is
    looked up here, never handed to the file system."""
    global _ASSETS
    if _ASSETS is None:
        _ASSETS = frozenset(f.name for f in resources.files("bgrl.service").joinpath("webapp").iterdir()
                            if f.is_file() and f.name[f.name.rfind("."):] in _TYPES)
    return _ASSETS


@router.get("/", include_in_schema=False)
async def index():
    return HTMLResponse(_asset("index.html").read_text(encoding="utf-8"))


@router.get("/web/{name}", include_in_schema=False)
async def asset(name: str):
    if name not in _asset_names():
        raise HTTPException(404, f"no web asset {name[:40]!r}: expected one of {', '.join(sorted(_asset_names()))}")
    return FileResponse(str(_asset(name)), media_type=_TYPES[name[name.rfind("."):]])


# ----------------------------------------------------------------------------- sessions
@router.post("/v1/games", tags=["games"])
async def new_game(req: NewGame, request: Request):
    """Start a game against ``level``; the computer's opening turn (when it moves first)
    is played before the answer. Returns the session state (docs/service.md)."""
    eng = _engine(request)
    eng.level(req.level)
    eng.level(req.hint_level or JUDGE_LEVEL)
    eng.level(JUDGE_LEVEL)  # the judge of resignations and draws
    games = _games(request)
    game = WebGame(secrets.token_hex(8), req)  # its position and options checked (400) before a token is spent
    _rate_limit(request)
    with request.app.state.web_lock:
        games[game.id] = game
        while len(games) > MAX_GAMES:
            games.popitem(last=False)

    def start():
        game.advance(eng)
        return game.state()
    return await _locked(game, start)


@router.get("/v1/games/{gid}", tags=["games"])
async def get_game(gid: str, request: Request):
    """The session state."""
    game = _get(request, gid)
    return await _locked(game, game.state)


@router.post("/v1/games/{gid}/play", tags=["games"])
async def post_play(gid: str, req: PlayIn, request: Request):
    """The player's play (by the Position ID after it), then the computer's reply."""
    game = _get(request, gid)

    def play():
        game.play(_engine(request), req.position_id)
        return game.state()
    return await _locked(game, play)


def _hint_snapshot(game: WebGame):
    """The position, roll and number of legal plays of the player's decision (under the
    session's lock); ServiceError ``no_decision`` when there is none."""
    if game.dice is None:
        raise ServiceError("no_decision", "no roll to play: the game is over or not the player's turn")
    return game.game.position, game.dice, len(game.plays)


@router.post("/v1/games/{gid}/hint", tags=["games"])
async def game_hint(gid: str, req: HintIn, request: Request):
    """The legal plays of the player's roll ranked by the hint level, best first."""
    # the ranking goes through the service's admission control, batching and deadline as
    # POST /v1/hint does (503 overloaded, 504 deadline_exceeded); the answer is built in a
    # thread, off the event loop
    game = _get(request, gid)
    eng = _engine(request)
    level = req.level or game.hint_level
    info = eng.level(level)
    pos, dice, n_legal = await _locked(game, _hint_snapshot, game)
    rows = await request.app.state.limiter.run("hint", pos, dice, level, req.top or None)
    return await asyncio.to_thread(_hint_answer, pos, dice, level, info.ply, n_legal, rows)


def _hint_answer(pos: Position, dice, level: str, ply: int, n_legal: int, rows) -> dict:
    """The answer of a session's hint: each ranked row with its facts and why it is worse."""
    before = pos.board
    facts = [play_facts(before, r.play.after_state, r.probabilities) for r in rows]
    out = []
    for i, r in enumerate(rows):
        p = r.probabilities.to_array()
        name = r.play.compact
        why = fact_sentences(name, facts[0]) if i == 0 else compare_facts(rows[0].play.compact, facts[0], name, facts[i])
        out.append({"rank": r.rank, "play": r.play.compact, "position_id": r.play.position_id, "steps": play_steps(r.play.moves),
                    "ply": r.ply, "equity": round(float(r.equity), 6), "equity_loss": round(float(r.equity_loss), 6),
                    "probabilities": {k: round(float(v), 6) for k, v in zip(("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"), p)},
                    "facts": facts[i], "why": why})
    return {"level": level, "ply": ply, "dice": list(dice), "legal_plays": n_legal, "plays": out}


def _offer(game: WebGame, engine, pts: int | None) -> dict:
    """A resignation at ``pts`` points (None: a draw offer), judged by the judge level and,
    accepted, applied: all under the session's lock, the game-over check included."""
    if game.game.over is not None:
        raise ServiceError("game_over", "the game is over")
    if pts is None and game.match is not None and game.match.rules.is_match:
        raise ServiceError("no_draw", "a game of a match cannot end in a draw")
    eq = game.computer_equity(engine, JUDGE_LEVEL)
    ok, reason = draw_decision(eq) if pts is None else resign_decision(eq, pts)
    if ok:
        if pts is None:
            game.game.agree_draw()
        else:
            game.game.resign(game.human, pts)
        game.dice, game.plays = None, []
        game.finish_record()
    return {"accepted": ok, "reason": reason, "judge": JUDGE_LEVEL, "computer_equity": round(eq, 6), "state": game.state()}


@router.post("/v1/games/{gid}/resign", tags=["games"])
async def resign(gid: str, req: ResignIn, request: Request):
    """Offer to resign at ``value``; the judge level judges (never the level that plays,
    whatever the hint level). Accepted: the game ends."""
    game = _get(request, gid)
    return await _locked(game, _offer, game, _engine(request), RESIGN_VALUES[req.value])


@router.post("/v1/games/{gid}/draw", tags=["games"])
async def draw(gid: str, request: Request):
    """Offer a draw; the judge level judges. Accepted: the game ends, no points."""
    game = _get(request, gid)
    return await _locked(game, _offer, game, _engine(request), None)


def _review(eng, rec: GameRecord, level: str, viewer: str, labels: dict | None = None) -> dict:
    """The review of one game record by ``level``: every turn with the position, the play
    made and the best play (steps and notation in ``viewer``'s numbering), the viewer's
    equity after the turn (the chart), the mark and, for a play that is not the best, why
    the best is better (:mod:`bgrl.agents.explain`); each side's summary. ``labels`` maps
    'white'/'black' to the names the turns and summaries use (default: the colours)."""
    labels = labels or {WHITE: WHITE, BLACK: BLACK}
    from bgrl.agents.hints import HintRanker

    # the level's HintRanker, as bgrl review uses: one search for the game, and a play kept at a
    # shallower ply by a move filter valued again at the best play's (the same figures as the CLI)
    rv = review_records([rec], HintRanker.from_agent(eng._agent(level)), name=level)[0]
    turns = []
    for t, tr in zip(rec.turns, rv.turns):
        pos = Position.from_id(t.position_id)
        mine = t.player == viewer
        if tr.played_index is not None:
            played = tr.ranked[tr.played_index].play
        else:
            played = next((p for p in legal_plays(pos, t.dice) if p.notation == t.play), None) if t.play else None
        after = pos.board if played is None else played.after_state
        if borne_off(after)[0] == 15:  # the game ended on this turn: its points
            e_mover = float(rec.result["points"]) if rec.result else 1.0
        elif tr.equity is not None:
            e_mover = tr.equity
        else:  # forced or no play: the judge's value of the position after it
            p, _ = eng.evaluate(Position(flip(after)), level)
            e_mover = -float(equity_of(p))
        view = _view(pos.board if mine else flip(pos.board))
        best = tr.ranked[0] if tr.ranked else None
        why = []
        if best is not None and played is not None and tr.played_index != 0 and tr.equity_loss:
            mover = tr.ranked[tr.played_index]
            fb = play_facts(pos.board, best.play.after_state, best.probabilities)
            fp = play_facts(pos.board, played.after_state, mover.probabilities)
            why = compare_facts(best.play.shown(True), fb, played.shown(True), fp)
        turns.append({
            "turn": tr.turn, "player": labels[t.player], "colour": t.player, "mine": mine, "dice": [max(t.dice), min(t.dice)],
            "position_id": t.position_id,
            "play": None if played is None else played.shown(True, other_side=not mine),
            "best": None if best is None else best.play.shown(True, other_side=not mine),
            "play_steps": [] if played is None else play_steps(played.moves, other_side=not mine),
            "best_steps": [] if best is None else play_steps(best.play.moves, other_side=not mine),
            "equity": round(e_mover if mine else -e_mover, 6),
            "equity_loss": None if tr.equity_loss is None else round(tr.equity_loss, 6), "mark": tr.mark,
            "legal_plays": tr.legal, "board": view["points"], "off": view["off"], "why": why,
        })
    players = {labels[c]: s.as_dict() for c, s in rv.players.items()}
    return {"judge": level, "ply": eng.level(level).ply, "result": rec.result, "turns": turns, "players": players,
            "white": rec.white, "black": rec.black, "viewer": viewer, "_review": rv}


def _game_review(eng, game: WebGame, level: str) -> dict:
    out = _review(eng, game.record, level, game.human, {game.human: "you", game.computer: "computer"})
    out.pop("_review")
    return out


def _upload_review(eng, req: UploadIn, level: str) -> dict:
    try:
        records, notes, kind, cube_info = read_games_text(req.text, req.name[:80], with_cube=True)
    except ValueError as exc:
        raise ServiceError("bad_file", str(exc)) from None
    if not records:
        raise ServiceError("bad_file", f"{req.name[:80]}: no game in the file")
    games = []
    labels_of = [{WHITE: f"{rec.white} (White)", BLACK: f"{rec.black} (Black)"} for rec in records]  # turns, summaries and cube rows
    for i, (rec, note, labels) in enumerate(zip(records, notes, labels_of)):
        try:
            g = _review(eng, rec, level, req.viewer, labels)
        except ValueError as exc:
            raise ServiceError("bad_file", f"game {i + 1}: {exc}") from None
        g["game"], g["notes"] = i + 1, list(note)
        games.append(g)
    reviews = [g.pop("_review") for g in games]
    if any(c is not None for c in cube_info):  # the cube actions of a .mat file, judged as bgrl review judges them
        from bgrl.agents.hints import HintRanker
        from bgrl.records.review import cube_summaries, judge_cube

        ranker = HintRanker.from_agent(eng._agent(level))
        try:
            judge_cube(reviews, cube_info, ranker.evaluator, ranker.ply, f"{level}, cube at {ranker.ply}-ply")
        except ValueError as exc:
            raise ServiceError("bad_file", f"cube review: {exc}") from None
        for g, rv, labels in zip(games, reviews, labels_of):
            if rv.cube is not None:
                g["cube"] = [{**c.as_dict(), "player": labels[c.player]} for c in rv.cube]
                g["cube_players"] = {labels[c]: s.as_dict() for c, s in cube_summaries(rv.cube).items()}
    return {"name": req.name, "kind": kind, "judge": level, "ply": eng.level(level).ply, "games": games,
            "summary": {k: s.as_dict() for k, s in by_player(reviews).items()}}


@router.post("/v1/games/{gid}/review", tags=["games"])
async def review(gid: str, req: ReviewIn, request: Request):
    """Every turn judged by ``level`` (default the judge level, world-class): the player's
    equity after each turn (the chart), the marks and each side's error rate and rating."""
    game = _get(request, gid)
    eng = _engine(request)
    level = req.level or JUDGE_LEVEL
    eng.level(level)

    def run():
        if not game.record.turns:
            raise ServiceError("no_turns", "no turn has been played yet")
        return _game_review(eng, game, level)
    return await _locked(game, run)


@router.post(UPLOAD_PATH, tags=["games"])
async def review_upload(req: UploadIn, request: Request):
    """Review an uploaded game file (a bgrl record or a gnubg ``.mat`` export; up to
    :data:`UPLOAD_MAX_BYTES`): every game judged by ``level`` (default the strongest), each
    turn as in a session's review, in ``viewer``'s numbering, and a summary per player over
    all the games. Errors: ``bad_file`` naming the line or turn."""
    eng = _engine(request)
    level = req.level or JUDGE_LEVEL
    eng.level(level)
    return await asyncio.to_thread(_upload_review, eng, req, level)


@router.get("/v1/games/{gid}/record", tags=["games"])
async def record(gid: str, request: Request, format: Literal["bgrl", "mat"] = "bgrl"):
    """The game record as a download: ``format=bgrl`` (bgrl-game-1 JSON lines) or ``mat``
    (not for a session from a set-up position: 400 ``no_mat``)."""
    import json

    game = _get(request, gid)

    def text():
        if format == "mat":
            if game.set_up:
                raise ServiceError("no_mat", "a game from a set-up position cannot be written as .mat (the format always "
                                   "starts from the opening position); download the bgrl record (format=bgrl)")
            return mat_text(game.record), f"bgrl-{gid}.mat"
        return "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for line in game.record.lines()), f"bgrl-{gid}.jsonl"
    body, name = await _locked(game, text)
    return PlainTextResponse(body, headers={"Content-Disposition": f'attachment; filename="{name}"'})


# ----------------------------------------------------------------------------- the cube (docs/cube.md)
def _cube_match(req: NewGame):
    """The session's :class:`bgrl.rules.match.Match`, or None without the cube. ServiceError
    ``bad_cube`` for options that do not go together or a cap that is not a power of 2."""
    from bgrl.rules.match import Match, MatchRules

    if not req.cube:
        named = [f for f, v in (("match_length", req.match_length), ("jacoby", req.jacoby), ("beavers", req.beavers),
                                ("cube_cap", req.cube_cap)) if v]
        if named:
            raise ServiceError("bad_cube", f"{named[0]} needs cube: true (the default is a cubeless money game)")
        return None
    try:
        rules = MatchRules(match_length=req.match_length, jacoby=req.jacoby, beavers=req.beavers,
                           **({} if req.cube_cap is None else {"max_value": req.cube_cap}))
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None
    return Match(rules)


def _level_agent(game: WebGame, engine):
    return engine._agent(game.level, seed=int(game.rng.integers(0, 2**63 - 1)))


def _cube_stop(game: WebGame, engine) -> bool:
    """Before a roll in a cube session: the computer's cube action, or the player's turn to
    roll or double. True when the session waits for the player (``awaiting``)."""
    from bgrl.agents.cube import cube_decisions, wants_double

    m, g = game.match, game.game
    if game.awaiting is not None:
        return True
    if game.first_dice is not None:  # a set-up position with its roll on the table: no cube action before it (as bgrl play --cube)
        return False
    turn = len(game.record.turns)
    if getattr(game, "_cube_turn", None) == turn:
        return False
    side = g.on_roll
    if not m.may_double(side):
        return False
    if side == game.human:
        game.awaiting = "cube"
        return True
    game._cube_turn = turn
    cube = m.cube_for(side)
    d = cube_decisions(_level_agent(game, engine), g.board[None], [cube])[0]
    if not wants_double(d, cube):
        return False
    m.double(side)
    game.awaiting = "answer"
    game.events.append({"who": "computer", "cube": "double", "note": f"The computer doubles to {2 * cube.value}: take or pass?"})
    return True


class _Move:
    def __init__(self, play):
        self.play = play


def _cubeful_move(game: WebGame, engine, pos, dice):
    from bgrl.agents.cube import cubeful_choose_play

    return _Move(cubeful_choose_play(_level_agent(game, engine), pos, dice, game.match.cube_for(game.computer)))


def _score_cube_game(game: WebGame) -> None:
    res, m = game.game.over, game.match
    if res.how == "pass":  # scored by the pass itself
        pass
    elif res.how == "draw":
        m.end_game(None, 0, "draw")
    else:
        m.end_game(res.winner, res.points, res.how)
    game._scored = True


def _cube_view(game: WebGame) -> dict:
    m = game.match
    who = {game.human: "you", game.computer: "computer", None: None}
    r = m.rules
    return {"value": m.cube_value, "owner": who[m.cube_owner], "offered_by": who[m.offered_by], "awaiting": game.awaiting,
            "may_double": game.awaiting == "cube" and m.may_double(game.human),
            "may_beaver": game.awaiting == "answer" and m.why_no_beaver(game.human) is None,
            "crawford": m.crawford, "post_crawford": m.post_crawford, "match_length": r.match_length,
            "jacoby": r.jacoby, "beavers": r.beavers, "cap": r.max_value, "game": m.game_number,
            "score": {"you": m.score[game.human], "computer": m.score[game.computer]},
            "match_over": m.over, "match_winner": who[m.winner],
            "text": m.describe_cube(names={game.human: "you", game.computer: "the computer"})}


def _cube_session(game: WebGame):
    if game.match is None:
        raise ServiceError("no_cube", "this game is played without the cube (start one with cube: true)")
    if game.game.over is not None:
        raise ServiceError("game_over", "the game is over")
    return game.match


def _cube_action(game: WebGame, engine, action: str) -> dict:
    """One cube action of the player (``roll``, ``double``, ``take``, ``pass``, ``beaver``)."""
    from bgrl.agents.cube import answer_double
    from bgrl.rules.game import GameOver

    m = _cube_session(game)
    g = game.game
    answer = None
    try:
        if action in ("roll", "double"):
            if game.awaiting == "answer":
                raise ValueError(f"cannot {action}: a double is waiting for your answer (take or pass)")
            if game.awaiting != "cube":
                why = m.why_no_double(game.human) if g.on_roll == game.human else "it is not your turn"
                raise ValueError(f"cannot {action} now: " + ("you have rolled; you can double only before you roll"
                                                              if game.dice is not None else why))
            if action == "double":
                cube = m.cube_for(game.human)
                m.double(game.human)
                answer = answer_double(_level_agent(game, engine), g.board, cube)
                if answer == "pass":
                    gs = m.drop(game.computer)
                    g.over = GameOver(game.human, gs.result, "pass")
                    game._scored = True
                elif answer == "beaver":
                    m.beaver(game.computer)
                else:
                    m.take(game.computer)
                game.events.append({"who": "computer", "cube": answer, "note": {
                    "pass": f"You double to {2 * cube.value}; the computer passes.",
                    "take": f"You double to {2 * cube.value}; the computer takes.",
                    "beaver": f"You double to {2 * cube.value}; the computer beavers: the cube is at {m.cube_value}, its own."}[answer]})
            game.awaiting = None
            game._cube_turn = len(game.record.turns)
        else:
            if game.awaiting != "answer":
                raise ValueError(f"cannot {action}: no double was offered")
            if action == "take":
                m.take(game.human)
            elif action == "beaver":
                m.beaver(game.human)
            else:
                gs = m.drop(game.human)
                g.over = GameOver(game.computer, gs.result, "pass")
                game._scored = True
            game.awaiting = None
            game.events.append({"who": "you", "cube": action, "note": {"take": "You take.", "beaver": "You beaver.",
                                                                         "pass": "You pass."}[action]})
    except ValueError as exc:
        raise ServiceError("bad_cube_action", str(exc)) from None
    if g.over is not None:
        game.dice, game.plays = None, []
        game.finish_record()
    else:
        game.advance(engine)
    return {"answer": answer, "state": game.state()}


def _next_game(game: WebGame, engine) -> dict:
    """The next game of a cube session (a money session goes on for ever; a match to N)."""
    m = game.match
    if m is None:
        raise ServiceError("no_cube", "this game is played without the cube: start a new one with POST /v1/games")
    if game.game.over is None:
        raise ServiceError("game_not_over", "the game in play has not ended")
    if m.over:
        raise ServiceError("match_over", f"the match is over: {'you' if m.winner == game.human else 'the computer'} won")
    m.next_game()
    game.game = Game()
    game.game.white_on_roll = m.game_number % 2 == 1
    game.record = GameRecord(white=game.record.white, black=game.record.black, start_position_id=game.game.position.position_id,
                             start_on_roll=game.game.on_roll, seed=game.seed,
                             date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    game.dice, game.plays, game.awaiting, game._scored, game.last_computer = None, [], None, False, None
    game._cube_turn = None
    note = f"Game {m.game_number}" + (f" of the {m.rules.match_length}-point match" if m.rules.is_match else "") + "."
    if m.crawford:
        note += " The Crawford game: no doubling."
    elif m.post_crawford:
        note += " Post-Crawford: the cube is back in play."
    game.events.append({"who": "both", "note": note + f" {game.game.on_roll.capitalize()} moves first."})
    game.advance(engine)
    return game.state()


for _action in ("roll", "double", "take", "pass", "beaver"):
    def _make(action):
        async def cube_action(gid: str, request: Request):
            game = _get(request, gid)
            return await _locked(game, _cube_action, game, _engine(request), action)
        cube_action.__name__ = f"cube_{action}"
        cube_action.__doc__ = {
            "roll": "Cube sessions: roll the dice without doubling (when ``cube.awaiting`` is ``cube``).",
            "double": "Cube sessions: double before the roll; the computer answers at once (``answer``: take, pass or beaver).",
            "take": "Cube sessions: take the computer's double (``cube.awaiting`` is ``answer``).",
            "pass": "Cube sessions: pass the computer's double: the game ends, the computer wins the stake.",
            "beaver": "Cube sessions, money with beavers: take the computer's double and redouble at once, keeping the cube.",
        }[action]
        return cube_action
    router.post(f"/v1/games/{{gid}}/{_action}", tags=["games"], name=f"cube_{_action}")(_make(_action))


@router.post("/v1/games/{gid}/next", tags=["games"])
async def next_game(gid: str, request: Request):
    """Cube sessions: start the next game (money play: another game; a match: the next game to N)."""
    game = _get(request, gid)
    return await _locked(game, _next_game, game, _engine(request))
