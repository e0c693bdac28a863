"""XGID (eXtreme Gammon's position string) for money games without a cube, and the one
reader of positions typed by a user (:func:`read_position`).

An XGID is ``XGID=`` followed by ten fields separated by colons::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10
         position                  | | | |  | | | | max cube (log2)
                                   | | | |  | | | match length (0 = money game)
                                   | | | |  | | Crawford (match) / Jacoby and beaver flags (money)
                                   | | | |  | score of the top player
                                   | | | |  score of the bottom player
                                   | | | dice: two digits, 00 = not rolled yet (D/B/R = cube action)
                                   | | side on roll: 1 = bottom player, -1 = top player
                                   | cube owner: 0 centred, 1 bottom player, -1 top player
                                   cube value as a power of 2 (0 = cube at 1)

The position field has 26 characters in the *bottom* player's numbering: character 0 is the
top player's bar, characters 1..24 the bottom player's points 1..24, character 25 the
bottom player's bar. ``-`` is an empty point, ``A``..``O`` are 1..15 checkers of the bottom
player and ``a``..``o`` 1..15 checkers of the top player. (Field meanings as documented by
eXtreme Gammon and used by the tools that exchange XGIDs; summarised here in our words.)

That layout is exactly bgrl's board encoding (:mod:`bgrl.rules.board`) with the bottom player as
the mover, so the bottom player on roll reads straight into a board, and the top player on
roll is the same board flipped.

By default bgrl plays money games without a doubling cube: :func:`parse_xgid` and
:func:`read_position` refuse an XGID with a turned or owned cube, a pending cube action, or a
match length with a clear error. The cube is an optional rule: :func:`parse_xgid_cube` and
:func:`read_position_cube` read the cube value, owner, match length, score, Crawford and the
money-game Jacoby/beaver flags into a :class:`bgrl.rules.cube.CubeState` as well, and
:func:`read_position_cube` also reads GNU Backgammon's ``PositionID:MatchID`` pair
(:mod:`bgrl.rules.matchid`). Field 8 holds, in a match, 1 for the Crawford game; in a money
game, bit 1 the Jacoby rule and bit 2 beavers. Field 10 is log2 of the cube's cap.
"""

from __future__ import annotations

import numpy as np

from bgrl.rules.board import NUM_CHECKERS, Position, board_from_position_id, flip, validate_board
from bgrl.rules.cube import CubeState
from bgrl.rules.dice import parse_dice, validate_dice

__all__ = ["XGIDError", "parse_xgid", "parse_xgid_cube", "to_xgid", "read_position", "read_position_cube",
           "looks_like_xgid"]

_PREFIX = "XGID="
_EXAMPLE = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


class XGIDError(ValueError):
    """An XGID that cannot be read or that describes something bgrl does not play."""


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def looks_like_xgid(text: str) -> bool:
    """True when ``text`` is meant as an XGID (``XGID=`` prefix or colon-separated fields)."""
    t = text.strip()
    return t.upper().startswith(_PREFIX) or ":" in t


def _int_field(fields: list[str], i: int, name: str, shown: str) -> int:
    """Field ``i`` as an integer written in ASCII digits with an optional leading ``-``
    (Python's ``int`` would also take spaces, ``+``, ``_`` and non-ASCII digits)."""
    text = fields[i]
    digits = text[1:] if text.startswith("-") else text
    try:
        if not (digits.isascii() and digits.isdigit()):
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise XGIDError(f"XGID {shown}: field {i + 1} ({name}) must be an integer, got {_short(fields[i], 12)!r}") from None


