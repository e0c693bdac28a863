"""The web board: the page at ``/``, its assets under ``/web/``, and the game-session
endpoints ``/v1/games/...`` it plays through (docs/web.md, docs/service.md).

The routes are a view of :class:`bgrl.session.game.GameSession`, the one interactive game of
every surface (the terminal's too): each request reads its game from the store
(:class:`bgrl.session.store.GameStore`, ``app.state.store``), runs one command, and stores the
changed game with a version check before it answers, so any worker process or replica can
serve any game, a restart loses nothing, and of two concurrent commands on one game one gets
409 ``conflict``. A game belongs to a player token (:mod:`bgrl.session.owner`): without it,
or with another player's, a game is 404.

Every board, point number and play a session returns is in the *player's* numbering
(docs/rules.md: the same physical point is ``p`` for one side and ``25 - p`` for the other).
Each turn of the player comes with every legal play of the whole roll as single-die steps,
so the page highlights only the landing points of legal plays. Resignations and draws are
judged by ``world-class`` (:data:`bgrl.agents.levels.JUDGE_LEVEL`); hints default to
:data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`, the same on every surface. The reviews (a
session's, an uploaded file's, the statistics') are :mod:`bgrl.service.web_review`'s, run in
threads of their own.
"""

from __future__ import annotations

import asyncio
import json
import math
from importlib import resources
from typing import Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from bgrl.agents.cube import cube_hint, cubeful_rank, value_mwc
from bgrl.agents.explain import compare_facts, fact_sentences, play_facts
from bgrl.agents.levels import DEFAULT_HINT_LEVEL, JUDGE_LEVEL, LEVEL_NAMES
from bgrl.records.matfile import mat_text
from bgrl.records.record import GameRecord
from bgrl.rules.board import Position
from bgrl.rules.match import MatchRules
from bgrl.rules.xgid import read_position
from bgrl.service import schemas as S
from bgrl.service.engine import RankJob, ServiceError, parse_dice_value, parse_position
from bgrl.service.web_review import error_rates, session_review, upload_review
from bgrl.session.game import GameSession, SessionError, play_steps
from bgrl.session.owner import COOKIE, HEADER, is_token, new_token
from bgrl.session.store import ConflictError, DamagedGameError, GameStore, NoGameError

__all__ = ["router", "JUDGE_LEVEL", "UPLOAD_MAX_BYTES", "UPLOAD_PATH", "NewGame", "play_steps", "start_position"]

#: The route of the review of an uploaded game file.
UPLOAD_PATH = "/v1/review/upload"
#: Largest uploaded game file (POST /v1/review/upload), in bytes; the service's body limit
#: allows this much on that route only.
UPLOAD_MAX_BYTES = 1_048_576

router = APIRouter(responses={404: {"model": S.ErrorResponse, "description": "no game with this id of this player"},
                              409: {"model": S.ErrorResponse, "description": "the game changed meanwhile (conflict): read it again"}})


# ----------------------------------------------------------------------------- requests
class _Body(BaseModel):
    """A request body of the web routes: an unknown field is refused (422 ``extra_forbidden``), as on
    ``/v1/move``, so that a misspelt option (``matchlength``) never starts another game silently."""

    model_config = ConfigDict(extra="forbid")


class NewGame(_Body):
    level: str = Field("beginner", description="the computer's level (see GET /v1/version)")
    colour: Literal["white", "black"] = Field("white", description="the player's colour; White moves first, so black = the computer opens")
    opening_roll: bool = Field(False, description="docs/rules.md option: each side throws one die, the higher moves first with both")
    seed: int | None = Field(None, ge=0, le=2**63 - 1, description="seed of the dice and the computer's noise (default: random, at most 2^53 - 1 so a JavaScript client holds it exactly)")
    hint_level: str | None = Field(None, description=f"level of hints (default {DEFAULT_HINT_LEVEL}, the same on every surface); resignations, draws and reviews are judged by {JUDGE_LEVEL}")
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


