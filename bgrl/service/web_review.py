"""The web board's reviews (:mod:`bgrl.service.web`): a session's games judged turn by turn
(:func:`session_review`), the error rates of the statistics (:func:`error_rates`), and the
review of an uploaded game file (:func:`upload_review`), each turn in the viewer's numbering with
why the best play is better (:func:`review_dict`). They run in the reviews' own threads
(:meth:`bgrl.service.limiter.Limiter.run_thread` with ``review``).
"""

from __future__ import annotations

from bgrl.agents.explain import compare_facts, play_facts
from bgrl.evaluation.probabilities import equity as equity_of
from bgrl.records.cube_review import cube_summaries, judge_cube
from bgrl.records.files import ReadStopped, read_games_text
from bgrl.records.record import GameRecord
from bgrl.records.review import by_player, review_records
from bgrl.rules.board import Position, borne_off, flip
from bgrl.rules.game import BLACK, WHITE
from bgrl.rules.notation import legal_plays
from bgrl.service.engine import ServiceError
from bgrl.session.game import GameSession, board_view as _view, play_steps
from bgrl.session.review import review_session

__all__ = ["NAME_MAX", "short_name", "session_review", "error_rates", "record_review", "review_dict", "upload_review"]


def error_rates(eng, s: GameSession, level: str) -> dict:
    """The player's error rate (checker plays) and cube error rate of a session's games by
    ``level``, millipoints per decision (None without decisions)."""
    try:
        rv = session_review(eng, s, level)
    except ServiceError as exc:  # a game ended before any turn (resigned at once): no decisions
        if exc.code != "no_turns":
            raise
        return {"error_rate": None, "cube_error_rate": None}
    you = rv["summary"].get("you", {})
    cube = rv.get("cube_summary", {}).get("you", {})
    return {"error_rate": you.get("error_rate"), "cube_error_rate": cube.get("error_rate")}


def session_review(eng, s: GameSession, level: str) -> dict:
    """The review of a session's games by ``level``: each game's turns (as :func:`record_review`),
    in a cube session every double, take and pass judged (``cube``) and the points with the
    cube and the match score; a summary per side over the games."""
    labels = {s.human: "you", s.computer: "computer"}
    records = [r for r in s.all_records() if r.turns]
    if not records:
        raise ServiceError("no_turns", "no turn has been played yet")
    ranker = eng.ranker(level)
    # the one review of a session (bgrl.session.review, as the terminal's): a cube session's plays
    # ranked at each turn's cube and score, its doubles, takes and passes judged
    reviews = review_session(s, ranker, cube_judge=(ranker.evaluator, ranker.ply, level))
    games = [review_dict(eng, rec, rv, level, s.human, labels) for rec, rv in zip(records, reviews)]
    for g in games:
        g.pop("_review")
    ranked_by = "cubeless equity" if s.match is None else ("match winning chances" if s.match.rules.is_match else "cubeful equity")
    out = {"judge": level, "ply": eng.level(level).ply, "ranked_by": ranked_by, "games": games}
    if s.match is not None:
        allc = []
        for g, rv in zip(games, reviews):
            g["cube"] = [{**c.as_dict(), "player": labels[c.player]} for c in (rv.cube or [])]
            allc += list(rv.cube or [])
        out["cube_summary"] = {labels[c]: v.as_dict() for c, v in cube_summaries(allc).items()}
        m = s.match
        out["match"] = {"match_length": m.rules.match_length, "score": {"you": m.score[s.human], "computer": m.score[s.computer]},
                        "games": [{"game": i + 1, "winner": None if gs.winner is None else labels[gs.winner], "result": gs.result,
                                   "cube": gs.cube, "points": gs.points, "how": gs.how} for i, gs in enumerate(m.games)]}

    out["summary"] = {("you" if k == "you" else "computer"): v.as_dict() for k, v in by_player(reviews).items()}
    # the latest game's fields at the top level, as the page has always read them
    out.update({k: v for k, v in games[-1].items() if k not in out})
    return out


def record_review(eng, rec: GameRecord, level: str, viewer: str, labels: dict | None = None) -> dict:
    """The cubeless review of one game record by ``level`` (an uploaded file's game), as
    :func:`review_dict` shows it."""
    # the level's HintRanker, as bgrl review uses: one search for the game, and a play kept at a
    # shallower ply by a move filter valued again at the best play's (the same figures as the CLI)
    rv = review_records([rec], eng.ranker(level), name=level)[0]
    return review_dict(eng, rec, rv, level, viewer, labels)


