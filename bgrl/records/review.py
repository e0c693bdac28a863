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
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from bgrl.rules.board import Position
from bgrl.agents.hints import HintRanker, RankedPlay, vs_best, with_shared_ranks
from bgrl.evaluation.probabilities import Probabilities, equity
from bgrl.rules.notation import IllegalPlayError, legal_plays, play_from_notation
from bgrl.records.record import GameRecord
from bgrl.agents.cube import cube_hints_many
from bgrl.rules.cube import CubeState

__all__ = [
    "MARKS",
    "RATINGS",
    "REVIEW_FORMAT",
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
    "format_review",
    "review_json",
    "match_summary_lines",
    "NAME_WIDTH",
    "shown_name",
    "CLOSE_CUBE",
    "CUBE_ERRORS",
    "CubeReview",
    "CubeSummary",
    "review_cube",
    "cube_summaries",
    "attach_cube",
    "judge_cube",
    "format_cube",
    "cube_table",
]

REVIEW_FORMAT = "bgrl-review-1"
#: Player names read from a game file are cut to this many characters (with "…") in reports.
NAME_WIDTH = 40


def _cut(text: str, n: int = NAME_WIDTH) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def shown_name(text: str, n: int = NAME_WIDTH) -> str:
    """A player name from a game file, safe to print: control and format characters
    (Unicode categories Cc, Cf, Zl, Zp: newlines, terminal escapes, direction overrides)
    written as escapes (``\\x1b``, ``\\n``, ``\\u202e``), then cut to ``n`` characters with "…"."""
    text = "".join(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
                   else ch for ch in str(text))
    return _cut(text, n)
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
    from dataclasses import replace

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
    showing it in another notation or numbering (:func:`format_review`).
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
    cube: list | None = None  # CubeReview list when the cube was reviewed (attach_cube)
    cube_judge: str | None = None
    source: str | None = None

    def as_dict(self, top: int = 3) -> dict:
        out = {"game": self.game, "white": self.white, "black": self.black, "result": self.result,
               "notes": list(self.notes), "turns": [t.as_dict(top) for t in self.turns],
               "players": {c: s.as_dict() for c, s in self.players.items()}}
        if self.cube is not None:
            out["cube"] = [c.as_dict() for c in self.cube]
            out["cube_players"] = {c: s.as_dict() for c, s in cube_summaries(self.cube).items()}
        return out


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
        names = {"white": _cut(rec.white), "black": _cut(rec.black)}  # cut; escaped when printed (shown_name)
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


# ----------------------------------------------------------------------------- output
def _result_text(result: dict | None, names: dict) -> str:
    if result is None:
        return "unfinished"
    if result.get("winner") is None:
        return "drawn by agreement"
    who = f"{names[result['winner']]} ({result['winner'].capitalize()})"
    pts = result["points"]
    how = {"single": "a single game", "gammon": "a gammon", "backgammon": "a backgammon"}.get(result["how"])
    if how:
        return f"{who} wins {how} ({pts} point{'s' if pts != 1 else ''})"
    return f"{who} wins by resignation ({pts} point{'s' if pts != 1 else ''})"


def _shown_play(play, mover: str, viewer: str | None) -> str:
    """A play in the compact notation players write (:meth:`bgrl.rules.notation.Play.shown`),
    in the mover's numbering, or in ``viewer``'s when the viewer is the other colour."""
    return play.shown(True, other_side=viewer is not None and viewer != mover)