class PlayIn(_Body):
    position_id: str = Field(..., max_length=20, description="Position ID after the play (the computer on roll), one of the turn's plays")


class HintIn(_Body):
    level: str | None = Field(None, description="hint level (default: the session's hint level)")
    top: int = Field(10, ge=0, le=10_000, description="rows (0 = all)")


class ResignIn(_Body):
    value: Literal["single", "gammon", "backgammon"] = "single"


class UploadIn(_Body):
    text: str = Field(..., max_length=UPLOAD_MAX_BYTES, description="the file's text: a bgrl game record (bgrl-game-1 JSON "
                      "lines) or a Jellyfish .mat export (GNU Backgammon)")
    name: str = Field("upload", max_length=200, description="the file's name, for messages")
    level: str | None = Field(None, description=f"judge level (default {JUDGE_LEVEL}, the strongest)")
    viewer: Literal["white", "black"] = Field("white", description="whose numbering the boards and plays are shown in")


class ReviewIn(_Body):
    level: str | None = Field(None, description=f"judge level (default {JUDGE_LEVEL}, the strongest)")


# ----------------------------------------------------------------------------- helpers
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


def _cube_rules(req: NewGame) -> MatchRules | None:
    """The session's cube and match options, or None without the cube. ServiceError
    ``bad_cube`` for options that do not go together or a cap that is not a power of 2."""
    if not req.cube:
        named = [f for f, v in (("match_length", req.match_length), ("jacoby", req.jacoby), ("beavers", req.beavers),
                                ("cube_cap", req.cube_cap)) if v]
        if named:
            raise ServiceError("bad_cube", f"{named[0]} needs cube: true (the default is a cubeless money game)")
        return None
    try:
        return MatchRules(match_length=req.match_length, jacoby=req.jacoby, beavers=req.beavers,
                          **({} if req.cube_cap is None else {"max_value": req.cube_cap}))
    except ValueError as exc:
        raise ServiceError("bad_cube", str(exc)) from None


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


# ----------------------------------------------------------------------------- the store and ownership
def _store(request: Request) -> GameStore:
    return request.app.state.store


def _token(request: Request) -> str | None:
    """The player token the request carries (header ``X-Player-Token``, else the cookie
    ``bgrl_player``), or None. A malformed token counts as none."""
    t = request.headers.get(HEADER) or request.cookies.get(COOKIE)
    return t if is_token(t) else None


def _no_game(gid: str) -> HTTPException:
    return HTTPException(404, f"no game {gid[:40]!r} of this player (send the player token as the {COOKIE} cookie or "
                         f"the {HEADER} header; games are kept in the store until they finish or are deleted)")


def _owner(request: Request, gid: str) -> str:
    tok = _token(request)
    if tok is None:
        raise _no_game(gid)
    return tok


def _with_token(payload: dict, token: str, response: Response) -> dict:
    response.set_cookie(COOKIE, token, max_age=10 * 365 * 24 * 3600, httponly=True, samesite="strict", path="/")
    return {**payload, "player_token": token}


def _damaged(gid: str, reason: str) -> ServiceError:
    """500 ``damaged_game``: the stored game cannot be read (a damaged row); it can still be deleted."""
    return ServiceError("damaged_game", f"game {gid[:40]!r} is damaged in the store ({reason[:200]}): it cannot be "
                        f"shown or played; delete it (DELETE /v1/games/{gid[:40]}, or bgrl games delete {gid[:40]})")


def _stored(store: GameStore, gid: str, tok: str):
    """The player's StoredGame: 404 when there is none, 500 ``damaged_game`` for a row that cannot be read."""
    try:
        sg = store.get(gid, tok)
    except DamagedGameError as exc:
        raise _damaged(gid, exc.reason) from None
    if sg is None:
        raise _no_game(gid)
    return sg


