"""Request and response schemas of the HTTP service (pydantic v2; needs the ``serve`` extra).

Conventions (README, "HTTP bot service"):

* Positions are always seen from the side on roll (the mover). ``board`` is bgrl's board
  encoding, which is also wildbg's ``p0..p25``: index 1..24 = the mover's points in the
  mover's numbering (positive = mover's checkers, negative = opponent's), 25 = the mover's
  bar (>= 0), 0 = the opponent's bar (<= 0).
* A checker move is ``{"from": f, "to": t}`` in the mover's numbering, bar = 25, off = 0,
  one per die.
* Probabilities are cumulative, of one side: ``win`` includes gammons and backgammons,
  ``win_gammon`` includes backgammons; equity is cubeless, in points per game.
* Ply is gnubg's: 0-ply = the network on the after-states.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, create_model, model_validator

from bgrl.agents.levels import DEFAULT_PLAY_LEVEL, LEVEL_NAMES
from bgrl.service.engine import MAX_SEED

Level = Literal["beginner", "casual", "intermediate", "advanced", "expert", "world-class", "grandmaster"]
assert tuple(Level.__args__) == LEVEL_NAMES  # one list of names

Count = Annotated[int, Field(ge=-15, le=15)]  # query parameters (text by nature)
JsonCount = Annotated[StrictInt, Field(ge=-15, le=15)]  # JSON bodies: true, 1.0 and "1" are refused (422), not coerced
Dice = Annotated[list[StrictInt], Field(min_length=1, max_length=8)] | Annotated[str, Field(max_length=16)]
Seed = Annotated[int, Field(ge=0, le=MAX_SEED, description="same request + same seed = same play; omitted: a fresh seed, returned in the response")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PositionIn(_Strict):
    """Exactly one of ``gnubg_id``, ``xgid`` or ``board``; the side on roll is the mover."""

    gnubg_id: str | None = Field(None, max_length=64, examples=["4HPwATDgc/ABMA"], description="gnubg Position ID, as GNU Backgammon shows it")
    xgid: str | None = Field(None, max_length=128, description="eXtreme Gammon XGID; its dice, if any, are used when dice is omitted")
    board: list[JsonCount] | None = Field(None, min_length=26, max_length=26, description="26 ints: 0 = opponent's bar (<= 0), 1..24 = mover's points, 25 = mover's bar (>= 0)")

    @model_validator(mode="after")
    def _exactly_one(self):
        given = [k for k in ("gnubg_id", "xgid", "board") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"position needs exactly one of gnubg_id, xgid, board; got {given or 'none'}")
        return self


class MoveRequest(_Strict):
    position: PositionIn
    dice: Dice | None = Field(None, description="[d1, d2] or text like '31'; may be omitted only for an XGID that carries dice", examples=[[3, 1]])
    level: Level = DEFAULT_PLAY_LEVEL
    seed: Seed | None = None


class HintRequest(_Strict):
    position: PositionIn
    dice: Dice | None = Field(None, examples=[[3, 1]])
    level: Level = DEFAULT_PLAY_LEVEL
    top: int | None = Field(None, ge=1, le=10_000, description="at most this many plays (default: all)")
    cube: "CubeIn | None" = Field(None, description="the cube (optional rules): with a cube at 2 or more or owned, "
                                  "the plays are ranked by cubeful equity")
    match: "MatchIn | None" = Field(None, description="the match score (optional rules): the plays are ranked by "
                                    "match winning chances")


class EvalRequest(_Strict):
    position: PositionIn
    level: Level = DEFAULT_PLAY_LEVEL


class CubeIn(_Strict):
    """The cube before the roll, from the side on roll (optional rules; docs/cube.md)."""

    value: StrictInt = Field(1, ge=1, le=2 ** 15, description="the cube value, a power of 2")
    owner: Literal[-1, 0, 1] = Field(0, description="0 centred, 1 the side on roll owns it, -1 the opponent")


class MatchIn(_Strict):
    """The match score, from the side on roll."""

    length: StrictInt = Field(ge=1, le=25, description="points to win the match (the Kazaross-XG2 table goes to 25)")
    score: list[StrictInt] = Field(default_factory=lambda: [0, 0], min_length=2, max_length=2, description="[side on roll, opponent]")
    crawford: bool = Field(False, description="this game is the Crawford game (no doubling)")


HintRequest.model_rebuild()  # its cube and match fields refer to the models above


class CubeRequest(_Strict):
    position: PositionIn
    level: Level = DEFAULT_PLAY_LEVEL
    cube: CubeIn | None = None
    match: MatchIn | None = None


class CubeEquities(BaseModel):
    no_double: float
    double_take: float
    double_pass: float


class CubeAnswer(BaseModel):
    decision: Literal["no double", "double, take", "double, pass", "too good to double"]
    take: bool
    equities: CubeEquities


class Step(BaseModel):
    """One checker move, mover's numbering: bar = 25, off = 0."""

    model_config = ConfigDict(populate_by_name=True)
    from_: int = Field(alias="from", ge=0, le=25)
    to: int = Field(ge=0, le=25)


