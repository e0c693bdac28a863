"""A fake evaluator for the service tests: exact, cheap, and position-sensitive."""

from __future__ import annotations

import time

import numpy as np


def fake_evaluator(after_states) -> np.ndarray:
    """Probabilities (M, 5) of the side that played: more points made and more opponent
    checkers on the bar win more often. Deterministic, vectorized."""
    a = np.asarray(after_states, dtype=np.int64).reshape(-1, 26)
    made = (a[:, 1:25] >= 2).sum(axis=1)
    opp_bar = -a[:, 0]
    win = np.clip(0.25 + 0.0625 * made + 0.0625 * opp_bar, 0.0, 0.9375)
    return np.stack([win, win / 4, win / 16, (1 - win) / 4, (1 - win) / 16], axis=1)


class SlowEvaluator:
    """The fake evaluator, sleeping ``delay`` seconds per call (overload and deadline tests)."""

    def __init__(self, delay: float):
        self.delay = delay

    def __call__(self, after_states):
        time.sleep(self.delay)
        return fake_evaluator(after_states)


def serve_in_thread(app):
    """uvicorn on a free loopback port in a daemon thread; the base URL once it answers."""
    import socket
    import threading
    import time

    import httpx
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return base, server
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the test server did not start")