def _session(sg) -> GameSession:
    """The GameSession of a stored game: 500 ``damaged_game`` for a state of an unexpected format."""
    try:
        return GameSession.from_state(sg.state)
    except SessionError as exc:
        raise _damaged(sg.id, exc.message) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise _damaged(sg.id, f"{type(exc).__name__}: {str(exc)[:120]}") from None


def _records(s: GameSession, gid: str) -> list[GameRecord]:
    """The session's game records: 500 ``damaged_game`` when a stored earlier game cannot be read."""
    try:
        return s.all_records()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise _damaged(gid, f"a game record: {type(exc).__name__}: {str(exc)[:120]}") from None


async def _read(request: Request, gid: str) -> tuple:
    """(StoredGame, GameSession) of the request's player, read from the store (404 otherwise,
    500 ``damaged_game`` for a stored game that cannot be read)."""
    tok = _owner(request, gid)

    def read():
        sg = _stored(_store(request), gid, tok)
        return sg, _session(sg)
    return await asyncio.to_thread(read)


def _if_match(request: Request) -> int | None:
    """The game version a command was made on (header ``If-Match: <version>``, an integer as
    the game's state gives it; quotes and ``W/`` allowed), or None without the header. A
    command with another version than the stored one gets 409 ``conflict``. ServiceError
    ``bad_version`` for a header that is not a version."""
    raw = request.headers.get("if-match")
    if raw is None:
        return None
    v = raw.strip().removeprefix("W/").strip('"')
    if not v.isdigit() or len(v) > 15:
        raise ServiceError("bad_version", f"If-Match must be the game's version (a non-negative integer, the state's "
                           f"'version'), got {raw[:40]!r}")
    return int(v)


def _stamp_version(out, version: int) -> None:
    """Put the stored game's new ``version`` into a command's answer (its ``state``, or the
    answer itself when it is a state)."""
    if isinstance(out, dict):
        st = out.get("state") if isinstance(out.get("state"), dict) else out
        if "id" in st:
            st["version"] = version


def _served_here(level) -> bool:
    """Whether this server plays the computer of a game against ``level``: the levels only (a
    terminal game against ``random``, ``pubeval``, a checkpoint or a user's agent is listed and
    reviewed here, and continued with ``bgrl play --resume ID``)."""
    return level in LEVEL_NAMES


def _check_served(s: GameSession, gid: str) -> None:
    if not _served_here(s.level):
        raise ServiceError("not_served", f"game {gid[:40]!r} is against {str(s.level)[:80]!r}, which the web board does not "
                           f"play (it plays the levels {', '.join(LEVEL_NAMES)}); continue it in the terminal: "
                           f"bgrl play --resume {gid[:40]}")


async def _command(request: Request, gid: str, fn):
    """Read the game, run ``fn(session)`` (in a thread), and store the changed game with the
    version check before answering: of two concurrent commands on one game one succeeds and
    the other gets 409 ``conflict`` (the stored game stays the first's). Returns fn's value."""
    tok = _owner(request, gid)
    store = _store(request)
    want = _if_match(request)

    def run():
        sg = _stored(store, gid, tok)
        if want is not None and want != sg.version:  # the client acted on a game it read before a change
            raise ServiceError("conflict", f"game {gid[:40]!r} is at version {sg.version}, not {want} (If-Match): it was "
                               "changed since you read it; read it again (GET /v1/games/{id}) and retry")
        s = _session(sg)
        _check_served(s, gid)
        out = fn(s)
        try:
            stored = store.update(gid, tok, sg.version, s.to_state(), s.summary(), finished=s.finished)
        except ConflictError:
            raise ServiceError("conflict", f"game {gid[:40]!r} was changed by another request meanwhile; "
                               "read it again (GET /v1/games/{id}) and retry") from None
        except NoGameError:  # deleted meanwhile (DELETE /v1/games/{id} raced this command): as a missing game
            raise _no_game(gid) from None
        _stamp_version(out, stored.version)
        return out
    try:
        return await _admit(request, run)  # the store is written after the last engine call: a stopped command leaves the game as it was
    except SessionError as exc:
        raise ServiceError(exc.code, exc.message) from None


