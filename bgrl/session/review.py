"""The review of a session's games, with the cube and the match score.

A cubeless session's games are reviewed as ``bgrl review`` reviews a record
(:func:`bgrl.records.review.review_records`: cubeless equity after each play). A cube
session's games are reviewed *at the cube and score of each turn*: every checker play is
ranked by the mover's cubeful equity (money, per unit of the cube) or, in a match, by its
match winning chances on gnubg's equity scale of the cube (:func:`bgrl.agents.cube.cubeful_rank`,
the ranking of every surface's hint), and every double, take and pass is judged
(:func:`bgrl.records.cube_review.judge_cube`, as ``.mat`` reviews are). :func:`game_results`
gives each game's points with the cube and the match score after it.
"""

from __future__ import annotations

from dataclasses import replace

from bgrl.records.cube_review import judge_cube
from bgrl.records.review import Review, review_records
from bgrl.rules.board import Position
from bgrl.rules.cube import CubeState
from bgrl.rules.notation import legal_plays
from bgrl.rules.outcome import RESULT_TITLES

__all__ = ["turn_cubes", "CubefulRanker", "review_session", "game_results", "CUBEFUL_VALUES", "MWC_VALUES"]

#: What the equities of a cube session's review are (replacing the cubeless wording of the text report).
CUBEFUL_VALUES = "cubeful equity after the play at the cube of the turn (per unit of the cube, Janowski)"
MWC_VALUES = "match winning chances after the play at the score and cube of the turn, on the equity scale of the cube"


def turn_cubes(info: dict, rules) -> list[CubeState]:
    """The mover's :class:`CubeState` at each turn of one game of a cube session.

    info : :meth:`bgrl.session.game.GameSession.cube_info` of the game (its record, cube
    actions, match length, the score (white, black) and Crawford state it began with);
    rules : the session's :class:`bgrl.rules.match.MatchRules` (beavers, cap).
    """
    rec, n = info["record"], int(info["match_length"])
    by_turn: dict = {}
    for a in info["actions"]:
        by_turn.setdefault(int(a.turn), []).append(a)
    value, owner = 1, None
    out = []
    for ti, t in enumerate(rec.turns):
        for a in by_turn.get(ti, []):
            if a.action in ("take", "beaver"):
                value, owner = int(a.value), a.player
        w, b = info["score"]
        score = (w, b) if t.player == "white" else (b, w)
        own = 0 if owner is None else (1 if owner == t.player else -1)
        out.append(CubeState(value=value, owner=own, match_length=n, score=tuple(score) if n else (0, 0),
                             crawford=bool(info["crawford"]), jacoby=bool(info["jacoby"]) and not n,
                             beavers=bool(rules.beavers) and not n, max_value=rules.max_value))
    return out


class CubefulRanker:
    """A ranker for :func:`bgrl.records.review.review_records` that ranks each decision's
    plays by cubeful equity / MWC (:func:`bgrl.agents.cube.cubeful_rank`) at its own cube:
    ``equity`` of each row is that value, ``equity_loss`` its difference to the best.

    inner : the ranker of the plays (``(position, dice) -> list[RankedPlay]``, a
    :class:`bgrl.agents.hints.HintRanker` ranks all decisions in one search);
    cubes : the mover's CubeState of every decision, in the order review_records asks them.
    """

    def __init__(self, inner, cubes: list, name: str | None = None):
        self.inner = inner
        self.cubes = list(cubes)
        self.name = name or getattr(inner, "name", "the judge")

    def rank_many(self, items) -> list[list]:
        from bgrl.agents.cube import cubeful_rank

        items = list(items)
        if len(items) != len(self.cubes):
            raise ValueError(f"{len(items)} decisions to rank but {len(self.cubes)} cube states")
        rows = self.inner.rank_many(items) if hasattr(self.inner, "rank_many") else [self.inner(p, d) for p, d in items]
        out = []
        for r, cube in zip(rows, self.cubes):
            ranked, vals = cubeful_rank(r, cube)
            best = float(vals[0]) if len(vals) else 0.0
            out.append([replace(x, equity=float(v), equity_loss=best - float(v)) for x, v in zip(ranked, vals)])
        return out


def review_session(session, ranker, cube_judge=None, games: list[int] | None = None) -> list[Review]:
    """The review of every game of ``session`` (a :class:`bgrl.session.game.GameSession`) that
    has turns, oldest first (``games``: only these, indexes into ``session.all_records()``).

    ranker : ranks the plays (``(position, dice) -> list[RankedPlay]``, the judge);
    cube_judge : ``(evaluator, ply, name)`` that judges the cube decisions of a cube session
    (None: not judged; each review's ``cube`` stays None).

    A cube session's plays are ranked at each turn's cube and score (:class:`CubefulRanker`)
    and every double, take and pass is judged (the reviews' ``cube`` lists). Raises
    ValueError (no turn played yet, or a record the ranker cannot judge)."""
    records = session.all_records()
    index = [i for i, r in enumerate(records) if r.turns and (games is None or i in games or i - len(records) in games)]
    if not index:
        raise ValueError("no turn has been played yet")
    recs = [records[i] for i in index]
    if session.match is None:
        return review_records(recs, ranker)
    infos = [session.cube_info(i) for i in index]
    rules = session.match.rules
    cubes = []
    for info in infos:
        for t, cube in zip(info["record"].turns, turn_cubes(info, rules)):
            if len(legal_plays(Position.from_id(t.position_id), t.dice)) > 1:  # a decision, as review_records counts them
                cubes.append(cube)
    what = "MWC" if rules.is_match else "cubeful equity"
    reviews = review_records(recs, CubefulRanker(ranker, cubes, f"{getattr(ranker, 'name', 'the judge')}, by {what}"))
    if cube_judge is not None:
        ev, ply, name = cube_judge
        from bgrl.agents.levels import reply_pruning  # every level's pruning, at 2-ply and deeper

        from bgrl.agents.search import check_ply

        ply = check_ply(ply)
        judge_cube(reviews, infos, ev, ply, f"{name}, cube at {ply}-ply", prune=reply_pruning(ply))
    return reviews


def game_results(session) -> list[dict]:
    """Each finished game of a cube session, oldest first: ``game`` (1-based), ``winner``
    (colour or None), ``result`` (1..3), its name (``kind``: single game, gammon, backgammon),
    ``cube``, ``points`` scored (cube x result, Jacoby counted), ``how`` (bear-off, resign,
    pass, draw), ``crawford`` and the match ``score`` after it ({colour: points}). Empty
    for a cubeless session."""
    m = session.match
    if m is None:
        return []
    starts = [ci.get("start") for ci in session.cube_infos] + [session.game_start]
    out = []
    for i, gs in enumerate(m.games):
        nxt = starts[i + 1] if i + 1 < len(starts) else None
        after = {"white": m.score["white"], "black": m.score["black"]} if nxt is None else \
            {"white": int(nxt["score"][0]), "black": int(nxt["score"][1])}
        out.append({"game": i + 1, "winner": gs.winner, "result": gs.result, "kind": RESULT_TITLES.get(gs.result, "draw"),
                    "cube": gs.cube, "points": gs.points, "how": gs.how, "crawford": gs.crawford, "score": after})
    return out
