"""Serving bgrl to a game platform: the engine adapter shared by the HTTP service
(:mod:`bgrl.service.app`, needs the optional ``serve`` extra: FastAPI + uvicorn) and the
UBGI stdin/stdout engine (:mod:`bgrl.service.ubgi`, standard library only).

Importing this package loads neither torch nor FastAPI.
"""
