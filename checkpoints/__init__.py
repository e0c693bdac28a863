"""Shipped networks (package data ``bgrl.checkpoints``): ``default.pt`` and ``manifest.json``.

Located at run time with :func:`bgrl.resources.shipped_checkpoint`.
"""
