"""Command-line interface: ``bgrl moves | hint | rollout | play | games | match | rate | review | levels | benchmark | train | serve | ubgi``.

Plain text by default, ``--json`` for machines. Errors go to stderr as one line
``bgrl: error: ...`` with exit status 2 (bad input) or 1 (other failures).

This module is the dispatcher only: each command lives in a module of its own
(``bgrl.cli.<command>``) with ``add_parser(sub)`` and ``cmd_<command>(args)``.
"""

from __future__ import annotations

import argparse
import sys

from bgrl.cli._common import CLIError, clip
from bgrl._version import __version__

__all__ = ["main", "build_parser", "CLIError"]


def build_parser() -> argparse.ArgumentParser:
    # the command modules, imported here: ``bgrl --version`` needs none of them
    from bgrl.cli import benchmark, games, hint, levels, match, moves, play, rate, review, rollout, serve, train
    from bgrl.cli._common import RULES_NOTE, HelpFormatter

    p = argparse.ArgumentParser(prog="bgrl", description="Backgammon RL engine: legal plays, hints, games, matches, "
                                f"training. {RULES_NOTE}", formatter_class=HelpFormatter)
    p.add_argument("--version", action="version", version=f"bgrl {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    moves.add_parser(sub)
    hint.add_parser(sub)
    rollout.add_parser(sub)
    play.add_parser(sub)  # bgrl play, plain or with the cube
    games.add_parser(sub)
    match.add_parser(sub)
    levels.add_parser(sub)
    review.add_review_parser(sub)
    benchmark.add_parser(sub)
    rate.add_parser(sub)
    train.add_train_parser(sub)
    serve.add_serve_parser(sub)
    serve.add_ubgi_parser(sub)
    return p


def main(argv=None) -> int:
    if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:  # answered before the commands load
        print(f"bgrl {__version__}")
        raise SystemExit(0)  # as argparse's version action does
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (CLIError, ValueError, TypeError) as exc:  # CheckpointError is a ValueError
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
        name = f": {clip(exc.filename)!r}" if getattr(exc, "filename", None) else ""
        print(f"bgrl: error: {exc.strerror or exc}{name}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C: 130; `bgrl train` stopped by SIGTERM: 143
        return 128 + int(getattr(exc, "signum", 2))


if __name__ == "__main__":
    sys.exit(main())