def format_review(review: Review | list, top: int = 3, title: str | None = None, viewer: str | None = None,
                  errors_only: bool = False) -> str:
    """Plain-text report of one review (or a list of them): every turn with the roll,
    the ``top`` best plays and the played one (equity after the play and the difference
    to the best), the loss and mark, then each player's error rate and rating.

    Plays are written in the compact notation players write (``13/7 8/7``, ``24/18(2)``,
    ``6/off``, hits ``*``; :func:`bgrl.rules.notation.compact_notation`), each in its mover's
    numbering, or, with ``viewer`` ('white' or 'black'), every play in the viewer's
    numbering (the terminal game shows the computer's plays in the human's).
    ``errors_only`` lists only the turns with a mark (doubtful, bad, very bad); the
    summary still counts every turn."""
    reviews = review if isinstance(review, list) else [review]
    out = []
    if title:
        out.append(title)
    for rv in reviews:
        names = {"white": shown_name(rv.white), "black": shown_name(rv.black)}
        out.append(f"Game {rv.game}: {names['white']} (White) vs {names['black']} (Black); {_result_text(rv.result, names)}")
        out.append(f"Ranked by {rv.ranker}; equity = cubeless equity after the play, opponent to roll (points per game)")
        if viewer is not None:
            out.append(f"Every play is written in {viewer.capitalize()}'s numbering")
        for note in rv.notes:
            out.append(f"  note: {note}")
        cube_at: dict = {}
        if rv.cube is not None:
            out.append(f"Cube decisions judged by {rv.cube_judge or rv.ranker}: cubeful equities of the doubler per unit "
                       "of the stake (Janowski; at a score MWC on the equity scale); close or actual ones are listed")
            for c in rv.cube:
                if c.close or c.error:
                    cube_at.setdefault(c.turn, []).append(c)
        for t in rv.turns:
            for c in cube_at.pop(t.turn, []):
                if not errors_only:
                    out.append(format_cube(c))
                elif c.error:  # the turn's own line may be left out: say which roll the decision came before
                    out.append(f"  before turn {t.turn}:")
                    out.append(format_cube(c))
            if errors_only and not t.mark:
                continue
            who = f"{t.player.capitalize()} ({shown_name(t.name)})"
            head = f"{t.turn:4d}. {who:<16} {t.dice[0]}-{t.dice[1]}  "
            if t.legal == 0:
                out.append(head + "no legal play: the turn passes")
                continue
            made = t.play if t.played is None else _shown_play(t.played, t.player, viewer)
            if t.legal == 1:
                out.append(head + f"{made}  (forced)")
                continue
            tag = f"  {t.mark.upper()}" if t.mark else ""
            out.append(head + f"{made}  loss {t.equity_loss:.3f}{tag}")
            texts = [_shown_play(r.play, t.player, viewer) for r in t.shown(top)]
            width = max(len(x) for x in texts)
            deep = any(getattr(r, "ply", 0) for r in t.shown(top))
            for r, text in zip(t.shown(top), texts):
                arrow = ">" if t.is_played(r) else " "
                ply = f"  {r.ply}-ply" if deep else ""
                out.append(f"        {arrow}{r.rank:3d}. {text:<{width}}  {r.equity:+.3f}  "
                           f"({vs_best(r.equity_loss):+.3f}){ply}")
        for rest in cube_at.values():  # a decision after the last turn (the game ended by a drop)
            shown = [format_cube(c) for c in rest if not errors_only or c.error]
            if errors_only and shown:
                out.append(f"  after the last turn ({len(rv.turns)}):")
            out += shown
        if errors_only and not any(t.mark for t in rv.turns):
            out.append("  no marked play")
        out.append("")
    out += _summary_table(reviews)
    if any(rv.cube is not None for rv in reviews):
        out += cube_table(reviews)
    return "\n".join(out)


def totals(reviews: list[Review]) -> dict:
    """PlayerSummary per colour summed over several reviews (e.g. the games of a .mat session)."""
    tot = {}
    for rv in reviews:
        for c, s in rv.players.items():
            tot.setdefault(c, PlayerSummary(c, s.name)).merge(s)
    return tot


