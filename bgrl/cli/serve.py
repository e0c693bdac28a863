"""``bgrl serve`` and ``bgrl ubgi``: argument parsing and start-up (registered in bgrl.cli)."""

from __future__ import annotations

import argparse
import errno
import math
import os
import socket
import sys
from bgrl.cli._common import CLIError
from bgrl._extras import MissingExtraError, require
from bgrl._version import UBGI_VERSION

__all__ = ["add_serve_parser", "add_ubgi_parser", "cmd_serve", "cmd_ubgi"]


def add_serve_parser(sub) -> None:
    s = sub.add_parser(
        "serve",
        help="HTTP bot service and the web board (needs the optional extra 'serve')",
        description="Serve moves, hints and evaluations over HTTP (FastAPI + uvicorn), with wildbg-compatible "
        "GET /move and GET /eval. OpenAPI at /docs. Binds loopback unless --host says otherwise.",
    )
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s, loopback only)")
    s.add_argument("--port", type=_port_number, default=8080, help="TCP port (default: %(default)s)")
    s.add_argument("--workers", type=int, default=1, help="server processes, each loading every level (default: %(default)s)")
    s.add_argument("--pool-workers", type=int, default=0, help="engine workers (processes or threads, see --pool) per server process (default: cores / server processes)")
    s.add_argument("--pool", choices=["process", "thread"], default="process",
                   help="engine workers: processes (each loads every level; true parallelism) or threads (default: %(default)s)")
    s.add_argument("--max-inflight", type=int, default=0, help="requests admitted at once per process before 503 (default: 64 x pool workers)")
    s.add_argument("--batch-window", type=float, default=2.0, metavar="MS",
                   help="longest wait in milliseconds for concurrent requests to join a batch (default: %(default)s; 0: none)")
    s.add_argument("--max-batch", type=int, default=64, help="most engine calls evaluated together in one batch (default: %(default)s)")
    s.add_argument("--grace", type=float, default=10.0, help="seconds in-flight requests get to finish on SIGTERM or Ctrl-C (default: %(default)s)")
    s.add_argument("--deadline", type=float, default=10.0, help="seconds per request before 504 (default: %(default)s)")
    s.add_argument("--body-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds a client may take to send a request body after its headers; 408 after (default: %(default)s)")
    s.add_argument("--max-body", type=int, default=16_384, help="largest request body in bytes (default: %(default)s)")
    s.add_argument("--header-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="seconds a connection may take to send a request's head (request line and headers); 408 after (default: %(default)s)")
    s.add_argument("--max-header-bytes", type=int, default=16_384, metavar="BYTES",
                   help="largest request head (request line and headers) in bytes; 431 above (default: %(default)s)")
    s.add_argument("--max-headers", type=int, default=100, help="most header lines in one request; 431 above (default: %(default)s)")
    s.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a name the Host header may give besides 127.0.0.1, localhost, [::1] and the bound address "
                   "(repeatable; '*' = any); others get 400 (DNS rebinding)")
    s.add_argument("--games-per-minute", type=float, default=60.0,
                   help="new web games per client address and minute, after the burst; 429 beyond (default: %(default)s; 0: no limit)")
    s.add_argument("--games-burst", type=int, default=60, help="new web games a client address may start at once (default: %(default)s)")
    s.add_argument("--forwarded-allow-ips", metavar="IPS", default="", help="comma-separated addresses of the reverse "
                   "proxies whose X-Forwarded-For / X-Forwarded-Proto headers give the client's address ('*' = any); "
                   "default: none, the client is the connection's peer (a client cannot choose the address the "
                   "new-games limit counts)")
    s.add_argument("--max-connections", type=int, default=1000, metavar="N", help="connections and requests in progress "
                   "a server process holds at once; one more gets 503 at once, so stalled clients cannot grow its memory "
                   "without bound (default: %(default)s)")
    s.add_argument("--game-deadline", type=float, default=10.0, metavar="SECONDS", help="seconds of a web game's engine "
                   "work (new game, the computer's turns, session hints) before 504; the work stops (default: %(default)s)")
    s.add_argument("--review-deadline", type=float, default=120.0, metavar="SECONDS", help="seconds of a review (an "
                   "uploaded file's, a web game's) before 504; it stops then, or when its client leaves (default: %(default)s)")
    s.add_argument("--review-workers", type=int, default=1, metavar="N", help="threads per server process that run "
                   "reviews (uploaded files, web games, the statistics), apart from the threads of game commands, "
                   "which never wait behind a review; 8 x N reviews are admitted at once, 503 beyond (default: %(default)s)")
    s.add_argument("--store", metavar="URL", default=None, help="where games are kept: sqlite:///PATH or "
                   "postgresql://user:password@host:port/db (PostgreSQL for several --workers or replicas; default: "
                   "$BGRL_STORE, else ~/.bgrl/bgrl.db; docs/store.md)")
    s.add_argument("--keep-finished-days", type=float, default=0.0, metavar="DAYS", help="delete finished games not "
                   "touched for DAYS days, at start-up (default: 0 = keep them; games in progress are always kept)")
    s.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"], help="log level of uvicorn and bgrl; info adds one JSON access-log line per request on stderr (default: %(default)s)")
    s.set_defaults(func=cmd_serve)


