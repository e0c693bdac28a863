"""Package data shipped with bgrl: the bear-off database ``bearoff.npz`` (built by
``scripts/tools/build_bearoff.py``; see :mod:`bgrl.evaluation.bearoff`) and the error-rate benchmark
``benchmark.npz`` (built by ``scripts/tools/build_benchmark.py``; see :mod:`bgrl.arena.benchmark`) and the
Kazaross-XG2 match equity table ``met_kazaross_xg2.json`` (source in the file; see
:mod:`bgrl.evaluation.match_equity`). Located with importlib.resources."""
