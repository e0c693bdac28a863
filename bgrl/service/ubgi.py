"""UBGI v0.2 engine protocol over stdin/stdout (``bgrl ubgi``).

UBGI (Universal Backgammon Interface) is the line protocol of the bgci duelling tool; the
v0.2 spec is ``docs/ubgi-v0.2-spec.md`` in https://github.com/bungogood/bgci. bgrl speaks the
required playable core:

=====================================  ==================================================
controller -> engine                   engine -> controller
=====================================  ==================================================
``ubgi``                               ``id name``, ``id author``, ``proto 0.2``, ``key`` lines, ``ubgiok``
``isready``                            ``readyok`` (the levels are loaded here, once)
``newgame``                            (nothing; forgets position and dice)
``position gnubgid <ID>``              (nothing) gnubg Position ID, the side on roll moves
``position xgid <XGID>``               (nothing); the XGID's dice, if any, are set too
``dice <d1> <d2>``                     (nothing)
``go`` / ``go chequer``                ``info depth <ply> time_ms <t>``, then ``bestmove <play>``
``go cube``                            ``info ...``, then ``bestcube double|nodouble``: the money
                                       cube decision before the roll, centred cube (docs/cube.md)
``go turn``                            ``error unsupported ...``
``set <key> <value>`` / ``get <key>``  (nothing) / ``value <key> <value>``
``keys``                               ``key`` lines
``quit``                               (the engine exits)
=====================================  ==================================================

Keys: ``engine.level`` (the level table's names, default ``expert``), ``engine.ply`` (see
below), ``engine.seed`` (seed of noisy levels; the same seed, position, dice and level give
the same play), ``game.variant`` (``backgammon`` only).

Ply: UBGI's ``engine.ply`` is root-inclusive: 1 = every legal play judged by the network
without lookahead. That is gnubg's (and bgrl's) 0-ply, so ``engine.ply = bgrl ply + 1``.
Setting it overrides the level's search depth (the level's noise stays); ``set
engine.level`` goes back to the level's own depth.

``bestmove`` payload: one ``from/to`` token per die in the mover's numbering, ``bar`` and
``off`` spelled out, no hit marks or repeat counts, in an order that can be applied token
by token (``bestmove 8/5 6/5``, ``bestmove bar/22 24/22``, ``bestmove pass``).

Errors: ``error bad_command|bad_value|bad_state|unsupported <detail>``; the engine carries on.
"""

from __future__ import annotations

import time

from bgrl._version import UBGI_VERSION, __version__
from bgrl.agents.cube import pre_roll_decision
from bgrl.agents.levels import DEFAULT_PLAY_LEVEL, LEVEL_NAMES, LEVELS
from bgrl.agents.search import MAX_PLY
from bgrl.service.engine import MAX_SEED, Engine, ServiceError, parse_position, plain_notation

__all__ = ["UbgiSession", "main_loop", "PROTOCOL_VERSION"]

#: The protocol version (defined once, in :mod:`bgrl._version`, where ``bgrl ubgi --help`` reads it too).
PROTOCOL_VERSION = UBGI_VERSION


class _Err(Exception):
    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


