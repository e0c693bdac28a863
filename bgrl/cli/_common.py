"""What every command of ``bgrl`` shares: the command error, the one reader of POSITION [DICE],
--batch files, the help formatter, and the checks of the options several commands take (--level,
the rollout flags, the cube options). Only the edges (this package, the service, the env
constructor) parse text; the engine takes a Position and a roll.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from contextlib import contextmanager

from bgrl._text import clip
from bgrl._fileio import InputFileError, read_input_text
from bgrl.agents.levels import DEFAULT_HINT_LEVEL, LEVELS, LEVEL_NAMES
from bgrl.rules.dice import parse_dice
from bgrl.rules.match import MatchRules
from bgrl.rules.xgid import read_position
from bgrl.evaluation.match_equity import default_met

__all__ = ["CLIError", "clip", "show_progress", "dice_arg", "position_and_dice", "batch_lines", "check_position_or_batch",
           "agent_code", "MAX_BATCH_LINE", "check_level", "check_rollout_flags", "cube_rules",
           "HelpFormatter", "RULES_NOTE", "POS_HELP", "DICE_HELP", "NOTATION_HELP"]

RULES_NOTE = "Rules: docs/rules.md in the repository."
POS_HELP = ("gnubg Position ID as GNU Backgammon shows it for the side on roll (it encodes the opponent's "
            "checkers first, then the side on roll's; e.g. 4HPwATDgc/ABMA), or an XGID "
            "(XGID=...; money game, no cube; its side on roll and dice are used)")
DICE_HELP = "the roll: 53, 5-3 or 5 3, shown high die first (default: the XGID's dice)"
NOTATION_HELP = ("play notation for the text output: 'compact' = as players write it, one checker's journey "
                 "joined (13/7 8/7, 24/18(2), 6/off, 8/5*/4), 'dice' = one checker move per die (13/11 11/10); "
                 "JSON always uses 'dice' (default: %(default)s)")


class CLIError(Exception):
    """A command-line input error: printed as one line ``bgrl: error: ...``, exit status 2."""


def show_progress(json_output: bool = False) -> bool:
    """Whether a command shows a tqdm bar: only on a terminal. False with ``--json``
    (``json_output``) or when stdout or stderr is not a tty (a pipe, a file, a test's capture),
    so a pipeline or a script reading the output never sees a bar. The one rule for ``rate``,
    ``match``, ``benchmark`` and ``review``."""
    if json_output:
        return False
    try:
        return bool(sys.stdout.isatty() and sys.stderr.isatty())
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def dice_arg(parts: list[str], from_position=None) -> tuple[int, int]:
    """The roll from DICE (``53``, ``5-3``, ``5 3``), else the XGID's dice; high die first."""
    if not parts:
        if from_position is not None:
            return from_position
        raise CLIError("missing DICE: write the roll like 53, 5-3 or '5 3' (or give an XGID with its dice)")
    d = parse_dice(" ".join(parts))
    return (max(d), min(d))


def position_and_dice(position: str, dice_parts: list[str]):
    """The one way the CLI reads POSITION [DICE]: a Position ID or an XGID (bgrl.rules.xgid)."""
    pos, xdice = read_position(position)
    return pos, dice_arg(dice_parts, xdice)


#: The longest line of a ``--batch`` file or of ``--batch -`` (standard input), in characters;
#: a longer line (e.g. ``/dev/zero`` piped in) ends the command with a one-line error.
MAX_BATCH_LINE = 4096


def _batch_source(path: str):
    """The lines of ``--batch``: a file, read whole through :func:`bgrl._fileio.read_input_text`
    (at most :data:`bgrl._fileio.MAX_INPUT_BYTES`; a folder, device or FIFO refused), or
    standard input ('-'), read line by line without a bound on their number."""
    if path != "-":
        try:
            text = read_input_text(path, "--batch file", "a text file of lines 'POSITION [DICE]' ('-' for standard input)",
                                   errors="replace")
        except InputFileError as exc:
            raise CLIError(str(exc)) from None
        yield from io.StringIO(text, newline=None)  # universal newlines, as open() reads them
        return
    while True:
        line = sys.stdin.readline(MAX_BATCH_LINE + 1)
        if not line:
            return
        yield line


def batch_lines(path: str, answer) -> int:
    """Read lines 'POSITION [DICE]' from ``path`` ('-' = stdin); print ``answer(pos, dice)``
    (a dict) or an error object per line as JSON lines. Returns 1 if a line failed, else 0.
    CLIError for an unreadable file (:func:`_batch_source`) or a line longer than
    :data:`MAX_BATCH_LINE` characters."""
    failures = 0
    for n, line in enumerate(_batch_source(path), start=1):
        if len(line.rstrip("\r\n")) > MAX_BATCH_LINE:
            sys.stdout.flush()
            raise CLIError(f"--batch {clip(path)}, line {n}: longer than {MAX_BATCH_LINE:,} characters; "
                           "expected 'POSITION [DICE]'")
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split(None, 1)
        try:
            pos, dice = position_and_dice(parts[0], parts[1:])
            obj = answer(pos, dice)
        except (ValueError, TypeError, CLIError) as exc:
            failures += 1
            msg = str(exc)
            obj = {"line": n, "input": clip(text, 80), "error": msg if len(msg) <= 300 else msg[:297] + "..."}
        print(json.dumps(obj), flush=False)
    sys.stdout.flush()
    return 1 if failures else 0


@contextmanager
def agent_code(specs):
    """Run code that imports or plays user agents (``module:object`` specs, ``specs`` as given
    on the command line): an agent that calls ``sys.exit`` (or raises SystemExit) ends the
    command with a CLIError naming it, not silently with its exit status."""
    try:
        yield
    except SystemExit as exc:
        names = " or ".join(repr(str(s)) for s in specs if ":" in str(s)) or "an agent"
        raise CLIError(f"agent {names} called sys.exit({exc.code!r}) instead of returning a play; expected an agent "
                       "that returns a play (choose_play(position, dice, rng) or select(after, rng))") from None


def check_position_or_batch(args) -> None:
    """``moves`` and ``hint`` take POSITION [DICE] or --batch FILE: exactly one of them."""
    if args.batch is not None and (args.position is not None or args.dice):
        raise CLIError("give either POSITION DICE or --batch FILE, not both")
    if args.batch is None and args.position is None:
        raise CLIError("give POSITION DICE, or --batch FILE")


class HelpFormatter(argparse.HelpFormatter):
    """Help that shows every option's default: options whose help does not say it get
    "(default: X)" appended."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default is argparse.SUPPRESS or not action.option_strings:
            return text
        if action.default is None or action.default is False:
            return text + " (default: off)" if action.nargs == 0 else text + " (default: none)"
        return text + " (default: %(default)s)"


def check_rollout_flags(trials: int, truncate, seed: int | None = None) -> None:
    """CLIError (exit 2) for a trial count <= 0 or above :data:`bgrl.agents.rollout.MAX_TRIALS`,
    a truncation < 0, or a negative seed (as ``match`` and ``play`` refuse it)."""
    from bgrl.agents.rollout import MAX_TRIALS

    if seed is not None and seed < 0:
        raise CLIError(f"--seed must be >= 0, got {seed}")
    if trials <= 0:
        raise CLIError(f"--trials must be >= 1, got {trials}")
    if trials > MAX_TRIALS:
        raise CLIError(f"--trials must be at most {MAX_TRIALS:,} (all trials advance in lockstep, in memory), got {trials}")
    if truncate is not None and truncate < 0:
        raise CLIError(f"--truncate must be >= 0 plies (omit it to play every trial to the end), got {truncate}")


def cube_rules(args):
    """The :class:`bgrl.rules.match.MatchRules` of ``--cube [--match N] [--jacoby] [--beavers]
    [--cube-cap V]``, or None for the default cubeless money games. CLIError (exit 2) for a
    bad combination: a cube option without --cube, a match longer than the match equity
    table, a cap that is not a power of 2, Jacoby or beavers in a match."""
    opts = [f for f, v in (("--match", args.match), ("--jacoby", args.jacoby), ("--beavers", args.beavers),
                           ("--cube-cap", args.cube_cap)) if v is not None and v is not False]  # --match 0 counts
    if not args.cube:
        if opts:
            raise CLIError(f"{opts[0]} needs --cube (the default is cubeless money play)")
        return None
    if args.match is not None:
        if args.match < 1:
            raise CLIError(f"--match must be a match length >= 1 point, got {args.match}")
        try:
            default_met().check_length(args.match)
        except ValueError as exc:
            raise CLIError(f"--match {args.match}: {exc}") from None
    if args.match and (args.jacoby or args.beavers):
        raise CLIError("--jacoby and --beavers are money-game options; they do not go with --match")
    try:
        return MatchRules(match_length=args.match or 0, jacoby=args.jacoby, beavers=args.beavers,
                          **({} if args.cube_cap is None else {"max_value": args.cube_cap}))
    except ValueError as exc:
        raise CLIError(f"--cube-cap: {exc}" if args.cube_cap is not None and "cap" in str(exc) else str(exc)) from None


def check_level(name) -> str:
    """The level name (None: the hint default, :data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`),
    or ValueError naming the levels."""
    if name is None:
        return DEFAULT_HINT_LEVEL
    if str(name) not in LEVELS:
        raise ValueError(f"unknown level {name!r}: expected one of {', '.join(LEVEL_NAMES)}")
    return str(name)
