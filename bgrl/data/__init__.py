"""Package data shipped with bgrl: the bear-off database ``bearoff.npz`` (built by
``scripts/build_bearoff.py``; see :mod:`bgrl.evaluation.bearoff`) and the error-rate benchmark
``benchmark.npz`` (built by ``scripts/build_benchmark.py``; see :mod:`bgrl.arena.benchmark`). Located with importlib.resources."""