def parse_xgid(text: str) -> tuple[Position, tuple[int, int] | None]:
    """Read an XGID of a money game without a cube.

    Parameters
    ----------
    text : str, e.g. ``"XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"`` (the
        ``XGID=`` prefix may be left out; the last field, max cube, may be omitted).

    Returns
    -------
    (Position, dice) : the position from the side on roll (the mover), and the dice as
        ``(high, low)`` or None when the XGID says the dice are not rolled yet (``00``).

    Raises
    ------
    XGIDError (a ValueError)
        naming the field that is wrong: not 9-10 fields, a position that is not 26
        characters of ``-``, ``a``-``o``, ``A``-``O``, a bar holding the wrong side's
        checkers, more than 15 checkers a side, side on roll not 1 or -1, bad dice, or a
        cube, cube action or match length (bgrl plays money games without a cube).
    """
    if not isinstance(text, str):
        raise TypeError(f"an XGID must be a str, got {type(text).__name__}")
    t = text.strip()
    shown = repr(_short(t))
    if t.upper().startswith(_PREFIX):
        t = t[len(_PREFIX):]
    fields = t.split(":")
    if len(fields) not in (9, 10):
        raise XGIDError(f"XGID {shown} has {len(fields)} fields; expected 10 separated by ':', e.g. {_EXAMPLE}")
    pos = fields[0]
    if len(pos) != 26:
        raise XGIDError(f"XGID {shown}: the position field must have 26 characters, got {len(pos)}")
    counts = np.zeros(26, dtype=np.int64)  # bgrl board, bottom player = mover
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        if "A" <= ch <= "O":
            counts[i] = ord(ch) - ord("A") + 1
        elif "a" <= ch <= "o":
            counts[i] = -(ord(ch) - ord("a") + 1)
        else:
            raise XGIDError(
                f"XGID {shown}: position character {i + 1} is {ch!r}; expected '-', 'A'-'O' (bottom player's "
                "checkers, 1-15) or 'a'-'o' (top player's)"
            )
    if counts[0] > 0:
        raise XGIDError(f"XGID {shown}: character 1 is the top player's bar, but holds the bottom player's checkers")
    if counts[25] < 0:
        raise XGIDError(f"XGID {shown}: character 26 is the bottom player's bar, but holds the top player's checkers")
    for name, n in (("bottom", int(np.maximum(counts, 0).sum())), ("top", int(-np.minimum(counts, 0).sum()))):
        if n > NUM_CHECKERS:
            raise XGIDError(f"XGID {shown} gives the {name} player {n} checkers; expected at most 15")
    cube = _int_field(fields, 1, "cube value", shown)
    owner = _int_field(fields, 2, "cube owner", shown)
    turn = _int_field(fields, 3, "side on roll", shown)
    if turn not in (1, -1):
        raise XGIDError(f"XGID {shown}: field 4 (side on roll) must be 1 (bottom player) or -1 (top player), got {turn}")
    dice_txt = fields[4]
    if dice_txt.upper() in ("D", "B", "R"):
        raise XGIDError(f"XGID {shown}: field 5 is a cube action ({dice_txt!r}); bgrl plays without a doubling cube")
    if cube != 0 or owner != 0:
        raise XGIDError(
            f"XGID {shown}: the cube is at {2 ** cube if 0 <= cube < 16 else cube} "
            f"{'centred' if owner == 0 else 'owned'}; bgrl plays money games without a doubling cube "
            "(fields 2 and 3 must be 0)"
        )
    for i, name in ((5, "bottom player's score"), (6, "top player's score"), (7, "Crawford/Jacoby flags")):
        _int_field(fields, i, name, shown)
    length = _int_field(fields, 8, "match length", shown)
    if length != 0:
        raise XGIDError(f"XGID {shown}: match length {length}; bgrl plays money games only (field 9 must be 0)")
    if len(fields) == 10:
        _int_field(fields, 9, "max cube", shown)
    if len(dice_txt) != 2 or not (dice_txt.isascii() and dice_txt.isdigit()):
        raise XGIDError(f"XGID {shown}: field 5 (dice) must be two digits like 31, or 00 before the roll; got {_short(dice_txt, 12)!r}")
    dice = None
    if dice_txt != "00":
        a, b = int(dice_txt[0]), int(dice_txt[1])
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise XGIDError(f"XGID {shown}: field 5 (dice) must be two digits 1-6 (or 00), got {dice_txt!r}")
        dice = (max(a, b), min(a, b))
    try:
        board = validate_board(counts)
    except ValueError as exc:  # pragma: no cover - the checks above cover validate_board's
        raise XGIDError(f"XGID {shown}: {exc}") from None
    if turn == -1:
        board = flip(board)
    return Position(board), dice


def _position_field(board: np.ndarray) -> str:
    chars = []
    for v in np.asarray(board, dtype=np.int64).tolist():
        if v == 0:
            chars.append("-")
        elif v > 0:
            chars.append(chr(ord("A") + v - 1))
        else:
            chars.append(chr(ord("a") - v - 1))
    return "".join(chars)


