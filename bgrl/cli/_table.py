"""Hint tables as text and JSON: the cells of a ranked play and the ``bgrl hint`` output; the
rollout tables of ``bgrl rollout`` and ``bgrl hint --rollout``.

``bgrl hint`` (:mod:`bgrl.cli.hint`) prints :func:`hint_text` or :func:`hint_json`;
``bgrl play``'s hint (:func:`bgrl.cli.play.hint_table`) and ``bgrl review`` use the cells
(:data:`VALUE_HEADER`, :func:`value_cells`, and :func:`vs_best`, which lives beside the row in
:mod:`bgrl.agents.hints` because the review report, a layer below the CLI, shows it too). Rows are
:class:`bgrl.agents.hints.RankedPlay`; ranks are shared by ties (:func:`bgrl.agents.hints.with_shared_ranks`).
"""

from __future__ import annotations

import json

from bgrl.agents.hints import vs_best, with_shared_ranks
from bgrl.cli._common import CLIError
from bgrl.agents.cube import cubeful_rank, ranked_by, value_mwc

__all__ = ["VALUE_HEADER", "value_cells", "vs_best", "hint_json", "hint_text", "ROLLOUT_FOOT", "value_line", "se_text",
           "print_play_rollout"]


#: Column heads of :func:`value_cells` (hint tables of ``bgrl hint`` and ``bgrl play``).
VALUE_HEADER = f"{'equity':>7}  {'vs best':>7}  {'win':>5}  {'wg':>5}  {'wbg':>5}  {'lose':>5}  {'lg':>5}  {'lbg':>5}"


def value_cells(row) -> str:
    """A ranked play's equity, "vs best" and five probabilities (win, lose derived) as
    table cells under :data:`VALUE_HEADER`; ``row`` is a :class:`bgrl.agents.hints.RankedPlay`."""
    p = row.probabilities
    return (f"{row.equity:+7.3f}  {vs_best(row.equity_loss):+7.3f}  {p.win:5.3f}  {p.win_gammon:5.3f}  "
            f"{p.win_backgammon:5.3f}  {1.0 - p.win:5.3f}  {p.lose_gammon:5.3f}  {p.lose_backgammon:5.3f}")


def _cube_fields(cube) -> dict:
    """The JSON ``cube`` and ``match`` fields of a hint with the cube (as POST /v1/cube takes them)."""
    out = {"cube": {"value": int(cube.value), "owner": int(cube.owner)}}
    if cube.is_match:
        out["match"] = {"length": int(cube.match_length), "score": [int(x) for x in cube.score],
                        "crawford": bool(cube.crawford), "post_crawford": bool(cube.post_crawford)}
    return out


def cube_header(cube) -> str:
    """What a hint with ``cube`` is ranked by, in words (the text hint's header)."""
    by = ranked_by(cube)
    if by == "cubeless":
        return "ranked by cubeless money equity"
    if by == "mwc":
        a, b = cube.away
        where = (f"ranked by match winning chances at {cube.match_length}-point match, {a}-away/{b}-away "
                 f"(side playing first)")
        if cube.crawford:
            where += ", Crawford game"
        elif cube.post_crawford:
            where += ", post-Crawford"
    else:
        where = "ranked by cubeful money equity"
        if cube.jacoby:
            where += ", Jacoby rule"
    owner = {1: "owned by the side playing", -1: "owned by the opponent", 0: "centred"}[cube.owner]
    return f"{where}; cube {cube.value} {owner}"


def hint_json(pos, dice, ranked, level: str, ply: int, top: int | None = None, cube=None) -> dict:
    """The JSON hint (``bgrl hint --json``).

    Parameters
    ----------
    pos : Position; dice : (d1, d2); ranked : list of RankedPlay, best first;
    level : the level's name; ply : the search depth; top : the best ``top`` plays (None or 0 = all).

    Returns
    -------
    dict : ``{"position_id", "dice", "level", "ply", "ranked_by", "plays": [RankedPlay.as_dict(), ...]}``,
    ranks shared by ties. ``ranked_by`` is ``"cubeless"`` without ``cube`` (or with the money
    game's centred cube, :func:`bgrl.agents.cube.ranked_by`); with a cube in play it is
    ``"cubeful"`` (money: each play gets ``"cubeful_equity"``, per unit of the cube) or
    ``"mwc"`` (a match score: each play gets ``"mwc"``, 0..1, and ``"cubeful_equity"``, the
    MWC on gnubg's equity scale of the cube), the plays are ranked by it
    (:func:`bgrl.agents.cube.cubeful_rank`; ``equity``/``equity_loss`` stay cubeless) and
    the top level gets ``"cube": {"value", "owner"}`` and, in a match,
    ``"match": {"length", "score", "crawford", "post_crawford"}`` (from the side playing).
    """
    by = ranked_by(cube)
    out = {"position_id": pos.position_id, "dice": [int(dice[0]), int(dice[1])], "level": level, "ply": ply,
           "ranked_by": by}
    if by == "cubeless":
        ranked = with_shared_ranks(ranked)
        shown = ranked if not top else ranked[:top]
        out["plays"] = [r.as_dict() for r in shown]
        return out
    ranked, vals = cubeful_rank(ranked, cube)
    mwc = value_mwc(vals, cube) if by == "mwc" else None
    out.update(_cube_fields(cube))
    plays = []
    for i, r in enumerate(ranked if not top else ranked[:top]):
        d = r.as_dict()
        d["cubeful_equity"] = round(float(vals[i]), 6)
        if mwc is not None:
            d["mwc"] = round(float(mwc[i]), 6)
        plays.append(d)
    out["plays"] = plays
    return out