class UbgiSession:
    """One controller session. ``write(line)`` sends a line; ``engine_factory()`` builds the
    :class:`bgrl.service.engine.Engine` (called once, at the first ``isready`` or ``go``).
    :meth:`handle` takes one input line and returns False after ``quit``."""

    def __init__(self, write, engine_factory=None):
        self.write = write
        self.engine_factory = engine_factory
        self.engine = None
        self.position = None
        self.dice = None
        self.level = DEFAULT_PLAY_LEVEL
        self.ply: int | None = None  # UBGI ply override (None = the level's)
        self.seed = 0

    # ---- engine
    def _engine(self):
        if self.engine is None:
            if self.engine_factory is None:
                self.engine_factory = Engine
            try:
                self.engine = self.engine_factory()
            except Exception as exc:  # a corrupt or missing model: say so, stay alive
                raise _Err("bad_state", f"engine failed to load: {exc}") from None
        return self.engine

    @staticmethod
    def _max_ply() -> int:
        """Deepest UBGI ply (root-inclusive): gnubg's deepest + 1."""
        return int(MAX_PLY) + 1

    # ---- output helpers
    def _key_lines(self) -> list[str]:
        lines = [f"key engine.level enum {'|'.join(LEVEL_NAMES)} {DEFAULT_PLAY_LEVEL} playing level (bgrl levels table)"]
        lines.append(f"key engine.ply int 1..{self._max_ply()} {self._current_ply()} root-inclusive decision depth (UBGI 1-ply = gnubg 0-ply)")
        lines.append("key engine.seed int * 0 ! seed of noisy levels")
        lines.append("key game.variant enum backgammon backgammon")
        return lines

    def _current_ply(self) -> int:
        if self.ply is not None:
            return self.ply
        if self.engine is not None:
            return self.engine.level(self.level).ply + 1
        return LEVELS[self.level].ply + 1

    # ---- commands
    def handle(self, line: str) -> bool:
        toks = line.split()
        if not toks:
            return True
        cmd, args = toks[0], toks[1:]
        try:
            if cmd == "quit":
                return False
            handler = getattr(self, f"_cmd_{cmd}", None)
            if handler is None:
                raise _Err("bad_command", f"unknown command {cmd[:40]}")
            handler(args)
        except _Err as e:
            self.write(f"error {e.code} {e.detail}")
        return True

    def _cmd_ubgi(self, args):
        self.write(f"id name bgrl {__version__}")
        self.write("id author bgrl developers")
        self.write(f"proto {PROTOCOL_VERSION}")
        for k in self._key_lines():
            self.write(k)
        self.write("ubgiok")

    def _cmd_isready(self, args):
        self._engine()
        self.write("readyok")

    def _cmd_newgame(self, args):
        self.position = None
        self.dice = None

    def _cmd_keys(self, args):
        for k in self._key_lines():
            self.write(k)

    def _cmd_position(self, args):
        if len(args) < 2 or args[0] not in ("gnubgid", "xgid"):
            raise _Err("bad_command", "expected: position gnubgid <ID> | position xgid <XGID>")
        if args[0] == "gnubgid" and len(args) != 2:
            raise _Err("bad_command", "expected: position gnubgid <ID>")
        try:
            if args[0] == "gnubgid":
                pos, dice = parse_position(gnubg_id=args[1])
            else:
                pos, dice = parse_position(xgid=" ".join(args[1:]))
        except ServiceError as e:
            raise _Err("bad_value", e.message) from None
        self.position = pos
        if dice is not None:
            self.dice = dice

    def _cmd_dice(self, args):
        if len(args) != 2:
            raise _Err("bad_command", "expected: dice <d1> <d2>")
        try:
            d = tuple(int(a) for a in args)
        except ValueError:
            raise _Err("bad_value", "dice must be two integers 1..6") from None
        if not all(1 <= x <= 6 for x in d):
            raise _Err("bad_value", "dice must_be 1..6")
        self.dice = d

    def _cmd_go(self, args):
        kind = args[0] if args else "chequer"
        if kind == "cube" and len(args) == 1:
            return self._go_cube()
        if kind == "turn":
            raise _Err("unsupported", "go turn (cube and chequer in one answer is not built)")
        if kind != "chequer" or len(args) > 1:
            raise _Err("bad_command", "expected: go | go chequer")
        if self.position is None:
            raise _Err("bad_state", "missing position")
        if self.dice is None:
            raise _Err("bad_state", "missing dice")
        eng = self._engine()
        t0 = time.perf_counter()
        try:
            r = eng.move(self.position, self.dice, self.level, self.seed, ply=None if self.ply is None else self.ply - 1)
        except ServiceError as e:
            raise _Err("bad_state", e.message) from None
        ms = (time.perf_counter() - t0) * 1000.0
        self.write(f"info depth {r.ply + 1} time_ms {ms:.1f} level {self.level}")
        self.write(f"bestmove {plain_notation(r.play)}")

    def _go_cube(self):
        """``go cube``: the level's money cube decision for the side on roll before it rolls,
        the cube centred (bgrl.evaluation.cube; the level's own ply)."""
        if self.position is None:
            raise _Err("bad_state", "missing position")
        eng = self._engine()
        t0 = time.perf_counter()
        try:
            probs, ply = eng.evaluate(self.position, self.level)
        except ServiceError as e:
            raise _Err("bad_state", e.message) from None
        d = pre_roll_decision(self.position, probs)
        ms = (time.perf_counter() - t0) * 1000.0
        self.write(f"info depth {ply + 1} time_ms {ms:.1f} level {self.level} score {d.no_double:.4f} "
                   f"decision {d.decision.replace(', ', '/').replace(' ', '-')}")
        self.write(f"bestcube {'double' if d.decision in ('double, take', 'double, pass') else 'nodouble'}")

    def _cmd_set(self, args):
        if len(args) != 2:
            raise _Err("bad_command", "expected: set <key> <value>")
        key, val = args
        if key == "engine.level":
            if val not in LEVEL_NAMES:
                raise _Err("bad_value", f"engine.level must_be {'|'.join(LEVEL_NAMES)}")
            self.level = val
            self.ply = None
        elif key == "engine.ply":
            hi = self._max_ply()
            try:
                n = int(val)
            except ValueError:
                raise _Err("bad_value", f"engine.ply must_be 1..{hi}") from None
            if not 1 <= n <= hi:
                raise _Err("bad_value", f"engine.ply must_be 1..{hi}")
            self.ply = n
        elif key == "engine.seed":
            try:
                n = int(val)
            except ValueError:
                raise _Err("bad_value", "engine.seed must_be an integer 0..2^63-1") from None
            if not 0 <= n <= MAX_SEED:
                raise _Err("bad_value", "engine.seed must_be an integer 0..2^63-1")
            self.seed = n
        elif key == "game.variant":
            if val != "backgammon":
                raise _Err("unsupported", f"game.variant {val[:40]}")
        else:
            raise _Err("unsupported", f"key {key[:40]}")

    def _cmd_get(self, args):
        if len(args) != 1:
            raise _Err("bad_command", "expected: get <key>")
        key = args[0]
        if key == "engine.level":
            v = self.level
        elif key == "engine.ply":
            v = str(self._current_ply())
        elif key == "engine.seed":
            v = str(self.seed)
        elif key == "game.variant":
            v = "backgammon"
        else:
            raise _Err("unsupported", f"key {key[:40]}")
        self.write(f"value {key} {v}")


#: The longest command line read (characters); a longer one is skipped with ``error bad_value``,
#: so that one line cannot grow the engine's memory without bound.
MAX_LINE = 65536


def main_loop(stdin, stdout, engine_factory=None) -> int:
    """Run a session until ``quit`` or end of input. Returns the exit status (0)."""

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass
    session = UbgiSession(write, engine_factory)
    while raw := stdin.readline(MAX_LINE + 1):  # one line at a time: a controller waits for each answer
        if len(raw) > MAX_LINE and not raw.endswith("\n"):  # an over-long line: skipped to its end, unread
            while (rest := stdin.readline(MAX_LINE + 1)) and not rest.endswith("\n"):
                pass
            write(f"error bad_value a line of more than {MAX_LINE} characters (expected one command a line)")
            if not rest:
                break
            continue
        if not session.handle(raw.strip()):
            break
    return 0