def to_xgid(position, dice=None, bottom_on_roll: bool = True, cube: CubeState | None = None) -> str:
    """Write the XGID of a position (money game without a cube unless ``cube`` is given).

    Parameters
    ----------
    position : Position, Position ID str, or board int8 (26,) from the side on roll.
    dice : pair of ints 1..6 or None (written ``00``: not rolled yet); written high die first.
    bottom_on_roll : True (default): the side on roll is the XGID's bottom player (turn 1);
        False: it is the top player (turn -1), the position field then numbered from the
        other side.
    cube : CubeState from the side on roll, optional: writes the cube, score, flags and cap.

    Returns
    -------
    str, e.g. ``"XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"``.
    """
    if isinstance(position, Position):
        board = position.board
    elif isinstance(position, str):
        board = board_from_position_id(position)
    else:
        board = validate_board(position)
    if dice is None:
        d = "00"
    else:
        a, b = validate_dice(dice)
        d = f"{max(a, b)}{min(a, b)}"
    field = _position_field(board if bottom_on_roll else flip(board))
    turn = 1 if bottom_on_roll else -1
    if cube is None:
        return f"{_PREFIX}{field}:0:0:{turn}:{d}:0:0:0:0:10"
    owner = cube.owner * turn  # XGID: 1 = bottom player, -1 = top player
    mine, theirs = cube.score
    bottom, top = (mine, theirs) if bottom_on_roll else (theirs, mine)
    flags = int(cube.crawford) if cube.is_match else int(cube.jacoby) + 2 * int(cube.beavers)
    cap = cube.max_value.bit_length() - 1
    return (f"{_PREFIX}{field}:{cube.value.bit_length() - 1}:{owner}:{turn}:{d}:{bottom}:{top}:{flags}:"
            f"{cube.match_length}:{cap}")


def parse_xgid_cube(text: str) -> tuple[Position, tuple[int, int] | None, CubeState]:
    """Read an XGID with its cube and match fields (the optional rules).

    Parameters
    ----------
    text : str, an XGID (module docstring), e.g. ``"XGID=-b----E-C---eE---c-e----B-:1:1:-1:00:3:2:0:7:10"``.

    Returns
    -------
    (Position, dice, CubeState) : the position and the CubeState from the side on roll (its
        owner 1 when the side on roll owns the cube; its score first); dice ``(high, low)``
        or None before the roll (``00``). Without field 10 the cap is the default
        (:data:`bgrl.rules.cube.DEFAULT_MAX_CUBE`).

    Raises
    ------
    XGIDError (a ValueError)
        what :func:`parse_xgid` refuses except the cube and match fields, and: a pending cube
        action (field 5 ``D``/``B``/``R``), a cube value field outside 0..15 (the cube is
        always a power of 2), an owner not in -1, 0, 1, a centred cube above 1, a score at or
        above the match length, Crawford without a side 1 away, Jacoby/beaver flags in a match.
    """
    if not isinstance(text, str):
        raise TypeError(f"an XGID must be a str, got {type(text).__name__}")
    t = text.strip()
    shown = repr(_short(t))
    body = t[len(_PREFIX):] if t.upper().startswith(_PREFIX) else t
    fields = body.split(":")
    if len(fields) not in (9, 10):
        raise XGIDError(f"XGID {shown} has {len(fields)} fields; expected 10 separated by ':', e.g. {_EXAMPLE}")
    if fields[4].upper() in ("D", "B", "R"):
        raise XGIDError(f"XGID {shown}: field 5 is a pending cube action ({fields[4]!r}); give the position before "
                        "the double (dice 00) for the cube decision")
    cube_log = _int_field(fields, 1, "cube value", shown)
    owner = _int_field(fields, 2, "cube owner", shown)
    bottom = _int_field(fields, 5, "bottom player's score", shown)
    top = _int_field(fields, 6, "top player's score", shown)
    flags = _int_field(fields, 7, "Crawford/Jacoby flags", shown)
    length = _int_field(fields, 8, "match length", shown)
    cap_log = _int_field(fields, 9, "max cube", shown) if len(fields) == 10 else None
    plain = ":".join([fields[0], "0", "0", fields[3], fields[4], "0", "0", "0", "0"])
    try:
        pos, dice = parse_xgid(plain)
    except XGIDError as exc:  # name the XGID as it was given, not the cube-free copy read here
        raise XGIDError(str(exc).replace(repr(_short(plain)), shown)) from None
    turn = int(fields[3])
    if not 0 <= cube_log <= 15:
        raise XGIDError(f"XGID {shown}: field 2 (cube value as a power of 2) must be 0..15, got {cube_log}")
    if owner not in (-1, 0, 1):
        raise XGIDError(f"XGID {shown}: field 3 (cube owner) must be 0 (centred), 1 (bottom) or -1 (top), got {owner}")
    if not 0 <= flags <= 3:
        raise XGIDError(f"XGID {shown}: field 8 (Crawford/Jacoby flags) must be 0..3, got {flags}")
    if cap_log is not None and not 0 <= cap_log <= 15:
        raise XGIDError(f"XGID {shown}: field 10 (max cube as a power of 2) must be 0..15, got {cap_log}")
    if length and flags > 1:
        raise XGIDError(f"XGID {shown}: field 8 must be 0 or 1 (the Crawford flag) in a match; Jacoby and beavers "
                        f"(1, 2) are money-game options; got {flags}")
    if cap_log is not None and cube_log > cap_log:
        raise XGIDError(f"XGID {shown}: the cube at {2 ** cube_log} is above the max cube {2 ** cap_log} (field 10)")
    if owner != 0 and cube_log == 0:
        raise XGIDError(f"XGID {shown}: an owned cube is at 2 or more (field 2 must be >= 1 when field 3 is {owner})")
    score = (bottom, top) if turn == 1 else (top, bottom)
    try:
        cube = CubeState(value=2 ** cube_log, owner=owner * turn, match_length=length,
                         score=score,
                         crawford=bool(flags & 1) if length else False,
                         jacoby=bool(flags & 1) if not length else False,
                         beavers=bool(flags & 2) if not length else False,
                         max_value=2 ** cap_log if cap_log is not None else 2 ** 15)
    except ValueError as exc:
        raise XGIDError(f"XGID {shown}: {exc}") from None
    return pos, dice, cube


