"""Load test of `bgrl serve`: one table of endpoint, level, clients, requests/s, p50, p99,
errors, beside the in-process sequential `choose_play` rate at the same level measured in
the same run, and the ratio of the two.

Default rows: expert POST /v1/move and wildbg GET /move at 1 and 32 clients, world-class
POST /v1/hint at 32 clients; each row runs --seconds (closed loop: every client sends its
next request when it has the answer) against a server on loopback (started here unless
--url is given). Optionally (--burst N) a burst past the admission limit showing fast 503s.
Needs the serve and test extras (FastAPI, uvicorn, httpx):

    python scripts/bench/load_test.py                       # starts `bgrl serve` on a free port
    python scripts/bench/load_test.py --url http://127.0.0.1:8080 --seconds 5

Positions: positions of pubeval self-play games (tests/positions.py), seed --seed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from workloads import in_process_rate, workload  # noqa: E402  (tests/workloads.py)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(extra: list[str]) -> tuple[str, subprocess.Popen]:
    import httpx

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "serve", "--port", str(port), *extra], stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    t_end = time.monotonic() + 120
    while time.monotonic() < t_end:
        if proc.poll() is not None:
            raise SystemExit(f"bgrl serve exited: {proc.stderr.read()[-1000:]}")
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return base, proc
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("bgrl serve did not become healthy in 120 s")


class RawClient:
    """A minimal HTTP/1.1 keep-alive client on asyncio streams: the load generator shares
    the machine with the server, so it must cost as little CPU per request as possible
    (a general client such as httpx costs several times more)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None
        self.last_head = b""

    def header(self, name: str) -> str | None:
        """A header of the last response (None if absent)."""
        key = name.lower().encode() + b":"
        for line in self.last_head.split(b"\r\n")[1:]:
            if line.lower().startswith(key):
                return line[len(key):].strip().decode()
        return None

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        self.last_head = head
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            if line[:15].lower() == b"content-length:":
                length = int(line[15:])
        body = await self.reader.readexactly(length)
        if b"connection: close" in head.lower():
            self.writer.close()
            self.writer = None
        return status, body

    def close(self):
        if self.writer is not None:
            self.writer.close()


def raw_request(method: str, host: str, path: str, body: dict | None = None) -> bytes:
    import json

    if body is None:
        return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    data = json.dumps(body, separators=(",", ":")).encode()
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data


async def run_row(base, requests: list[bytes], clients: int, seconds: float) -> dict:
    """``clients`` closed-loop clients, each sending the next request as soon as it has its
    answer, for ``seconds``; latency of every 200, count of every status. ``base`` is one URL
    or a list of replicas' URLs: client k talks to replica k mod N (round robin over the
    clients' keep-alive connections, as a load balancer spreads connections)."""
    from urllib.parse import urlsplit

    bases = [base] if isinstance(base, str) else list(base)
    lat: list[float] = []
    codes: dict[int, int] = {}
    t_end = time.perf_counter() + seconds

    async def client(k: int):
        u = urlsplit(bases[k % len(bases)])
        cl = RawClient(u.hostname, u.port)
        i = k
        try:
            while time.perf_counter() < t_end:
                t0 = time.perf_counter()
                try:
                    status, _ = await cl.request(requests[i % len(requests)])
                except (OSError, asyncio.IncompleteReadError):
                    status = 0  # connection error
                    cl.close()
                    cl = RawClient(u.hostname, u.port)
                dt = time.perf_counter() - t0
                codes[status] = codes.get(status, 0) + 1
                if status == 200:
                    lat.append(dt)
                i += clients
        finally:
            cl.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(k) for k in range(clients)))
    wall = time.perf_counter() - t0
    ok = np.array(lat) * 1000.0
    return {
        "n": sum(codes.values()), "wall": wall, "rps": codes.get(200, 0) / wall, "codes": codes,
        "errors": sum(v for k, v in codes.items() if k != 200),
        "p50": float(np.percentile(ok, 50)) if ok.size else float("nan"),
        "p99": float(np.percentile(ok, 99)) if ok.size else float("nan"),
    }


