"""Game review: every checker play of a game judged against the alternatives.

For each turn the review lists the roll, the legal plays ranked by a *ranker*, the play
made and its equity loss (best equity minus the played play's equity, points per game),
with a mark: ``doubtful`` (loss >= 0.04), ``bad`` (>= 0.08), ``very bad`` (>= 0.16)
(GNU Backgammon's default thresholds). A play is judged before the dice that follow it:
plays are compared by their cubeless equity *after the play, with the opponent to roll*,
so a bad roll afterwards is never counted as an error. A turn with one legal play (forced)
or none (the roll cannot be played) is not a decision.

Each player then gets an error rate, the mean loss per decision in millipoints
(1000 x points per game), and a rating on the scale used by GNU Backgammon
(:data:`RATINGS`: < 2 supernatural, 2-5 world class, 5-8 expert, 8-12 advanced, 12-18
intermediate, 18-26 casual, 26-35 beginner, >= 35 awful; each band includes its lower
bound).

The ranker is injected: any callable ``ranker(position, dice) -> list[RankedPlay]``
returning every legal play best first; the one ranker of the package is
:class:`bgrl.agents.hints.HintRanker` (``HintRanker.from_agent(level_agent)`` for a level's
noise-free search). A ranker that also has ``rank_many(items) -> list[list[RankedPlay]]``
ranks all decisions of a review at once (HintRanker: one search for all of them), and one
with ``value_at(after_states, plies)`` lets a play made that a move filter left at a
shallower ply be valued at the best play's ply, so the two are compared at the same depth
(as gnubg's analysis does).

The cube decisions are reviewed by :mod:`bgrl.records.cube_review` (attached to a
:class:`Review` as its ``cube``); the text and JSON reports are :mod:`bgrl.records.review_report`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from bgrl.agents.hints import HintRanker, RankedPlay, with_shared_ranks
from bgrl.evaluation.probabilities import Probabilities, equity
from bgrl.records.record import GameRecord
from bgrl.rules.board import Position
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation

__all__ = [
    "MARKS",
    "RATINGS",
    "NAME_WIDTH",
    "cut_name",
    "mark_for",
    "rating_for",
    "TurnReview",
    "PlayerSummary",
    "Review",
    "review_record",
    "review_records",
    "summarize",
    "totals",
    "by_player",
]

#: Player names read from a game file are cut to this many characters (with "…") in a review.
NAME_WIDTH = 40


def cut_name(text: str, n: int = NAME_WIDTH) -> str:
    """``str(text)`` cut to at most ``n`` characters, the last one "…" when cut (a player name
    of a game file; :func:`bgrl.records.review_report.shown_name` also escapes it for printing)."""
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


#: (threshold in points per game, mark), largest first; a loss >= threshold gets the mark.
MARKS = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))
#: (upper bound in millipoints per decision, rating); the first bound above the rate wins.
RATINGS = ((2.0, "supernatural"), (5.0, "world class"), (8.0, "expert"), (12.0, "advanced"),
           (18.0, "intermediate"), (26.0, "casual"), (35.0, "beginner"), (math.inf, "awful"))


def mark_for(loss: float | None) -> str | None:
    """The mark of an equity loss (points per game): 'very bad', 'bad', 'doubtful' or None."""
    if loss is None:
        return None
    for threshold, name in MARKS:
        if loss >= threshold - 1e-12:
            return name
    return None


def rating_for(error_rate: float | None) -> str | None:
    """The rating for an error rate in millipoints per decision (None when no decisions)."""
    if error_rate is None:
        return None
    for bound, name in RATINGS:
        if error_rate < bound:
            return name
    return RATINGS[-1][1]


def _reinsert(ranked: list, mine, probs) -> list:
    """``ranked`` with ``mine`` re-valued (``probs``) at the depth of the best play and
    moved to its place among the plays of that depth; ranks (ties shared) and losses renumbered."""
    top = ranked[0].ply
    e = float(equity(np.asarray(probs)))
    new = replace(mine, equity=e, probabilities=Probabilities.from_array(probs), ply=top)
    rest = [r for r in ranked if r is not mine]
    k = sum(1 for r in rest if r.ply == top and r.equity >= e)  # rest starts with the top-ply plays, best first
    lst = rest[:k] + [new] + rest[k:]
    best = lst[0].equity
    return with_shared_ranks([replace(r, equity_loss=best - r.equity) for r in lst])


@dataclass(frozen=True)
class TurnReview:
    """One turn of a reviewed game.

    turn : 1-based turn number; player : 'white' / 'black'; name : that player's name;
    position_id : position before the play (player on roll); dice : (high, low);
    play : the play made (mover's notation) or None when no die could be played;
    legal : number of legal plays (0 = the roll cannot be played, 1 = forced);
    rank : the played play's rank (1 = best; plays that tie share a rank,
    :func:`bgrl.agents.hints.shared_ranks`), None when not a decision;
    equity / best_equity : cubeless equity (points per game) after the played / best play,
    for the player who moved, opponent to roll; None when not a decision;
    equity_loss : best_equity - equity (>= 0), None when not a decision; mark : see
    :data:`MARKS`; ranked : the ranker's whole list (best first), empty when not a decision;
    ply : the search depth at which the played and the best play were compared;
    played_index : the played play's place in ``ranked`` (0-based), None when not a decision;
    played : the play made, a :class:`bgrl.rules.notation.Play` (None for a pass), for
    showing it in another notation or numbering
    (:func:`bgrl.records.review_report.format_review`).
    """

    turn: int
    player: str
    name: str
    position_id: str
    dice: tuple[int, int]
    play: str | None
    legal: int
    rank: int | None = None
    equity: float | None = None
    best_equity: float | None = None
    equity_loss: float | None = None
    mark: str | None = None
    ranked: tuple = ()
    ply: int | None = None
    played_index: int | None = None
    played: object = field(default=None, repr=False, compare=False)

    @property
    def decision(self) -> bool:
        """Whether the player had a choice (two or more legal plays)."""
        return self.legal > 1

    def shown(self, top: int = 3) -> list[RankedPlay]:
        """The ``top`` best plays plus the played one when it is listed lower."""
        rows = list(self.ranked[:top])
        if self.played_index is not None and self.played_index >= top:
            rows.append(self.ranked[self.played_index])
        return rows

    def is_played(self, row) -> bool:
        """Whether ``row`` (one of :attr:`ranked`) is the play made."""
        return self.played_index is not None and self.ranked[self.played_index] is row

    def as_dict(self, top: int = 3) -> dict:
        return {
            "turn": self.turn,
            "player": self.player,
            "name": self.name,
            "position_id": self.position_id,
            "dice": [max(self.dice), min(self.dice)],
            "play": self.play,
            "legal_plays": self.legal,
            "decision": self.decision,
            "rank": self.rank,
            "equity": None if self.equity is None else round(self.equity, 6),
            "best_equity": None if self.best_equity is None else round(self.best_equity, 6),
            "equity_loss": None if self.equity_loss is None else round(self.equity_loss, 6),
            "mark": self.mark,
            "ply": self.ply,
            "alternatives": [dict(r.as_dict(), played=self.is_played(r)) for r in self.shown(top)],
        }


@dataclass
class PlayerSummary:
    """One player's figures over the reviewed turns.

    turns : turns played (passes included); decisions : turns with a choice; forced :
    turns with exactly one legal play; passes : rolls that could not be played;
    total_loss : sum of equity losses (points per game); error_rate : 1000 x total_loss /
    decisions (millipoints per decision), None without decisions; rating : see
    :data:`RATINGS`; marks : counts of 'doubtful', 'bad', 'very bad'.
    """

    player: str
    name: str
    turns: int = 0
    decisions: int = 0
    forced: int = 0
    passes: int = 0
    total_loss: float = 0.0
    marks: dict = field(default_factory=lambda: {name: 0 for _, name in reversed(MARKS)})

    @property
    def error_rate(self) -> float | None:
        return 1000.0 * self.total_loss / self.decisions if self.decisions else None

    @property
    def rating(self) -> str | None:
        return rating_for(self.error_rate)

    def add(self, t: TurnReview) -> None:
        self.turns += 1
        if t.legal == 0:
            self.passes += 1
        elif t.legal == 1:
            self.forced += 1
        else:
            self.decisions += 1
            self.total_loss += t.equity_loss
            if t.mark:
                self.marks[t.mark] += 1

    def merge(self, other: "PlayerSummary") -> None:
        """Add another summary's counts and losses to this one (a player over several games)."""
        self.turns += other.turns
        self.decisions += other.decisions
        self.forced += other.forced
        self.passes += other.passes
        self.total_loss += other.total_loss
        for k, v in other.marks.items():
            self.marks[k] += v

    def as_dict(self) -> dict:
        er = self.error_rate
        return {"player": self.player, "name": self.name, "turns": self.turns, "decisions": self.decisions,
                "forced": self.forced, "passes": self.passes, "total_loss": round(self.total_loss, 6),
                "error_rate": None if er is None else round(er, 3), "rating": self.rating, "marks": dict(self.marks)}


