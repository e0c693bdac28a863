"""Checkpoints: self-describing, written atomically, loaded without unpickling objects.

A checkpoint is a ``torch.save`` file holding only tensors and plain data (str, int,
float, bool, lists and dicts of those):

  format        "bgrl-checkpoint/1"
  meta          dict: encoder name, hidden units, package version, games trained,
                training config, anything else (JSON-compatible)
  model         the network's state_dict (tensors)
  trainer       optional trainer state of a run checkpoint: the dice generator's state
                (JSON text), the games in flight with their history rows (tensors; see
                bgrl.training.td.TDLambda.state_dict) and the loop's counters

It is read with ``torch.load(weights_only=True)``, which refuses arbitrary pickled objects,
and validated before use. Writes go to a temporary file in the same folder, are flushed
and fsynced, then renamed over the target (``os.replace``), so a crash never leaves a
half-written checkpoint under the real name.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from bgrl._version import __version__
from bgrl.evaluation.encoding import num_features
from bgrl._fileio import atomic_writer, write_text_atomic
from bgrl.evaluation.model import TDNet

__all__ = ["FORMAT", "CheckpointError", "ManifestError", "save_checkpoint", "load_checkpoint", "load_network",
           "LoadedNetwork", "open_network", "load_evaluator", "verify_manifest", "sha256_of", "write_manifest_entry", "MANIFEST"]

FORMAT = "bgrl-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or not a bgrl checkpoint."""


def _p(path) -> str:
    """A path as echoed in an error: long ones keep their last 80 characters."""
    s = str(path)
    return s if len(s) <= 80 else "..." + s[-77:]