def _summary_table(reviews: list[Review]) -> list[str]:
    tot = totals(reviews)
    head = "Player"
    lines = [f"{head:<22} decisions forced passes  total loss  error rate (mp)  rating         doubtful bad very-bad"]
    for c in ("white", "black"):
        s = tot.get(c)
        if s is None:
            continue
        er = "-" if s.error_rate is None else f"{s.error_rate:.1f}"
        who = f"{c.capitalize()} ({shown_name(s.name)})"
        lines.append(f"{who:<22} {s.decisions:9d} {s.forced:6d} {s.passes:6d}  {s.total_loss:10.3f}  {er:>15}  "
                     f"{(s.rating or '-'):<14} {s.marks['doubtful']:8d} {s.marks['bad']:3d} {s.marks['very bad']:8d}")
    lines.append("error rate = 1000 x mean equity loss per decision (turns with a choice); rating: < 2 supernatural, "
                 "2-5 world class, 5-8 expert, 8-12 advanced, 12-18 intermediate, 18-26 casual, 26-35 beginner, 35+ awful")
    return lines


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


def match_summary_lines(reviews: list[Review], files: int) -> list[str]:
    """The text of a summary over a whole match (:func:`by_player`): games, files, and each
    player's decisions, total loss, error rate and rating over all the games."""
    tot = by_player(reviews)
    lines = [f"Summary over {len(reviews)} game{'s' if len(reviews) != 1 else ''} in {files} file{'s' if files != 1 else ''}",
             f"{'Player':<22} decisions  total loss  error rate (mp)  rating         doubtful bad very-bad"]
    for key, s in tot.items():
        er = "-" if s.error_rate is None else f"{s.error_rate:.1f}"
        lines.append(f"{shown_name(key, 22):<22} {s.decisions:9d}  {s.total_loss:10.3f}  {er:>15}  "
                     f"{(s.rating or '-'):<14} {s.marks['doubtful']:8d} {s.marks['bad']:3d} {s.marks['very bad']:8d}")
    return lines


def review_json(reviews: list[Review], source: str | None = None, level: str | None = None, top: int = 3,
                errors_only: bool = False, files: list | None = None) -> dict:
    """The JSON object of ``bgrl review --json`` (format ``bgrl-review-1``; see README).

    ``players``: the summary per colour over the games; ``summary``: per player over the
    whole match (:func:`by_player`); ``files``: the files reviewed when there are several
    (each game then names its ``file``); ``errors_only`` keeps only the marked turns."""
    tot = totals(reviews)
    games = []
    for rv in reviews:
        g = rv.as_dict(top)
        if errors_only:
            g["turns"] = [t for t in g["turns"] if t["mark"]]
        if getattr(rv, "source", None) is not None:
            g["file"] = rv.source
        games.append(g)
    out = {"format": REVIEW_FORMAT, "file": source, "level": level,
           "ranker": reviews[0].ranker if reviews else None,
           "games": games,
           "players": {c: s.as_dict() for c, s in tot.items()},
           "summary": {k: s.as_dict() for k, s in by_player(reviews).items()},
           "errors_only": bool(errors_only)}
    if files is not None:
        out["files"] = [str(f) for f in files]
    if any(rv.cube is not None for rv in reviews):
        ct = {c: CubeSummary() for c in ("white", "black")}
        for rv in reviews:
            for c, s in cube_summaries(rv.cube or []).items():
                ct[c].merge(s)
        out["cube_judge"] = next((rv.cube_judge for rv in reviews if rv.cube is not None), None)
        for c, s in ct.items():
            if c in out["players"]:
                out["players"][c]["cube"] = s.as_dict()
        if errors_only:
            for g in games:
                if "cube" in g:
                    g["cube"] = [c for c in g["cube"] if c["error"]]
    return out


# ----------------------------------------------------------------------------- the cube
#: gnubg's analysis counts a cube decision as *close* when the doubler's best equity minus
#: min(double/take, +1) is under this (its ``isCloseCubedecision``); actual doubles, takes
#: and passes are always counted.
CLOSE_CUBE = 0.16
CUBE_ERRORS = ("missed double", "wrong double", "wrong take", "wrong pass")


