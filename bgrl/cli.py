"""Command-line interface: ``bgrl moves | hint | play | match | review | levels | benchmark | train | serve | ubgi``.

Plain text by default, ``--json`` for machines. Errors go to stderr as one line
``bgrl: error: ...`` with exit status 2 (bad input) or 1 (other failures).
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main"]


class CLIError(Exception):
    pass


def _clip(text: str, n: int = 60) -> str:
    """Input cut to a readable length for echoing in an error."""
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def _dice_arg(parts: list[str], from_position=None) -> tuple[int, int]:
    """The roll from DICE (``53``, ``5-3``, ``5 3``), else the XGID's dice; high die first."""
    from .notation import parse_dice

    if not parts:
        if from_position is not None:
            return from_position
        raise CLIError("missing DICE: write the roll like 53, 5-3 or '5 3' (or give an XGID with its dice)")
    d = parse_dice(" ".join(parts))
    return (max(d), min(d))


def _position_and_dice(position: str, dice_parts: list[str]):
    """The one way the CLI reads POSITION [DICE]: a Position ID or an XGID (bgrl.xgid)."""
    from .xgid import read_position

    pos, xdice = read_position(position)
    return pos, _dice_arg(dice_parts, xdice)


def _batch_lines(path: str, answer) -> int:
    """Read lines 'POSITION [DICE]' from ``path`` ('-' = stdin); print ``answer(pos, dice)``
    (a dict) or an error object per line as JSON lines. Returns 1 if a line failed, else 0."""
    try:
        src = sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CLIError(f"cannot read --batch file {_clip(path)!r}: {exc.strerror or exc}") from None
    failures = 0
    with src:
        for n, line in enumerate(src, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            parts = text.split(None, 1)
            try:
                pos, dice = _position_and_dice(parts[0], parts[1:])
                obj = answer(pos, dice)
            except (ValueError, TypeError, CLIError) as exc:
                failures += 1
                msg = str(exc)
                obj = {"line": n, "input": _clip(text, 80), "error": msg if len(msg) <= 300 else msg[:297] + "..."}
            print(json.dumps(obj), flush=False)
    sys.stdout.flush()
    return 1 if failures else 0


# ----------------------------------------------------------------------------- moves
def _moves_obj(pos, dice) -> dict:
    from .notation import legal_plays

    plays = legal_plays(pos, dice)
    return {
        "position_id": pos.position_id,
        "dice": [int(dice[0]), int(dice[1])],
        "plays": [{"play": p.notation, "position_id": p.position_id} for p in plays],
    }


def _check_position_or_batch(args) -> None:
    """``moves`` and ``hint`` take POSITION [DICE] or --batch FILE: exactly one of them."""
    if args.batch is not None and (args.position is not None or args.dice):
        raise CLIError("give either POSITION DICE or --batch FILE, not both")
    if args.batch is None and args.position is None:
        raise CLIError("give POSITION DICE, or --batch FILE")


def cmd_moves(args) -> int:
    from .notation import legal_plays

    _check_position_or_batch(args)
    if args.batch is not None:
        return _batch_lines(args.batch, _moves_obj)
    pos, dice = _position_and_dice(args.position, args.dice)
    if args.json:
        print(json.dumps(_moves_obj(pos, dice)))
        return 0
    plays = legal_plays(pos, dice)
    print(f"Position {pos.position_id}, roll {dice[0]}-{dice[1]}: {len(plays)} legal play(s)")
    if not plays:
        print("  no die can be played: the turn passes")
    names = [p.shown(args.notation == "compact") for p in plays]
    width = max((len(n) for n in names), default=0)
    for i, (p, name) in enumerate(zip(plays, names), start=1):
        print(f"  {i:3d}. {name:<{width}}  {p.position_id}")
    return 0


# ----------------------------------------------------------------------------- hint
def _evaluator_for(checkpoint):
    from .checkpoint import load_network
    from .evaluator import NetEvaluator
    from .resources import resolve_checkpoint

    if checkpoint is not None and not str(checkpoint).strip():
        raise CLIError("--checkpoint is empty: give the path of a .pt file, a run folder or 'default'")
    path = resolve_checkpoint("default" if checkpoint is None else checkpoint)
    net, meta = load_network(path)
    return NetEvaluator(net, meta["encoder"]), path


def cmd_hint(args) -> int:
    from .levels_cli import hint_agent, hint_json, hint_text

    if args.top is not None and args.top < 0:
        raise CLIError(f"--top must be >= 0 (0 = all plays), got {args.top}")
    agent, ply, label = hint_agent(args.level, args.ply, args.checkpoint)

    def obj(pos, dice):
        return hint_json(pos, dice, agent.hint(pos, dice, ply=ply), agent.level.name, ply, args.top)

    _check_position_or_batch(args)
    if args.batch is not None:
        return _batch_lines(args.batch, obj)
    pos, dice = _position_and_dice(args.position, args.dice)
    if args.json:
        print(json.dumps(obj(pos, dice)))
        return 0
    print(hint_text(pos, dice, agent.hint(pos, dice, ply=ply), label, ply, args.top, compact=args.notation == "compact"))
    return 0


# ----------------------------------------------------------------------------- match
def cmd_match(args) -> int:
    from tqdm import tqdm

    from .agents import load_agent
    from .match import play_match

    if args.games < 1:
        raise CLIError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    a, b = load_agent(args.a), load_agent(args.b)
    recorder = None
    if args.save_games is not None:  # game records: bgrl.match_records
        from .match_records import MatchRecorder, prepare_games_dir

        recorder = MatchRecorder(prepare_games_dir(args.save_games), args.games, (str(args.a), str(args.b)), args.seed)
    bar = tqdm(total=args.games, unit="game", disable=args.json or not sys.stderr.isatty())
    res = play_match(a, b, args.games, seed=args.seed, progress=bar.update, names=(str(args.a), str(args.b)), recorder=recorder)
    bar.close()
    if args.json:
        d = res.as_dict()
        d["ci95"] = None if d["ci95"] != d["ci95"] else d["ci95"]  # NaN (one game) is not JSON
        if recorder is not None:
            d["games_dir"] = str(args.save_games)
        print(json.dumps(d))
    else:
        print(res.summary())
        if recorder is not None:
            print(f"  {len(recorder.written)} game records written to {args.save_games}/ (bgrl review FILE reviews one)")
    return 0


# ----------------------------------------------------------------------------- play
class _AgentHintRanker:
    """Hints from an agent that ranks plays itself (``agent.hint(position, dice)``, as the
    named levels do), so hints come at the opponent's level and ply."""

    def __init__(self, agent, whose: str = "the opponent's"):
        self.agent = agent
        self.name = f"level {getattr(agent, 'name', 'opponent')} ({whose})"
        self.ply = getattr(getattr(agent, "level", None), "ply", 0)

    def __call__(self, position, dice):
        return self.agent.hint(position, dice)


def _play_ranker(args):
    """The hint engine of ``bgrl play``: --checkpoint, else the opponent's network, else the
    shipped one (0-ply). The lead wires named levels here (bgrl.levels) once they land."""
    from .play import NetworkRanker

    def load(agent):
        evaluator = getattr(agent, "evaluator", None)
        if getattr(args, "hint_level", None) is not None:
            from .agents import load_agent
            from .levels_cli import check_level

            if args.checkpoint is not None:
                raise CLIError("--hint-level and --checkpoint exclude each other: both choose the hint engine")
            return _AgentHintRanker(load_agent(check_level(args.hint_level)), "--hint-level")
        if args.checkpoint is None and callable(getattr(agent, "hint", None)):  # a level agent (bgrl.levels)
            return _AgentHintRanker(agent)
        if args.checkpoint is not None or evaluator is None:
            evaluator, path = _evaluator_for(args.checkpoint)
            return NetworkRanker(evaluator, f"network {path.name}")
        return NetworkRanker(evaluator, f"network {getattr(agent, 'name', 'opponent')} (the opponent's)")

    return load


def cmd_play(args) -> int:
    from .play import run_from_args

    if args.level is not None:
        from .levels_cli import check_level

        if args.opponent != "default":
            raise CLIError("--level and --opponent exclude each other: --level LEVEL is --opponent LEVEL")
        args.opponent = check_level(args.level)
    return run_from_args(args, _play_ranker(args))


def _levels(args) -> int:
    from .levels_cli import cmd_levels

    return cmd_levels(args)


# ----------------------------------------------------------------------------- parser
class _Formatter(argparse.HelpFormatter):
    """Help that shows every option's default: options whose help does not say it get
    "(default: X)" appended."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default is argparse.SUPPRESS or not action.option_strings:
            return text
        if action.default is None or action.default is False:
            return text + " (default: off)" if action.nargs == 0 else text + " (default: none)"
        return text + " (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    rules = "Rules: docs/rules.md in the repository."
    p = argparse.ArgumentParser(prog="bgrl", description="Backgammon RL engine: legal plays, hints, games, matches, "
                                f"training. {rules}", formatter_class=_Formatter)
    p.add_argument("--version", action="version", version=f"bgrl {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    pos_help = ("gnubg Position ID as GNU Backgammon shows it for the side on roll (it encodes the opponent's "
                "checkers first, then the side on roll's; e.g. 4HPwATDgc/ABMA), or an XGID "
                "(XGID=...; money game, no cube; its side on roll and dice are used)")
    dice_help = "the roll: 53, 5-3 or 5 3, shown high die first (default: the XGID's dice)"
    notation_help = ("play notation for the text output: 'dice' = one checker move per die (13/11 11/10), "
                     "'compact' = gnubg style (13/10, 6/5(2)); JSON always uses 'dice' (default: %(default)s)")

    m = sub.add_parser("moves", help="list every legal play of a position and roll", formatter_class=_Formatter,
                       description="List every legal play of a position and roll, in the generator's canonical order.")
    m.add_argument("position", nargs="?", help=pos_help)
    m.add_argument("dice", nargs="*", help=dice_help)
    m.add_argument("--batch", metavar="FILE", help="read lines 'POSITION [DICE]' from FILE ('-' = stdin) and print "
                   "one JSON object per line (default: off)")
    m.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    m.add_argument("--notation", choices=["dice", "compact"], default="dice", help=notation_help)
    m.set_defaults(func=cmd_moves)

    h = sub.add_parser("hint", help="rank all legal plays by equity", formatter_class=_Formatter,
                       description="Rank the legal plays of a position and roll by a level's noise-free n-ply search "
                       "(default level expert), best first; plays cut by the move filter keep a shallower ply.")
    h.add_argument("position", nargs="?", help=pos_help)
    h.add_argument("dice", nargs="*", help=dice_help)
    h.add_argument("--level", default=None, help="rank with this level's noise-free search (default: expert; see bgrl levels)")
    h.add_argument("--ply", type=int, default=None, help="search depth 0..3 in gnubg's convention (default: the level's)")
    h.add_argument("--checkpoint", metavar="PATH", help="network replacing the level's: a .pt file, a run folder (its "
                   "final.pt, else latest.pt) or 'default' (default: the level's network)")
    h.add_argument("--top", type=int, default=None, metavar="N", help="show the N best plays, 0 = all "
                   "(default: 10 in text, all in JSON)")
    h.add_argument("--batch", metavar="FILE", help="read lines 'POSITION [DICE]' from FILE ('-' = stdin) and print "
                   "one JSON object per line (default: off)")
    h.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    h.add_argument("--notation", choices=["dice", "compact"], default="dice", help=notation_help)
    h.set_defaults(func=cmd_hint)

    pl = sub.add_parser("play", help="play a game against the computer in the terminal", formatter_class=_Formatter,
                        description="A money game (no cube) against the computer in the terminal. The board is drawn "
                        f"and numbered from your side; type 'help' in the game for its commands. {rules}")
    pl.add_argument("--color", "--colour", choices=["white", "black"], default="white",
                    help="your colour; White moves first (default: %(default)s)")
    pl.add_argument("--opponent", default="default", help="random, pubeval, a level name, default (the shipped network), a "
                    "checkpoint file or a run folder (default: %(default)s)")
    pl.add_argument("--level", default=None, help="play against this level (see bgrl levels); the same as --opponent LEVEL")
    pl.add_argument("--seed", type=int, default=None, help="seed of the dice, >= 0 (default: a fresh random seed, "
                    "written to the game record)")
    pl.add_argument("--opening-roll", action="store_true", help="RULES.md option: each side throws one die, the "
                    "higher moves first with both (default: off)")
    pl.add_argument("--hint-level", metavar="LEVEL", default=None, help="level whose noise-free search gives the hints "
                    "and judges resignations and draws (default: the opponent's level; see bgrl levels)")
    pl.add_argument("--checkpoint", metavar="PATH", help="network that gives the hints and judges your resignations "
                    "and draw offers (default: the opponent's network, or the shipped one when the opponent has none)")
    pl.add_argument("--position", metavar="ID", help="practise a position: start from this Position ID or XGID with "
                    "you on roll (default: the start position)")
    pl.add_argument("--dice", metavar="D", help="your first roll with --position, e.g. 31 (default: the XGID's dice, "
                    "else a random roll)")
    pl.add_argument("--notation", choices=["compact", "dice"], default="compact", help="how plays are shown: "
                    "'compact' = gnubg style (24/13, 6/5(2)), 'dice' = one move per die (default: %(default)s)")
    pl.add_argument("--save", metavar="DIR", help="folder for the game record, bgrl-game-1 JSON lines "
                    "(default: $BGRL_GAMES_DIR, else ~/.bgrl/games)")
    pl.add_argument("--no-save", action="store_true", help="do not save a game record (default: off)")
    pl.set_defaults(func=cmd_play)

    ma = sub.add_parser("match", help="play N money games between two agents (paired dice)", formatter_class=_Formatter)
    ma.add_argument("a", help="agent A: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("b", help="agent B: random, pubeval, a level name, default, gnubg, gnubg:N (N-ply; gnubg extra), a checkpoint file or a run folder")
    ma.add_argument("--games", type=int, default=1000, help="games to play, >= 1; an odd count plays one unpaired "
                    "game (default: %(default)s)")
    ma.add_argument("--seed", type=int, default=0, help="seed of the dice, >= 0 (default: %(default)s)")
    ma.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    ma.add_argument("--save-games", metavar="DIR", help="write one bgrl-game-1 record per game to DIR/game-NNNN.jsonl (default: none)")
    ma.set_defaults(func=cmd_match)

    lv = sub.add_parser("levels", help="the named levels: definition and measured strength")
    lv.add_argument("--json", action="store_true", help="print one JSON object (default: off)")
    lv.set_defaults(func=_levels)

    from .review_cli import add_review_parser

    add_review_parser(sub)

    from .benchmark import cmd_benchmark

    bm = sub.add_parser("benchmark", help="error rate (millipoints lost per decision, gnubg 2-ply) of agents")
    bm.add_argument("agents", nargs="+", metavar="AGENT", help="any agent spec of match (random, pubeval, a level, default, gnubg, gnubg:N, a checkpoint)")
    bm.add_argument("--file", default=None, help="benchmark file (default: the shipped bgrl/data/benchmark.npz)")
    bm.add_argument("--json", action="store_true")
    bm.set_defaults(func=cmd_benchmark)

    from .training.cli import add_train_parser

    add_train_parser(sub)

    from .service.cli import add_serve_parser, add_ubgi_parser

    add_serve_parser(sub)
    add_ubgi_parser(sub)
    return p


def main(argv=None) -> int:
    from .checkpoint import CheckpointError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (CLIError, ValueError, TypeError, CheckpointError) as exc:
        msg = " ".join(str(exc).split("\n"))
        if len(msg) > 600:  # whatever input an error echoes, keep it readable
            msg = msg[:400] + " ... " + msg[-150:]
        print(f"bgrl: error: {msg}", file=sys.stderr)
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):  # e.g. `bgrl moves ... | head -1`
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        name = f": {_clip(exc.filename)!r}" if getattr(exc, "filename", None) else ""
        print(f"bgrl: error: {exc.strerror or exc}{name}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