def hint_text(pos, dice, ranked, label: str, ply: int, top: int | None = None, compact: bool = False,
              cube=None) -> str:
    """The text hint (``bgrl hint``).

    A header, the best ``top`` plays (default 10, 0 = all) with rank, play, ply, equity,
    difference to the best, and win/wg/wbg/lose/lg/lbg; the columns explained. Plays that
    tie share a rank. ``label`` names the engine (e.g. ``"level expert"``); ``compact``
    writes plays gnubg's way (``24/13``, ``6/5(2)``). With a cube in play (``cube``,
    :func:`bgrl.agents.cube.ranked_by`) the plays are ranked by cubeful equity or match
    winning chances (:func:`_cube_hint_text`).
    """
    if ranked_by(cube) != "cubeless":
        return _cube_hint_text(pos, dice, ranked, label, ply, top, compact, cube)
    ranked = with_shared_ranks(ranked)
    lines = [f"Position {pos.position_id}, roll {dice[0]}-{dice[1]}: {len(ranked)} legal play(s); {label}, {ply}-ply; "
             "equities and probabilities of the side playing, after the play"]
    if not ranked:
        lines.append("  no die can be played: the turn passes")
        return "\n".join(lines)
    top = 10 if top is None else top
    shown = ranked if top == 0 else ranked[:top]
    names = [r.play.shown(compact) if hasattr(r.play, "shown") else r.play.notation for r in shown]
    width = max(8, max(len(n) for n in names))
    lines.append(f"  {'#':>3}  {'play':<{width}}  {'ply':>5}  {VALUE_HEADER}")
    for r, name in zip(shown, names):
        lines.append(f"  {r.rank:3d}  {name:<{width}}  {str(r.ply) + '-ply':>5}  {value_cells(r)}")
    if len(ranked) > len(shown):
        lines.append(f"  … and {len(ranked) - len(shown)} more (--top 0 shows all)")
    if any(r.ply < ply for r in ranked):
        lines.append("  a lower ply: the play did not pass the move filter and keeps that evaluation (as in gnubg's hint)")
    lines.append("  equity: points per game the side playing expects after the play (cubeless: single 1, gammon 2, backgammon 3)")
    lines.append("  vs best: equity minus the best play's; win/wg/wbg: its chances to win / win a gammon / win a backgammon;")
    lines.append("  lose/lg/lbg: to lose / lose a gammon / lose a backgammon (gammons include backgammons)")
    return "\n".join(lines)


