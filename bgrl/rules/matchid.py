"""GNU Backgammon's Match ID: read and write, beside the Position ID. numpy-free.

The Match ID is the 12-character Base64 text of a 66-bit *match key* (padded to 9 bytes),
bit 1 being the lowest bit of the first byte, as GNU Backgammon's manual ("A technical
description of the Match ID") lays it out; the fields, by 1-based bit:

=========  ===========================================================================
bits       field
=========  ===========================================================================
1-4        log2 of the cube value
5-6        cube owner: 00 player 0, 01 player 1, 11 centred
7          the player on roll (or who rolled): 0 or 1
8          Crawford game
9-11       game state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a dropped cube
12         whose turn it is to decide (differs from bit 7 while a double or resignation is
           pending)
13         a double is offered
14-15      resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
16-18      first die (0 = not rolled)
19-21      second die
22-36      match length (0 = money game)
37-51      player 0's score
52-66      player 1's score
=========  ===========================================================================

The manual's worked example ``QYkqASAAIAAA`` (score 2-4 to 9, player 0 holding a 2-cube,
player 1 has rolled 5-2) is a test. :func:`cube_state` turns a key into a
:class:`bgrl.rules.cube.CubeState` from the side on roll, :func:`match_id` writes one.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from bgrl.rules.cube import CubeState

__all__ = ["MatchKey", "MatchIDError", "decode_match_id", "encode_match_id", "cube_state", "match_id", "looks_like_match_id"]

# (name, first bit 0-based, width)
_FIELDS = (("cube_log2", 0, 4), ("owner", 4, 2), ("on_roll", 6, 1), ("crawford", 7, 1), ("game_state", 8, 3),
           ("turn", 11, 1), ("doubled", 12, 1), ("resign", 13, 2), ("die1", 15, 3), ("die2", 18, 3),
           ("match_length", 21, 15), ("score0", 36, 15), ("score1", 51, 15))
_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class MatchIDError(ValueError):
    """A Match ID that cannot be read."""


@dataclass(frozen=True)
class MatchKey:
    """The fields of a Match ID (module docstring); ``owner`` is 0, 1 or 3 (centred)."""

    cube_log2: int = 0
    owner: int = 3
    on_roll: int = 1
    crawford: int = 0
    game_state: int = 1
    turn: int = 1
    doubled: int = 0
    resign: int = 0
    die1: int = 0
    die2: int = 0
    match_length: int = 0
    score0: int = 0
    score1: int = 0


def looks_like_match_id(text: str) -> bool:
    t = text.strip()
    return len(t) == 12 and set(t) <= _B64


def decode_match_id(mid: str) -> MatchKey:
    """The fields of a Match ID. MatchIDError (a ValueError) for text that is not 12 Base64
    characters, or for an owner code 10 (unused)."""
    if not isinstance(mid, str):
        raise TypeError(f"a Match ID must be a str, got {type(mid).__name__}")
    t = mid.strip()
    if not looks_like_match_id(t):
        raise MatchIDError(f"Match ID {t[:20]!r} must be 12 Base64 characters (A-Z a-z 0-9 + /), e.g. QYkqASAAIAAA")
    try:
        raw = base64.b64decode(t, validate=True)
    except (binascii.Error, ValueError):  # pragma: no cover - 12 valid chars always decode
        raise MatchIDError(f"Match ID {t!r} is not valid Base64") from None
    key = int.from_bytes(raw, "little")
    vals = {name: (key >> lo) & ((1 << w) - 1) for name, lo, w in _FIELDS}
    if vals["owner"] == 2:
        raise MatchIDError(f"Match ID {t!r}: cube owner code 10 is not used (00, 01 or 11)")
    return MatchKey(**vals)


def encode_match_id(key: MatchKey) -> str:
    """The Match ID of a key. ValueError for a field out of its bit width."""
    v = 0
    for name, lo, w in _FIELDS:
        x = int(getattr(key, name))
        if not 0 <= x < (1 << w):
            raise ValueError(f"Match ID field {name} = {x} does not fit in {w} bits")
        v |= x << lo
    return base64.b64encode(v.to_bytes(9, "little")).decode("ascii")


def cube_state(key: MatchKey, jacoby: bool = False, beavers: bool = False) -> tuple[CubeState, tuple[int, int] | None]:
    """``(CubeState from the player on roll, dice or None)`` of a key.

    Raises ValueError for a pending double or resignation (not a position of the side on
    roll), or for a score the CubeState refuses (at or above the match length).
    """
    if key.doubled:
        raise ValueError("the Match ID has a double pending; give the position before the double")
    if key.resign:
        raise ValueError("the Match ID has a resignation pending; give the position before it")
    me = key.on_roll
    owner = 0 if key.owner == 3 else (1 if key.owner == me else -1)
    scores = (key.score0, key.score1)
    score = (scores[me], scores[1 - me])
    dice = None
    if key.die1 or key.die2:
        if not (1 <= key.die1 <= 6 and 1 <= key.die2 <= 6):
            raise ValueError(f"the Match ID's dice must be 1-6 (or both 0), got {key.die1} and {key.die2}")
        dice = (max(key.die1, key.die2), min(key.die1, key.die2))
    cs = CubeState(value=2 ** key.cube_log2, owner=owner, match_length=key.match_length,
                   score=score if key.match_length else (0, 0), crawford=bool(key.crawford) and key.match_length > 0,
                   jacoby=jacoby and not key.match_length, beavers=beavers and not key.match_length)
    return cs, dice


def match_id(cube: CubeState | None = None, dice=None, player_on_roll: int = 1) -> str:
    """The Match ID of a game being played with ``cube`` (from the side on roll, default the
    money game's centred cube) and ``dice`` (None: not rolled yet); the side on roll is
    gnubg's player ``player_on_roll`` (0 or 1)."""
    cube = CubeState() if cube is None else cube
    if player_on_roll not in (0, 1):
        raise ValueError(f"player_on_roll must be 0 or 1, got {player_on_roll!r}")
    me = player_on_roll
    owner = 3 if cube.owner == 0 else (me if cube.owner == 1 else 1 - me)
    s = [0, 0]
    s[me], s[1 - me] = cube.score
    d1, d2 = (0, 0) if dice is None else (int(dice[0]), int(dice[1]))
    return encode_match_id(MatchKey(cube_log2=cube.value.bit_length() - 1, owner=owner, on_roll=me,
                                    crawford=int(cube.crawford), game_state=1, turn=me, die1=d1, die2=d2,
                                    match_length=cube.match_length, score0=s[0], score1=s[1]))
