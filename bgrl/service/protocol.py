"""uvicorn's HTTP protocol with the service's limits on request heads
(:func:`http_protocol`: 431 for a head too large or with too many lines, 408 for a slow one,
400 ``bad_http`` as JSON for malformed HTTP), and the uvicorn options that use it
(:func:`uvicorn_options`; ``bgrl.service.protocol:BoundedHTTP`` for uvicorn's worker processes).
"""

from __future__ import annotations

import http

from bgrl.service.middleware import PAGE_HEADERS, dumps
from bgrl.service.settings import Settings

__all__ = ["http_protocol", "uvicorn_options", "LINGER_S"]


class _Refused(Exception):
    """Raised in a parser callback: the request head breaks a limit (``_refusal`` says which)."""


#: Seconds a refused connection is still read (and what arrives thrown away) after its
#: answer, so that a client still sending gets the answer rather than a reset.
LINGER_S = 1.0


def http_protocol(settings: Settings | None = None):
    """uvicorn's ``http`` protocol with ``settings``' limits on request heads (default:
    :meth:`Settings.from_env`): uvicorn's httptools protocol whose connections answer

    * 431 ``headers_too_large`` for a head (request line and headers) over
      ``max_header_bytes``, as soon as that much has arrived;
    * 431 ``too_many_headers`` for more than ``max_headers`` header lines;
    * 408 ``header_timeout`` when a head has not arrived ``header_timeout_s`` seconds after
      the connection opened or its previous answer ended (an idle connection is closed);
    * 400 ``bad_http`` (JSON, not uvicorn's plain text) for malformed HTTP;

    each with :data:`bgrl.service.middleware.SECURITY_HEADERS`, then close. Without httptools: the string ``"h11"``
    (uvicorn's h11 protocol, whose head limit is set by :func:`uvicorn_options`).
    """
    cfg = settings or Settings.from_env()
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - the serve extra installs httptools
        return "h11"
    max_bytes, max_count, timeout_s = cfg.max_header_bytes, cfg.max_headers, cfg.header_timeout_s

    #: A head timer that fires this many seconds after it was due means the event loop ran late.
    LATE_S = 0.25

    class BoundedHttpTools(HttpToolsProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._in_head = True  # what arrives now belongs to a request's head
            self._head_bytes = 0  # bytes received while in a head (chunk by chunk)
            self._head_size = 0  # bytes of request line and headers the parser gave
            self._head_count = 0
            self._head_timer = None
            self._head_due = 0.0
            self._head_late_once = False
            self._refusal: tuple[int, str, str] | None = None
            self._discard = False

        # -- the head's clock
        def _arm(self) -> None:
            self._disarm()
            self._head_due = self.loop.time() + timeout_s
            self._head_late_once = False
            self._head_timer = self.loop.call_later(timeout_s, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or not self._in_head:
                return
            if self.loop.time() - self._head_due > LATE_S and not self._head_late_once:
                # the event loop itself ran late (the process was busy or descheduled): bytes that came in
                # time may not have been read yet (libuv runs due timers before polling), so let one
                # poll happen before judging the client
                self._head_late_once = True
                self._head_timer = self.loop.call_later(0.05, self._head_timeout)
                return
            if self._head_bytes or self._head_size:
                self._refuse(408, "header_timeout", f"the request head did not arrive within {timeout_s:g} s")
            else:  # idle: nothing to answer
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        # -- the head's size
        def data_received(self, data: bytes) -> None:
            if self._discard:
                return
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > max_bytes and not self._discard and not self.transport.is_closing():
                self._refuse(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")

        def _stop(self, status: int, code: str, message: str) -> None:
            self._refusal = (status, code, message)
            raise _Refused(message)  # httptools stops; uvicorn then calls send_400_response

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_size = self._head_count = 0

        def on_url(self, url: bytes) -> None:
            self._head_size += len(url)
            if self._head_size > max_bytes:
                self._stop(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._head_size += len(name) + len(value) + 4
            self._head_count += 1
            if self._head_count > max_count:
                self._stop(431, "too_many_headers", f"more than {max_count} header lines")
            if self._head_size > max_bytes:
                self._stop(431, "headers_too_large", f"request head over {max_bytes} bytes (request line and headers)")
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._in_head = False
            self._head_bytes = 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head = True
            self._head_bytes = self._head_size = self._head_count = 0

        def on_response_complete(self) -> None:
            waiting = not self.pipeline
            super().on_response_complete()
            if waiting and self._in_head and not self.transport.is_closing():
                self._arm()

        # -- answers of the HTTP layer
        def send_400_response(self, msg: str) -> None:
            status, code, message = self._refusal or (
                400, "bad_http", "malformed HTTP request: expected a request line, header lines and a blank line (HTTP/1.1, RFC 9112)")
            self._refuse(status, code, message)

        def _refuse(self, status: int, code: str, message: str) -> None:
            self._disarm()
            self._discard = True
            if self.transport.is_closing():
                return
            if self.cycle is None or self.cycle.response_complete:  # else an answer is being sent: just close
                body = dumps({"code": code, "message": message})
                lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode()]
                lines += [k + b": " + v + b"\r\n" for k, v in self.server_state.default_headers]
                lines += [k + b": " + v + b"\r\n" for k, v in PAGE_HEADERS]
                lines += [b"content-type: application/json\r\n", b"content-length: " + str(len(body)).encode() + b"\r\n",
                          b"connection: close\r\n\r\n", body]
                self.transport.write(b"".join(lines))
                if self.transport.can_write_eof():
                    self.transport.write_eof()
                    self.loop.call_later(LINGER_S, self.transport.close)  # read and drop what still comes, then close
                    return
            self.transport.close()

    BoundedHttpTools.__qualname__ = BoundedHttpTools.__name__ = "BoundedHttpTools"
    return BoundedHttpTools


_ENV_PROTOCOL = None


def __getattr__(name: str):
    """``bgrl.service.protocol:BoundedHTTP``: :func:`http_protocol` of :meth:`Settings.from_env`
    (the ``http`` option ``bgrl serve --workers N`` gives uvicorn's worker processes)."""
    global _ENV_PROTOCOL
    if name == "BoundedHTTP":
        if _ENV_PROTOCOL is None:
            _ENV_PROTOCOL = http_protocol(Settings.from_env())
        return _ENV_PROTOCOL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def uvicorn_options(settings: Settings, from_env: bool = False) -> dict:
    """The uvicorn options that apply ``settings``' limits on request heads: ``http`` (the
    protocol of :func:`http_protocol`; with ``from_env`` its import string, which worker
    processes rebuild from the environment) and, for h11, its head limit; and whose
    ``X-Forwarded-For`` headers are believed: none unless ``settings.forwarded_allow_ips``
    names proxies (uvicorn believes 127.0.0.1's by default, so any local client, or one behind
    a local proxy that passes the header on, could choose its own address and escape the
    per-address limit on new games); and ``limit_concurrency``, ``settings.max_connections``."""
    proto = http_protocol(settings)
    ips = settings.forwarded_allow_ips.strip()
    proxies = {"proxy_headers": True, "forwarded_allow_ips": ips} if ips else {"proxy_headers": False}
    proxies["limit_concurrency"] = int(settings.max_connections)  # stalled clients cannot hold memory without bound
    if proto == "h11":  # pragma: no cover - without httptools
        return {"http": "h11", "h11_max_incomplete_event_size": settings.max_header_bytes, **proxies}
    return {"http": "bgrl.service.protocol:BoundedHTTP" if from_env else proto, **proxies}
