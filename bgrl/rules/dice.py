"""Counter-based dice streams (numpy only): one independent, reproducible stream per game,
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

import numpy as np

__all__ = ["seed_keys", "roll_dice"]

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
