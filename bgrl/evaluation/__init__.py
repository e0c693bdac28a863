"""From after-states to outcome probabilities: networks, exact tables and pubeval.

Modules
-------
probabilities  the five outcome probabilities and equity, numpy only (``Probabilities``, ``equity``)
encoding       board encoders (td198r, td198g) and their numba twins (``encoding_nb``)
features       gnubg-style hand-made inputs and their numba twins (``features_nb``)
model          the torch network (``TDNet``)
evaluator      the plain network evaluator (``NetEvaluator``: any encoder, the reference)
table          the network evaluator of search, levels and training: table-lookup first layer
               for the td198 encoders (``TableNetEvaluator``), ``network_evaluator(net, encoder)``
exact          exact values where known: the bear-off database and one checker a side
bearoff        the one-sided bear-off database
onechecker     one checker against one checker, exactly
pubeval        Tesauro's pubeval, a linear benchmark evaluator
networks       checkpoints: the one loader (``load_evaluator``), the format, the manifest
compiled       when the compiled one-position kernels run: ``movegen_nb`` (the move generator of
               one position, the numpy generator's twin) and ``table_nb`` (the table network's
               forward pass); ``_numba`` chooses numba's cache folder before importing it

Names load on first use, so ``import bgrl.evaluation`` loads no torch.
"""

from bgrl._lazy import lazy_names

__all__ = ["Probabilities", "equity", "load_evaluator", "load_network", "save_checkpoint", "CheckpointError"]

__getattr__, __dir__ = lazy_names(__name__, {
    "Probabilities": "bgrl.evaluation.probabilities", "equity": "bgrl.evaluation.probabilities",
    "load_evaluator": "bgrl.evaluation.networks", "load_network": "bgrl.evaluation.networks",
    "save_checkpoint": "bgrl.evaluation.networks", "CheckpointError": "bgrl.evaluation.networks",
})