def save_checkpoint(path, net: TDNet, meta: dict, trainer: dict | None = None) -> Path:
    """Write ``net`` and ``meta`` to ``path`` atomically. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "meta": {**meta, "package_version": __version__, "hidden": net.hidden, "n_inputs": net.n_inputs},
        "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
    }
    if trainer is not None:
        payload["trainer"] = trainer
    with atomic_writer(path) as fh:
        torch.save(payload, fh)
    return path


def _unreadable(path: Path, exc: Exception) -> str:
    """One sentence saying why ``path`` could not be read as a checkpoint: empty, truncated
    or damaged archive, text file, objects bgrl never unpickles, or other bytes."""
    import pickle
    import zipfile

    tail = f"expected a bgrl checkpoint ({FORMAT}) written by `bgrl train`"
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as err:
        return f"cannot read checkpoint {_p(path)}: {err.strerror or err}"
    if size == 0:
        return f"checkpoint {_p(path)} is empty (0 bytes); {tail}"
    objects = isinstance(exc, pickle.UnpicklingError) and "weights_only" in str(exc)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"\x80"):  # torch zip archive, or a bare pickle
        if objects:
            return f"checkpoint {_p(path)} holds objects other than tensors and plain data, which bgrl never unpickles; {tail}"
        if head.startswith(b"\x80"):
            return f"checkpoint {_p(path)} is a damaged or old-style torch file ({size:,} bytes); {tail}"
        if not zipfile.is_zipfile(path):
            return f"checkpoint {_p(path)} is truncated or damaged: its archive is incomplete ({size:,} bytes); {tail}"
        return f"checkpoint {_p(path)} is damaged: its archive cannot be read ({size:,} bytes); {tail}"
    try:
        head.decode("utf-8")
        is_text = b"\x00" not in head
    except UnicodeDecodeError as err:
        is_text = err.start >= len(head) - 3 and b"\x00" not in head  # a character cut at the 4 KiB edge
    if is_text:
        return f"{_p(path)} is a text file, not a checkpoint; {tail}"
    return f"{_p(path)} is not a checkpoint: its {size:,} bytes are not a torch archive; {tail}"


def load_checkpoint(path) -> dict:
    """Read and validate a checkpoint; returns the payload dict.

    Raises
    ------
    CheckpointError
        if the file is missing, unreadable, not made by bgrl, or inconsistent.
    """
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{_p(path)} is a folder without final.pt or latest.pt; expected a checkpoint file or a run folder")
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {_p(path)} (expected a .pt file written by `bgrl train`)")
    try:
        with warnings.catch_warnings():
            # a bare pickle makes torch warn about its protocol before refusing it; the
            # CheckpointError below says what is wrong in one line
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for corrupt/hostile files
        raise CheckpointError(_unreadable(path, exc)) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        got = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(f"{_p(path)} is not a bgrl checkpoint: expected format {FORMAT!r}, got {got!r}")
    meta = payload.get("meta")
    model = payload.get("model")
    if not isinstance(meta, dict) or not isinstance(model, dict):
        raise CheckpointError(f"{_p(path)}: checkpoint lacks 'meta' or 'model'")
    for key in ("encoder", "hidden", "n_inputs"):
        if key not in meta:
            raise CheckpointError(f"{_p(path)}: checkpoint meta lacks {key!r}")
    if not isinstance(meta["encoder"], str):
        raise CheckpointError(f"{_p(path)}: meta 'encoder' must be a string, got {type(meta['encoder']).__name__}")
    for key in ("hidden", "n_inputs"):
        v = meta[key]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4096:
            raise CheckpointError(f"{_p(path)}: meta {key!r} must be an integer in 1..4096, got {v!r}")
    try:
        n_in = num_features(meta["encoder"])
    except ValueError as exc:
        raise CheckpointError(f"{_p(path)}: {exc}") from None
    if n_in != meta["n_inputs"]:
        raise CheckpointError(f"{_p(path)}: encoder {meta['encoder']!r} has {n_in} inputs, meta says {meta['n_inputs']}")
    return payload


def load_network(path) -> tuple[TDNet, dict]:
    """Load a checkpoint's network. Returns ``(net, meta)``; raises CheckpointError."""
    payload = load_checkpoint(path)
    meta = payload["meta"]
    for name, t in payload["model"].items():
        if not isinstance(t, torch.Tensor) or t.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            raise CheckpointError(f"{_p(path)}: parameter {name} must be a real floating-point tensor")
    net = TDNet(int(meta["n_inputs"]), int(meta["hidden"]))
    try:
        net.load_state_dict(payload["model"])
    except (RuntimeError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{_p(path)}: weights do not fit a {meta['n_inputs']}-{meta['hidden']}-5 network: {exc}") from None
    for name, t in net.state_dict().items():
        if not torch.isfinite(t).all():
            raise CheckpointError(f"{_p(path)}: parameter {name} holds NaN or infinite values")
    net.eval()
    return net, meta


# ----------------------------------------------------------------------------- shipped networks
MANIFEST = "manifest.json"


class ManifestError(CheckpointError):
    """A network file differs from the sha256 that ``manifest.json`` beside it records
    (a corrupt or swapped file), or that manifest cannot be read."""


def sha256_of(path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_manifest(path, manifest=None) -> tuple[str, bool]:
    """Check a network file against the manifest beside it (``checkpoints/manifest.json``).

    Parameters
    ----------
    path : str or Path
        The network file.
    manifest : str or Path, optional
        The manifest (default: ``manifest.json`` in the file's folder).

    Returns
    -------
    (sha256 hex str, listed bool)
        ``listed`` is False when no manifest entry names the file (nothing to check against).

    Raises
    ------
    ManifestError
        when an entry names the file with another sha256, or the manifest is not valid JSON.
    """
    path = Path(path)
    digest = sha256_of(path)
    manifest = Path(manifest) if manifest is not None else path.with_name(MANIFEST)
    if manifest.is_file():
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ManifestError(f"{_p(manifest)} is not valid JSON ({exc}): cannot verify the networks") from None
        for entry in data.values() if isinstance(data, dict) else []:
            if isinstance(entry, dict) and Path(str(entry.get("file", ""))).name == path.name and "sha256" in entry:
                if entry["sha256"] != digest:
                    raise ManifestError(f"network {_p(path)} has sha256 {digest}, but {manifest.name} says {entry['sha256']}")
                return digest, True
    return digest, False


def write_manifest_entry(name: str, entry: dict, manifest=None) -> Path:
    """Add or replace ``name``'s entry of the shipped manifest, written atomically.

    ``entry`` is JSON-compatible (file, sha256, encoder, network, training config, commands,
    strength...; see ``scripts/ship_checkpoint.py``). Returns the manifest's path.
    """
    from bgrl._resources import shipped_path

    path = Path(manifest) if manifest is not None else shipped_path(MANIFEST)
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data[name] = entry
    return write_text_atomic(path, json.dumps(data, indent=2) + "\n")


@dataclass(frozen=True)
class LoadedNetwork:
    """A network ready to evaluate, with where it came from.

    evaluator : callable after-states int8 (M, 26) -> float64 (M, 5), the outcome
        probabilities of the side that played (table lookup where the encoder allows).
    meta : the checkpoint's meta dict (encoder, hidden, games, config...).
    path : the file it was read from; sha256 : its hex digest;
    listed : whether ``manifest.json`` beside it lists it (and so it was verified).
    """

    evaluator: object
    meta: dict
    path: Path
    sha256: str
    listed: bool


_CACHE: dict[tuple, LoadedNetwork] = {}


def _stat_key(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_size, st.st_mtime_ns)
_CACHE_LOCK = threading.Lock()


def open_network(spec="default", *, cache: bool = True) -> LoadedNetwork:
    """The one way a checkpoint becomes an evaluator (the CLI, agents, levels, review and the
    service all come here).

    Parameters
    ----------
    spec : str or Path
        ``"default"`` (the shipped ``checkpoints/default.pt``), the bare name of another shipped
        network (``"td198g"``, ``"distilled"``), a run folder (its ``final.pt``, else
        ``latest.pt``) or a checkpoint file.
    cache : bool
        Share one evaluator per file (by path, size and modification time); evaluators are
        only read, so sharing is thread-safe.

    Raises
    ------
    CheckpointError
        for an empty spec, a missing, corrupt or foreign file; :class:`ManifestError` when the
        file differs from the manifest that lists it.
    """
    from bgrl._resources import resolve_checkpoint
    from bgrl.evaluation.table import network_evaluator

    if not str(spec).strip():
        raise CheckpointError("the network is empty: give 'default', a shipped network name, a run folder or a .pt file")
    path = resolve_checkpoint(spec)
    try:  # the file and the manifest beside it, as they are now
        st = path.stat()
        key = (str(path.resolve()), st.st_size, st.st_mtime_ns, _stat_key(path.with_name(MANIFEST)))
    except OSError:
        key = None
    if cache and key is not None:
        with _CACHE_LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return hit
    if key is None or not path.is_file():
        load_network(path)  # raises its CheckpointError naming what was expected
    digest, listed = verify_manifest(path)
    net, meta = load_network(path)
    loaded = LoadedNetwork(network_evaluator(net, meta["encoder"]), meta, path, digest, listed)
    if cache:
        with _CACHE_LOCK:
            _CACHE[key] = loaded
    return loaded


def load_evaluator(spec="default", *, cache: bool = True):
    """The evaluator of a network spec (see :func:`open_network`): a callable
    after-states int8 (M, 26) -> float64 (M, 5) of the side that played."""
    return open_network(spec, cache=cache).evaluator
