"""The words of the terminal game (``bgrl play``): the commands it reads, its help texts and its hint tables.

:class:`bgrl.cli.play_view.TerminalGame` classifies each typed line with :func:`read_command`
and prints :data:`HELP` / :data:`CUBE_HELP` and the hint tables: cubeless (:func:`hint_table`),
with the cube (:func:`cubeful_hint_table`) and at a cube decision (:func:`cube_hint_text`).
Text in, text out: no game state.
"""

from __future__ import annotations

import difflib

from bgrl.agents.cube import cubeful_rank, value_mwc
from bgrl.agents.hints import with_shared_ranks
from bgrl.cli._table import VALUE_HEADER, value_cells
from bgrl.rules.game import RESIGN_VALUES

__all__ = [
    "COMMANDS", "CONFIRMED", "HELP", "CUBE_HELP", "CUBE_WORDS", "hint_table", "read_command", "cubeful_hint_table",
    "cube_hint_text",
]

#: The commands typed at the play prompt (with their aliases ``exit``, ``q``, ``?``).
COMMANDS = ("hint", "board", "resign", "draw", "help", "quit")
#: The commands asked to be confirmed (``y`` or ``yes``; anything else cancels).
CONFIRMED = ("resign", "draw", "quit")
_ALIASES = {"exit": "quit", "q": "quit", "?": "help"}
#: The cube words a cube session reads at the play prompt too (each answered there).
CUBE_WORDS = ("double", "take", "pass", "beaver")

HELP = """Commands:
  a play in your own numbering (the board is drawn in it), e.g. 13/10 10/5, 24/13,
      bar/22*, 6/off, 8/5(2); a span through a hit (8/4 for 8/5*/4) is accepted
  hint [N]          rank the legal plays with the hint engine (equities and probabilities); N rows (default 5, 0 = all),
                    then why the best play is best (blots and shots, points, primes, pips) against the second
  board             draw the board again
  resign [single|gammon|backgammon]
                    offer to resign at that value (default single; times the cube); the computer accepts
                    when it is at least the points it expects to win (judged by the
                    judge level, world-class)
  draw              offer a draw (not in a match); the computer accepts only when it is behind
  help              this text
  quit              leave without finishing (Ctrl-C too); a stored game goes on with bgrl play --resume
resign, draw and quit ask for confirmation: y or yes goes ahead, anything else cancels.
Rules: docs/rules.md in the repository."""

CUBE_HELP = """Cube commands:
  double            before you roll (at the 'cube' prompt): offer the computer a double
  Enter or roll     roll the dice
  take / pass       answer the computer's double (pass: you lose the current stake)
  beaver            (money play with --beavers) take and redouble at once, keeping the cube
  hint              at a cube prompt: the cube decision of the hint engine
The board header shows the cube (value, owner) and the score."""


def hint_table(ranked, engine: str, ply: int, top: int = 5, compact: bool = True, you: bool = True) -> str:
    """The hint text: engine and ply, the best ``top`` plays (0 = all) with equity, the
    difference to the best play and the outcome probabilities, "... and N more", and what
    the columns mean (addressed to the player, or with ``you=False`` to "the side playing")."""
    if not ranked:
        return "  no die can be played: the turn passes"
    ranked = with_shared_ranks(ranked)  # ties share a rank
    shown = ranked[: top if top > 0 else len(ranked)]
    names = [r.play.shown(compact) for r in shown]
    width = max(8, max(len(n) for n in names))
    lines = [f"  Hint from {engine}, {ply}-ply; best first:",
             f"  {'#':>3}  {'play':<{width}}  {VALUE_HEADER}"]
    for r, name in zip(shown, names):
        lines.append(f"  {r.rank:3d}  {name:<{width}}  {value_cells(r)}")
    if len(ranked) > len(shown):
        lines.append(f"  … and {len(ranked) - len(shown)} more")
    who, whose = ("you expect", "your") if you else ("the side playing expects", "its")
    lines.append(f"  equity: points per game {who} after the play (cubeless: single 1, gammon 2, backgammon 3)")
    lines.append(f"  vs best: equity minus the best play's; win/wg/wbg: {whose} chances to win / win a gammon / win a")
    lines.append("  backgammon; lose/lg/lbg: to lose / lose a gammon / lose a backgammon (gammons include backgammons)")
    return "\n".join(lines)


