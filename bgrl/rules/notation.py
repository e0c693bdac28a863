"""Play notation and the user-facing list of legal plays (numpy only).

Notation is in the mover's numbering, one checker move per die, as in ``13/10 10/5``,
``bar/22*`` (enter on the 22-point hitting a blot), ``6/off``; identical checker moves
are merged as ``8/5(2)``. Moves are listed from the highest source point down.

The parser also accepts a checker's moves chained (``13/10/5``), a direct span
(``13/5``, read as one checker moving from 13 to 5), ``25`` for the bar and ``0`` for off,
optional ``*`` marks, and ``(n)`` repeats. A parsed play is applied checker move by checker
move and accepted only when its final position is one of the legal after-states
(docs/rules.md: "A play is judged by its final position").

The hot path (training, matches) never builds notation: it works on after-states;
notation is rebuilt from (position, dice, after-state) here, at the edges. The legal plays
are not enumerated here: :func:`legal_plays` takes the after-states, in their canonical
order, and the move path of each from one call of
``bgrl.rules.movegen.generate(..., paths=True)``, the one owner of the rules of a play
(docs/rules.md), then builds the Position IDs of all results at once
(:func:`bgrl.rules.board.position_ids`) and memoises the notation of each sequence of checker
moves, so a 0-ply hint stays well under a millisecond (README, "Hint latency"). The checks in
:func:`play_from_notation` (:func:`_simulate`, :func:`_step`) only explain why a typed play
is refused; whether it is legal is whether its result is one of the generator's after-states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from bgrl.rules.board import MOVER_BAR, OPP_BAR, Position, flip, position_ids
from bgrl.rules.dice import parse_dice, validate_dice
from bgrl.rules.movegen import generate
from bgrl._text import clip

__all__ = [
    "plays_at", "legal_plays_batch",
    "Play", "IllegalPlayError", "legal_plays", "legal_plays_and_after_states", "notations", "format_moves",
    "compact_notation", "parse_play", "play_from_notation", "board_after_hops",
]


class IllegalPlayError(ValueError):
    """A play that is malformed or not legal for the position and dice.

    ``reason`` is the broken rule in words, without the echoed input or the list of legal
    plays (for a malformed play it is the whole message).
    """

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason if reason is not None else message


@dataclass(frozen=True)
class Play:
    """One legal play.

    Attributes
    ----------
    notation : str      e.g. ``"13/10 10/5"``; ``""`` never occurs (a pass is no Play)
    position_id : str   gnubg Position ID of the result, the opponent on roll
    after_state : ndarray int8 (26,), mover's perspective right after the play
    moves : tuple of (src, dst, hit) checker moves, src 25 = bar, dst 0 = off
    """

    notation: str
    position_id: str
    after_state: np.ndarray = field(repr=False, compare=False)
    moves: tuple = field(repr=False, compare=False, default=())

    @property
    def position(self) -> Position:
        """The resulting position with the opponent on roll."""
        return Position(flip(self.after_state))

    @property
    def compact(self) -> str:
        """gnubg-style compact notation of the play (``24/13``, ``8/5*/4``, ``6/5(2)``)."""
        return compact_notation(self.moves)

    def shown(self, compact: bool = True, other_side: bool = False) -> str:
        """The notation for display: compact (gnubg style) or one move per die, in the
        mover's numbering or, with ``other_side``, in the opponent's (point p -> 25 - p)."""
        return compact_notation(self.moves, other_side) if compact else format_moves(self.moves, other_side)


def _pt(p: int, other_side: bool = False) -> str:
    if p == MOVER_BAR:
        return "bar"
    if p <= 0:
        return "off"
    return str(25 - p if other_side else p)


def _merge(parts: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j < len(parts) and parts[j] == parts[i]:
            j += 1
        out.append(parts[i] + (f"({j - i})" if j - i > 1 else ""))
        i = j
    return " ".join(out)


def format_moves(moves, other_side: bool = False) -> str:
    """Format checker moves ``[(src, dst, hit), ...]`` (dst <= 0 = off) as notation, one
    move per die, highest source first, identical moves merged (``8/5(2)``).

    With ``other_side`` the points are written in the opponent's numbering (p -> 25 - p;
    ``bar`` and ``off`` stay), e.g. to show the computer's play to the human.
    """
    items = sorted(((int(s), max(int(d), 0), bool(h)) for s, d, h in moves), key=lambda m: (-m[0], -m[1]))
    return _merge([f"{_pt(s, other_side)}/{_pt(d, other_side)}{'*' if h else ''}" for s, d, h in items])


def compact_notation(moves, other_side: bool = False) -> str:
    """gnubg-style compact notation of checker moves ``[(src, dst, hit), ...]``.

    The moves of one checker are joined (``24/18 18/13`` -> ``24/13``), keeping an
    intermediate point only where it hit (``8/5*/4``); identical journeys are merged
    (``6/5(2)``, ``24/20(2)``). Display only: the JSON outputs keep :func:`format_moves`.
    ``other_side`` as in :func:`format_moves`.
    """
    items = sorted(((int(s), max(int(d), 0), bool(h)) for s, d, h in moves), key=lambda m: (-m[0], -m[1]))
    journeys: list[list[tuple[int, int, bool]]] = []
    for s, d, h in items:
        for j in journeys:
            if j[-1][1] == s and s > 0:
                j.append((s, d, h))
                break
        else:
            journeys.append([(s, d, h)])
    texts = []
    for j in sorted(journeys, key=lambda j: (-j[0][0], -j[-1][1])):
        txt = _pt(j[0][0], other_side)
        for s, d, h in j[:-1]:
            if h:
                txt += f"/{_pt(d, other_side)}*"
        s, d, h = j[-1]
        txt += f"/{_pt(d, other_side)}{'*' if h else ''}"
        texts.append(txt)
    return _merge(texts)


def _row_keys(rows: np.ndarray) -> list[bytes]:
    """The bytes of each row of a 2-D array (one ``tobytes`` call, then slices)."""
    rows = np.ascontiguousarray(rows)
    raw = rows.tobytes()
    w = rows.shape[1] * rows.itemsize
    return [raw[i : i + w] for i in range(0, len(raw), w)]


#: (checker moves of a play, as the bytes of its int16 (n, 3) history) -> (notation, moves tuple).
#: A bounded memo shared by all threads (dict reads and writes are atomic); cleared when full.
_MOVES_MEMO: dict[bytes, tuple[str, tuple]] = {}
_MOVES_MEMO_MAX = 50_000


def _moves_and_notation(hist: np.ndarray) -> list[tuple[str, tuple]]:
    """(notation, moves) of each play from its checker moves int16 (k, n, 3) (src, dst, hit)."""
    memo = _MOVES_MEMO
    out = []
    missing = []
    for j, key in enumerate(_row_keys(hist.reshape(hist.shape[0], -1))):
        got = memo.get(key)
        out.append(got)
        if got is None:
            missing.append((j, key))
    if missing:
        if len(memo) > _MOVES_MEMO_MAX:
            memo.clear()
        rows = hist.tolist()
        for j, key in missing:
            moves = tuple((s, d, h == 1) for s, d, h in rows[j])
            got = (_format_path(moves), moves)
            memo[key] = got
            out[j] = got
    return out


# the text of one checker move (src, max(dst, 0), hit), as format_moves writes it
_MOVE_TEXT = {(s, d, h): f"{_pt(s)}/{_pt(d)}{'*' if h else ''}" for s in range(1, 26) for d in range(0, 25) for h in (False, True)}


def _format_path(moves: tuple) -> str:
    """:func:`format_moves` of checker moves ``((src, dst, hit), ...)`` with int src/dst
    and bool hit, by table look-up (the same text)."""
    items = [(s, d if d > 0 else 0, h) for s, d, h in moves]
    if len(items) == 1:
        return _MOVE_TEXT[items[0]]
    items.sort(key=_move_order)
    texts = [_MOVE_TEXT[m] for m in items]
    if len(texts) == 2:  # _merge of two
        return texts[0] + "(2)" if texts[0] == texts[1] else texts[0] + " " + texts[1]
    return _merge(texts)


def _move_order(m):
    return (-m[0], -m[1])


def _paths(board: np.ndarray, dice: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """One position's legal plays from the generator: after-states int8 (k, 26) in
    :func:`bgrl.rules.movegen.generate`'s canonical order and the move path of each, int16
    (k, n, 3) (src, dst, hit), n = the dice every play uses; k = 0 for a pass.

    board int8 (26,) and dice (1..6, 1..6) already checked. The path of a play is the first
    one the generator finds (see :attr:`bgrl.rules.movegen.AfterStates.paths`): its moves
    name the play.
    """
    res = generate(board[None], np.array([dice], dtype=np.int8), validate=False, paths=True)
    n = int(res.dice_used[0])
    if n == 0:
        return res.boards[:0], res.paths[:0, :0]
    return res.boards, res.paths[:, :n]


def notations(board: np.ndarray, dice: tuple[int, int], after_states: np.ndarray, n_moves: int) -> list[str]:
    """Notation of each given legal after-state, without checking them.

    board int8 (26,); after_states int8 (k, 26): legal plays of ``board`` with ``dice``
    that use ``n_moves`` checker moves (``AfterStates.dice_used``); 0 = a pass -> ``[""]``.
    Raises KeyError for an after-state that is not a legal play.
    """
    after_states = np.asarray(after_states, dtype=np.int8)
    if n_moves == 0:
        return [""] * after_states.shape[0]
    after, paths = _paths(np.asarray(board, dtype=np.int8), dice)
    index = {key: j for j, key in enumerate(_row_keys(after))}
    return [t for t, _ in _moves_and_notation(paths[[index[a] for a in _row_keys(after_states)]])]


def legal_plays_and_after_states(board: np.ndarray, dice: tuple[int, int]) -> tuple[list[Play], np.ndarray]:
    """The legal plays of a checked board and roll (see :func:`legal_plays`) and their
    after-states.

    Parameters
    ----------
    board : ndarray, int8, shape (26,)
        A valid board, the mover on roll, with no side borne off completely (not checked).
    dice : pair of ints 1..6 (checked, e.g. by :func:`bgrl.rules.dice.validate_dice`)

    Returns
    -------
    plays : list of :class:`Play`, in canonical order; empty for a pass
    after_states : ndarray, int8, shape (k, 26), read-only; row j = ``plays[j].after_state``
    """
    after, paths = _paths(board, dice)
    after.setflags(write=False)
    if after.shape[0] == 0:
        return [], after
    named = _moves_and_notation(paths)
    pids = position_ids(flip(after))
    return [Play(text, pid, after[j], moves) for j, ((text, moves), pid) in enumerate(zip(named, pids))], after


def plays_at(after, rows) -> list[Play]:
    """The :class:`Play` of chosen rows of a batched generator result, without naming
    every legal play (what :func:`legal_plays` does, one position at a time).

    Parameters
    ----------
    after : bgrl.rules.movegen.AfterStates
        From ``generate(boards, dice, paths=True)`` over B positions.
    rows : sequence of int
        Indices into ``after.boards``, each a legal play (not a pass row).

    Returns
    -------
    list of Play, equal to the matching entries of ``legal_plays(position, dice)``.

    Raises
    ------
    ValueError
        When ``after`` has no paths or a row is a pass.
    """
    if after.paths is None:
        raise ValueError("plays_at needs generate(..., paths=True)")
    out = []
    for j in (int(r) for r in rows):
        n = int(after.dice_used[after.parent[j]])
        if n == 0:
            raise ValueError(f"row {j} is a pass, not a play")
        (text, moves), = _moves_and_notation(after.paths[j:j + 1, :n])
        board = after.boards[j].copy()
        board.setflags(write=False)
        out.append(Play(text, position_ids(flip(board[None]))[0], board, moves))
    return out


def legal_plays_batch(after) -> list[list[Play]]:
    """Every legal play of every position of a batched generator result: entry i equals
    ``legal_plays(position i, dice i)`` (the same plays, canonical order), from one
    generator call for all positions instead of one each.

    Parameters
    ----------
    after : bgrl.rules.movegen.AfterStates
        From ``generate(boards, dice, paths=True)`` over B positions (checked, not over).

    Returns
    -------
    list of B lists of :class:`Play`; ``[]`` where no die can be played.

    Raises
    ------
    ValueError
        When ``after`` has no paths.
    """
    if after.paths is None:
        raise ValueError("legal_plays_batch needs generate(..., paths=True)")
    boards = after.boards.copy()
    boards.setflags(write=False)
    pids = position_ids(flip(boards)) if boards.shape[0] else []
    out: list[list[Play]] = []
    for i in range(len(after.offsets) - 1):
        lo, hi, n = int(after.offsets[i]), int(after.offsets[i + 1]), int(after.dice_used[i])
        if n == 0:
            out.append([])
            continue
        named = _moves_and_notation(after.paths[lo:hi, :n])
        out.append([Play(text, pids[lo + j], boards[lo + j], moves) for j, (text, moves) in enumerate(named)])
    return out


def legal_plays(position, dice) -> list[Play]:
    """Every legal play for a position and roll, in canonical order.

    Parameters
    ----------
    position : Position or str (gnubg Position ID)
    dice : pair of ints 1..6 (order irrelevant)

    Returns
    -------
    list of :class:`Play`; empty when no die can be played (the turn passes).

    Raises
    ------
    ValueError / TypeError for a malformed position or dice.
    """
    pos = position if isinstance(position, Position) else Position.from_id(position)
    d = validate_dice(dice)
    mover_off, opp_off = pos.off
    if mover_off == 15 or opp_off == 15:
        raise ValueError(f"the game is over in position {pos.position_id}: one side has borne off all 15 checkers")
    return legal_plays_and_after_states(pos.board, d)[0]




_TOKEN_RE = re.compile(r"^((?:bar|[0-9]{1,2})\*?)((?:/(?:off|[0-9]{1,2})\*?)+)(?:\(([0-9])\))?$", re.IGNORECASE)


def _parse_point(tok: str, is_source: bool) -> int:
    t = tok.rstrip("*").lower()
    if t == "bar":
        if not is_source:
            raise IllegalPlayError("'bar' can only be a starting point")
        return MOVER_BAR
    if t == "off":
        if is_source:
            raise IllegalPlayError("'off' can only be a destination")
        return 0
    p = int(t)
    if is_source and not 1 <= p <= 25:
        raise IllegalPlayError(f"source point must be 1..24 or bar, got {p}")
    if not is_source and not 0 <= p <= 24:
        raise IllegalPlayError(f"destination must be 1..24 or off, got {p}")
    return p


def parse_play(text: str) -> list[tuple[int, int]]:
    """Parse notation into a list of checker hops ``(from, to)`` (25 = bar, 0 = off).

    Raises IllegalPlayError (a ValueError) for malformed notation.
    """
    if not isinstance(text, str):
        raise TypeError(f"a play must be a string like '13/10 10/5', got {type(text).__name__}")
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise IllegalPlayError("empty play: expected checker moves like '13/10 10/5', 'bar/22*' or '6/off'")
    hops: list[tuple[int, int]] = []
    for tok in tokens:
        m = _TOKEN_RE.match(tok)
        if not m:
            raise IllegalPlayError(f"cannot read {clip(tok, 40)!r}: expected from/to like '13/10', 'bar/22*', '6/off' or '8/5(2)'")
        pts = [m.group(1)] + m.group(2).split("/")[1:]
        rep = int(m.group(3)) if m.group(3) else 1
        if not 1 <= rep <= 4:
            raise IllegalPlayError(f"repeat count in {clip(tok, 40)!r} must be 1..4")
        chain = [_parse_point(pts[0], True)] + [_parse_point(p, False) for p in pts[1:]]
        for a, b in zip(chain, chain[1:]):
            if b >= a:
                raise IllegalPlayError(f"{clip(tok, 40)!r}: checkers move from higher to lower points in your numbering")
        for _ in range(rep):
            hops.extend(zip(chain, chain[1:]))
    return hops


def _hop_text(a: int, c: int) -> str:
    return f"{_pt(a)}/{_pt(c)}"


def _point_name(p: int) -> str:
    return "the bar" if p == MOVER_BAR else f"the {p}-point"


def _step(b: list[int], src: int, die: int):
    """One checker move of ``die`` pips from ``src`` on board ``b`` (list, mover's view).

    Returns ``(new_board, dst, hit, None)`` or ``(None, dst, False, reason)`` quoting the
    rule (docs/rules.md) that forbids it.
    """
    if b[MOVER_BAR] > 0 and src != MOVER_BAR:
        return None, 0, False, "a checker on the bar must enter first"
    if b[src] <= 0:
        return None, 0, False, f"no checker of yours on {_point_name(src)}"
    dst = src - die
    nb = list(b)
    if dst <= 0:
        if any(v > 0 for v in b[7:26]):
            return None, 0, False, "you may bear off only when all your checkers are in your home board (points 1-6)"
        if dst < 0 and any(v > 0 for v in b[src + 1:7]):
            return None, 0, False, f"a {die} cannot bear off from the {src}-point while you have a checker on a higher point"
        nb[src] -= 1
        return nb, 0, False, None
    if b[dst] <= -2:
        if src == MOVER_BAR:
            return None, dst, False, f"you cannot enter on the {dst}-point: it is held by the opponent"
        return None, dst, False, f"point {dst} is held by the opponent"
    hit = b[dst] == -1
    nb[src] -= 1
    if hit:
        nb[dst] = 1
        nb[OPP_BAR] -= 1
    else:
        nb[dst] += 1
    return nb, dst, hit, None


def _die_sequences(a: int, c: int, dice_left: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Orders of the remaining dice that take a checker from ``a`` exactly to ``c`` (or, for
    ``c == 0``, off the board with the last die)."""
    out = []
    n = len(dice_left)
    seen = set()

    def rec(pos: int, used: tuple[int, ...], seq: tuple[int, ...]):
        for i in range(n):
            if i in used:
                continue
            d = dice_left[i]
            q = pos - d
            s = seq + (d,)
            if (c > 0 and q == c) or (c == 0 and q <= 0):
                if s not in seen:
                    seen.add(s)
                    out.append(s)
            elif q > c and q > 0:
                rec(q, used + (i,), s)

    rec(a, (), ())
    return out


def _dice_reason(a: int, c: int, dice: tuple[int, int], dice_left: tuple[int, ...]) -> str:
    hop = _hop_text(a, c)
    if not dice_left:
        n = 4 if dice[0] == dice[1] else 2
        return f"the play has more checker moves than the roll {dice[0]}-{dice[1]} gives ({n})"
    d1, d2 = dice
    if d1 == d2:
        reach = [d1 * k for k in range(1, len(dice_left) + 1)]
    else:
        reach = sorted(set(dice_left) | ({d1 + d2} if len(dice_left) == 2 else set()))
    ways = ", ".join(str(x) for x in reach[:-1]) + (" or " if len(reach) > 1 else "") + str(reach[-1])
    need = f"moves {a - c} pips" if c > 0 else f"needs at least {a} pips to bear off"
    return f"{hop} {need}, but with {d1}-{d2} a checker can now move {ways} pips"


def _simulate(board: np.ndarray, dice: tuple[int, int], hops: list[tuple[int, int]]):
    """Play the hops die by die in every way the dice allow.

    Returns ``(results, failure)``: ``results`` maps each reachable final board (bytes) to
    ``(dice_used, dies)``; ``failure`` is ``(depth, reason)`` of the deepest failed attempt.
    """
    d1, d2 = dice
    all_dice = (d1,) * 4 if d1 == d2 else (d1, d2)
    results: dict[bytes, tuple[int, tuple[int, ...]]] = {}
    best = [(-1, "")]

    def fail(depth: int, reason: str):
        if depth > best[0][0]:
            best[0] = (depth, reason)

    def rec(b: list[int], k: int, left: tuple[int, ...], used: tuple[int, ...], depth: int):
        if k == len(hops):
            key = np.array(b, dtype=np.int8).tobytes()
            results.setdefault(key, (len(used), used))
            return
        a, c = hops[k]
        if b[a] <= 0:
            fail(depth, f"no checker of yours on {_point_name(a)}")
            return
        seqs = _die_sequences(a, c, left)
        if not seqs:
            fail(depth, _dice_reason(a, c, dice, left))
            return
        for seq in seqs:
            cur, pos, ok, d_here = b, a, True, depth
            for die in seq:
                nb, dst, _hit, why = _step(cur, pos, die)
                if why is not None:
                    fail(d_here, why)
                    ok = False
                    break
                cur, pos, d_here = nb, dst, d_here + 1
            if ok:
                rest = list(left)
                for die in seq:
                    rest.remove(die)
                rec(cur, k + 1, tuple(rest), used + seq, d_here)

    rec([int(x) for x in board], 0, all_dice, (), 0)
    return results, best[0]


def board_after_hops(board, hops) -> list[int] | None:
    """The board (list of 26 ints, mover's view) after moving each checker of ``hops``
    (``(from, to)`` pairs: 25 the bar, 0 off) straight from its source to its destination,
    hitting only where it lands; None where a hop is impossible that way (no checker there,
    or a point the opponent holds). The first candidate of :func:`play_from_notation` and of
    the ``.mat`` reader (:mod:`bgrl.records.matfile`); no rule beyond that is checked."""
    b = [int(x) for x in board]
    for a, c in hops:
        if b[a] <= 0:
            return None
        b[a] -= 1
        if c > 0:
            if b[c] < -1:
                return None
            if b[c] == -1:
                b[c] = 1
                b[OPP_BAR] -= 1
            else:
                b[c] += 1
    return b


def _direct(board: np.ndarray, hops: list[tuple[int, int]]) -> bytes | None:
    """:func:`board_after_hops` as the bytes of an int8 board (the key of a play's after-state)."""
    b = board_after_hops(board, hops)
    return None if b is None else np.asarray(b, dtype=np.int8).tobytes()


def _max_dice_reason(dice: tuple[int, int], used: tuple[int, ...], need: int) -> str | None:
    d1, d2 = dice
    if len(used) < need:
        if d1 == d2:
            word = {2: "two", 3: "three", 4: "all four"}[need]
            return f"{need} moves of {d1} can be played, so {word} must be"
        return "both dice can be played, so both must be"
    if d1 != d2 and need == 1 and used == (d2,):
        return f"only one die can be played and either could be, so the larger die ({d1}) must be played"
    return None


def play_from_notation(position, dice, text: str) -> Play:
    """Find the legal play that the notation ``text`` describes.

    The play is judged by its final position (docs/rules.md). A span such as ``13/5`` or ``8/4``
    is read as one checker using several dice; when every path of the span hits a blot on
    the way (``8/4`` where the only path is ``8/5*/4``) that path is taken; when paths that
    give different positions remain, the span is refused as ambiguous.

    Raises
    ------
    IllegalPlayError
        if the notation is malformed or not legal for these dice. Its ``reason`` attribute
        is the rule broken, in words (e.g. "point 5 is held by the opponent", "both dice
        can be played, so both must be", "a checker on the bar must enter first"); the
        message adds up to ten of the legal plays.
    """
    pos = position if isinstance(position, Position) else Position.from_id(position)
    dice = parse_dice(dice)
    dice = (max(dice), min(dice))
    plays = legal_plays(pos, dice)
    if not plays:
        raise IllegalPlayError("no legal play: no die can be played, the turn passes")
    hops = parse_play(text)
    by_state = {p.after_state.tobytes(): p for p in plays}
    target = _direct(pos.board, hops)
    if target is not None and target in by_state:
        return by_state[target]
    order = sorted(hops, key=lambda h: -h[0])
    results, failure = _simulate(pos.board, dice, order)
    if order != hops:
        more, fail2 = _simulate(pos.board, dice, hops)
        for k, v in more.items():
            results.setdefault(k, v)
        if fail2[0] > failure[0]:
            failure = fail2
    found = [by_state[k] for k in results if k in by_state]
    if len(found) == 1:
        return found[0]
    shown = clip(text, 40)
    if len(found) > 1:
        ways = " or ".join(compact_notation(p.moves) for p in found[:3])
        raise IllegalPlayError(f"{shown!r} is ambiguous for {dice[0]}-{dice[1]}: it can be played {ways}; write the path",
                               reason=f"ambiguous: it can be played {ways}; write the path")
    reason = None
    if results:
        need = len(plays[0].moves)
        for used, dies in sorted(results.values()):
            reason = _max_dice_reason(dice, dies, need)
            if reason:
                break
    if reason is None:
        reason = failure[1] or "its result is not a legal position for this roll"
    cap = 10
    legal = ", ".join(p.notation for p in plays[:cap]) + (f" … and {len(plays) - cap} more" if len(plays) > cap else "")
    raise IllegalPlayError(f"{shown!r} is not a legal play for {dice[0]}-{dice[1]}: {reason}; legal plays: {legal}", reason=reason)
