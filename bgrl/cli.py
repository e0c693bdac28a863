"""Command-line interface: ``bgrl moves | hint | play | match | levels | train | serve | ubgi``.

Plain text by default, ``--json`` for machines. Errors go to stderr as one line
``bgrl: error: ...`` with exit status 2 (bad input) or 1 (other failures).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

__all__ = ["main"]


class CLIError(Exception):
    pass


def _dice_arg(parts: list[str]) -> tuple[int, int]:
    from .notation import parse_dice

    if not parts:
        raise CLIError("missing DICE: write the roll like 53, 5-3 or '5 3'")
    return parse_dice(" ".join(parts))


# ----------------------------------------------------------------------------- moves
def _moves_obj(pid: str, dice) -> dict:
    from .board import Position
    from .notation import legal_plays

    pos = Position.from_id(pid)
    plays = legal_plays(pos, dice)
    return {
        "position_id": pos.position_id,
        "dice": [int(dice[0]), int(dice[1])],
        "plays": [{"play": p.notation, "position_id": p.position_id} for p in plays],
    }


def cmd_moves(args) -> int:
    if args.batch is not None:
        if args.position is not None or args.dice:
            raise CLIError("give either POSITION DICE or --batch FILE, not both")
        try:
            src = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8", errors="replace")
        except OSError as exc:
            raise CLIError(f"cannot read --batch file {args.batch!r}: {exc.strerror or exc}") from None
        failures = 0
        with src:
            for n, line in enumerate(src, start=1):
                text = line.strip()
                if not text or text.startswith("#"):
                    continue
                parts = text.split(None, 1)
                try:
                    if len(parts) != 2:
                        raise ValueError("expected 'POSITION DICE', e.g. '4HPwATDgc/ABMA 21'")
                    obj = _moves_obj(parts[0], _dice_arg([parts[1]]))
                except (ValueError, TypeError, CLIError) as exc:
                    failures += 1
                    shown = text if len(text) <= 80 else text[:77] + "..."
                    msg = str(exc)
                    obj = {"line": n, "input": shown, "error": msg if len(msg) <= 300 else msg[:297] + "..."}
                print(json.dumps(obj), flush=False)
        sys.stdout.flush()
        return 1 if failures else 0
    if args.position is None:
        raise CLIError("give POSITION DICE, or --batch FILE")
    obj = _moves_obj(args.position, _dice_arg(args.dice))
    if args.json:
        print(json.dumps(obj))
        return 0
    d = obj["dice"]
    print(f"Position {obj['position_id']}, roll {d[0]}-{d[1]}: {len(obj['plays'])} legal play(s)")
    if not obj["plays"]:
        print("  no die can be played: the turn passes")
    width = max((len(p["play"]) for p in obj["plays"]), default=0)
    for i, p in enumerate(obj["plays"], start=1):
        print(f"  {i:3d}. {p['play']:<{width}}  {p['position_id']}")
    return 0


# ----------------------------------------------------------------------------- hint
def _evaluator_for(checkpoint):
    from .agents import DEFAULT_CHECKPOINT
    from .checkpoint import load_network
    from .evaluator import NetEvaluator

    if checkpoint is not None and not str(checkpoint).strip():
        raise CLIError("--checkpoint is empty: give the path of a .pt file")
    path = Path(checkpoint) if checkpoint is not None else DEFAULT_CHECKPOINT
    net, meta = load_network(path)
    return NetEvaluator(net, meta["encoder"]), path


def cmd_hint(args) -> int:
    from .board import Position
    from .levels_cli import hint_agent, hint_json, hint_text

    if args.top is not None and args.top < 0:
        raise CLIError(f"--top must be >= 0 (0 = all plays), got {args.top}")
    pos = Position.from_id(args.position)
    dice = _dice_arg(args.dice)
    agent, ply, label = hint_agent(args.level, args.ply, args.checkpoint)
    ranked = agent.hint(pos, dice, ply=ply)
    if args.json:
        print(json.dumps(hint_json(pos, dice, ranked, agent.level.name, ply, args.top)))
    else:
        print(hint_text(pos, dice, ranked, label, ply, args.top))
    return 0


# ----------------------------------------------------------------------------- match
def cmd_match(args) -> int:
    from tqdm import tqdm

    from .agents import load_agent
    from .match import play_match

    if args.seed < 0:
        raise CLIError(f"--seed must be >= 0, got {args.seed}")
    a, b = load_agent(args.a), load_agent(args.b)
    bar = tqdm(total=args.games, unit="game", disable=args.json or not sys.stderr.isatty())
    res = play_match(a, b, args.games, seed=args.seed, progress=bar.update, names=(str(args.a), str(args.b)))
    bar.close()
    if args.json:
        d = res.as_dict()
        d["ci95"] = None if d["ci95"] != d["ci95"] else d["ci95"]  # NaN (one game) is not JSON
        print(json.dumps(d))
    else:
        print(res.summary())
    return 0


# ----------------------------------------------------------------------------- train
def _train(args) -> int:
    from .training.loop import TrainConfig, train

    tunable = {
        "alpha": args.alpha,
        "alpha_final": args.alpha_final,
        "lam": args.lam,
        "parallel": args.parallel,
        "eval_every": args.eval_every,
        "eval_games": args.eval_games,
        "checkpoint_every": args.checkpoint_every,
    }
    if args.resume:
        if args.hidden is not None or args.seed is not None or args.init_from is not None:
            raise CLIError("--hidden, --seed and --init-from are fixed for a run; they cannot change on --resume")
        if args.run_dir is not None:
            raise CLIError("--run-dir and --resume exclude each other: --resume names the run folder")
        if args.games is not None and args.games < 1:
            raise CLIError(f"--games must be >= 1, got {args.games}")
        tunable["games"] = args.games
        train(None, Path(args.resume), resume=True, progress=not args.no_progress, overrides=tunable)
        return 0
    run_dir = Path(args.run_dir) if args.run_dir else Path("runs") / datetime.now().strftime("td-%Y%m%d-%H%M%S")
    given = {k: v for k, v in tunable.items() if v is not None}
    if args.hidden is not None:
        given["hidden"] = args.hidden
    if args.seed is not None:
        given["seed"] = args.seed
    if args.init_from is not None:
        if args.hidden is not None:
            raise CLIError("--hidden and --init-from exclude each other: the network's size comes from the checkpoint")
        given["init_from"] = args.init_from
    cfg = TrainConfig(games=TrainConfig.games if args.games is None else args.games, **given)
    print(f"run folder: {run_dir}  (tensorboard --logdir {run_dir / 'tb'})", file=sys.stderr)
    train(cfg, run_dir, progress=not args.no_progress)
    return 0


# ----------------------------------------------------------------------------- play
_PLAY_HELP = """Commands:
  a play in your own numbering, e.g. 13/10 10/5, bar/22*, 6/off, 8/5(2)
  hint              rank the legal plays with the engine
  board             draw the board again
  resign [single|gammon|backgammon]   give up the game at that value (default single)
  draw              offer an agreed draw (the computer accepts when its equity is below 0)
  help              this text
  quit              leave without finishing"""


def cmd_play(args) -> int:
    import numpy as np

    from .agents import load_agent
    from .board import flip
    from .game import BLACK, WHITE, Game, opening_roll
    from .hints import rank_plays
    from .model import equity
    from .notation import IllegalPlayError, legal_plays, play_from_notation
    from .render import render

    human = args.color
    computer = BLACK if human == WHITE else WHITE
    if args.level is not None:
        from .levels_cli import check_level

        if args.opponent != "default":
            raise CLIError("--level and --opponent exclude each other: --level LEVEL is --opponent LEVEL")
        args.opponent = check_level(args.level)
    agent = load_agent(args.opponent)
    evaluators = [getattr(agent, "evaluator", None)]
    if args.checkpoint is not None:  # check it now, not at the first hint
        evaluators[0] = _evaluator_for(args.checkpoint)[0]

    def engine():
        # hints and draw offers use the opponent's network, or the shipped one
        if evaluators[0] is None:
            evaluators[0] = _evaluator_for(args.checkpoint)[0]
        return evaluators[0]
    rng = np.random.default_rng(args.seed)
    game = Game()
    out = sys.stdout
    first_dice = None
    if args.opening_roll:
        white_first, first_dice, throws = opening_roll(rng)
        game.white_on_roll = white_first

    def say(text=""):
        print(text, file=out, flush=True)

    say(f"You play {human} ({'O' if human == WHITE else 'X'}) against {getattr(agent, 'name', args.opponent)}. "
        + ("An opening roll decides who moves first." if args.opening_roll else "White moves first."))
    if human == BLACK:
        say("As Black, type plays in your own numbering: your home board is points 1-6 (White's 24-19).")
    say("Type 'help' for commands.")
    if first_dice is not None:
        for w, b in throws:
            say(f"Opening roll: White {w}, Black {b}" + ("  (tie: roll again)" if w == b else ""))
        say(f"{game.on_roll.capitalize()} moves first with {first_dice[0]}-{first_dice[1]}.")
    while game.over is None:
        if first_dice is not None:
            dice, first_dice = first_dice, None
        else:
            dice = tuple(sorted((int(x) for x in rng.integers(1, 7, size=2)), reverse=True))
        if game.on_roll == computer:
            play = agent.choose_play(game.position, dice, rng)
            say(f"\n{computer.capitalize()} rolls {dice[0]}-{dice[1]} and plays {play.notation if play else '(no legal play)'}")
            game.apply(play.after_state if play else game.board, dice)
            continue
        say("")
        say(render(game.board, game.white_on_roll, dice))
        plays = legal_plays(game.position, dice)
        if not plays:
            say("You cannot play any die: the turn passes. (press Enter)")
            if sys.stdin.readline() == "":
                return 0
            game.apply(game.board, dice)
            continue
        while True:
            out.write(f"{human} to play {dice[0]}-{dice[1]}> ")
            out.flush()
            line = sys.stdin.readline()
            if line == "":
                say("\nend of input: leaving the game")
                return 0
            cmd = line.strip()
            low = cmd.lower()
            if not cmd:
                continue
            if low in ("quit", "exit", "q"):
                say("game abandoned")
                return 0
            if low in ("help", "?"):
                say(_PLAY_HELP)
                continue
            if low == "board":
                say(render(game.board, game.white_on_roll, dice))
                continue
            if low == "hint":
                for r in rank_plays(game.position, dice, engine())[:5]:
                    say(f"  {r.rank}. {r.play.notation:<24} equity {r.equity:+.3f} ({0.0 - r.equity_loss + 0.0:+.3f})")
                continue
            if low.startswith("resign"):
                parts = low.split()
                value = parts[1] if len(parts) > 1 else "single"
                try:
                    game.resign(human, value)
                except ValueError as exc:
                    say(f"  {exc}")
                    continue
                break
            if low == "draw":
                # the human is on roll: the network values the position for the human
                comp_eq = -float(equity(engine().position_probs(game.board[None]))[0])
                if comp_eq < 0:
                    game.agree_draw()
                    say("The computer accepts the draw.")
                    break
                say(f"The computer declines the draw (its equity {comp_eq:+.3f}).")
                continue
            try:
                play = play_from_notation(game.position, dice, cmd)
            except IllegalPlayError as exc:
                say(f"  illegal: {exc}")
                continue
            game.apply(play.after_state, dice)
            break
    res = game.over
    if res.how == "draw":
        say("Game drawn by agreement.")
    else:
        kind = {1: "single game", 2: "gammon", 3: "backgammon"}[res.points]
        say(f"\n{res.winner.capitalize()} wins a {kind} ({res.points} point{'s' if res.points > 1 else ''}) by {res.how}.")
        if res.how == "bear-off":
            say(render(flip(game.board), res.winner != WHITE, None, show_ids=False))
    say(f"Result for you: {res.points_for(human):+d}")
    return 0


def _levels(args) -> int:
    from .levels_cli import cmd_levels

    return cmd_levels(args)


# ----------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bgrl", description="Backgammon RL engine: legal plays, hints, games, matches, training.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    m = sub.add_parser("moves", help="list every legal play of a position and roll")
    m.add_argument("position", nargs="?", help="gnubg Position ID, side on roll first (e.g. 4HPwATDgc/ABMA)")
    m.add_argument("dice", nargs="*", help="the roll: 53, 5-3 or 5 3")
    m.add_argument("--batch", metavar="FILE", help="read lines 'POSITION DICE' from FILE ('-' = stdin); one JSON object per line out")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=cmd_moves)

    h = sub.add_parser("hint", help="rank all legal plays by equity (a level's n-ply search)")
    h.add_argument("position", help="gnubg Position ID")
    h.add_argument("dice", nargs="+", help="the roll: 53, 5-3 or 5 3")
    h.add_argument("--level", default=None, help="rank with this level's noise-free search (default expert; see bgrl levels)")
    h.add_argument("--ply", type=int, default=None, help="search depth 0..3 in gnubg's convention (default: the level's)")
    h.add_argument("--top", type=int, default=None, metavar="N", help="show the N best plays (default and 0: all)")
    h.add_argument("--checkpoint", metavar="PATH", help="network checkpoint replacing the level's network")
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=cmd_hint)

    pl = sub.add_parser("play", help="play a game against the computer in the terminal")
    pl.add_argument("--color", "--colour", choices=["white", "black"], default="white", help="your colour (White moves first)")
    pl.add_argument("--opponent", default="default", help="random, pubeval, default, a level name or a checkpoint path")
    pl.add_argument("--level", default=None, help="play against this level (see bgrl levels); same as --opponent LEVEL")
    pl.add_argument("--seed", type=int, default=None, help="seed of the dice")
    pl.add_argument("--opening-roll", action="store_true", help="RULES.md option: each side throws one die, the higher moves first with both")
    pl.add_argument("--checkpoint", metavar="PATH", help="network for hints and draw offers when the opponent has none (default: shipped)")
    pl.set_defaults(func=cmd_play)

    ma = sub.add_parser("match", help="play N money games between two agents (paired dice)")
    ma.add_argument("a", help="random, pubeval, default, a level name (bgrl levels) or a checkpoint path")
    ma.add_argument("b", help="random, pubeval, default, a level name (bgrl levels) or a checkpoint path")
    ma.add_argument("--games", type=int, default=1000)
    ma.add_argument("--seed", type=int, default=0)
    ma.add_argument("--json", action="store_true")
    ma.set_defaults(func=cmd_match)

    lv = sub.add_parser("levels", help="the named levels: definition and measured strength")
    lv.add_argument("--json", action="store_true")
    lv.set_defaults(func=_levels)

    from .training.loop import TrainConfig

    c = TrainConfig()
    t = sub.add_parser(
        "train",
        help="TD(lambda) self-play training",
        description="TD(lambda) self-play training. With --resume, only --games, --alpha, --alpha-final, "
        "--lambda, --parallel and the --eval/--checkpoint settings may be given; they override the run's config.",
    )
    t.add_argument("--games", type=int, default=None, help=f"games to play (default {c.games}; with --resume: new target)")
    t.add_argument("--run-dir", help="run folder (default runs/td-YYYYmmdd-HHMMSS)")
    t.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest.pt")
    t.add_argument("--init-from", metavar="CHECKPOINT", default=None,
                   help="start a new run from this network's weights ('default' = the shipped one, or a .pt file or run folder); default: random weights")
    t.add_argument("--hidden", type=int, default=None, help=f"hidden units (default {c.hidden})")
    t.add_argument("--alpha", type=float, default=None, help=f"TD step size (default {c.alpha})")
    t.add_argument("--alpha-final", type=float, default=None, help="decay alpha linearly to this value (default: constant)")
    t.add_argument("--lambda", dest="lam", type=float, default=None, help=f"trace decay lambda (default {c.lam})")
    t.add_argument("--parallel", type=int, default=None, help=f"games played in lockstep (default {c.parallel})")
    t.add_argument("--seed", type=int, default=None, help=f"seed of dice and initial weights (default {c.seed})")
    t.add_argument("--eval-every", type=int, default=None, help=f"games between evaluations vs random and pubeval (default {c.eval_every}; 0 = never)")
    t.add_argument("--eval-games", type=int, default=None, help=f"games per evaluation (default {c.eval_games})")
    t.add_argument("--checkpoint-every", type=int, default=None, help=f"games between latest.pt writes (default {c.checkpoint_every})")
    t.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    t.set_defaults(func=_train)

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
        print(f"bgrl: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):  # e.g. `bgrl moves ... | head -1`
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        print(f"bgrl: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
