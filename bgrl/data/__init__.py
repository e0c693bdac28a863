"""Package data shipped with bgrl: the bear-off database ``bearoff.npz`` (built by
``scripts/build_bearoff.py``; see :mod:`bgrl.bearoff`). Located with importlib.resources."""