def read_command(line: str):
    """Classify a typed line.

    Returns one of ``("empty",)``, ``("command", name, args)``, ``("play", text)`` or
    ``("unknown", text, suggestion_or_None)``. A line is read as a play only when it
    contains ``/`` (plays are written ``from/to``); a word that is not a command is never
    read as a play.
    """
    text = line.strip()
    if not text:
        return ("empty",)
    words = text.lower().split()
    first = _ALIASES.get(words[0], words[0])
    if first in COMMANDS:
        if first == "resign" and len(words) <= 2 and (len(words) == 1 or words[1] in RESIGN_VALUES):
            return ("command", first, words[1:])
        if first == "hint" and len(words) == 2 and words[1].isdigit():
            return ("command", first, [int(words[1])])
        if len(words) == 1:
            return ("command", first, [])
    elif "/" in text:
        return ("play", text)
    guess = difflib.get_close_matches(first, COMMANDS + tuple(_ALIASES), n=1, cutoff=0.5)
    suggestion = _ALIASES.get(guess[0], guess[0]) if guess else None
    if first in COMMANDS:
        suggestion = f"{first} single|gammon|backgammon" if first == "resign" else first
    return ("unknown", text, suggestion)


def cubeful_hint_table(rows, cube, engine: str, ply: int = 0, top: int = 5, compact: bool = True) -> str:
    """The hint table with the cube: ``rows`` (the hint ranker's list, ``RankedPlay`` best
    first) ranked by :func:`bgrl.agents.cube.cubeful_rank` with ``cube`` (the
    :class:`bgrl.rules.cube.CubeState` of the side on roll; money: cubeful equity per unit of
    the cube, a match: match winning chances too), as the web board's and ``bgrl hint``'s
    hints with the cube rank them. ``engine`` names the hint engine; ``ply`` is shown when the
    rows carry no ``ply`` of their own; ``top`` rows (0 = all)."""
    if not rows:
        return "  no die can be played: the turn passes"
    ranked, vals = cubeful_rank(rows, cube)
    n = len(ranked) if top <= 0 else min(top, len(ranked))
    names = [r.play.shown(compact) for r in ranked[:n]]
    width = max(8, max(len(x) for x in names))
    match = cube.is_match
    mwc = value_mwc(vals, cube) if match else None
    head = f"  {'#':>3}  {'play':<{width}}  {'cubeful':>8}  {'vs best':>8}" + ("  {:>6}".format("MWC") if match else "") + \
        f"  {'cubeless':>8}  {'win':>6}  {'wg':>6}  {'lg':>6}"
    lines = [f"  Hint with the cube from {engine}, {getattr(ranked[0], 'ply', ply)}-ply; best first (cube {cube.value}):",
             head]
    for i, (r, name) in enumerate(zip(ranked[:n], names)):
        p = r.probabilities
        cells = f"  {r.rank:3d}  {name:<{width}}  {vals[i]:+8.3f}  {vals[i] - vals[0]:+8.3f}"
        if match:
            cells += f"  {100 * mwc[i]:5.1f}%"
        cells += f"  {r.equity:+8.3f}  {p.win:6.3f}  {p.win_gammon:6.3f}  {p.lose_gammon:6.3f}"
        lines.append(cells)
    if len(ranked) > n:
        lines.append(f"  … and {len(ranked) - n} more")
    scale = ("match winning chances on the equity scale of the cube (+1 = winning the cube's points)"
             if match else "equity per unit of the cube, after the opponent's best cube action (Janowski)")
    lines.append(f"  cubeful: {scale}; cubeless: points per game without the cube; win/wg/lg: your chances to win, "
                 "win a gammon, lose a gammon")
    return "\n".join(lines)


def cube_hint_text(decision, cube, engine: str, ply: int, whose: str) -> str:
    """The cube advice of a hint at a cube decision: ``decision`` (a
    :class:`bgrl.evaluation.cube.CubeDecision` of the side on roll, :func:`bgrl.agents.cube.cube_hint`)
    with its cubeful equities, and in a match (``cube``, the side on roll's
    :class:`bgrl.rules.cube.CubeState`) its match winning chances; ``engine`` and ``ply`` name the
    hint engine, ``whose`` says who is on roll."""
    d = decision
    e = d.as_dict()["equities"]
    take = "take" if d.take else "pass"
    text = (f"  Cube hint from {engine}, {ply}-ply ({whose}): {d.decision}; the answer to a double: {take}"
            + (" (beaver)" if d.beaver and cube.why_no_beaver() is None else "") + "\n"
            f"  cubeful equities of the side on roll: no double {e['no_double']:+.3f}, double/take "
            f"{e['double_take']:+.3f}, double/pass {e['double_pass']:+.3f}")
    if cube.is_match:
        mwc = {k: 100 * float(value_mwc([v], cube)[0]) for k, v in e.items()}
        text += (f"\n  match winning chances of the side on roll: no double {mwc['no_double']:.1f}%, double/take "
                 f"{mwc['double_take']:.1f}%, double/pass {mwc['double_pass']:.1f}%")
    return text