def _cube_hint_text(pos, dice, ranked, label, ply, top, compact, cube) -> str:
    """:func:`hint_text` with the cube: rank, play, ply, [MWC,] cubeful equity, its
    difference to the best, then the cubeless equity and probabilities."""
    ranked, vals = cubeful_rank(ranked, cube)
    match = cube.is_match
    lines = [f"Position {pos.position_id}, roll {dice[0]}-{dice[1]}: {len(ranked)} legal play(s); {label}, {ply}-ply; "
             f"{cube_header(cube)}; values of the side playing, after the play"]
    if not ranked:
        lines.append("  no die can be played: the turn passes")
        return "\n".join(lines)
    mwc = value_mwc(vals, cube) if match else None
    top = 10 if top is None else top
    n = len(ranked) if top == 0 else min(top, len(ranked))
    names = [r.play.shown(compact) if hasattr(r.play, "shown") else r.play.notation for r in ranked[:n]]
    width = max(8, max(len(x) for x in names))
    head = (f"{'MWC':>7}  " if match else "") + f"{'cubeful':>7}  {'vs best':>7}  {'cubeless':>8}  " \
        f"{'win':>5}  {'wg':>5}  {'wbg':>5}  {'lose':>5}  {'lg':>5}  {'lbg':>5}"
    lines.append(f"  {'#':>3}  {'play':<{width}}  {'ply':>5}  {head}")
    for i, (r, name) in enumerate(zip(ranked[:n], names)):
        p = r.probabilities
        cells = (f"{100 * mwc[i]:6.2f}%  " if match else "") + \
            f"{vals[i]:+7.3f}  {0.0 - round(float(vals[0] - vals[i]), 3) + 0.0:+7.3f}  {r.equity:+8.3f}  " \
            f"{p.win:5.3f}  {p.win_gammon:5.3f}  {p.win_backgammon:5.3f}  {1.0 - p.win:5.3f}  " \
            f"{p.lose_gammon:5.3f}  {p.lose_backgammon:5.3f}"
        lines.append(f"  {r.rank:3d}  {name:<{width}}  {str(r.ply) + '-ply':>5}  {cells}")
    if len(ranked) > n:
        lines.append(f"  … and {len(ranked) - n} more (--top 0 shows all)")
    if any(r.ply < ply for r in ranked):
        lines.append("  a lower ply: the play did not pass the move filter and keeps that evaluation (as in gnubg's hint)")
    if match:
        lines.append("  MWC: the side playing's match winning chances after the play (Kazaross-XG2 table, Janowski's "
                     "cube); cubeful: the MWC on gnubg's equity scale of the cube (+1 = winning the cube's points)")
    else:
        lines.append("  cubeful: equity per unit of the cube after the play, the opponent's best cube action included "
                     "(Janowski)")
    lines.append("  vs best: cubeful minus the best play's; cubeless: points per game without the cube; win/wg/wbg, "
                 "lose/lg/lbg: the chances to win / lose (a gammon, a backgammon)")
    return "\n".join(lines)


#: The legend under a rollout's table.
ROLLOUT_FOOT = ("  cubeless money equity in points per game (single 1, gammon 2, backgammon 3) ± one standard error;\n"
         "  win/wg/wbg: chances to win / win a gammon / a backgammon; lg/lbg: to lose a gammon / a backgammon")


def se_text(x) -> str:
    """A standard error to 3 decimals, ``n/a`` when unknown."""
    return "n/a" if x is None or x != x else f"{x:.3f}"


def value_line(eq, eq_se, p, p_se) -> str:
    """A rolled-out value with its standard errors, on one line (``bgrl rollout`` and ``hint --rollout``)."""
    return (f"equity {eq:+.3f} ± {se_text(eq_se)}  win {p.win:.3f} ± {se_text(p_se.win)}  "
            f"wg {p.win_gammon:.3f} ± {se_text(p_se.win_gammon)}  wbg {p.win_backgammon:.3f} ± {se_text(p_se.win_backgammon)}  "
            f"lg {p.lose_gammon:.3f} ± {se_text(p_se.lose_gammon)}  lbg {p.lose_backgammon:.3f} ± {se_text(p_se.lose_backgammon)}")


def print_play_rollout(pos, dice, level: str, roller, opts: dict, as_json: bool, extra: dict | None = None) -> int:
    """Roll out every candidate play of ``dice`` in ``pos`` and print them best first, as text
    or one JSON object (the header, ``extra``'s fields, then ``"plays"``). Serves ``bgrl
    rollout POSITION DICE`` and ``bgrl hint --rollout``. Raises CLIError when no die can be played."""
    rows = roller.plays(pos, dice, **opts)
    if not rows:
        raise CLIError(f"no die of {dice[0]}-{dice[1]} can be played in {pos.position_id}: the turn passes, "
                       "nothing to roll out (omit DICE to roll out the position)")
    best = rows[0].as_dict()
    head = {"position_id": pos.position_id, "level": level, "trials": opts["trials"], "truncate": opts["truncate"],
            "seed": opts["seed"], "equity": best["equity"], "equity_se": best["equity_se"],
            "probabilities": best["probabilities"], "probabilities_se": best["probabilities_se"], **(extra or {})}
    if as_json:
        print(json.dumps({**head, "plays": [r.as_dict() for r in rows]}))
        return 0
    width = max(8, max(len(r.play.compact) for r in rows))
    trunc = "to the end" if opts["truncate"] is None else f"truncated after {opts['truncate']} plies"
    print(f"Rollout of the plays of {dice[0]}-{dice[1]} in {pos.position_id}: level {level} ({roller.ply}-ply, no noise), "
          f"{opts['trials']} trials each, {trunc}, seed {opts['seed']}; {len(rows)} candidate play(s) "
          "(the best by 0-ply equity, at most 8 within 0.16); figures of the side playing, after the play")
    for r in rows:
        print(f"  {r.rank:3d}  {r.play.compact:<{width}}  {value_line(r.equity, r.equity_se, r.probabilities, r.probabilities_se)}")
    print(ROLLOUT_FOOT)
    return 0