@dataclass
class Review:
    """A reviewed game: the record's players and result, one :class:`TurnReview` per turn,
    a :class:`PlayerSummary` per colour, the ranker's label and notes (e.g. skipped cube
    actions of a ``.mat`` file)."""

    white: str
    black: str
    result: dict | None
    turns: list[TurnReview]
    players: dict
    ranker: str
    notes: list[str] = field(default_factory=list)
    game: int = 1
    cube: list | None = None  # CubeReview list when the cube was reviewed (bgrl.records.cube_review.attach_cube)
    cube_judge: str | None = None
    source: str | None = None

    def as_dict(self, top: int = 3) -> dict:
        """The checker review as JSON: game, white, black, result, notes, turns
        (:meth:`TurnReview.as_dict` with ``top`` alternatives) and players (per colour). The
        cube part (``cube``, ``cube_players``) is added by
        :func:`bgrl.records.review_report.review_json`."""
        return {"game": self.game, "white": self.white, "black": self.black, "result": self.result,
                "notes": list(self.notes), "turns": [t.as_dict(top) for t in self.turns],
                "players": {c: s.as_dict() for c, s in self.players.items()}}


def _ranker_name(ranker) -> str:
    return str(getattr(ranker, "name", None) or getattr(ranker, "__name__", None) or type(ranker).__name__)


