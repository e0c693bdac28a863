"""``bgrl play``: the command of the terminal game against the computer.

The game is a :class:`bgrl.session.game.GameSession` (the one game of every surface, the
web board's too) and the terminal is its view, :class:`bgrl.cli.play_view.TerminalGame`
(re-exported here with :func:`bgrl.cli.terminal_text.read_command`,
:func:`bgrl.cli.terminal_text.hint_table`, :func:`bgrl.agents.offers.resign_decision` and
:func:`bgrl.agents.offers.draw_decision`). This module reads the flags, loads the opponent, the hint ranker
(:func:`play_ranker`: the one hint default, or --hint-level / --checkpoint) and the judge
(:func:`judge_ranker`), opens the store of games (``--store URL``, ``$BGRL_STORE``, else the
SQLite file in the user's bgrl folder) under the player token of the user's bgrl folder, and
starts a game or resumes one (``--resume [ID]``). Every change of the game is saved in the
store, so ``bgrl games`` and the web board's "My games" (with the same token) list it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bgrl._fileio import check_writable_dir
from bgrl._text import clip
from bgrl.agents.hints import HintRanker
from bgrl.agents.levels import DEFAULT_HINT_LEVEL, JUDGE_LEVEL
from bgrl.agents.offers import draw_decision, resign_decision
from bgrl.agents.registry import load_ranker as _load_ranker
from bgrl.cli._common import RULES_NOTE, CLIError, HelpFormatter, check_level, cube_rules
from bgrl.cli.play_view import TerminalGame
from bgrl.cli.terminal_text import COMMANDS, hint_table, read_command
from bgrl.rules.match import Match, MatchRules

__all__ = [
    "COMMANDS", "level_ranker", "play_ranker", "judge_ranker", "resign_decision", "draw_decision", "hint_table",
    "read_command", "TerminalGame", "default_games_dir", "run_from_args", "cubeful_game", "cmd_play", "add_parser",
]


def default_games_dir() -> Path:
    """Where ``bgrl play`` saves game records unless ``--save DIR`` is given: the folder in
    the environment variable ``BGRL_GAMES_DIR`` if set, else ``~/.bgrl/games``."""
    import os

    env = os.environ.get("BGRL_GAMES_DIR")
    return Path(env).expanduser() if env else Path.home() / ".bgrl" / "games"


#: Flags that choose a new game's options: refused with --resume (the stored game has its own).
_NEW_GAME_FLAGS = (("position", "--position"), ("dice", "--dice"), ("seed", "--seed"), ("level", "--level"),
                   ("match", "--match"), ("cube_cap", "--cube-cap"))


def _check_resume(args) -> None:
    for dest, flag in _NEW_GAME_FLAGS:
        if getattr(args, dest, None) is not None:
            raise ValueError(f"--resume and {flag} exclude each other: a resumed game keeps its own options")
    for dest, flag in (("opening_roll", "--opening-roll"), ("cube", "--cube"), ("jacoby", "--jacoby"), ("beavers", "--beavers")):
        if getattr(args, dest, False):
            raise ValueError(f"--resume and {flag} exclude each other: a resumed game keeps its own options")
    if getattr(args, "opponent", "default") != "default":
        raise ValueError("--resume and --opponent exclude each other: a resumed game keeps its opponent")


def _check_save_dir(args) -> Path | None:
    save_dir = None if args.no_save else (Path(args.save).expanduser() if args.save else default_games_dir())
    if save_dir is not None:  # refuse an unusable folder before the game, not after it
        if save_dir.exists() and not save_dir.is_dir():
            raise ValueError(f"--save {clip(str(save_dir), 40)}: that is a file; expected a folder for game records")
        try:
            check_writable_dir(save_dir)
        except OSError as exc:
            raise ValueError(f"--save {clip(str(save_dir), 40)}: cannot create or write in the folder "
                             f"({exc.strerror or exc}); expected a writable folder, or --no-save") from None
    return save_dir


def _open_games(args):
    """The store of games and the local player token (:class:`bgrl.session.local.LocalGames`).
    ValueError with one line naming the store (file, or URL with its password masked) or the token file."""
    from bgrl.session.local import LocalGames

    try:
        return LocalGames.open(getattr(args, "store", None))
    except OSError as exc:
        raise ValueError(f"cannot use the bgrl folder for the player token: {exc.strerror or exc}") from None


def run_from_args(args, load_ranker) -> int:
    """``bgrl play``: build the game (or resume one) from parsed arguments and run it.

    ``load_ranker(agent)`` returns the hint ranker (the CLI decides which engine). Raises
    ValueError with the flag named for bad arguments, and for a store that cannot be opened,
    an unknown or finished game to resume (one line, exit status 2).
    """
    from bgrl.agents.registry import load_agent
    from bgrl.rules.dice import parse_dice
    from bgrl.rules.xgid import read_position

    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    resume = getattr(args, "resume", None)
    if resume is not None:
        _check_resume(args)
    start, dice = None, None
    cube = _wants_cube(args)  # the cube reads --position/--dice itself (cubeful_game)
    if args.position is not None and not cube:
        if args.opening_roll:
            raise ValueError("--position and --opening-roll exclude each other: in a practised position you are on roll")
        start, dice = read_position(args.position)
        m_off, o_off = start.off
        if m_off == 15 or o_off == 15:
            raise ValueError(f"--position {start.position_id}: the game is over (a side has borne off all 15 checkers)")
    if args.dice is not None and not cube:
        if args.position is None:
            raise ValueError("--dice needs --position (the first roll of a practised position)")
        dice = parse_dice(args.dice)
    if cube and resume is None:
        _cube_start(args, cube_rules(args))  # bad cube flags: refused before anything is opened
    save_dir = _check_save_dir(args)
    games = _open_games(args)
    try:
        session = None
        if resume is not None:
            session = games.resume(resume or None)
            args.opponent = session.level
            if getattr(args, "hint_level", None) is None and getattr(args, "checkpoint", None) is None:
                from bgrl.agents.levels import LEVEL_NAMES

                if session.hint_level in LEVEL_NAMES and session.hint_level != DEFAULT_HINT_LEVEL:
                    args.hint_level = session.hint_level
        seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (2**32))
        agent = load_agent(args.opponent)
        ranker = load_ranker(agent)
        judge = judge_ranker()
        name = getattr(agent, "name", str(args.opponent))
        if session is not None:
            game = TerminalGame(agent, session.human, ranker, compact=(args.notation == "compact"), save_dir=save_dir,
                                opponent_name=name, judge=judge, session=session, games=games)
        elif cube:
            game = cubeful_game(args, agent, ranker, seed, save_dir, judge, games)
        else:
            game = TerminalGame(agent, args.color, ranker, np.random.default_rng(seed), compact=(args.notation == "compact"),
                                start=start, first_dice=dice, opening_roll=args.opening_roll, save_dir=save_dir, seed=seed,
                                opponent_name=name, judge=judge, games=games, level=str(args.opponent),
                                hint_level=getattr(args, "hint_level", None))
        return game.run()
    finally:
        games.close()


def cubeful_game(args, agent, ranker, seed, save_dir, judge, games=None) -> TerminalGame:
    """The game of ``bgrl play --cube ...`` from parsed arguments (``games``: the store, or
    None). ValueError naming the flag for a bad combination (exit status 2)."""
    rules = cube_rules(args)
    start, dice, match = _cube_start(args, rules)
    return TerminalGame(agent, args.color, ranker, np.random.default_rng(seed), rules=rules, match=match,
                        start=start, first_dice=dice, compact=(args.notation == "compact"), opening_roll=args.opening_roll,
                        save_dir=save_dir, seed=seed, opponent_name=getattr(agent, "name", str(args.opponent)),
                        judge=judge, games=games, level=str(args.opponent), hint_level=getattr(args, "hint_level", None))


def _cube_start(args, rules: MatchRules):
    """``(start, dice, match)`` of ``bgrl play --cube --position ID [--dice D]``, or Nones.

    The position may carry the cube and the score (an XGID's cube fields, or gnubg's
    ``PositionID:MatchID``): they are the state of the first game, the player on roll, and
    ``--match`` must then agree with the XGID's match length. ValueError naming the flag
    (exit status 2) for a finished game, --opening-roll with --position, --dice without
    --position, or a match length that differs."""
    from bgrl.rules.cube import CubeState
    from bgrl.rules.dice import parse_dice
    from bgrl.rules.xgid import read_position_cube

    if args.position is None:
        if args.dice is not None:
            raise ValueError("--dice needs --position (the first roll of a practised position)")
        return None, None, None
    if args.opening_roll:
        raise ValueError("--position and --opening-roll exclude each other: in a practised position you are on roll")
    try:
        start, dice, cube = read_position_cube(args.position)
    except ValueError as exc:
        raise ValueError(f"--position: {exc}") from None
    if 15 in start.off:
        raise ValueError(f"--position {start.position_id}: the game is over (a side has borne off all 15 checkers)")
    if args.dice is not None:
        dice = parse_dice(args.dice)
    plain = CubeState()
    if (cube.value, cube.owner, cube.match_length, cube.crawford, cube.jacoby, cube.beavers) == (
            plain.value, plain.owner, plain.match_length, plain.crawford, plain.jacoby, plain.beavers):
        return start, dice, None  # no cube fields: the flags' rules
    if args.match is not None and args.match != cube.match_length:
        raise ValueError(f"--match {args.match} differs from the position's match length {cube.match_length or '0 (money)'}")
    if args.cube_cap is not None:
        from dataclasses import replace

        cube = replace(cube, max_value=rules.max_value)
    match = Match.from_cube_state(cube, args.color)
    return start, dice, match


def _wants_cube(args) -> bool:
    """Whether ``bgrl play`` was given --cube or one of its options."""
    return bool(getattr(args, "cube", False)
                or any(getattr(args, f, None) not in (None, False) for f in ("jacoby", "beavers"))
                or any(getattr(args, f, None) is not None for f in ("match", "cube_cap")))  # --match 0 counts too


# ----------------------------------------------------------------------------- the command
def judge_ranker() -> HintRanker:
    """The judge of ``bgrl play``'s resignations, draws and end-of-game review: the strongest
    level (:data:`bgrl.agents.levels.JUDGE_LEVEL`), whatever the opponent and the hint
    engine (--hint-level, --checkpoint) are."""
    return _load_ranker(JUDGE_LEVEL, name=f"level {JUDGE_LEVEL} (the judge)")


def level_ranker(agent, whose: str = "the opponent's") -> HintRanker:
    """The hint ranker of a level agent (:class:`bgrl.agents.levels.LevelAgent`): its
    noise-free search at its ply, named ``level <name> (<whose>)``."""
    return HintRanker.from_agent(agent, name=f"level {agent.name} ({whose})")


def play_ranker(args):
    """The hint engine of ``bgrl play``, a :class:`bgrl.agents.hints.HintRanker` from
    :func:`bgrl.agents.registry.load_ranker` (the one way from a level or a checkpoint to a
    ranker): --hint-level's search, else --checkpoint at 0-ply, else the hint default's search
    (:data:`bgrl.agents.levels.DEFAULT_HINT_LEVEL`, the same on every surface; never the
    opponent's own level).

    Returns ``load(agent) -> HintRanker`` (``agent`` unused: the hint engine never is the
    opponent). Raises CLIError when --hint-level and --checkpoint are both given or
    --checkpoint is empty, ValueError for an unknown level or an unreadable checkpoint."""
    def load(agent):
        hint_level, checkpoint = getattr(args, "hint_level", None), getattr(args, "checkpoint", None)
        if hint_level is not None and checkpoint is not None:
            raise CLIError("--hint-level and --checkpoint exclude each other: both choose the hint engine")
        if checkpoint is not None:
            if not str(checkpoint).strip():
                raise CLIError("--checkpoint is empty: give the path of a .pt file, a run folder or 'default'")
            ranker = _load_ranker(checkpoint, 0)
            ranker.name = f"network {ranker.network}"
            return ranker
        if hint_level is not None:
            level = check_level(hint_level)
            return _load_ranker(level, name=f"level {level} (--hint-level)")
        # the one hint default everywhere, never the opponent's own level
        return _load_ranker(DEFAULT_HINT_LEVEL, name=f"level {DEFAULT_HINT_LEVEL} (the hint default)")

    return load


def cmd_play(args) -> int:
    """``bgrl play``, with or without the cube, a new game or ``--resume [ID]``."""
    if args.level is not None:
        if args.opponent != "default":
            raise CLIError("--level and --opponent exclude each other: --level LEVEL is --opponent LEVEL")
        args.opponent = check_level(args.level)
    return run_from_args(args, play_ranker(args))


def add_parser(sub) -> None:
    pl = sub.add_parser("play", help="play a game against the computer in the terminal", formatter_class=HelpFormatter,
                        description="A money game (no cube; --cube adds it, --match N plays a match) against the computer in the terminal. The board is drawn "
                        f"and numbered from your side; type 'help' in the game for its commands. {RULES_NOTE}")
    pl.add_argument("--color", "--colour", choices=["white", "black"], default="white",
                    help="your colour; White moves first (default: %(default)s)")
    pl.add_argument("--opponent", default="default", help="random, pubeval, a level name, default (the shipped network), a "
                    "checkpoint file or a run folder (default: %(default)s)")
    pl.add_argument("--level", default=None, help="play against this level (see bgrl levels); the same as --opponent LEVEL")
    pl.add_argument("--seed", type=int, default=None, help="seed of the dice, >= 0 (default: a fresh random seed, "
                    "written to the game record)")
    pl.add_argument("--opening-roll", action="store_true", help="docs/rules.md option: each side throws one die, the "
                    "higher moves first with both (default: off)")
    pl.add_argument("--hint-level", metavar="LEVEL", default=None, help="level whose noise-free search gives the hints "
                    "(default: the hint default of every surface, world-class; see bgrl levels); resignations, draws and "
                    "the end-of-game review are always judged by world-class, the strongest 1-ply level")
    pl.add_argument("--checkpoint", metavar="PATH", help="network that gives the hints at 0-ply "
                    "(default: none: the hint default level, world-class, gives the hints)")
    pl.add_argument("--position", metavar="ID", help="practise a position: start from this Position ID or XGID with "
                    "you on roll (default: the start position)")
    pl.add_argument("--dice", metavar="D", help="your first roll with --position, e.g. 31 (default: the XGID's dice, "
                    "else a random roll)")
    pl.add_argument("--notation", choices=["compact", "dice"], default="compact", help="how plays are shown: "
                    "'compact' = gnubg style (24/13, 6/5(2)), 'dice' = one move per die (default: %(default)s)")
    pl.add_argument("--save", metavar="DIR", help="folder for the game record, bgrl-game-1 JSON lines "
                    "(default: $BGRL_GAMES_DIR, else ~/.bgrl/games)")
    pl.add_argument("--no-save", action="store_true", help="do not save a game record file (default: off; the game is "
                    "kept in the store all the same)")
    pl.add_argument("--store", metavar="URL", default=None, help="the store of games, shared with the web board and bgrl "
                    "games: sqlite:///PATH or postgresql://user:password@host:port/db (default: $BGRL_STORE, else "
                    "bgrl.db in the user's bgrl folder, ~/.bgrl)")
    pl.add_argument("--resume", metavar="ID", nargs="?", const="", default=None, help="resume an unfinished game of this "
                    "player from the store: game ID, or without ID the newest unfinished one (default: a new game)")
    _add_cube_flags(pl)
    pl.set_defaults(func=cmd_play)


def _add_cube_flags(pl) -> None:
    """``bgrl play``'s cube options (docs/cube.md)."""
    pl.add_argument("--cube", action="store_true", help="play with the doubling cube: type 'double' before you roll, "
                    "'take'/'pass' when the computer doubles; a money session, or a match with --match (default: off)")
    pl.add_argument("--match", type=int, metavar="N", default=None, help="with --cube: play an N-point match "
                    "(Crawford rule) (default: money play)")
    pl.add_argument("--jacoby", action="store_true", help="with --cube, money: the Jacoby rule (default: off)")
    pl.add_argument("--beavers", action="store_true", help="with --cube, money: beavers allowed (default: off)")
    pl.add_argument("--cube-cap", type=int, metavar="V", default=None, help="with --cube: the largest cube value, a "
                    "power of 2 (default: 32768)")