@dataclass(frozen=True)
class CubeReview:
    """One cube decision of a reviewed game.

    turn : 1-based number of the doubler's turn the decision comes before (the turn after
    the last one when a drop ended the game); player / name : who decides (``kind`` 'double':
    the side on roll, double or not; 'take': its opponent, take or pass); position_id :
    the doubler's position before its roll; cube : the CubeState of the doubler before the
    decision (:meth:`bgrl.rules.cube.CubeState.as_dict` in JSON); action : what was done
    ('double' / 'no double'; 'take' / 'pass'); right : the judge's answer ('double' / 'no
    double' / 'too good to double'; 'take' / 'pass'); decision : the judge's
    :class:`bgrl.evaluation.cube.CubeDecision`; loss : equity lost, >= 0, per unit of the
    current stake (at a score: MWC on gnubg's equity scale); error : one of
    :data:`CUBE_ERRORS` or None; close : counted as a cube decision (actual or close);
    mark : :func:`mark_for` of the loss.
    """

    turn: int
    player: str
    name: str
    kind: str
    position_id: str
    cube: object
    action: str
    right: str
    decision: object
    loss: float
    error: str | None
    close: bool
    mark: str | None

    def as_dict(self) -> dict:
        d = self.decision
        return {"turn": self.turn, "player": self.player, "name": self.name, "kind": self.kind,
                "position_id": self.position_id, "cube": self.cube.as_dict(), "action": self.action,
                "right": self.right, "decision": d.decision, "take": bool(d.take),
                "equities": {k: round(float(v), 6) for k, v in
                             (("no_double", d.no_double), ("double_take", d.double_take), ("double_pass", d.double_pass))},
                "loss": round(self.loss, 6), "error": self.error, "close": self.close, "mark": self.mark}


def _cube_states(rec: GameRecord, actions, match_length: int, score, crawford: bool, jacoby: bool):
    """The doubler decisions of a game: (turn index, player, Position, CubeState from the
    player, the double made there or None, the answer or None)."""
    sides = ("white", "black")
    by_turn: dict = {}
    for a in actions:
        by_turn.setdefault(a.turn, []).append(a)
    value, owner = 1, None  # owner: 'white' / 'black' / None
    out = []
    last = len(rec.turns)
    for ti in range(last + 1):
        acts = by_turn.get(ti, [])
        if ti < last:
            t = rec.turns[ti]
            player, pid = t.player, t.position_id
        elif acts:
            player, pid = acts[0].player, acts[0].position_id
        else:
            break
        if ti == 0 and not acts:
            continue  # the opening roll: nobody was on roll before it
        sc = score if player == sides[0] else (score[1], score[0])
        own = 0 if owner is None else (1 if owner == player else -1)
        cube = CubeState(value=value, owner=own, match_length=match_length, score=tuple(sc) if match_length else (0, 0),
                         crawford=crawford, jacoby=jacoby and not match_length)
        dbl = next((a for a in acts if a.action == "double"), None)
        ans = next((a for a in acts if a.action != "double"), None)
        if cube.may_double() or dbl is not None:
            out.append((ti, player, Position.from_id(pid), cube, dbl, ans))
        if ans is not None and ans.action in ("take", "beaver"):
            value, owner = ans.value, ans.player
    return out


