"""Load test of `bgrl serve`: requests/s and p50/p99 latency at 1, 8 and 32 concurrent
clients, for `expert` moves and `world-class` hints, then a burst past the admission limit
showing the server answers 503 (fast) instead of queueing without bound, and stays up.

Bounded: a fixed number of requests per row, to a server on loopback (started here unless
--url is given). Needs the serve and test extras (FastAPI, uvicorn, httpx):

    python scripts/load_test.py                       # starts `bgrl serve` on a free port
    python scripts/load_test.py --url http://127.0.0.1:8080 --moves 200 --hints 40

Positions: positions of pubeval self-play games (tests/positions.py), seed --seed.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


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


def workload(n: int, seed: int) -> list[tuple[str, list[int]]]:
    """(Position ID, dice) pairs from pubeval self-play games."""
    from bgrl.agents.registry import load_agent
    from bgrl.rules.board import position_id
    from positions import agent_game_positions

    boards, dice = agent_game_positions(load_agent("pubeval"), np.random.default_rng(seed), n, parallel=16)
    return [(position_id(b), [int(d[0]), int(d[1])]) for b, d in zip(boards, dice)]


async def run_row(base: str, path: str, bodies: list[dict], concurrency: int) -> dict:
    import httpx

    lat: list[float] = []
    codes: dict[int, int] = {}
    it = iter(bodies)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:

        async def worker():
            for body in it:
                t0 = time.perf_counter()
                r = await client.post(path, json=body)
                dt = time.perf_counter() - t0
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
                if r.status_code == 200:
                    lat.append(dt)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    ok = np.array(lat) * 1000.0
    return {
        "n": len(bodies), "wall": wall, "rps": codes.get(200, 0) / wall, "codes": codes,
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="server to test (default: start `bgrl serve` on a free loopback port)")
    ap.add_argument("--moves", type=int, default=200, help="requests per row for expert moves (default %(default)s)")
    ap.add_argument("--hints", type=int, default=40, help="requests per row for world-class hints (default %(default)s)")
    ap.add_argument("--burst", type=int, default=64, help="requests sent at once in the overload burst (default %(default)s)")
    ap.add_argument("--concurrency", default="1,8,32", help="client counts (default %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--server-args", default="", help="extra `bgrl serve` arguments when the script starts it")
    args = ap.parse_args(argv)
    for name in ("moves", "hints", "burst"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be >= 1")
    try:
        conc = [int(c) for c in args.concurrency.split(",")]
    except ValueError:
        ap.error("--concurrency must be comma-separated ints, e.g. 1,8,32")
    proc = None
    base = args.url
    if base is None:
        base, proc = start_server(args.server_args.split())
    try:
        import httpx

        version = httpx.get(base + "/v1/version", timeout=10).json()
        lim = version["limits"]
        print(f"server {base}: bgrl {version['version']}, pool_workers {lim['pool_workers']}, max_inflight {lim['max_inflight']}, "
              f"deadline {lim['deadline_s']} s; levels " + ", ".join(f"{lv['name']}={lv['ply']}-ply" for lv in version["levels"]))
        work = workload(max(args.moves, args.hints), args.seed)
        rows = [
            ("expert move", "/v1/move", [{"position": {"gnubg_id": p}, "dice": d, "level": "expert", "seed": i} for i, (p, d) in enumerate(work[: args.moves])]),
            ("world-class hint", "/v1/hint", [{"position": {"gnubg_id": p}, "dice": d, "level": "world-class", "top": 5} for p, d in work[: args.hints]]),
        ]
        print(f"{'request':<18} {'clients':>7} {'n':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}  statuses")
        for label, path, bodies in rows:
            for c in conc:
                r = asyncio.run(run_row(base, path, bodies, c))
                print(f"{label:<18} {c:>7} {r['n']:>5} {r['rps']:>8.1f} {r['p50']:>8.1f} {r['p99']:>8.1f}  {dict(sorted(r['codes'].items()))}")
        heavy = {"position": {"gnubg_id": "BAAQhVJKKSkFAA"}, "dice": [1, 1], "level": "expert", "top": 3}  # 2,226 plays
        b = asyncio.run(burst(base, heavy, args.burst))
        print(f"burst: {args.burst} heavy hints at once (limit {lim['max_inflight']} in flight): statuses {dict(sorted(b['codes'].items()))}, "
              f"503 answered in {b['p50_503_ms']:.1f} ms (median) with Retry-After {b['retry_after']}, slowest 200 {b['max_200_ms']:.0f} ms; "
              f"/v1/health afterwards: {b['health']}")
        if proc is not None and proc.poll() is not None:
            print("server died", file=sys.stderr)
            return 1
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
