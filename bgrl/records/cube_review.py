"""The cube review: every cube decision of a game judged, gnubg's way.

For each position before a roll where the player on roll may double (the opening roll
aside), the *doubler* decision (double or not) is judged against a judge's cubeful
equities; each answer to a double is a *taker* decision (take or pass). A decision that
loses equity is an error (:data:`CUBE_ERRORS`), with the mark of its loss
(:func:`bgrl.records.review.mark_for`); each player gets a cube error rate apart from the
checker one (:class:`CubeSummary`). A decision is counted as gnubg's analysis counts it:
every double, take and pass, and every close no-double (:data:`CLOSE_CUBE`).

The judge is injected: any callable ``(positions, cubes) -> list[CubeDecision]``
(:class:`bgrl.evaluation.cube.CubeDecision`; one batched call for all the decisions); the
one of the package is :func:`bgrl.agents.cube.cube_hints_many` at a level's ply
(:func:`judge_cube`). The checker review is :mod:`bgrl.records.review`; the reports, text
and JSON, are :mod:`bgrl.records.review_report`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bgrl.agents.cube import cube_hints_many
from bgrl.records.record import GameRecord
from bgrl.records.review import mark_for, rating_for
from bgrl.rules.board import Position
from bgrl.rules.cube import CubeState

__all__ = [
    "CLOSE_CUBE",
    "CUBE_ERRORS",
    "CubeReview",
    "CubeSummary",
    "review_cube",
    "cube_summaries",
    "attach_cube",
    "judge_cube",
]

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


def judge_cube(reviews: list, cube_info: list, evaluator, ply: int, judge_name: str, prune=None) -> None:
    """Judge the cube decisions of the games that carry cube information (``.mat`` files;
    :func:`bgrl.records.files.read_games_text` ``with_cube``) with ``evaluator`` at ``ply``
    (:func:`bgrl.agents.cube.cube_hints_many`, one batched call) and attach them to their
    :class:`bgrl.records.review.Review` (:func:`attach_cube`; ``judge_name`` labels them).
    ``cube_info[i]`` (the dict :func:`review_cube` takes) is None for a game without cube
    actions (a bgrl record): its review gets no cube list. The one owner of the cube review
    of a file, for ``bgrl review``, ``bgrl play`` and the web board."""
    idx = [i for i, c in enumerate(cube_info) if c is not None]
    names = [{"white": reviews[i].white, "black": reviews[i].black} for i in idx]

    def judge(positions, cubes):
        return cube_hints_many(evaluator, positions, cubes, ply, prune=prune)

    lists = review_cube([cube_info[i] for i in idx], judge, names)
    attach_cube([reviews[i] for i in idx], lists, judge_name)


def attach_cube(reviews: list, cube_lists: list, judge_name: str | None = None) -> None:
    """Put each game's cube reviews on its :class:`bgrl.records.review.Review` (``cube`` and
    ``cube_judge``): ``cube_lists[i]`` (a list of :class:`CubeReview`) goes to ``reviews[i]``."""
    for rv, cl in zip(reviews, cube_lists):
        rv.cube = list(cl)
        rv.cube_judge = judge_name