def summarize(turns, names: dict) -> dict:
    """PlayerSummary per colour ('white', 'black') over ``turns`` (TurnReview)."""
    out = {c: PlayerSummary(c, names.get(c, c)) for c in ("white", "black")}
    for t in turns:
        out[t.player].add(t)
    return out


def review_records(records, ranker, notes=None, name: str | None = None, progress=None) -> list[Review]:
    """Review several games; all their decisions are ranked together (one
    ``ranker.rank_many`` call when the ranker has it, else one ranker call per decision).

    records : list of :class:`bgrl.records.record.GameRecord`; ranker : see the module docstring;
    notes : optional list (one list of strings per record) copied into each review;
    name : label of the ranker in the reports (default: its ``name`` attribute);
    progress : optional callable(n_decisions_ranked) (e.g. a tqdm bar's ``update``), called as
    decisions (turns with more than one legal play) are ranked.

    Raises
    ------
    ValueError
        when a turn's play is not legal in its position, or the ranker's list does not
        contain the play made.
    """
    records = list(records)
    prepared = []  # per record: list of (turn, position, legal plays, played Play or None)
    decisions = []  # (record index, turn index)
    for ri, rec in enumerate(records):
        rows = []
        for ti, t in enumerate(rec.turns):
            pos = Position.from_id(t.position_id)
            plays = legal_plays(pos, t.dice)
            played = None
            if t.play is None:
                if plays:
                    raise ValueError(f"turn {ti + 1}: no play recorded but {t.dice[0]}-{t.dice[1]} can be played "
                                     f"in position {t.position_id}")
            else:
                played = next((p for p in plays if p.notation == t.play), None)
                if played is None:
                    try:
                        played = play_from_notation(pos, t.dice, t.play)
                    except IllegalPlayError as exc:
                        raise ValueError(f"turn {ti + 1} ({t.player}, {t.dice[0]}-{t.dice[1]}, position "
                                         f"{t.position_id}): {exc}") from None
            rows.append((t, pos, plays, played))
            if len(plays) > 1:
                decisions.append((ri, ti))
        prepared.append(rows)
    items = [(prepared[ri][ti][1], prepared[ri][ti][0].dice) for ri, ti in decisions]
    if isinstance(ranker, HintRanker):  # reuse the legal plays found above
        ranked_lists = ranker.rank_many(items, plays=[prepared[ri][ti][2] for ri, ti in decisions], progress=progress)
    elif hasattr(ranker, "rank_many"):
        ranked_lists = ranker.rank_many(items)
        if progress is not None:
            progress(len(items))
    else:
        ranked_lists = []
        for pos, dice in items:
            ranked_lists.append(ranker(pos, dice))
            if progress is not None:
                progress(1)
    ranked_at = {key: with_shared_ranks(r) for key, r in zip(decisions, ranked_lists)}  # any ranker: ties share a rank
    mine_at = {}
    for (ri, ti), ranked in ranked_at.items():
        played = prepared[ri][ti][3]
        key = played.after_state.tobytes()
        mine = next((r for r in ranked if r.play.after_state.tobytes() == key), None)
        if mine is None:
            raise ValueError(f"turn {ti + 1}: the ranker's list of {len(ranked)} plays lacks the play made, "
                             f"{played.notation!r}")
        mine_at[(ri, ti)] = mine
    # a play made that a move filter kept at a shallower ply is valued at the best play's ply
    low = [k for k, m in mine_at.items() if getattr(m, "ply", 0) < getattr(ranked_at[k][0], "ply", 0)]
    if low and hasattr(ranker, "value_at"):
        probs = ranker.value_at(np.stack([mine_at[k].play.after_state for k in low]),
                                [ranked_at[k][0].ply for k in low])
        for k, pr in zip(low, probs):
            ranked_at[k] = _reinsert(ranked_at[k], mine_at[k], pr)
            mine_at[k] = next(r for r in ranked_at[k] if r.play is mine_at[k].play)
    name = name or _ranker_name(ranker)
    reviews = []
    for ri, rec in enumerate(records):
        names = {"white": cut_name(rec.white), "black": cut_name(rec.black)}  # escaped when printed (shown_name)
        turns = []
        for ti, (t, pos, plays, played) in enumerate(prepared[ri]):
            base = dict(turn=ti + 1, player=t.player, name=names[t.player], position_id=pos.position_id,
                        dice=(max(t.dice), min(t.dice)), play=None if played is None else played.notation,
                        legal=len(plays), played=played)
            ranked = ranked_at.get((ri, ti))
            if ranked is None:
                turns.append(TurnReview(**base))
                continue
            mine = mine_at[(ri, ti)]
            loss = max(0.0, float(ranked[0].equity - mine.equity))
            turns.append(TurnReview(**base, rank=mine.rank, equity=float(mine.equity), best_equity=float(ranked[0].equity),
                                    equity_loss=loss, mark=mark_for(loss), ranked=tuple(ranked),
                                    ply=getattr(ranked[0], "ply", 0), played_index=next(i for i, r in enumerate(ranked) if r is mine)))
        reviews.append(Review(names["white"], names["black"], rec.result, turns, summarize(turns, names), name,
                              list(notes[ri]) if notes else [], game=ri + 1))
    return reviews