async def _admit(request: Request, fn, *args, review: bool = False):
    """``fn(*args)`` run in a thread of the server through the service's admission control
    (:meth:`bgrl.service.limiter.Limiter.run_thread`): 503 ``overloaded`` when full, 504 past the
    game deadline (``review``: in the reviews' own threads and limit, ``review_workers`` and
    ``max_reviews``, so that game commands never wait behind a review; the review deadline, and
    the work stops when the client leaves; ``fn`` then takes the cancel event first); engine
    calls inside stop at the deadline."""
    lim = request.app.state.limiter
    if review:
        return await lim.run_thread(fn, *args, deadline_s=lim.settings.review_deadline_s, request=request, pass_cancel=True,
                                    review=True)
    return await lim.run_thread(fn, *args)


# ----------------------------------------------------------------------------- sessions
@router.post("/v1/games", tags=["games"])
async def new_game(req: NewGame, request: Request, response: Response):
    """Start a game against ``level``; the computer's opening turn (when it moves first)
    is played before the answer, and the game is stored. Returns the session state and
    ``player_token`` (also set as the cookie ``bgrl_player``): every later request on the
    game sends it, as that cookie or the header ``X-Player-Token`` (docs/service.md)."""
    eng = _engine(request)
    eng.level(req.level)
    eng.level(req.hint_level or DEFAULT_HINT_LEVEL)
    eng.level(JUDGE_LEVEL)  # the judge of resignations and draws
    start, first = start_position(req)
    rules = _cube_rules(req)
    try:
        s = GameSession.new(level=req.level, colour=req.colour, seed=req.seed, hint_level=req.hint_level or DEFAULT_HINT_LEVEL,
                            opening=req.opening_roll, start=start, first_dice=first, rules=rules)
    except SessionError as exc:
        raise ServiceError(exc.code, exc.message) from None
    _rate_limit(request)  # the position and options checked (400) before a token is spent
    token = _token(request) or new_token()
    store = _store(request)

    def start_game():
        s.advance(eng)
        stored = store.create(token, s.to_state(), s.summary(), finished=s.finished, game_id=s.id)
        return {**s.state(), "version": stored.version}
    return _with_token(await _admit(request, start_game), token, response)


@router.get("/v1/games", tags=["games"])
async def list_games(request: Request, finished: bool | None = None, limit: int = Query(100, ge=1, le=1000)):
    """The request's player's games, newest first (``finished``: only finished or only
    games in progress): id, when, level, kind, turns, result and score. Without a player
    token: an empty list (no route lists another player's games)."""
    tok = _token(request)
    if tok is None:
        return {"games": []}
    rows = await asyncio.to_thread(_store(request).list, tok, finished, limit, True)
    return {"games": [_listed(g) for g in rows]}


def _listed(g) -> dict:
    """A row of the list of games; a damaged one (its row cannot be read) is listed with
    ``damaged: true`` and the ``reason``, so that it can be deleted and hides no other game."""
    row = {"id": g.id, "finished": g.finished, "created_at": g.created_at, "updated_at": g.updated_at}
    if g.damaged is not None:
        return {**row, "damaged": True, "reason": g.damaged, "served_here": False}
    return {**row, **g.summary, "served_here": _served_here(g.summary.get("level"))}


