"""Dice, numpy only: the one owner of rolls (docs/rules.md: two six-sided dice; doubles play four times).

- :data:`ROLLS` / :data:`ROLL_WEIGHTS`: the 21 distinct rolls and their probabilities (search,
  bear-off tables, rollouts).
- :func:`random_rolls` / :func:`random_roll`: rolls drawn from a numpy Generator (sessions of
  games, the terminal game, training), and :func:`opening_roll`, docs/rules.md's opening-roll option.
- :func:`parse_dice` / :func:`validate_dice`: a roll typed by a user, and a batch of dice checked.
- :func:`seed_keys` / :func:`roll_dice`: counter-based streams, below.

Counter-based dice streams: one independent, reproducible stream per game,
rolled for a whole batch of games in a few array operations.

A stream is a 64-bit *key*; its ``t``-th roll (``t = 0, 1, ...``) is a pure function of
``(key, t)``: ``z = splitmix64(key + (t + 1) * 0x9E3779B97F4A7C15)``, then ``z mod 36`` picks
one of the 36 ordered rolls ``(z mod 36) // 6 + 1, (z mod 36) % 6 + 1``. The mixing function
is the finalizer of Steele, Lea & Flood's SplitMix64 ("Fast splittable pseudorandom number
generators", OOPSLA 2014; constants as in Vigna's public-domain ``splitmix64.c``). The modulo
bias is below 36 / 2**64 (about 2e-18) per roll.

Because a roll depends only on its game's key and counter, a batch of N games rolls with no
loop over games, and game ``i`` of a vector environment seeded ``s`` gets exactly the rolls of
a single environment seeded ``s + i`` (:func:`seed_keys`).
"""

from __future__ import annotations

import re

import numpy as np

from bgrl._text import clip

__all__ = ["ROLLS", "ROLL_WEIGHTS", "parse_dice", "validate_dice", "random_rolls", "random_roll", "opening_roll", "seed_keys", "roll_dice"]


def _rolls():
    rolls, weights = [], []
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            rolls.append((d1, d2))
            weights.append(1.0 if d1 == d2 else 2.0)
    return np.array(rolls, dtype=np.int8), np.array(weights) / 36.0


#: The 21 distinct rolls (higher die first, ordered 11, 21, 22, 31, ...), int8 (21, 2), and
#: their probabilities float64 (21,): 1/36 for a double, 2/36 otherwise.
ROLLS, ROLL_WEIGHTS = _rolls()
ROLLS.setflags(write=False)
ROLL_WEIGHTS.setflags(write=False)


def random_rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` rolls of two dice from ``rng``: int8 (n, 2), values 1..6, ordered (as thrown).

    One ``rng.integers(1, 7, size=(n, 2))`` call, so a seeded Generator gives the same rolls
    as before this function existed.
    """
    return rng.integers(1, 7, size=(n, 2)).astype(np.int8)


def random_roll(rng: np.random.Generator) -> tuple[int, int]:
    """One roll of two dice from ``rng`` as Python ints (as thrown, not sorted)."""
    a, b = (int(x) for x in rng.integers(1, 7, size=2))
    return a, b


def opening_roll(rng: np.random.Generator) -> tuple[bool, tuple[int, int], list[tuple[int, int]]]:
    """docs/rules.md option ``opening_roll``: each side rolls one die, ties are re-rolled, the
    higher die moves first and plays both dice just thrown.

    Returns ``(white_first, dice, throws)``: dice (higher first) for the first play and the
    list of (white, black) throws including re-rolled ties.
    """
    throws = []
    while True:
        w, b = random_roll(rng)
        throws.append((w, b))
        if w != b:
            return w > b, (max(w, b), min(w, b)), throws

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED_SALT = np.uint64(0x6A09E667F3BCC909)  # sqrt(2) fraction bits: keys differ from raw counters


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer, elementwise on uint64 (wraps modulo 2**64)."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def seed_keys(seeds) -> np.ndarray:
    """Stream keys for integer seeds.

    seeds : int or array-like of ints (any size; taken modulo 2**64) -> uint64 array of the
    same shape (a 0-d array for an int). Distinct seeds below 2**64 give distinct keys (the
    map is a bijection of 64-bit words).

    Raises TypeError for non-integer seeds.
    """
    if isinstance(seeds, (bool, np.bool_)):
        raise TypeError(f"seed must be an int, got {seeds!r}")
    arr = np.asarray(seeds, dtype=object) if isinstance(seeds, int) else np.asarray(seeds)
    if arr.dtype == object:
        try:
            arr = np.asarray(np.vectorize(lambda v: int(v) % 2**64, otypes=[np.uint64])(arr), dtype=np.uint64)
        except TypeError:
            raise TypeError(f"seeds must be ints, got {seeds!r}") from None
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64).view(np.uint64) if arr.dtype.kind == "i" else arr.astype(np.uint64)
    else:
        raise TypeError(f"seeds must be ints, got dtype {arr.dtype}")
    with np.errstate(over="ignore"):
        return _mix(arr ^ _SEED_SALT)


def roll_dice(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """The ``counters``-th roll of each stream.

    keys : uint64 (N,); counters : uint64 or int64 (N,), >= 0 -> int8 (N, 2), values 1..6
    (ordered dice: ``(a, b)`` and ``(b, a)`` are different rolls, each with probability 1/36).
    The caller advances its counters (``counters += 1``) after using a roll.
    """
    k = np.asarray(keys, dtype=np.uint64)
    c = np.asarray(counters).astype(np.uint64)
    with np.errstate(over="ignore"):
        z = _mix(k + (c + np.uint64(1)) * _GOLDEN)
    r = (z % np.uint64(36)).astype(np.int8)
    out = np.empty(r.shape + (2,), dtype=np.int8)
    out[..., 0] = r // 6 + 1
    out[..., 1] = r % 6 + 1
    return out


_DICE_RE = re.compile(r"^\s*([1-6])\s*[-,\s]?\s*([1-6])\s*$")


def validate_dice(dice) -> tuple[int, int]:
    """Check one roll and return it as a pair of ints, each in 1..6.

    Raises TypeError for non-integers and ValueError for anything but two dice 1..6.
    """
    try:
        vals = tuple(dice)
    except TypeError:
        raise TypeError(f"dice must be a pair of ints 1..6, got {dice!r}") from None
    if len(vals) != 2:
        raise ValueError(f"dice must be a pair of ints 1..6, got {len(vals)} value(s): {dice!r}")
    out = []
    for v in vals:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"each die must be an int 1..6, got {v!r} ({type(v).__name__})")
        if not 1 <= int(v) <= 6:
            raise ValueError(f"each die must be 1..6, got {int(v)}")
        out.append(int(v))
    return out[0], out[1]


def parse_dice(text) -> tuple[int, int]:
    """Parse a roll written ``53``, ``5-3``, ``5 3`` or ``5,3`` (or a pair of ints).

    Raises ValueError naming the expected form.
    """
    if isinstance(text, (tuple, list)):
        return validate_dice(text)
    if not isinstance(text, str):
        raise TypeError(f"dice must be a pair of ints 1..6 or a string like '53' or '5-3', got {type(text).__name__}")
    m = _DICE_RE.match(text)
    if not m:
        raise ValueError(f"dice must be two digits 1-6 written like '53', '5-3' or '5 3'; got {clip(text, 40)!r}")
    return int(m.group(1)), int(m.group(2))