async def burst(base: str, body: dict, n: int) -> dict:
    """n requests at once (n connections): how many were admitted, how fast the rest were refused."""
    import httpx

    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as client:

        async def one():
            t0 = time.perf_counter()
            r = await client.post("/v1/hint", json=body)
            return r.status_code, time.perf_counter() - t0, r.headers.get("retry-after")

        res = await asyncio.gather(*(one() for _ in range(n)))
        health = (await client.get("/v1/health")).status_code
    codes: dict[int, int] = {}
    for c, _, _ in res:
        codes[c] = codes.get(c, 0) + 1
    rejected = [dt * 1000 for c, dt, _ in res if c == 503]
    admitted = [dt * 1000 for c, dt, _ in res if c == 200]
    return {"codes": codes, "health": health, "retry_after": sorted({ra for c, _, ra in res if c == 503}),
            "p50_503_ms": float(np.median(rejected)) if rejected else float("nan"),
            "max_200_ms": max(admitted) if admitted else float("nan")}


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its descendants in MB, from /proc (Linux; NaN elsewhere)."""
    try:
        kids: dict[int, list[int]] = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except OSError:
                    continue
                kids.setdefault(ppid, []).append(int(d))
        total, todo = 0, [pid]
        while todo:
            p = todo.pop()
            todo += kids.get(p, [])
            try:
                with open(f"/proc/{p}/status") as f:
                    total += next(int(x.split()[1]) for x in f if x.startswith("VmRSS:"))
            except (OSError, StopIteration):
                pass
        return total / 1024
    except OSError:
        return float("nan")


async def overload(base: str, requests: list[bytes], clients: int, seconds: float) -> dict:
    """Twice the admission limit in closed-loop clients, with /v1/health probed every 0.2 s:
    what was served, how fast the refusals came and whether health answered throughout."""
    from urllib.parse import urlsplit

    u = urlsplit(base)
    codes: dict[int, int] = {}
    lat200: list[float] = []
    lat503: list[float] = []
    retry: set = set()
    health: list[tuple[int, float]] = []
    t_end = time.perf_counter() + seconds

    async def client(k: int):
        cl, i = RawClient(u.hostname, u.port), k
        while time.perf_counter() < t_end:
            t0 = time.perf_counter()
            try:
                status, _ = await cl.request(requests[i % len(requests)])
            except (OSError, asyncio.IncompleteReadError):
                status = 0
                cl.close()
                cl = RawClient(u.hostname, u.port)
            dt = (time.perf_counter() - t0) * 1000
            codes[status] = codes.get(status, 0) + 1
            (lat200 if status == 200 else lat503 if status == 503 else []).append(dt)
            if status == 503:
                retry.add(cl.header("retry-after"))
                await asyncio.sleep(0.001)
            i += clients
        cl.close()

    async def probe():
        cl = RawClient(u.hostname, u.port)
        raw = raw_request("GET", u.netloc, "/v1/health")
        while time.perf_counter() < t_end:
            t0 = time.perf_counter()
            try:
                status, _ = await cl.request(raw)
            except (OSError, asyncio.IncompleteReadError):
                status = 0
                cl.close()
                cl = RawClient(u.hostname, u.port)
            health.append((status, (time.perf_counter() - t0) * 1000))
            await asyncio.sleep(0.2)
        cl.close()

    t0 = time.perf_counter()
    await asyncio.gather(probe(), *(client(k) for k in range(clients)))
    wall = time.perf_counter() - t0
    pct = (lambda a, q: float(np.percentile(a, q)) if a else float("nan"))
    return {"rps": codes.get(200, 0) / wall, "codes": codes, "p50_503": pct(lat503, 50), "p99_503": pct(lat503, 99),
            "retry_after": sorted(retry), "max_200": max(lat200) if lat200 else float("nan"),
            "health_n": len(health), "health_ok": sum(1 for c, _ in health if c == 200),
            "health_max": max((d for _, d in health), default=float("nan"))}


def refused_histogram(base: str) -> dict:
    """The server's ``bgrl_refused_seconds`` histogram from ``GET /metrics``: ``count``,
    ``sum`` (seconds) and ``buckets`` (upper bound in seconds -> cumulative count)."""
    import httpx

    out = {"count": 0.0, "sum": 0.0, "buckets": {}}
    for line in httpx.get(base + "/metrics", timeout=30).text.splitlines():
        if line.startswith("bgrl_refused_seconds_count"):
            out["count"] = float(line.split()[-1])
        elif line.startswith("bgrl_refused_seconds_sum"):
            out["sum"] = float(line.split()[-1])
        elif line.startswith("bgrl_refused_seconds_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            out["buckets"][float(le)] = float(line.split()[-1])
    return out


ROWS = "expert:POST /v1/move:1,32;expert:GET /move:1,32;world-class:POST /v1/hint:32"


def requests_for(endpoint: str, level: str, work: list, host: str) -> list[bytes]:
    from bgrl.rules.board import Position

    method, path = endpoint.split(" ", 1)
    out = []
    for i, (pid, d) in enumerate(work):
        if path == "/move":  # wildbg's query: dice and the nonzero pips
            board = Position.from_id(pid).board
            pips = "&".join(f"p{k}={int(v)}" for k, v in enumerate(board) if v)
            out.append(raw_request("GET", host, f"/move?die1={d[0]}&die2={d[1]}&{pips}&level={level}"))
        elif path == "/v1/move":
            out.append(raw_request("POST", host, path, {"position": {"gnubg_id": pid}, "dice": d, "level": level, "seed": i}))
        elif path == "/v1/hint":
            out.append(raw_request("POST", host, path, {"position": {"gnubg_id": pid}, "dice": d, "level": level, "top": 5}))
        else:
            raise SystemExit(f"load_test.py: unknown endpoint {endpoint!r}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="server to test (default: start `bgrl serve` on a free loopback port)")
    ap.add_argument("--rows", default=ROWS, help="level:METHOD path:clients,... separated by ';' (default %(default)r)")
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds per row (default %(default)s)")
    ap.add_argument("--inproc-seconds", type=float, default=5.0, help="seconds of in-process choose_play per level (default %(default)s)")
    ap.add_argument("--positions", type=int, default=400, help="distinct positions cycled through (default %(default)s)")
    ap.add_argument("--burst", type=int, default=0, help="also send this many heavy hints at once past the admission limit (default: no burst)")
    ap.add_argument("--replicas", default="1", help="comma-separated replica counts: each row is run against that many "
                    "`bgrl serve` processes on their own ports, clients spread round robin; e.g. 1,2 shows whether "
                    "throughput adds up (default %(default)s; not with --url)")
    ap.add_argument("--overload", type=float, default=0.0, metavar="SECONDS", help="also run expert POST /v1/move for "
                    "SECONDS at twice the admission limit in clients, probing /v1/health every 0.2 s and the server's "
                    "memory before and after (default: off)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--server-args", default="", help="extra `bgrl serve` arguments when the script starts it")
    args = ap.parse_args(argv)
    if not args.seconds > 0 or args.positions < 1 or args.burst < 0 or args.overload < 0:
        ap.error("--seconds must be > 0, --positions >= 1, --burst >= 0 and --overload >= 0")
    try:
        replicas = [int(x) for x in args.replicas.split(",")]
        if not replicas or min(replicas) < 1:
            raise ValueError
    except ValueError:
        ap.error(f"--replicas must be comma-separated counts >= 1, got {args.replicas!r}")
    if args.url and replicas != [1]:
        ap.error("--replicas starts its own servers: not with --url")
    try:
        rows = []
        for spec in args.rows.split(";"):
            level, endpoint, cl = spec.split(":")
            rows.append((level, endpoint, [int(c) for c in cl.split(",")]))
    except ValueError:
        ap.error("--rows must look like 'expert:POST /v1/move:1,32;world-class:POST /v1/hint:32'")
    procs: list = []
    bases = [args.url] if args.url else []
    try:
        import httpx

        for _ in range(1 if args.url else max(replicas)):
            b, pr = start_server(args.server_args.split())
            bases.append(b)
            procs.append(pr)
        base = bases[0]
        version = httpx.get(base + "/v1/version", timeout=10).json()
        lim = version["limits"]
        print(f"server {base}: bgrl {version['version']}, pool_workers {lim['pool_workers']}, max_inflight {lim['max_inflight']}, "
              f"deadline {lim['deadline_s']} s; {os.cpu_count()} cores, load average before {os.getloadavg()[0]:.2f}")
        if len(bases) > 1:
            print(f"replicas: {', '.join(bases)} (each started with the same arguments; clients spread round robin)")
        work = workload(args.positions, args.seed)
        host = base.split("//", 1)[1]
        rates = {lv: in_process_rate(lv, work, args.inproc_seconds) for lv in dict.fromkeys(r[0] for r in rows)}
        print(f"{'endpoint':<15} {'level':<12} {'replicas':>8} {'clients':>7} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
              f"{'in-proc/s':>9} {'ratio':>6}  statuses")
        for level, endpoint, clients in rows:
            reqs = requests_for(endpoint, level, work, host)
            for c in clients:
                single = None
                for n in replicas:
                    r = asyncio.run(run_row(bases[:n], reqs, c, args.seconds))
                    single = r["rps"] if n == 1 else single
                    adds = f"  {r['rps'] / single:.2f}x one replica's req/s" if n > 1 and single else ""
                    print(f"{endpoint:<15} {level:<12} {n:>8} {c:>7} {r['rps']:>8.1f} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['errors']:>6} "
                          f"{rates[level]:>9.1f} {r['rps'] / rates[level]:>5.2f}x  {dict(sorted(r['codes'].items()))}{adds}")
        print(f"load average after: {os.getloadavg()[0]:.2f} (1 min); in-proc/s = sequential choose_play calls per second "
              f"at the level in this process, measured in this run; ratio = req/s / in-proc/s")
        if args.burst:
            heavy = {"position": {"gnubg_id": "BAAQhVJKKSkFAA"}, "dice": [1, 1], "level": "expert", "top": 3}  # 2,226 plays
            b = asyncio.run(burst(base, heavy, args.burst))
            print(f"burst: {args.burst} heavy hints at once (limit {lim['max_inflight']} in flight): statuses {dict(sorted(b['codes'].items()))}, "
                  f"503 answered in {b['p50_503_ms']:.1f} ms (median) with Retry-After {b['retry_after']}, slowest 200 {b['max_200_ms']:.0f} ms; "
                  f"/v1/health afterwards: {b['health']}")
        if args.overload:
            clients = 2 * int(lim["max_inflight"])
            reqs = requests_for("POST /v1/move", "expert", work, host)
            pid = procs[0].pid if procs else None
            before = tree_rss_mb(pid) if pid else float("nan")
            m0 = refused_histogram(base)
            o = asyncio.run(overload(base, reqs, clients, args.overload))
            m1 = refused_histogram(base)
            after = tree_rss_mb(pid) if pid else float("nan")
            print(f"overload: expert POST /v1/move, {clients} clients (2 x max_inflight) for {args.overload:g} s: "
                  f"{o['rps']:.1f} req/s served, statuses {dict(sorted(o['codes'].items()))}, 503 in {o['p50_503']:.2f} ms median "
                  f"(p99 {o['p99_503']:.2f}) with Retry-After {o['retry_after']}; slowest 200 {o['max_200']:.0f} ms "
                  f"(deadline {lim['deadline_s']} s); /v1/health {o['health_ok']}/{o['health_n']} answered 200, slowest "
                  f"{o['health_max']:.0f} ms; server memory (process tree RSS) {before:.0f} MB before, {after:.0f} MB after")
            n503 = m1["count"] - m0["count"]
            if n503 > 0:
                inside = {le: m1["buckets"][le] - m0["buckets"].get(le, 0.0) for le in m1["buckets"]}
                p99 = min((le for le, c in inside.items() if c >= 0.99 * n503), default=float("inf"))
                print(f"overload, inside the server (bgrl_refused_seconds): {n503:.0f} refusals, mean "
                      f"{1000 * (m1['sum'] - m0['sum']) / n503:.2f} ms from first byte to 503, 99% within {1000 * p99:g} ms "
                      "(the rest of a refusal's time above is waiting for the event loop and the client's own turn)")
        dead = [p for p in procs if p.poll() is not None]
        if dead:
            print("server died", file=sys.stderr)
            return 1
    finally:
        for pr in procs:
            pr.terminate()
        for pr in procs:
            try:
                pr.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pr.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