def review_record(record: GameRecord, ranker, name: str | None = None) -> Review:
    """Review one game record with ``ranker(position, dice) -> list[RankedPlay]``.

    Returns a :class:`Review`; see :func:`review_records` for the errors raised.
    """
    return review_records([record], ranker, name=name)[0]


def totals(reviews: list[Review]) -> dict:
    """PlayerSummary per colour summed over several reviews (e.g. the games of a .mat session)."""
    tot = {}
    for rv in reviews:
        for c, s in rv.players.items():
            tot.setdefault(c, PlayerSummary(c, s.name)).merge(s)
    return tot


def by_player(reviews: list[Review]) -> dict:
    """PlayerSummary per player over several reviews (a whole match: the games of several
    files, whichever colour each player had), keyed by the player's name; by
    ``"name (Colour)"`` instead for a game whose two sides have the same name. Each
    summary's ``player`` lists the colours played ('white', 'black' or 'white+black')."""
    tot: dict = {}
    colours: dict = {}
    for rv in reviews:
        same = rv.white == rv.black
        for c, s in rv.players.items():
            key = f"{s.name} ({c.capitalize()})" if same else s.name
            tot.setdefault(key, PlayerSummary(c, key)).merge(s)
            colours.setdefault(key, set()).add(c)
    for key, t in tot.items():
        t.player = "+".join(c for c in ("white", "black") if c in colours[key])
    return tot