@router.get("/v1/games/stats", tags=["games"])
async def game_stats(request: Request, level: str = JUDGE_LEVEL):
    """The request's player's statistics over their finished games: per game (oldest first)
    the error rate and cube error rate (millipoints per decision, by ``level``, computed once
    per game and stored with it), and the results per level."""
    # ``damaged``: the games whose stored rows cannot be read (id and reason), left out of the rest
    tok = _token(request)
    if tok is None:
        return {"games": [], "levels": {}, "damaged": []}
    eng = _engine(request)
    eng.level(level)
    store = _store(request)

    def run(cancel):
        rows = [g for g in store.list(tok, True, None, True)][::-1]
        games, levels, damaged = [], {}, []
        for g in rows:
            if g.damaged is not None:  # a row that cannot be read: named, not counted, the others still are
                damaged.append({"id": g.id, "reason": g.damaged})
                continue
            summ = dict(g.summary)
            key = f"error_rates:{level}"
            if not isinstance(summ.get(key), dict):  # judged once, then kept with the game
                if cancel.is_set():
                    break
                try:
                    s = _session(g)
                    _records(s, g.id)
                except ServiceError as exc:
                    damaged.append({"id": g.id, "reason": exc.message})
                    continue
                summ[key] = error_rates(eng, s, level)
                try:
                    store.update(g.id, tok, g.version, g.state, summ, finished=True)
                except (ConflictError, NoGameError):  # changed or deleted meanwhile: counted as read
                    pass
            rates = summ[key]
            result = summ.get("result")
            result = result if isinstance(result, (int, float)) and not isinstance(result, bool) else None
            games.append({"id": g.id, "date": summ.get("date"), "level": summ.get("level"), "result": result,
                          "error_rate": rates.get("error_rate"), "cube_error_rate": rates.get("cube_error_rate")})
            lv = levels.setdefault(str(summ.get("level")), {"games": 0, "won": 0, "lost": 0, "points": 0})
            lv["games"] += 1
            r = result or 0
            lv["won"] += r > 0
            lv["lost"] += r < 0
            lv["points"] += r
        return {"judge": level, "games": games, "levels": levels, "damaged": damaged}
    return await _admit(request, run, review=True)


@router.get("/v1/games/{gid}", tags=["games"])
async def get_game(gid: str, request: Request):
    """The session state."""
    sg, s = await _read(request, gid)
    return {**s.state(), "version": sg.version}


@router.delete("/v1/games/{gid}", tags=["games"])
async def delete_game(gid: str, request: Request):
    """Delete one of the player's games."""
    tok = _owner(request, gid)
    if not await asyncio.to_thread(_store(request).delete, gid, tok):
        raise _no_game(gid)
    return {"deleted": gid}


@router.post("/v1/games/{gid}/play", tags=["games"])
async def post_play(gid: str, req: PlayIn, request: Request):
    """The player's play (by the Position ID after it), then the computer's reply."""
    eng = _engine(request)

    def play(s: GameSession):
        s.play(eng, req.position_id)
        return s.state()
    return await _command(request, gid, play)


@router.post("/v1/games/{gid}/hint", tags=["games"])
async def game_hint(gid: str, req: HintIn, request: Request):
    """Before the player's roll in a cube session (``cube.awaiting`` = ``cube``) or facing a
    double (``answer``): the cube advice (``cube``: no double / double, take / double, pass /
    too good, and take / pass / beaver, with the cubeful equities, MWC in a match). With a
    roll to play: the legal plays ranked by the hint level, best first; in a match by match
    winning chances, in money play with the cube by cubeful equity (``cubeful_equity``,
    ``mwc``), else by cubeless equity."""
    # the ranking goes through the service's admission control, batching and deadline as
    # POST /v1/hint does (503 overloaded, 504 deadline_exceeded); the answer is built in a
    # thread, off the event loop
    eng = _engine(request)
    _, s = await _read(request, gid)
    level = req.level or s.hint_level
    info = eng.level(level)
    if s.game.over is None and s.match is not None and s.awaiting in ("cube", "answer"):
        return await _admit(request, _cube_advice, eng, s, level, info.ply)
    if s.dice is None:
        raise ServiceError("no_decision", "no roll to play and no cube decision: the game is over or not the player's turn")
    pos, dice, n_legal = s.game.position, s.dice, len(s.plays)
    rows, _n = await request.app.state.limiter.run(RankJob(pos, dice, level, None if s.match is not None else (req.top or None)))
    cube = None if s.match is None else s.match.cube_for(s.human)
    return await _admit(request, _hint_answer, pos, dice, level, info.ply, n_legal, rows, cube, req.top or None)


