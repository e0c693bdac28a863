"""Shipped networks (package data ``bgrl.checkpoints``): ``default.pt`` and ``manifest.json``.

Located at run time with :func:`bgrl._resources.shipped_checkpoint`.
"""
