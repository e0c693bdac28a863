"""Prometheus metrics and structured access logs of the HTTP service (``serve`` extra).

One :class:`ServiceMetrics` per app, on its own ``prometheus_client.CollectorRegistry``
(several apps in one process, as in the tests, do not share counters). ``GET /metrics``
answers :meth:`ServiceMetrics.render` in the Prometheus text format (version 0.0.4).

Metric names (all prefixed ``bgrl_``):

- ``bgrl_requests_total{endpoint, level, status}``: requests answered, by route
  template, level (``-`` where the route has none) and HTTP status;
- ``bgrl_request_seconds{endpoint}``: latency histogram, seconds, from the first byte
  of the request to the response;
- ``bgrl_queue_depth``: engine calls waiting for a batch (gauge);
- ``bgrl_inflight``: requests admitted and not yet answered by the engine (gauge);
- ``bgrl_batch_size``: engine calls per batch (histogram);
- ``bgrl_batch_seconds``: time a batch takes in its worker (histogram, seconds);
- ``bgrl_worker_restarts_total``: engine pools replaced after a worker process died;
- ``bgrl_rejected_total{reason}``: engine calls refused (``overloaded``, ``deadline``,
  ``worker_lost``).

The access log is one JSON object per line on the logger ``bgrl.access`` (fields ``ts``
(UNIX seconds), ``request_id``, ``method``, ``path``, ``status``, ``ms``, ``level``,
``client``); the request id comes from the client's ``X-Request-ID`` header when it sends
a short printable one, else a fresh one, and is echoed in the response's ``X-Request-ID``.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time

from bgrl.agents.levels import LEVEL_NAMES

try:
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
except ImportError:  # the serve extra installs it; without it the service runs and /metrics says so
    CONTENT_TYPE_LATEST = "text/plain; version=0.0.4; charset=utf-8"
    CollectorRegistry = None

    class _NoMetric:
        def __init__(self, *args, **kwargs):
            pass

        def labels(self, *args):
            return self

        def inc(self, *args):
            pass

        def set(self, *args):
            pass

        def observe(self, *args):
            pass

    Counter = Gauge = Histogram = _NoMetric

    def generate_latest(registry) -> bytes:
        from bgrl._extras import missing_extra

        return f"# {missing_extra('serve', '/metrics')}\n".encode()

__all__ = ["ServiceMetrics", "AccessLog", "CONTENT_TYPE_LATEST", "access_logger", "configure_logging", "label_level"]

_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_ID_OK = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
_LEVEL_LABELS = frozenset(LEVEL_NAMES)


def label_level(request, level) -> None:
    """Set the level label of ``request`` (its access log line and metrics): ``level`` when
    it names a level, else ``"other"``."""
    request.state.level = level if isinstance(level, str) and level in _LEVEL_LABELS else "other"


def access_logger() -> logging.Logger:
    """The ``bgrl.access`` logger (one JSON line per request, at INFO)."""
    return logging.getLogger("bgrl.access")


def configure_logging(level: str = "warning") -> None:
    """Send the ``bgrl.access`` (INFO: one JSON line per request) and ``bgrl.service``
    loggers to stderr at ``level`` (``critical``, ``error``, ``warning``, ``info``,
    ``debug``; ``bgrl serve --log-level``). Idempotent.

    Raises ValueError for another level name."""
    lv = getattr(logging, str(level).upper(), None)
    if not isinstance(lv, int) or str(level).lower() not in ("critical", "error", "warning", "info", "debug"):
        raise ValueError(f"log level must be critical, error, warning, info or debug, got {level!r}")
    for name in ("bgrl.access", "bgrl.service"):
        log = logging.getLogger(name)
        log.setLevel(lv)
        if not any(getattr(h, "_bgrl", False) for h in log.handlers):
            h = logging.StreamHandler()
            h.setFormatter(logging.Formatter("%(message)s"))
            h._bgrl = True
            log.addHandler(h)
        log.propagate = False


class ServiceMetrics:
    """The service's metrics on a private registry (see the module docstring for names)."""

    def __init__(self):
        self.registry = CollectorRegistry() if CollectorRegistry is not None else None
        r = self.registry
        self.requests = Counter("bgrl_requests", "Requests answered, by endpoint, level and HTTP status", ["endpoint", "level", "status"], registry=r)
        self.latency = Histogram("bgrl_request_seconds", "Request latency in seconds, by endpoint", ["endpoint"], buckets=_LATENCY_BUCKETS, registry=r)
        self.queue_depth = Gauge("bgrl_queue_depth", "Engine calls waiting for a batch", registry=r)
        self.inflight = Gauge("bgrl_inflight", "Requests admitted and not yet answered by the engine", registry=r)
        self.batch_size = Histogram("bgrl_batch_size", "Engine calls per batch", buckets=_BATCH_BUCKETS, registry=r)
        self.batch_seconds = Histogram("bgrl_batch_seconds", "Seconds a batch takes in its engine worker", buckets=_LATENCY_BUCKETS, registry=r)
        self.worker_restarts = Counter("bgrl_worker_restarts", "Engine pools replaced after a worker process died", registry=r)
        self.rejected = Counter("bgrl_rejected", "Engine calls refused, by reason", ["reason"], registry=r)
        self.refused_latency = Histogram("bgrl_refused_seconds", "Seconds from a request's first byte to its 503 answer "
                                         "(overloaded, worker lost), inside the server", buckets=_LATENCY_BUCKETS, registry=r)
        #: perf_counter time until which the server counts as shared: set 50 ms ahead whenever
        #: a request comes from another connection than the one before (the service then
        #: batches every call rather than run one in the server process)
        self.shared_until = 0.0
        self._last_client = None
        self._children: dict = {}  # (endpoint, level, status) -> (request counter, latency histogram)
        #: HTTP requests being served now (the batcher waits only while some have not reached the engine yet)
        self.active = 0

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)