class Probabilities(BaseModel):
    """Cumulative outcome probabilities of one side, each in [0, 1]."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float


class _Served(BaseModel):
    engine: str
    version: str
    model_sha256: str = Field(description="sha256 of the network that produced this answer: the level's network (see /v1/version levels[].sha256)")
    elapsed_ms: float


class MoveResponse(_Served):
    play: str = Field(description="plain notation: '24/18 13/12', 'bar/22', '6/off', or 'pass'")
    moves: list[Step] = Field(description="the play's checker moves, applicable in this order; [] for a pass")
    position_id: str = Field(description="gnubg Position ID after the play, the opponent on roll")
    level: Level
    ply: int
    seed: int


class HintPlay(BaseModel):
    rank: int
    play: str
    moves: list[Step]
    position_id: str
    ply: int
    equity: float = Field(description="cubeless equity of the side that played, after the play, points per game")
    equity_loss: float = Field(description="best equity minus this one (>= 0)")
    probabilities: Probabilities
    cubeful_equity: float | None = Field(None, description="with a cube in play or a score: money, equity per unit "
                                         "of the cube; a match, the MWC on gnubg's equity scale of the cube")
    mwc: float | None = Field(None, description="at a match score: the match winning chances of the side that played")


class HintResponse(_Served):
    position_id: str
    dice: list[int]
    level: Level
    ply: int
    legal_plays: int = Field(description="number of distinct legal plays (0: the turn passes)")
    ranked_by: Literal["cubeless", "cubeful", "mwc"] = "cubeless"
    cube: CubeIn | None = None
    match: MatchIn | None = None
    plays: list[HintPlay]


class EvalResponse(_Served):
    position_id: str
    level: Level
    ply: int
    equity: float = Field(description="cubeless equity of the side on roll, before rolling, points per game")
    probabilities: Probabilities


class CubeResponse(_Served):
    position_id: str
    level: Level
    ply: int
    cube: CubeAnswer = Field(description="cubeful equities of the side on roll per unit of the current stake (at a score: MWC on gnubg's equity scale)")


class Health(BaseModel):
    status: Literal["ok", "starting"]
    ready: bool
    levels_loaded: int


class Limits(BaseModel):
    max_body_bytes: int
    max_inflight: int
    pool_workers: int
    deadline_s: float
    max_checkers: int
    max_top: int


class ModelInfo(BaseModel):
    """``file``/``sha256``: the default network (levels casual .. advanced; the fallback).
    Extra keys: ``networks`` (name -> sha256 of every network loaded), ``files`` (name -> file)."""

    model_config = ConfigDict(extra="allow")
    file: str = Field(description="the default network's file (each level's own network: levels[].file)")
    sha256: str


class LevelOut(BaseModel):
    name: Level
    ply: int
    noise: float
    source: str
    network: str = Field(description="the network this level plays (checkpoints/<network>.pt)")
    file: str = Field(description="that network's file name")
    sha256: str = Field(description="that network's sha256, as in the level's responses' model_sha256")


class VersionResponse(BaseModel):
    engine: str
    version: str
    api: str
    model: ModelInfo
    levels: list[LevelOut]
    limits: Limits
    protocols: dict[str, str]
    xgid_supported: bool


class ErrorResponse(BaseModel):
    """Every error: a short machine-readable code and a one-line message."""

    code: str
    message: str


# ----------------------------------------------------------------------------- wildbg
class WildbgProbabilities(BaseModel):
    """wildbg's view of the five probabilities (cumulative, like gnubg's)."""

    win: float
    winG: float
    winBg: float
    loseG: float
    loseBg: float


class WildbgMoveInfo(BaseModel):
    play: list[Step] = Field(description="0 to 4 checker moves; [] when no move is possible")
    probabilities: WildbgProbabilities


class WildbgMoveResponse(BaseModel):
    moves: list[WildbgMoveInfo] = Field(description="best first; exactly one entry with an empty play when no move is possible")


class WildbgCube(BaseModel):
    double: bool
    accept: bool


class WildbgEvalResponse(BaseModel):
    cube: WildbgCube
    probabilities: WildbgProbabilities


_pips = {f"p{i}": (Count | None, Field(None, description=("opponent's bar (<= 0)" if i == 0 else "mover's bar (>= 0)" if i == 25 else None))) for i in range(26)}

WildbgEvalQuery = create_model(
    "WildbgEvalQuery",
    __base__=BaseModel,
    level=(Level, Field(DEFAULT_PLAY_LEVEL, description="bgrl extension: the level whose evaluation (ply) is returned")),
    **_pips,
)
WildbgMoveQuery = create_model(
    "WildbgMoveQuery",
    __base__=BaseModel,
    die1=(int, Field(description="1..6")),
    die2=(int, Field(description="1..6")),
    x_away=(int | None, Field(None, ge=0, le=10_000, description="omit or 0 (money game); 1 with o_away=1: one-point match")),
    o_away=(int | None, Field(None, ge=0, le=10_000)),
    level=(Level, Field(DEFAULT_PLAY_LEVEL, description="bgrl extension: the level whose ranking (and, for a noisy level, whose choice first) is returned")),
    seed=(Seed | None, Field(None, description="bgrl extension: seed of a noisy level's choice")),
    **_pips,
)