def review_cube(games, judge, names=None) -> list[list[CubeReview]]:
    """Judge every cube decision of several games.

    games : list of dicts ``{"record": GameRecord, "actions": [CubeAction...],
    "match_length": int, "score": (white, black), "crawford": bool, "jacoby": bool}``
    (:class:`bgrl.records.matfile.MatGame` gives them); judge : callable ``(positions,
    cubes) -> list[CubeDecision]`` (one batched call for all decisions; the CLI's is
    :func:`bgrl.agents.cube.cube_hints_many` at the level's ply).

    Every position before a roll of a player who may double (but the opening) is a doubler
    decision: a double made (``wrong double`` if the judge would not double) or not
    (``missed double`` if the judge doubles: its best equity beats no double). An answer to
    a double is a taker decision (``wrong take`` / ``wrong pass``). Losses are the judge's
    equity differences (:class:`CubeReview`).
    """
    rows = []
    for gi, g in enumerate(games):
        for item in _cube_states(g["record"], g.get("actions", []), int(g.get("match_length", 0)),
                                 tuple(g.get("score", (0, 0))), bool(g.get("crawford", False)), bool(g.get("jacoby", False))):
            rows.append((gi, *item))
    decisions = judge([r[3] for r in rows], [r[4] for r in rows]) if rows else []
    out: list[list[CubeReview]] = [[] for _ in games]
    for (gi, ti, player, pos, cube, dbl, ans), d in zip(rows, decisions):
        nm = (names[gi] if names else {}).get(player, player)
        nd, dt, dp = d.no_double, d.double_take, d.double_pass
        answer = min(dt, dp)
        best = max(nd, answer)
        doubled = dbl is not None
        loss = max(0.0, best - (answer if doubled else nd))
        right = "double" if answer >= nd else ("too good to double" if d.decision == "too good to double" else "no double")
        err = None
        if loss > 1e-9:
            err = "wrong double" if doubled else "missed double"
        close = doubled or (best - min(dt, 1.0) < CLOSE_CUBE)
        out[gi].append(CubeReview(ti + 1, player, nm, "double", pos.position_id, cube,
                                  "double" if doubled else "no double", right, d, loss, err, close, mark_for(loss)))
        if doubled and ans is not None:
            took = ans.action in ("take", "beaver")
            tloss = abs(dt - dp) if took != bool(d.take) else 0.0
            terr = None if tloss <= 1e-9 else ("wrong take" if took else "wrong pass")
            out[gi].append(CubeReview(ti + 1, ans.player, (names[gi] if names else {}).get(ans.player, ans.player), "take",
                                      pos.position_id, cube, "take" if took else "pass", "take" if d.take else "pass",
                                      d, tloss, terr, True, mark_for(tloss)))
    return out


@dataclass
class CubeSummary:
    """One player's cube figures: decisions (close or actual, gnubg's count), total_loss,
    error_rate (1000 x total_loss / decisions, millipoints per cube decision, None without
    decisions), errors (counts of :data:`CUBE_ERRORS`), doubles / takes / passes made."""

    decisions: int = 0
    total_loss: float = 0.0
    errors: dict = field(default_factory=lambda: {k: 0 for k in CUBE_ERRORS})
    doubles: int = 0
    takes: int = 0
    passes: int = 0

    @property
    def error_rate(self) -> float | None:
        return 1000.0 * self.total_loss / self.decisions if self.decisions else None

    def add(self, c: CubeReview) -> None:
        if c.action == "double":
            self.doubles += 1
        elif c.action == "take":
            self.takes += 1
        elif c.action == "pass":
            self.passes += 1
        if c.close:
            self.decisions += 1
        self.total_loss += c.loss  # a missed double is a loss even where the decision was not close
        if c.error:
            self.errors[c.error] += 1

    def merge(self, o: "CubeSummary") -> None:
        self.decisions += o.decisions
        self.total_loss += o.total_loss
        self.doubles += o.doubles
        self.takes += o.takes
        self.passes += o.passes
        for k, v in o.errors.items():
            self.errors[k] += v

    def as_dict(self) -> dict:
        er = self.error_rate
        return {"decisions": self.decisions, "total_loss": round(self.total_loss, 6),
                "error_rate": None if er is None else round(er, 3), "rating": rating_for(er),
                "errors": dict(self.errors), "doubles": self.doubles, "takes": self.takes, "passes": self.passes}


