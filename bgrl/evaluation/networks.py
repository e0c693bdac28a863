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

Seal. Every checkpoint :func:`save_checkpoint` writes ends with its own sha256: the torch
archive's zip comment is ``bgrl-sha256:<64 hex digits>``, the sha256 of every byte before the
digits (the tensors, the meta, the trainer state and the archive's own structure). A zip
comment is part of the format, so torch and any zip reader still read the file.
:func:`load_checkpoint` checks it before torch reads anything: a file with one changed,
missing or added byte is refused (:class:`CheckpointError`, "damaged"). Files without a seal
(written before it, and the shipped networks) load as before; the shipped ones are checked
against the sha256 that ``checkpoints/manifest.json`` records for them. Neither way unpickles
objects. A checkpoint given as a FIFO, a device or a socket is named as such, never opened.

Weights twins. Each shipped network ``checkpoints/<name>.pt`` has a numpy twin
``checkpoints/<name>.npz`` beside it (float32 weights, the meta as JSON, the ``.pt``'s
sha256; :func:`write_weights_twin`, called by ``scripts/tools/ship_checkpoint.py``), listed with
its own sha256 under the manifest entry's ``npz``. ``open_network(spec, backend="numpy")``
reads it with ``np.load(allow_pickle=False)`` into a
:class:`bgrl.evaluation.table_np.NumpyTableEvaluator` and imports no torch; ``"auto"`` (what
``bgrl hint`` asks for) does so while torch is not imported.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bgrl._version import __version__
from bgrl.evaluation.encoding import num_features
from bgrl._fileio import atomic_writer, write_text_atomic

if TYPE_CHECKING:
    from bgrl.evaluation.model import TDNet

# torch is imported by the functions that need it: open_network(backend="numpy") reads a
# shipped network's .npz twin (bgrl.evaluation.table_np) and imports no torch at all

__all__ = ["FORMAT", "CheckpointError", "ManifestError", "save_checkpoint", "load_checkpoint", "load_network",
           "LoadedNetwork", "open_network", "load_evaluator", "weights_twin", "write_weights_twin", "BACKENDS", "verify_manifest", "sha256_of", "write_manifest_entry", "MANIFEST"]

FORMAT = "bgrl-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or not a bgrl checkpoint."""


def _p(path) -> str:
    """A path as echoed in an error: long ones keep their last 80 characters."""
    s = str(path)
    return s if len(s) <= 80 else "..." + s[-77:]


def save_checkpoint(path, net: TDNet, meta: dict, trainer: dict | None = None) -> Path:
    """Write ``net`` and ``meta`` to ``path`` atomically. Returns the path."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "meta": {**meta, "package_version": __version__, "hidden": net.hidden, "n_inputs": net.n_inputs},
        "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
    }
    if trainer is not None:
        payload["trainer"] = trainer
    buf = io.BytesIO()
    torch.save(payload, buf)
    with atomic_writer(path) as fh:
        fh.write(_seal(buf.getvalue()))
    return path


_SEAL_TAG = b"bgrl-sha256:"
_SEAL_LEN = len(_SEAL_TAG) + 64
_EOCD = b"PK\x05\x06"  # a zip archive's end-of-central-directory record: 22 bytes and the comment


def _seal(data: bytes) -> bytes:
    """A torch archive with the seal as its zip comment: ``bgrl-sha256:`` and the hex sha256 of
    every byte before the digits."""
    if len(data) < 22 or data[-22:-18] != _EOCD or data[-2:] != b"\x00\x00":
        raise RuntimeError("torch.save wrote an archive without a plain end record; cannot seal the checkpoint")
    body = data[:-2] + _SEAL_LEN.to_bytes(2, "little") + _SEAL_TAG
    return body + hashlib.sha256(body).hexdigest().encode("ascii")


def _check_seal(path: Path, size: int) -> bool:
    """Whether ``path`` carries a seal (True) or none (False, an older checkpoint); raises
    CheckpointError when the seal is there but does not match the file's bytes, or is itself
    damaged (a truncated, extended or altered end)."""
    tail_len = min(size, _SEAL_LEN + 22 + 64)
    try:
        with open(path, "rb") as fh:
            fh.seek(size - tail_len)
            tail = fh.read(tail_len)
    except OSError as err:
        raise CheckpointError(f"cannot read checkpoint {_p(path)}: {err.strerror or err}") from None
    digits = tail[-64:]
    sealed = tail[-_SEAL_LEN:-64] == _SEAL_TAG and len(digits) == 64 and all(c in b"0123456789abcdef" for c in digits)
    end = tail[-(_SEAL_LEN + 22):-_SEAL_LEN] if len(tail) >= _SEAL_LEN + 22 else b""
    damaged = f"checkpoint {_p(path)} is damaged: "
    tail_txt = "expected the checkpoint as `bgrl train` wrote it"
    if not sealed:
        at = tail.rfind(_SEAL_TAG)  # a seal moved by a cut or added bytes, or (below) one with altered digits or tag
        if (at >= 22 and tail[at - 22:at - 18] == _EOCD) or (end[:4] == _EOCD and end[-2:] == _SEAL_LEN.to_bytes(2, "little")):
            raise CheckpointError(f"{damaged}its sha256 seal at the end is cut or altered ({size:,} bytes); {tail_txt}")
        return False
    h = hashlib.sha256()
    left = size - 64
    with open(path, "rb") as fh:
        while left > 0:
            chunk = fh.read(min(1 << 20, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    if left or h.hexdigest().encode("ascii") != digits:
        raise CheckpointError(f"{damaged}its bytes do not match the sha256 it carries ({size:,} bytes; changed, "
                              f"truncated or partly copied); {tail_txt}")
    return True


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
    import torch

    from bgrl._fileio import not_a_regular_file

    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{_p(path)} is a folder without final.pt or latest.pt; expected a checkpoint file or a run folder")
    try:
        st = path.stat()
    except FileNotFoundError:
        raise CheckpointError(f"checkpoint not found: {_p(path)} (expected a .pt file written by `bgrl train`)") from None
    except OSError as err:
        raise CheckpointError(f"cannot read checkpoint {_p(path)}: {err.strerror or err}") from None
    kind = not_a_regular_file(st.st_mode)
    if kind is not None:  # never opened: a FIFO would block, a device never ends
        raise CheckpointError(f"checkpoint {_p(path)} is {kind}, not a regular file; expected a .pt file written by `bgrl train`")
    if not _check_seal(path, st.st_size):
        verify_manifest_if_listed(path)  # an unsealed shipped network: its manifest's sha256
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
    import torch

    from bgrl.evaluation.model import TDNet

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
        for top in data.values() if isinstance(data, dict) else []:
            # an entry names the .pt ("file", "sha256") and its weights twin ("npz": {"file", "sha256"})
            for entry in (top, top.get("npz")) if isinstance(top, dict) else ():
                if isinstance(entry, dict) and Path(str(entry.get("file", ""))).name == path.name and "sha256" in entry:
                    if entry["sha256"] != digest:
                        raise ManifestError(f"network {_p(path)} has sha256 {digest}, but {manifest.name} says {entry['sha256']}")
                    return digest, True
    return digest, False


def verify_manifest_if_listed(path) -> None:
    """:func:`verify_manifest` of a checkpoint when a ``manifest.json`` lies beside it (the
    shipped networks); nothing otherwise. Raises ManifestError for a file that differs from
    its entry."""
    path = Path(path)
    if path.with_name(MANIFEST).is_file():
        verify_manifest(path)


def write_manifest_entry(name: str, entry: dict, manifest=None) -> Path:
    """Add or replace ``name``'s entry of the shipped manifest, written atomically.

    ``entry`` is JSON-compatible (file, sha256, encoder, network, training config, commands,
    strength...; see ``scripts/tools/ship_checkpoint.py``). Returns the manifest's path.
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
    backend : ``"torch"`` (:class:`bgrl.evaluation.table.TableNetEvaluator` or
        ``NetEvaluator``) or ``"numpy"`` (:class:`bgrl.evaluation.table_np.NumpyTableEvaluator`
        on the ``.npz`` twin beside ``path``).
    """

    evaluator: object
    meta: dict
    path: Path
    sha256: str
    listed: bool
    backend: str = "torch"


_CACHE: dict[tuple, LoadedNetwork] = {}


def _stat_key(path: Path) -> tuple:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_size, st.st_mtime_ns)
_CACHE_LOCK = threading.Lock()


BACKENDS = ("torch", "numpy", "auto")


def weights_twin(path) -> Path:
    """Where the numpy weights twin of a checkpoint lies: the ``.npz`` beside it
    (``checkpoints/default.pt`` -> ``checkpoints/default.npz``), written by
    ``scripts/tools/ship_checkpoint.py`` (:func:`bgrl.evaluation.table_np.write_weights_npz`)."""
    return Path(path).with_suffix(".npz")


def write_weights_twin(path) -> Path:
    """Write the ``.npz`` weights twin of checkpoint ``path`` beside it (float32 arrays,
    its meta, the ``.pt``'s sha256; :func:`bgrl.evaluation.table_np.write_weights_npz`),
    atomically. Returns the twin's path. Raises CheckpointError for a bad checkpoint."""
    from bgrl.evaluation.table_np import write_weights_npz

    path = Path(path)
    net, meta = load_network(path)
    weights = {k: v.detach().float().numpy() for k, v in net.state_dict().items()}
    return write_weights_npz(weights_twin(path), weights, meta, sha256_of(path))


def _numpy_network(path: Path) -> LoadedNetwork:
    """A checkpoint's network from its ``.npz`` twin, without torch: the ``.pt`` and the
    twin are each checked against the manifest, and the twin must name the ``.pt``'s sha256
    (so a twin left behind by a re-shipped network is refused)."""
    from bgrl.evaluation.table_np import NumpyTableEvaluator, read_weights_npz

    twin = weights_twin(path)
    digest, listed = verify_manifest(path)
    verify_manifest(twin)
    try:
        weights, meta, source = read_weights_npz(twin)
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"weights twin {_p(twin)} cannot be used: {exc}") from None
    if source != digest:
        raise CheckpointError(f"weights twin {_p(twin)} was written for a .pt with sha256 {source}, but {path.name} has "
                              f"{digest}: write it again with scripts/tools/ship_checkpoint.py, or use backend='torch'")
    try:
        evaluator = NumpyTableEvaluator(weights, meta["encoder"])
    except ValueError as exc:
        raise CheckpointError(f"{_p(twin)}: {exc}") from None
    return LoadedNetwork(evaluator, meta, path, digest, listed, "numpy")


def _pick_backend(backend: str, path: Path) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "auto":
        return "numpy" if "torch" not in sys.modules and weights_twin(path).is_file() else "torch"
    return backend


def open_network(spec="default", *, cache: bool = True, backend: str = "torch", _compose: bool = True) -> LoadedNetwork:
    """The one way a checkpoint becomes an evaluator (the CLI, agents, levels, review and the
    service all come here).

    Parameters
    ----------
    spec : str or Path
        ``"default"`` (the shipped ``checkpoints/default.pt``), the bare name of another shipped
        network (``"td198g"``, ``"distilled"``), a run folder (its ``final.pt``, else
        ``latest.pt``) or a checkpoint file.
    cache : bool
        Share one evaluator per file (by path, size and modification time) and backend;
        evaluators are only read, so sharing is thread-safe.
    backend : {"torch", "numpy", "auto"}
        ``"torch"``: read the ``.pt`` with torch (:class:`bgrl.evaluation.table.TableNetEvaluator`).
        ``"numpy"``: read its ``.npz`` weights twin (:func:`weights_twin`; every shipped
        network has one) and evaluate in numpy
        (:class:`bgrl.evaluation.table_np.NumpyTableEvaluator`), importing no torch: the same
        values bit for bit on batches of up to 64 positions, within float32 rounding (~4e-7)
        on larger ones. ``"auto"``: numpy while torch is not imported and a twin exists, else
        torch (also when the twin cannot be used: stale, damaged); ``bgrl hint`` uses it, so
        it starts without importing torch.

    Raises
    ------
    CheckpointError
        for an empty spec, a missing, corrupt or foreign file, or (numpy) a missing, damaged
        or stale twin; :class:`ManifestError` when a file differs from the manifest that
        lists it. ValueError for an unknown backend.
    """
    from bgrl._resources import resolve_checkpoint

    if not str(spec).strip():
        raise CheckpointError("the network is empty: give 'default', a shipped network name, a run folder or a .pt file")
    path = resolve_checkpoint(spec)
    asked, backend = backend, _pick_backend(backend, path)
    if backend == "numpy" and not weights_twin(path).is_file():
        if not path.is_file():
            load_network(path)  # raises its CheckpointError naming what was expected
        raise CheckpointError(f"{_p(path)} has no numpy weights twin {weights_twin(path).name} beside it "
                              "(shipped networks have one; write it with scripts/tools/ship_checkpoint.py), or use backend='torch'")
    try:  # the file and the manifest beside it, as they are now
        st = path.stat()
        key = (str(path.resolve()), st.st_size, st.st_mtime_ns, _stat_key(path.with_name(MANIFEST)), backend,
               _stat_key(weights_twin(path)) if backend == "numpy" else ())
    except OSError:
        key = None
    if cache and key is not None:
        with _CACHE_LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return _with_phase_networks(hit, cache=cache, backend=asked) if _compose and hit.meta.get("phase_networks") else hit
    if key is None or not path.is_file():
        load_network(path)  # raises its CheckpointError naming what was expected
    loaded = None
    if backend == "numpy":
        try:
            loaded = _numpy_network(path)
        except CheckpointError:
            if asked != "auto":
                raise
            # "auto" with a stale or damaged twin: the .pt through torch (the same answers, slower
            # start); tests/evaluation/test_table_np.py keeps the shipped twins in step with their .pt
    if loaded is None:
        from bgrl.evaluation.table import network_evaluator

        digest, listed = verify_manifest(path)
        net, meta = load_network(path)
        loaded = LoadedNetwork(network_evaluator(net, meta["encoder"]), meta, path, digest, listed)
    if cache:
        with _CACHE_LOCK:
            _CACHE[key] = loaded
    if _compose and loaded.meta.get("phase_networks"):
        # composed on every call from the cached parts, so that a changed phase network
        # file is read again (each part's cache entry follows its own file)
        loaded = _with_phase_networks(loaded, cache=cache, backend=asked)
    return loaded


def _with_phase_networks(loaded: LoadedNetwork, *, cache: bool, backend: str) -> LoadedNetwork:
    """``loaded`` with its meta's ``phase_networks`` ({phase name: checkpoint file beside it})
    composed into one :class:`bgrl.evaluation.phase.PhaseEvaluator`, each phase's network
    opened with the backend asked for (``"auto"`` falls back to torch network by network). Raises CheckpointError for an unknown phase, a missing or
    unreadable phase network, or one that has phase networks of its own."""
    from dataclasses import replace

    from bgrl.evaluation.phase import PHASE_NAMES, PhaseEvaluator

    spec = loaded.meta["phase_networks"]
    if not isinstance(spec, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in spec.items()):
        raise CheckpointError(f"{_p(loaded.path)}: phase_networks must map phase names to checkpoint files, got {spec!r}")
    by_phase, names = {}, {}
    for phase, file in spec.items():
        if phase not in PHASE_NAMES:
            raise CheckpointError(f"{_p(loaded.path)}: phase_networks names an unknown phase {phase!r}; "
                                  f"expected some of {', '.join(PHASE_NAMES)}")
        if file in ("", ".", "..") or Path(file).name != file or not file.endswith(".pt"):
            raise CheckpointError(f"{_p(loaded.path)}: phase network {file!r} must be the name of a .pt file beside it")
        sub_path = loaded.path.parent / file
        if sub_path.resolve() == loaded.path.resolve():
            raise CheckpointError(f"{_p(loaded.path)}: its {phase} network {file!r} is the checkpoint itself; "
                                  "expected another network's file beside it")
        try:
            sub = open_network(sub_path, cache=cache, backend=backend, _compose=False)
        except CheckpointError as exc:
            raise CheckpointError(f"{_p(loaded.path)}: its {phase} network: {exc}") from None
        if sub.meta.get("phase_networks"):
            raise CheckpointError(f"{_p(loaded.path)}: its {phase} network {file} has phase networks of its own; "
                                  "expected a plain network")
        code = PHASE_NAMES.index(phase)
        by_phase[code], names[code] = sub.evaluator, Path(file).stem
    return replace(loaded, evaluator=PhaseEvaluator(loaded.evaluator, by_phase, names))


def load_evaluator(spec="default", *, cache: bool = True, backend: str = "torch"):
    """The evaluator of a network spec (see :func:`open_network`, also for ``backend``): a
    callable after-states int8 (M, 26) -> float64 (M, 5) of the side that played."""
    return open_network(spec, cache=cache, backend=backend).evaluator
