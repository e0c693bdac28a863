"""Package data shipped with bgrl: the bear-off database ``bearoff.npz`` (built by
``scripts/build_bearoff.py``; see :mod:`bgrl.bearoff`) and the error-rate benchmark
``benchmark.npz`` (built by ``scripts/build_benchmark.py``; see :mod:`bgrl.benchmark`). Located with importlib.resources."""