def review_dict(eng, rec: GameRecord, rv, level: str, viewer: str, labels: dict | None = None) -> dict:
    """The page's form of ``rv`` (the :class:`bgrl.records.review.Review` of ``rec`` by
    ``level``): every turn with the position, the play made and the best play (steps and
    notation in ``viewer``'s numbering), the viewer's equity after the turn (the chart: the
    review's values, so cubeful equity or MWC on the cube's equity scale in a cube session),
    the mark and, for a play that is not the best, why the best is better
    (:mod:`bgrl.agents.explain`); each side's summary. ``labels`` maps 'white'/'black' to the
    names the turns and summaries use (default: the colours)."""
    labels = labels or {WHITE: WHITE, BLACK: BLACK}
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


#: The longest player name an upload's review shows (longer ones are cut, with an ellipsis): the
#: answer names the players in every turn and summary, so its size must not grow with a name's.
NAME_MAX = 80


def short_name(name: object) -> str:
    """``name`` as a review shows it: at most :data:`NAME_MAX` characters, the last an ellipsis."""
    text = str(name)
    return text if len(text) <= NAME_MAX else text[:NAME_MAX - 1] + "\u2026"


def upload_review(cancel, eng, req, level: str) -> dict:
    """The review of an uploaded game file (``req``: the route's UploadIn: ``text``, ``name``,
    ``viewer``) by ``level``: every game as :func:`review_dict` shows it, with its ``notes``, the
    cube actions of a ``.mat`` file judged, and a summary per player over the games. Player names
    are cut to :data:`NAME_MAX` characters. ``cancel`` (a threading.Event) stops the work, the
    file's reading included. ServiceError ``bad_file`` for a file that cannot be read."""
    try:
        records, notes, kind, cube_info = read_games_text(req.text, req.name[:80], with_cube=True, stop=cancel.is_set)
    except ValueError as exc:
        raise ServiceError("bad_file", str(exc)) from None
    except ReadStopped:  # past the deadline or the client left while the file was read
        raise ServiceError("cancelled", "the review was stopped") from None
    if not records:
        raise ServiceError("bad_file", f"{req.name[:80]}: no game in the file")
    notes = [list(n) for n in notes]
    for i, rec in enumerate(records):  # every name shown (turns, summaries, cube rows, notes) at most NAME_MAX characters
        for full in sorted({rec.white, rec.black}, key=len, reverse=True):
            if len(full) > NAME_MAX:
                notes[i] = [str(n).replace(full, short_name(full)) for n in notes[i]]
        rec.white, rec.black = short_name(rec.white), short_name(rec.black)
    games = []
    labels_of = [{WHITE: f"{rec.white} (White)", BLACK: f"{rec.black} (Black)"} for rec in records]  # turns, summaries and cube rows
    for i, (rec, note, labels) in enumerate(zip(records, notes, labels_of)):
        if cancel.is_set():  # past the deadline or the client left: stop between games
            raise ServiceError("cancelled", "the review was stopped")
        try:
            g = record_review(eng, rec, level, req.viewer, labels)
        except ValueError as exc:
            raise ServiceError("bad_file", f"game {i + 1}: {exc}") from None
        g["game"], g["notes"] = i + 1, list(note)
        games.append(g)
    reviews = [g.pop("_review") for g in games]
    if any(c is not None for c in cube_info):  # the cube actions of a .mat file, judged as bgrl review judges them
        ranker = eng.ranker(level)
        try:
            judge_cube(reviews, cube_info, ranker.evaluator, ranker.ply, f"{level}, cube at {ranker.ply}-ply",
                       prune=getattr(ranker, "prune", None))
        except ValueError as exc:
            raise ServiceError("bad_file", f"cube review: {exc}") from None
        for g, rv, labels in zip(games, reviews, labels_of):
            if rv.cube is not None:
                g["cube"] = [{**c.as_dict(), "player": labels[c.player]} for c in rv.cube]
                g["cube_players"] = {labels[c]: s.as_dict() for c, s in cube_summaries(rv.cube).items()}
    return {"name": req.name, "kind": kind, "judge": level, "ply": eng.level(level).ply, "games": games,
            "summary": {k: s.as_dict() for k, s in by_player(reviews).items()}}
