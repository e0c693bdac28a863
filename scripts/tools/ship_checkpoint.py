"""Ship a trained checkpoint: copy it to checkpoints/, measure it, write the manifest.

    python scripts/tools/ship_checkpoint.py runs/main/latest.pt --name default --games 10000

Copies the network (weights and metadata only, no trainer state) to
``checkpoints/<name>.pt``, writes its numpy weights twin ``checkpoints/<name>.npz`` (read
without torch by ``bgrl hint``; bgrl.evaluation.networks.write_weights_twin), plays ``bgrl match`` against random and pubeval with the same
code the CLI uses, and records in ``checkpoints/manifest.json``: how it was trained (config,
games, training seconds, algorithm), its SHA-256, and the measured strength with the exact
command that reproduces each figure.

    python scripts/tools/ship_checkpoint.py --twins-only [NAME ...]

only writes the ``.npz`` twins of shipped networks (default: all in the manifest) and their
``npz`` manifest entries, measuring nothing.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import torch

from bgrl.agents.registry import load_agent
from bgrl.evaluation.networks import (MANIFEST, load_network, save_checkpoint, sha256_of, write_manifest_entry,
                                      write_weights_twin)
from bgrl.arena.duel import play_match

ROOT = Path(__file__).resolve().parents[2]


def twin_entry(dest: Path) -> dict:
    """Write the weights twin of ``dest`` and return its manifest entry {"file", "sha256"}."""
    twin = write_weights_twin(dest)
    return {"file": str(twin.relative_to(ROOT)), "sha256": sha256_of(twin)}


def twins_only(names) -> int:
    manifest = ROOT / "checkpoints" / MANIFEST
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for name in names or list(data):
        entry = dict(data[name])
        entry["npz"] = twin_entry(ROOT / entry["file"])
        write_manifest_entry(name, entry, manifest)
        print(f"wrote {entry['npz']['file']} ({(ROOT / entry['npz']['file']).stat().st_size} bytes)")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", nargs="?", help="trained checkpoint (.pt)")
    p.add_argument("--twins-only", nargs="*", metavar="NAME", default=None,
                   help="only write the .npz twins of these shipped networks (none named: all)")
    p.add_argument("--name", default="default", help="shipped name: checkpoints/<name>.pt")
    p.add_argument("--games", type=int, default=10000, help="games per strength match")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--opponents", nargs="+", default=["random", "pubeval"])
    p.add_argument("--train-command", default="", help="the command that trained it, for the record")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.twins_only is not None:
        return twins_only(args.twins_only)
    if args.checkpoint is None:
        p.error("give the checkpoint to ship (or --twins-only)")

    net, meta = load_network(args.checkpoint)
    dest = ROOT / "checkpoints" / f"{args.name}.pt"
    keep = {k: v for k, v in meta.items() if k not in ("package_version", "hidden", "n_inputs")}
    save_checkpoint(dest, net, keep)
    sha = sha256_of(dest)
    npz = twin_entry(dest)
    rel = dest.relative_to(ROOT)
    strength = {}
    agent = load_agent(dest)
    for opp in args.opponents:
        r = play_match(agent, load_agent(opp), args.games, seed=args.seed, names=(str(rel), opp))
        print(r.summary(), flush=True)
        strength[opp] = {
            **{k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.as_dict().items()},
            "command": f"bgrl match {rel} {opp} --games {args.games} --seed {args.seed}",
        }
    entry = {
        "file": str(rel),
        "sha256": sha,
        "npz": npz,
        "encoder": meta["encoder"],
        "network": f"{meta['n_inputs']}-{meta['hidden']}-5 sigmoid MLP (bgrl.evaluation.model.TDNet)",
        "games_trained": meta.get("games"),
        "plies_trained": meta.get("plies"),
        "train_seconds": meta.get("train_seconds"),
        "algorithm": meta.get("algorithm"),
        "config": meta.get("config"),
        "train_command": args.train_command,
        "machine": f"{platform.machine()}, {platform.python_version()}, torch {torch.__version__}, 1 thread",
        "measured": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "strength": strength,
    }
    manifest_path = write_manifest_entry(args.name, entry, ROOT / "checkpoints" / MANIFEST)
    print(f"wrote {rel} ({dest.stat().st_size} bytes) and {manifest_path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