def _cube_advice(eng, s: GameSession, level: str, ply: int) -> dict:
    """The cube hint of a cube session's decision: the player's double before the roll, or
    the answer to the computer's double."""
    ranker = eng.ranker(level)
    m = s.match
    if s.awaiting == "cube":
        cube, board, role = m.cube_for(s.human), s.game.board, "double"
    else:  # the computer doubled: its position before its roll, from its side
        doubler = m.offered_by
        saved = m.offered_by
        m.offered_by = None  # the decision as it stood before the double
        cube = m.cube_for(doubler)
        m.offered_by = saved
        board, role = s.game.board, "answer"
    d, probs = cube_hint(ranker.evaluator, Position(board), cube, ranker.ply, prune=ranker.prune)
    out = d.as_dict()
    eq = out["equities"]
    advice = {"role": role, "level": level, "ply": ranker.ply, "decision": d.decision, "take": bool(d.take),
              "beaver": bool(getattr(d, "beaver", False)), "equities": {k: round(v, 6) for k, v in eq.items()},
              "cube_value": cube.value, "match_length": cube.match_length}
    if cube.is_match:
        advice["mwc"] = {k: round(float(value_mwc([v], cube)[0]), 6) for k, v in eq.items()}
    if role == "answer":  # from the player's side: take, pass or beaver
        advice["advice"] = ("beaver" if advice["beaver"] and m.why_no_beaver(s.human) is None else "take") if d.take else "pass"
        advice["text"] = (f"{advice['advice'].capitalize()}: the computer's double is "
                          f"{'a take' if d.take else 'a pass'} by {level} ({ranker.ply}-ply).")
    else:
        advice["advice"] = d.decision
        advice["text"] = f"{d.decision[0].upper() + d.decision[1:]} by {level} ({ranker.ply}-ply)."
    return {"level": level, "ply": ranker.ply, "cube": advice, "plays": []}


@router.post("/v1/games/{gid}/resign", tags=["games"])
async def resign(gid: str, req: ResignIn, request: Request):
    """Offer to resign at ``value`` (single, gammon or backgammon, times the cube); the judge
    level judges (never the level that plays). Accepted: the game ends."""
    eng = _engine(request)

    def offer(s: GameSession):
        out = s.resign(eng, req.value)
        return {**out, "state": s.state()}
    return await _command(request, gid, offer)


@router.post("/v1/games/{gid}/draw", tags=["games"])
async def draw(gid: str, request: Request):
    """Offer a draw (money play); the judge level judges. Accepted: the game ends, no points."""
    eng = _engine(request)

    def offer(s: GameSession):
        out = s.draw(eng)
        return {**out, "state": s.state()}
    return await _command(request, gid, offer)


@router.post("/v1/games/{gid}/review", tags=["games"])
async def review(gid: str, req: ReviewIn, request: Request):
    """Every turn of the session's games judged by ``level`` (default the judge level,
    world-class): the player's equity after each turn (the chart), the marks, each side's
    error rate and rating; in a cube session every double, take and pass judged and the
    points with the cube and the match score."""
    eng = _engine(request)
    level = req.level or JUDGE_LEVEL
    eng.level(level)
    _, s = await _read(request, gid)
    _records(s, gid)  # a damaged earlier game: 500 damaged_game now, not a failed review
    return await _admit(request, lambda cancel: session_review(eng, s, level), review=True)