def _host_name(text: str):
    from bgrl.service.middleware import host_name

    return host_name(text.strip())


def _address_or_network(text: str) -> bool:
    """Whether ``text`` is an IP address or network (``--forwarded-allow-ips``), as uvicorn reads them."""
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


def _port_number(text: str) -> int:
    """argparse type of ``--port``: an integer (its range is checked in :func:`cmd_serve`)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a TCP port number 1..65535, got {text!r}") from None


def check_bind(host: str, port: int) -> None:
    """Fail early, with one clear line, where uvicorn would fail to bind ``host:port``.

    Resolves ``host`` (numeric address or name) and binds, then closes, a TCP socket there
    with ``SO_REUSEADDR`` as uvicorn does. Raises ``CLIError`` (exit status 2) for a host
    that is not a valid address or resolvable name, an address not on this machine, a
    port already in use, or a port the user may not bind. A race with another process
    that takes the port between this check and uvicorn's own bind remains possible.
    """
    if not host.strip():
        raise CLIError("--host is empty: give an address to bind, e.g. 127.0.0.1, ::1, 0.0.0.0 or localhost")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError):
        raise CLIError(f"--host {host!r} is not a valid IPv4/IPv6 address or resolvable host name (e.g. 127.0.0.1, ::1, 0.0.0.0, localhost)") from None
    family, kind, proto, _, addr = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CLIError(f"port {port} is already in use on {host}: stop the other server or choose another --port") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise CLIError(f"--host {host} is not an address of this machine: give a local address, e.g. 127.0.0.1 or 0.0.0.0") from None
        if exc.errno == errno.EACCES:
            raise CLIError(f"no permission to bind port {port} on {host}: choose a --port above 1023") from None
        raise CLIError(f"cannot bind {host}:{port}: {exc.strerror or exc}") from None


def add_ubgi_parser(sub) -> None:
    u = sub.add_parser("ubgi", help=f"UBGI v{UBGI_VERSION} engine on stdin/stdout (for bgci and other controllers)",
                       description=f"Speak the UBGI v{UBGI_VERSION} engine protocol on stdin/stdout. engine.ply is root-inclusive "
                       "(UBGI 1-ply = gnubg 0-ply).")
    u.set_defaults(func=cmd_ubgi)


def cmd_serve(args) -> int:
    try:
        require("fastapi", "serve", "bgrl serve")
        uvicorn = require("uvicorn", "serve", "bgrl serve")
    except MissingExtraError as exc:
        raise CLIError(str(exc)) from None
    if not 0 < args.port < 65536:
        raise CLIError(f"--port must be 1..65535, got {args.port}")
    for flag, v in (("--workers", args.workers), ("--max-body", args.max_body), ("--max-batch", args.max_batch),
                    ("--max-headers", args.max_headers), ("--games-burst", args.games_burst),
                    ("--review-workers", args.review_workers), ("--max-connections", args.max_connections)):
        if v < 1:
            raise CLIError(f"{flag} must be >= 1, got {v}")
    for flag, v in (("--pool-workers", args.pool_workers), ("--max-inflight", args.max_inflight)):
        if v < 0:
            raise CLIError(f"{flag} must be >= 0, got {v}")
    if not args.deadline > 0:
        raise CLIError(f"--deadline must be > 0, got {args.deadline}")
    if not (args.body_timeout > 0 and math.isfinite(args.body_timeout)):
        raise CLIError(f"--body-timeout must be > 0 seconds and finite, got {args.body_timeout}")
    if not (args.header_timeout > 0 and math.isfinite(args.header_timeout)):
        raise CLIError(f"--header-timeout must be > 0 seconds and finite, got {args.header_timeout}")
    if args.max_header_bytes < 1024:
        raise CLIError(f"--max-header-bytes must be >= 1024, got {args.max_header_bytes}")
    if not (args.games_per_minute >= 0 and math.isfinite(args.games_per_minute)):
        raise CLIError(f"--games-per-minute must be >= 0 and finite (0: no limit), got {args.games_per_minute}")
    for name in args.allowed_host:
        if name != "*" and _host_name(name) is None:
            raise CLIError(f"--allowed-host {name!r} is not a host name or address: expected e.g. board.example.org, 192.168.1.5 or [fe80::1]")
    ips = [ip.strip() for ip in args.forwarded_allow_ips.split(",") if ip.strip()]
    for ip in ips:
        if ip != "*" and not _address_or_network(ip):
            raise CLIError(f"--forwarded-allow-ips: {ip[:60]!r} is not an IP address or network: expected e.g. "
                           "127.0.0.1, 10.0.0.0/8 or * (comma-separated)")
    if not 0 <= args.batch_window <= 1000:
        raise CLIError(f"--batch-window must be 0..1000 milliseconds, got {args.batch_window}")
    if not args.grace >= 0:
        raise CLIError(f"--grace must be >= 0 seconds, got {args.grace}")
    for flag, v in (("--game-deadline", args.game_deadline), ("--review-deadline", args.review_deadline)):
        if not (v > 0 and math.isfinite(v)):
            raise CLIError(f"{flag} must be > 0 seconds and finite, got {v}")
    if not (args.keep_finished_days >= 0 and math.isfinite(args.keep_finished_days)):
        raise CLIError(f"--keep-finished-days must be >= 0 and finite, got {args.keep_finished_days}")
    from bgrl.session.store import GameStore, store_url

    store = store_url(args.store)
    GameStore.open(store).close()  # an unreadable, corrupt or newer store, or an unreachable server: one line, exit 2
    check_bind(args.host, args.port)
    from bgrl.service.app import Settings, create_app, settings_env, uvicorn_options

    pool = args.pool_workers or max(1, (os.cpu_count() or 1) // args.workers)
    settings = Settings(max_body_bytes=args.max_body, max_inflight=args.max_inflight, pool_workers=pool, pool_kind=args.pool, deadline_s=args.deadline,
                        batch_window_ms=args.batch_window, max_batch=args.max_batch, grace_s=args.grace,
                        body_timeout_s=args.body_timeout, header_timeout_s=args.header_timeout,
                        max_header_bytes=args.max_header_bytes, max_headers=args.max_headers,
                        allowed_hosts=",".join([args.host, *args.allowed_host]),
                        games_per_minute=args.games_per_minute, games_burst=args.games_burst, store=store,
                        keep_finished_days=args.keep_finished_days, game_deadline_s=args.game_deadline,
                        review_deadline_s=args.review_deadline, review_workers=args.review_workers,
                        forwarded_allow_ips=",".join(ips), max_connections=args.max_connections)
    from bgrl.service.metrics import configure_logging

    configure_logging(args.log_level)
    run_kw = dict(host=args.host, port=args.port, log_level=args.log_level, access_log=False, timeout_graceful_shutdown=max(1, int(round(args.grace))),
                  **uvicorn_options(settings, from_env=args.workers > 1))
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"bgrl serve: binding {args.host}: reachable beyond this machine; put it behind a proxy you control"
              + ("" if args.allowed_host else "; clients must use this machine's address or a name given with --allowed-host"),
              file=sys.stderr)
    print(f"bgrl serve: http://{args.host}:{args.port} (docs at /docs), {args.workers} server process(es) x {pool} engine {args.pool}(es)", file=sys.stderr)
    if args.workers == 1:
        uvicorn.run(create_app(settings=settings), **run_kw)
    else:
        os.environ.update(settings_env(settings))
        os.environ["BGRL_SERVE_LOG_LEVEL"] = args.log_level
        uvicorn.run("bgrl.service.app:app_from_env", factory=True, workers=args.workers, **run_kw)
    return 0


def cmd_ubgi(args) -> int:
    from bgrl.service.ubgi import main_loop

    return main_loop(sys.stdin, sys.stdout)
