"""The reports of a game review: the plain text of ``bgrl review`` and ``bgrl play``, and the
JSON of ``bgrl review --json`` (format ``bgrl-review-1``).

The text report lists every turn of each reviewed game (the roll, the best plays and the
play made with their equities, the loss and the mark), the cube decisions when the cube was
reviewed, and a summary table per player (error rate and rating; the cube's apart). Player
names come from game files: they are printed through :func:`shown_name` (control characters
escaped, cut to :data:`bgrl.records.review.NAME_WIDTH`). The analysis the reports show is
:mod:`bgrl.records.review` (the checker plays) and :mod:`bgrl.records.cube_review` (the cube).
"""

from __future__ import annotations

import unicodedata

from bgrl.agents.hints import vs_best
from bgrl.records.cube_review import CLOSE_CUBE, CubeReview, CubeSummary, cube_summaries
from bgrl.records.review import NAME_WIDTH, Review, by_player, cut_name, rating_for, totals
from bgrl.rules.outcome import RESULT_NAMES, RESULT_TITLES

__all__ = [
    "REVIEW_FORMAT",
    "shown_name",
    "format_review",
    "review_json",
    "match_summary_lines",
    "format_cube",
    "cube_table",
]

#: The ``format`` of :func:`review_json`'s object.
REVIEW_FORMAT = "bgrl-review-1"
#: A result's ``how`` (:data:`bgrl.rules.outcome.RESULT_NAMES`) -> its words in a sentence ("a gammon").
_RESULT_WORDS = {name: f"a {RESULT_TITLES[points]}" for points, name in RESULT_NAMES.items()}


def shown_name(text: str, n: int = NAME_WIDTH) -> str:
    """A player name from a game file, safe to print: control and format characters
    (Unicode categories Cc, Cf, Zl, Zp: newlines, terminal escapes, direction overrides)
    written as escapes (``\\x1b``, ``\\n``, ``\\u202e``), then cut to ``n`` characters with "…"."""
    text = "".join(ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
                   else ch for ch in str(text))
    return cut_name(text, n)


def _result_text(result: dict | None, names: dict) -> str:
    if result is None:
        return "unfinished"
    if result.get("winner") is None:
        return "drawn by agreement"
    who = f"{names[result['winner']]} ({result['winner'].capitalize()})"
    pts = result["points"]
    how = _RESULT_WORDS.get(result["how"])
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
        if rv.cube is not None:
            g["cube"] = [c.as_dict() for c in rv.cube]
            g["cube_players"] = {c: s.as_dict() for c, s in cube_summaries(rv.cube).items()}
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