@router.get("/v1/games/{gid}/record", tags=["games"])
async def record(gid: str, request: Request, format: Literal["bgrl", "mat"] = "bgrl"):
    """The game records of the session as a download: ``format=bgrl`` (bgrl-game-1 JSON
    lines, one game after the other) or ``mat`` (not for a session from a set-up position:
    400 ``no_mat``)."""
    _, s = await _read(request, gid)
    records = _records(s, gid)
    if format == "mat":
        if s.set_up:
            raise ServiceError("no_mat", "a game from a set-up position cannot be written as .mat (the format always "
                               "starts from the opening position); download the bgrl record (format=bgrl)")
        body, name = mat_text(records, 0 if s.match is None else s.match.rules.match_length), f"bgrl-{gid}.mat"
    else:
        body = "".join(json.dumps(line, separators=(", ", ": ")) + "\n" for rec in records for line in rec.lines())
        name = f"bgrl-{gid}.jsonl"
    return PlainTextResponse(body, headers={"Content-Disposition": f'attachment; filename="{name}"'})


# ----------------------------------------------------------------------------- the cube (docs/cube.md)
for _action in ("roll", "double", "take", "pass", "beaver"):
    def _make(action):
        async def cube_action(gid: str, request: Request):
            eng = _engine(request)

            def act(s: GameSession):
                answer = s.cube_action(eng, action)
                return {"answer": answer, "state": s.state()}
            return await _command(request, gid, act)
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
    eng = _engine(request)

    def nxt(s: GameSession):
        s.next_game(eng)
        return s.state()
    return await _command(request, gid, nxt)


def _hint_answer(pos: Position, dice, level: str, ply: int, n_legal: int, rows, cube=None, top: int | None = None) -> dict:
    """The answer of a session's hint: each ranked row with its facts and why it is worse;
    with the cube (``cube``: the player's CubeState) ranked by cubeful equity, in a match by
    match winning chances (``cubeful_equity``, ``mwc``), cut to ``top``."""
    vals = None
    if cube is not None:
        rows, vals = cubeful_rank(rows, cube)
        mwc = value_mwc(vals, cube) if cube.is_match else None
    if top:
        rows = rows[:top]
    before = pos.board
    facts = [play_facts(before, r.play.after_state, r.probabilities) for r in rows]
    out = []
    for i, r in enumerate(rows):
        p = r.probabilities.to_array()
        name = r.play.compact
        why = fact_sentences(name, facts[0]) if i == 0 else compare_facts(rows[0].play.compact, facts[0], name, facts[i])
        row = {"rank": r.rank, "play": r.play.compact, "position_id": r.play.position_id, "steps": play_steps(r.play.moves),
               "ply": r.ply, "equity": round(float(r.equity), 6), "equity_loss": round(float(r.equity_loss), 6),
               "probabilities": {k: round(float(v), 6) for k, v in zip(("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"), p)},
               "facts": facts[i], "why": why}
        if vals is not None:
            row["cubeful_equity"] = round(float(vals[i]), 6)
            row["cubeful_loss"] = round(float(vals[0] - vals[i]), 6)
            if mwc is not None:
                row["mwc"] = round(float(mwc[i]), 6)
        out.append(row)
    ranked_by = "cubeless equity" if cube is None else ("match winning chances" if cube.is_match else "cubeful equity")
    return {"level": level, "ply": ply, "dice": list(dice), "legal_plays": n_legal, "ranked_by": ranked_by, "plays": out}


@router.post(UPLOAD_PATH, tags=["games"])
async def review_upload(req: UploadIn, request: Request):
    """Review an uploaded game file (a bgrl record or a gnubg ``.mat`` export; up to
    :data:`UPLOAD_MAX_BYTES`): every game judged by ``level`` (default the strongest), each
    turn as in a session's review, in ``viewer``'s numbering, and a summary per player over
    all the games. Errors: ``bad_file`` naming the line or turn."""
    eng = _engine(request)
    level = req.level or JUDGE_LEVEL
    eng.level(level)
    return await _admit(request, upload_review, eng, req, level, review=True)
