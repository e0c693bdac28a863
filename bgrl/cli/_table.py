"""Hint tables as text and JSON: the cells of a ranked play and the ``bgrl hint`` output.

``bgrl hint`` (:mod:`bgrl.cli.hint`) prints :func:`hint_text` or :func:`hint_json`;
``bgrl play``'s hint (:func:`bgrl.cli.play.hint_table`) and ``bgrl review`` use the cells
(:data:`VALUE_HEADER`, :func:`value_cells`, and :func:`vs_best`, which lives beside the row in
:mod:`bgrl.agents.hints` because the review report, a layer below the CLI, shows it too). Rows are
:class:`bgrl.agents.hints.RankedPlay`; ranks are shared by ties (:func:`bgrl.agents.hints.with_shared_ranks`).
"""

from __future__ import annotations

from bgrl.agents.hints import vs_best, with_shared_ranks

__all__ = ["VALUE_HEADER", "value_cells", "vs_best", "hint_json", "hint_text"]


#: Column heads of :func:`value_cells` (hint tables of ``bgrl hint`` and ``bgrl play``).
VALUE_HEADER = f"{'equity':>7}  {'vs best':>7}  {'win':>5}  {'wg':>5}  {'wbg':>5}  {'lose':>5}  {'lg':>5}  {'lbg':>5}"


def value_cells(row) -> str:
    """A ranked play's equity, "vs best" and five probabilities (win, lose derived) as
    table cells under :data:`VALUE_HEADER`; ``row`` is a :class:`bgrl.agents.hints.RankedPlay`."""
    p = row.probabilities
    return (f"{row.equity:+7.3f}  {vs_best(row.equity_loss):+7.3f}  {p.win:5.3f}  {p.win_gammon:5.3f}  "
            f"{p.win_backgammon:5.3f}  {1.0 - p.win:5.3f}  {p.lose_gammon:5.3f}  {p.lose_backgammon:5.3f}")


def hint_json(pos, dice, ranked, level: str, ply: int, top: int | None = None) -> dict:
    """The JSON hint (``bgrl hint --json``).

    Parameters
    ----------
    pos : Position; dice : (d1, d2); ranked : list of RankedPlay, best first;
    level : the level's name; ply : the search depth; top : the best ``top`` plays (None or 0 = all).

    Returns
    -------
    dict : ``{"position_id", "dice", "level", "ply", "plays": [RankedPlay.as_dict(), ...]}``,
    ranks shared by ties.
    """
    ranked = with_shared_ranks(ranked)
    shown = ranked if not top else ranked[:top]
    return {
        "position_id": pos.position_id,
        "dice": [int(dice[0]), int(dice[1])],
        "level": level,
        "ply": ply,
        "plays": [r.as_dict() for r in shown],
    }


def hint_text(pos, dice, ranked, label: str, ply: int, top: int | None = None, compact: bool = False) -> str:
    """The text hint (``bgrl hint``).

    A header, the best ``top`` plays (default 10, 0 = all) with rank, play, ply, equity,
    difference to the best, and win/wg/wbg/lose/lg/lbg; the columns explained. Plays that
    tie share a rank. ``label`` names the engine (e.g. ``"level expert"``); ``compact``
    writes plays gnubg's way (``24/13``, ``6/5(2)``).
    """
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