def cube_summaries(cube_reviews) -> dict:
    """CubeSummary per colour over one or more games' :class:`CubeReview` lists."""
    out = {c: CubeSummary() for c in ("white", "black")}
    for c in cube_reviews:
        out[c.player].add(c)
    return out


def judge_cube(reviews: list, cube_info: list, evaluator, ply: int, judge_name: str) -> None:
    """Judge the cube decisions of the games that carry cube information (``.mat`` files;
    :func:`bgrl.records.files.read_games_text` ``with_cube``) with ``evaluator`` at ``ply``
    (:func:`bgrl.agents.cube.cube_hints_many`, one batched call) and attach them to their
    :class:`Review` (:func:`attach_cube`; ``judge_name`` labels them). ``cube_info[i]`` is
    None for a game without cube actions (a bgrl record): its review gets no cube list.
    The one owner of the cube review of a file, for ``bgrl review`` and the web board."""
    idx = [i for i, c in enumerate(cube_info) if c is not None]
    names = [{"white": reviews[i].white, "black": reviews[i].black} for i in idx]

    def judge(positions, cubes):
        return cube_hints_many(evaluator, positions, cubes, ply)

    lists = review_cube([cube_info[i] for i in idx], judge, names)
    attach_cube([reviews[i] for i in idx], lists, judge_name)


def attach_cube(reviews: list, cube_lists: list, judge_name: str | None = None) -> None:
    """Put each game's cube reviews on its :class:`Review` (``cube`` and ``cube_judge``)."""
    for rv, cl in zip(reviews, cube_lists):
        rv.cube = list(cl)
        rv.cube_judge = judge_name


def format_cube(c: CubeReview) -> str:
    """One line of the text report for a cube decision."""
    d = c.decision
    eq = f"ND {d.no_double:+.3f}, D/T {d.double_take:+.3f}, D/P {d.double_pass:+.3f}"
    who = f"{c.player.capitalize()} ({shown_name(c.name)})"
    if c.kind == "double":
        what = f"{who} {'doubles to ' + str(2 * c.cube.value) if c.action == 'double' else 'does not double'}"
    else:
        what = f"{who} {'takes' if c.action == 'take' else 'passes'}"
    tag = f"  {c.error.upper()}" if c.error else ""
    mark = f" ({c.mark})" if c.mark and c.error else ""
    return f"        cube: {what}; right: {c.right} ({d.decision}; {eq})  loss {c.loss:.3f}{tag}{mark}"


def cube_table(reviews: list) -> list[str]:
    """The cube lines of the summary: each player's cube error rate apart from the checker one."""
    tot = {c: CubeSummary() for c in ("white", "black")}
    names = {}
    for rv in reviews:
        for c, s in cube_summaries(getattr(rv, "cube", [])).items():
            tot[c].merge(s)
        names.setdefault("white", rv.white)
        names.setdefault("black", rv.black)
    lines = [f"{'Cube':<22} decisions  total loss  error rate (mp)  rating         missed-doubles wrong-doubles "
             "wrong-takes wrong-passes"]
    for c in ("white", "black"):
        s = tot[c]
        er = "-" if s.error_rate is None else f"{s.error_rate:.1f}"
        who = f"{c.capitalize()} ({shown_name(names.get(c, c))})"
        e = s.errors
        lines.append(f"{who:<22} {s.decisions:9d}  {s.total_loss:10.3f}  {er:>15}  {(rating_for(s.error_rate) or '-'):<14} "
                     f"{e['missed double']:14d} {e['wrong double']:13d} {e['wrong take']:11d} {e['wrong pass']:12d}")
    lines.append(f"cube error rate = 1000 x equity lost in cube decisions (per unit of the stake) / cube decisions; a cube "
                 f"decision is counted as gnubg's analysis counts it: every double, take and pass, and every position "
                 f"before a roll where the player could double and the decision was close (best equity - "
                 f"min(double/take, +1) < {CLOSE_CUBE})")
    return lines
