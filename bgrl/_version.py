"""The package version and the UBGI protocol version it speaks (one place each; nothing imports
the package face for them)."""

__version__ = "0.1.0"

#: The UBGI engine protocol version of ``bgrl ubgi`` (:mod:`bgrl.service.ubgi`; its ``proto`` line).
UBGI_VERSION = "0.2"