def read_position(text: str) -> tuple[Position, tuple[int, int] | None]:
    """The one reader of a position typed by a user (``bgrl moves``, ``hint``, ``play``).

    ``text`` is a gnubg Position ID (as GNU Backgammon shows it for the side on roll, e.g.
    ``4HPwATDgc/ABMA``) or an XGID (see :func:`parse_xgid`; recognised by its ``XGID=``
    prefix or its colons).

    Returns
    -------
    (Position, dice) : the position from the side on roll, and the XGID's dice (high die
        first) or None (a Position ID carries no dice; an XGID may say ``00``).

    Raises
    ------
    TypeError for a non-str; ValueError (XGIDError for XGIDs) naming what was expected.
    """
    if not isinstance(text, str):
        raise TypeError(f"a position must be a str (Position ID or XGID), got {type(text).__name__}")
    t = text.strip()
    if not t.upper().startswith(_PREFIX) and t.count(":") == 1 and len(t.split(":")[0]) == 14 and len(t.split(":")[1]) == 12:
        raise ValueError(f"{_short(t)!r} looks like a GNU Backgammon ID (Position ID:Match ID); "
                         f"give the Position ID alone ({t.split(':')[0]!r}) with the dice, or an XGID")
    if looks_like_xgid(text):
        return parse_xgid(text)
    return Position.from_id(text), None


def read_position_cube(text: str) -> tuple[Position, tuple[int, int] | None, CubeState]:
    """The reader of a position with its cube and match state (the optional rules).

    ``text`` is a gnubg Position ID (the money game's centred cube), GNU Backgammon's
    ``PositionID:MatchID`` pair (:mod:`bgrl.rules.matchid`), or an XGID
    (:func:`parse_xgid_cube`).

    Returns (Position, dice or None, CubeState), all from the side on roll.
    Raises TypeError for a non-str; ValueError naming what was expected.
    """
    from bgrl.rules.matchid import cube_state, decode_match_id

    if not isinstance(text, str):
        raise TypeError(f"a position must be a str (Position ID, Position ID:Match ID or XGID), got {type(text).__name__}")
    t = text.strip()
    if not t.upper().startswith(_PREFIX) and t.count(":") == 1:
        pid, mid = t.split(":")
        pos = Position.from_id(pid)
        cube, dice = cube_state(decode_match_id(mid))
        return pos, dice, cube
    if looks_like_xgid(t):
        return parse_xgid_cube(t)
    return Position.from_id(t), None, CubeState()


def position_and_dice(position, dice=None) -> tuple[Position, tuple[int, int]]:
    """A reader of one decision typed as text, for the edges (scripts, front ends).

    The engine (``Agent.choose_play``, ``bgrl.hint``, ``HintRanker``) takes a Position and a
    roll only; this turns text into them first.

    position : a :class:`Position`, a gnubg Position ID or an XGID (str);
    dice : a pair of ints 1..6, text like ``"53"`` / ``"5-3"``, or None to use the XGID's dice.
    Returns (Position of the side on roll, (die, die)).

    Raises ValueError (TypeError for a non-text, non-pair ``dice``) naming what was expected.
    """
    if isinstance(position, Position):
        pos, xgid_dice = position, None
    elif isinstance(position, str):
        pos, xgid_dice = read_position(position)
    else:
        raise TypeError(f"position must be a Position, a gnubg Position ID or an XGID (str), got {type(position).__name__}")
    if dice is None:
        if xgid_dice is None:
            raise ValueError("dice are needed: a pair of ints 1..6 or text like '53' (only an XGID with dice may omit them)")
        return pos, xgid_dice
    return pos, parse_dice(dice)