class AccessLog:
    """ASGI middleware: request id, metrics and one JSON access-log line per HTTP request.

    Parameters
    ----------
    app : ASGI app
    metrics : ServiceMetrics
    logger : logging.Logger, default :func:`access_logger`
    """

    def __init__(self, app, metrics: ServiceMetrics, logger: logging.Logger | None = None):
        self.app = app
        self.metrics = metrics
        self.log = logger or access_logger()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.perf_counter()
        rid = None
        for k, v in scope.get("headers", []):
            if k == b"x-request-id":
                text = v.decode("latin-1")
                rid = text if _ID_OK.match(text) else None
        rid = rid or secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = rid
        status = [500]
        self.metrics.active += 1
        client = scope.get("client")
        if client != self.metrics._last_client:
            self.metrics._last_client = client
            self.metrics.shared_until = t0 + 0.05

        async def send_wrapped(msg):
            if msg["type"] == "http.response.start":
                status[0] = msg["status"]
                msg = dict(msg)
                msg["headers"] = list(msg.get("headers", [])) + [(b"x-request-id", rid.encode())]
            await send(msg)

        try:
            await self.app(scope, receive, send_wrapped)
        finally:
            self.metrics.active -= 1
            dt = time.perf_counter() - t0
            route = scope.get("route")
            endpoint = getattr(route, "path", None) or "other"
            level = scope.get("state", {}).get("level") or "-"
            m = self.metrics
            key = (endpoint, level, status[0])
            child = m._children.get(key)
            if child is None:  # labelled children looked up once each (prometheus-client's labels() is slow)
                if len(m._children) > 10_000:  # pragma: no cover - bounded by routes x levels x statuses
                    m._children.clear()
                child = m._children[key] = (m.requests.labels(endpoint, level, str(status[0])), m.latency.labels(endpoint))
            child[0].inc()
            child[1].observe(dt)
            if status[0] == 503:
                m.refused_latency.observe(dt)
            if self.log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                self.log.info(json.dumps({"ts": round(time.time(), 3), "request_id": rid, "method": scope.get("method"),
                                          "path": scope.get("path"), "status": status[0], "ms": round(dt * 1000, 3),
                                          "level": level, "client": f"{client[0]}:{client[1]}" if client else None},
                                         separators=(",", ":")))
