"""The service's ASGI middleware, outermost first as :func:`bgrl.service.app.create_app`
stacks them (after :class:`bgrl.service.metrics.AccessLog`): :class:`Guard` (the ``Host``
allow-list, ``HEAD``, :data:`SECURITY_HEADERS` on every answer), :class:`BodyLimit` (413 and
408 for request bodies), and :class:`LeanRoutes` (the hot routes without FastAPI, with their
lean parsers :func:`lean_move_body` and :func:`lean_wildbg_query`). Also the per-client
:class:`RateLimit` of new web games, and :func:`error_response`, the JSON error answer
``{"code", "message"}`` that every layer gives.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import OrderedDict

from fastapi.responses import JSONResponse

from bgrl.agents.levels import DEFAULT_PLAY_LEVEL, LEVEL_NAMES
from bgrl.service.engine import MAX_SEED

__all__ = ["BodyLimit", "Guard", "LeanRoutes", "RateLimit", "SECURITY_HEADERS", "PAGE_CSP",
           "LOOPBACK_HOSTS", "PAGE_HEADERS", "host_name", "error_response", "lean_move_body", "lean_wildbg_query",
           "dumps", "loads"]

try:  # the serve extra installs orjson (several times faster than json for these small answers)
    import orjson as _orjson

    def dumps(obj) -> bytes:
        return _orjson.dumps(obj)

    loads = _orjson.loads
except ImportError:  # pragma: no cover - without it the stdlib's json does the same job
    import json as _json

    def dumps(obj) -> bytes:
        return _json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()

    loads = _json.loads


def error_response(status: int, code: str, message: str, headers: dict | None = None, **extra) -> JSONResponse:
    """The JSON error answer ``{"code", "message", ...extra}`` with ``status``."""
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status, headers=headers)


class BodyLimit:
    """ASGI middleware: answer 413 (JSON) for a request body over ``max_bytes``, whether
    the size is announced in Content-Length or only seen while reading, and 408 (JSON,
    ``body_timeout``) when the whole body has not arrived ``body_timeout_s`` seconds after
    the headers (a stalled or trickling client). ``per_path`` maps a path to a larger
    limit of its own (the web board's upload of a game file)."""

    def __init__(self, app, max_bytes: int, per_path: dict | None = None, body_timeout_s: float = 10.0):
        self.app = app
        self.max_bytes = max_bytes
        self.per_path = dict(per_path or {})
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.per_path.get(scope.get("path"), self.max_bytes)
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                if not v.isdigit() or int(v) > limit:
                    return await error_response(413, "too_large", f"request body over {limit} bytes")(scope, receive, send)
        # Read the (small) body here, stopping at the limit and at the timeout, then hand it on in one piece.
        chunks, seen, more = [], 0, True
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.body_timeout_s
        while more:
            try:
                msg = await asyncio.wait_for(receive(), max(give_up - loop.time(), 0.0))
            except asyncio.TimeoutError:
                return await error_response(408, "body_timeout", f"the request body did not arrive within {self.body_timeout_s:g} s",
                                    headers={"connection": "close"})(scope, receive, send)
            if msg["type"] != "http.request":  # client went away
                return
            body = msg.get("body", b"")
            seen += len(body)
            if seen > limit:
                return await error_response(413, "too_large", f"request body over {limit} bytes")(scope, receive, send)
            chunks.append(body)
            more = msg.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# ----------------------------------------------------------------------------- bounded requests, hosts, headers, rates
#: Content-Security-Policy of every answer, the API docs included (Swagger UI is served from
#: this server, bgrl.service.apidocs): scripts and styles from this server only (no inline
#: script or style attribute on the page), no framing.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
#: The security headers of every answer (errors of the HTTP layer included).
SECURITY_HEADERS = {"content-security-policy": PAGE_CSP, "x-frame-options": "DENY", "x-content-type-options": "nosniff",
                    "referrer-policy": "no-referrer"}
#: Host names always served: loopback (a DNS-rebinding page names its own domain instead).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _header_list(csp: str) -> list[tuple[bytes, bytes]]:
    return [(k.encode(), (csp if k == "content-security-policy" else v).encode()) for k, v in SECURITY_HEADERS.items()]


PAGE_HEADERS = _header_list(PAGE_CSP)


def host_name(value: bytes | str) -> str | None:
    """The host of a ``Host`` header value: lower case, without the port, an IPv6 address
    without its brackets, no trailing dot; None when it is not ``name[:port]`` or ``[v6][:port]``."""
    try:
        s = (value.decode("ascii") if isinstance(value, bytes) else value).strip().lower()
    except UnicodeDecodeError:
        return None
    if s.startswith("["):
        end = s.find("]")
        if end < 0:
            return None
        name, rest = s[1:end], s[end + 1:]
    else:
        name = s.split(":", 1)[0]
        rest = s[len(name):]
    if rest and not (rest[0] == ":" and (rest[1:].isdigit() or rest == ":")):
        return None
    name = name.rstrip(".")
    if not name or any(c.isspace() or c in "/\\@?#" for c in name):
        return None
    return name


class Guard:
    """ASGI middleware: the ``Host`` allow-list (400 ``bad_host``), ``HEAD`` answered as
    ``GET`` without the body, and :data:`SECURITY_HEADERS` on every answer.

    A Host is served when it names a loopback address or ``localhost``, the address the
    connection reached (the server's own address, as a client typing it would send),
    or a name of ``allowed_hosts`` (comma-separated; ``*`` = any). A request without a
    Host header is served over HTTP/1.0 only (HTTP/1.1 requires one: 400 ``bad_host``).
    """

    def __init__(self, app, allowed_hosts: str = ""):
        self.app = app
        names = [h.strip() for h in allowed_hosts.split(",") if h.strip()]
        self.any_host = "*" in names
        extra = [n for n in (host_name(h) for h in names if h != "*") if n]
        self.hosts = frozenset(LOOPBACK_HOSTS) | frozenset(extra)
        self.shown = ", ".join(["127.0.0.1", "localhost", "[::1]"] + [f"[{n}]" if ":" in n else n for n in sorted(set(extra) - set(LOOPBACK_HOSTS))])

    def bad_host(self, scope) -> str | None:
        """Why the request's Host is refused, or None."""
        if self.any_host:
            return None
        given = [v for k, v in scope.get("headers", []) if k == b"host"]
        if not given:  # HTTP/1.0 may leave it out; HTTP/1.1 must send one (RFC 9112, section 3.2)
            return None if scope.get("http_version") == "1.0" else "an HTTP/1.1 request needs a Host header"
        if len(given) > 1:
            return "more than one Host header"
        name = host_name(given[0])
        if name is None:
            return f"malformed Host header {given[0][:80].decode('latin-1')!r}: expected name[:port] or [IPv6][:port]"
        server = scope.get("server")
        if name in self.hosts or (server and str(server[0]).lower() == name):
            return None
        return (f"Host {name[:80]!r} is not served here: expected one of {self.shown} or this server's address "
                "(bgrl serve --allowed-host NAME adds a name)")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = PAGE_HEADERS
        head = scope.get("method") == "HEAD"

        async def guarded(msg):
            if msg["type"] == "http.response.start":
                headers = list(msg.get("headers", []))
                present = {bytes(k).lower() for k, _ in headers}
                msg = {**msg, "headers": headers + [(k, v) for k, v in extra if k not in present]}
            elif head and msg["type"] == "http.response.body":
                msg = {**msg, "body": b""}
            await send(msg)

        why = self.bad_host(scope)
        if why is not None:
            return await error_response(400, "bad_host", why)(scope, receive, guarded)
        if not head:
            return await self.app(scope, receive, guarded)
        # every GET route answers HEAD: the same status and headers, no body (the server
        # sees its own scope still say HEAD); the route found goes back to the access log
        inner = {**scope, "method": "GET"}
        try:
            await self.app(inner, receive, guarded)
        finally:
            if "route" in inner:
                scope["route"] = inner["route"]


class RateLimit:
    """Token buckets by key (a client's address): ``burst`` tokens each, refilled at
    ``per_minute``; :meth:`take` spends one. Thread-safe; at most ``max_keys`` buckets are
    kept (the least recently used dropped: it comes back full)."""

    def __init__(self, per_minute: float, burst: int, max_keys: int = 65_536):
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key) -> float:
        """Spend a token of ``key``'s bucket: 0.0 when there was one, else the seconds
        until there is (nothing spent). Always 0.0 with no limit (``per_minute`` 0)."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, t = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - t) * self.rate)
            wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens - 1.0 if wait == 0.0 else tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        return wait


# ----------------------------------------------------------------------------- lean hot routes
_LEVELS = frozenset(LEVEL_NAMES)
_MOVE_KEYS = frozenset(("position", "dice", "level", "seed"))
_POSITION_LIMITS = {"gnubg_id": 64, "xgid": 128}
_SMALL_INT = re.compile(r"(0|-?[1-9][0-9]?)\Z")  # a pip count as wildbg sends it
_SEED_TEXT = re.compile(r"(0|[1-9][0-9]{0,18})\Z")
_DIE_TEXT = frozenset("123456")
_WILDBG_MOVE_KEYS = frozenset(["die1", "die2", "x_away", "o_away", "level", "seed"] + [f"p{i}" for i in range(26)])


def lean_move_body(body: bytes):
    """The fields of a ``POST /v1/move`` body that plainly matches
    :class:`bgrl.service.schemas.MoveRequest` (what clients send: JSON ints, a known level,
    one position field), else None: anything else takes the full FastAPI path, whose
    validation gives the documented errors."""
    try:
        req = loads(body)
    except ValueError:
        return None
    if type(req) is not dict or "position" not in req or not req.keys() <= _MOVE_KEYS:
        return None
    p = req["position"]
    if type(p) is not dict or len(p) != 1:
        return None
    ((key, val),) = p.items()
    if key in _POSITION_LIMITS:
        if type(val) is not str or len(val) > _POSITION_LIMITS[key]:
            return None
    elif key == "board":
        if type(val) is not list or len(val) != 26 or not all(type(v) is int and -15 <= v <= 15 for v in val):
            return None
    else:
        return None
    dice = req.get("dice")
    if dice is not None and not ((type(dice) is list and 1 <= len(dice) <= 8 and all(type(d) is int for d in dice))
                                 or (type(dice) is str and len(dice) <= 16)):
        return None
    level = req.get("level", DEFAULT_PLAY_LEVEL)
    if type(level) is not str or level not in _LEVELS:
        return None
    seed = req.get("seed")
    if seed is not None and not (type(seed) is int and 0 <= seed <= MAX_SEED):
        return None
    return {key: val}, dice, level, seed


def lean_wildbg_query(qs: bytes):
    """The parameters of a ``GET /move`` query string made only of known names given once,
    each a plain number (``die1=3&die2=1&p6=5...``), else None (the full path answers)."""
    if not qs or b"%" in qs or b"+" in qs:
        return None
    try:
        parts = qs.decode("ascii").split("&")
    except UnicodeDecodeError:
        return None
    q: dict[str, str] = {}
    for part in parts:
        k, eq, v = part.partition("=")
        if not eq or not v or k not in _WILDBG_MOVE_KEYS or k in q:
            return None
        q[k] = v
    if q.get("die1") not in _DIE_TEXT or q.get("die2") not in _DIE_TEXT:
        return None
    board = [0] * 26
    for i in range(26):
        v = q.get(f"p{i}")
        if v is not None:
            if not _SMALL_INT.match(v) or abs(int(v)) > 15:
                return None
            board[i] = int(v)
    away = (q.get("x_away", "0"), q.get("o_away", "0"))
    if away not in (("0", "0"), ("1", "1")):
        return None
    level = q.get("level", DEFAULT_PLAY_LEVEL)
    if level not in _LEVELS:
        return None
    seed = q.get("seed")
    if seed is not None:
        if not _SEED_TEXT.match(seed) or int(seed) > MAX_SEED:
            return None
        seed = int(seed)
    return board, (int(q["die1"]), int(q["die2"])), level, seed, away == ("1", "1")


class LeanRoutes:
    """ASGI middleware: ``POST /v1/move`` and wildbg's ``GET /move`` without FastAPI's
    routing, pydantic validation and response model round trips.

    A request is answered here only when it plainly matches the route's schema
    (:func:`lean_move_body`, :func:`lean_wildbg_query`) and its position and dice parse;
    every other one (and every one the checks here cannot vouch for) goes on to FastAPI
    unchanged, so bad requests get exactly the documented errors. The answers are those
    of the FastAPI handlers field for field (``tests/service/test_service_perf.py`` compares the
    two paths). ``handlers``: path -> coroutine ``(scope, body) -> bytes | None`` that
    returns the response JSON, None to hand the request on, or raises an engine error.
    """

    def __init__(self, app, handlers: dict, routes: dict, on_error):
        self.app = app
        self.handlers = handlers
        self.routes = routes  # path -> the APIRoute (the access log's endpoint label)
        self.on_error = on_error

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        h = self.handlers.get((scope["method"], scope["path"]))
        if h is None:
            return await self.app(scope, receive, send)
        body = b""
        if scope["method"] == "POST":
            ctype = next((v for k, v in scope["headers"] if k == b"content-type"), None)
            if ctype != b"application/json":
                return await self.app(scope, receive, send)
            chunks, more = [], True
            while more:
                msg = await receive()
                if msg["type"] != "http.request":
                    return
                chunks.append(msg.get("body", b""))
                more = msg.get("more_body", False)
            body = b"".join(chunks)
        try:
            out = await h(scope, body)
        except Exception as exc:  # engine errors: the responses of the app's exception handlers
            scope["route"] = self.routes[scope["path"]]
            return await self.on_error(exc)(scope, receive, send)
        if out is None:
            replayed = False

            async def replay():
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            return await self.app(scope, replay, send)
        scope["route"] = self.routes[scope["path"]]
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", str(len(out)).encode()), (b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": out})
