"""Locust load of `bgrl serve` (the `load` extra): expert moves (POST /v1/move), wildbg
moves (GET /move) and world-class hints (POST /v1/hint), over positions of pubeval
self-play games. Headless, e.g. against a server on port 8080:

    locust -f scripts/bench/locustfile.py --headless -u 32 -r 32 -t 10s --host http://127.0.0.1:8080

``BGRL_LOCUST_TASKS`` chooses the mix, e.g. ``move=1`` (default ``move=3,wildbg=3,hint=1``).
`scripts/bench/load_test.py` prints the table with the in-process rate beside it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
from locust import FastHttpUser, between, task  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))


def _positions(n: int = 200, seed: int = 0) -> list[tuple[str, list[int], list[int]]]:
    from bgrl.agents.registry import load_agent
    from bgrl.rules.board import position_id
    from positions import agent_game_positions

    boards, dice = agent_game_positions(load_agent("pubeval"), np.random.default_rng(seed), n, parallel=16)
    return [(position_id(b), [int(d[0]), int(d[1])], [int(v) for v in b]) for b, d in zip(boards, dice)]


WORK = _positions()
_MIX = dict(kv.split("=") for kv in os.environ.get("BGRL_LOCUST_TASKS", "move=3,wildbg=3,hint=1").split(","))


class BotClient(FastHttpUser):
    """One table: asks for the next decision as soon as it has the answer."""

    def on_start(self):
        self.i = int(np.random.default_rng().integers(len(WORK)))

    def _next(self):
        self.i = (self.i + 1) % len(WORK)
        return WORK[self.i]

    @task(int(_MIX.get("move", 0)))
    def expert_move(self):
        pid, d, _ = self._next()
        self.client.post("/v1/move", json={"position": {"gnubg_id": pid}, "dice": d, "level": "expert", "seed": self.i}, name="POST /v1/move expert")

    @task(int(_MIX.get("wildbg", 0)))
    def wildbg_move(self):
        _, d, board = self._next()
        pips = "&".join(f"p{k}={v}" for k, v in enumerate(board) if v)
        self.client.get(f"/move?die1={d[0]}&die2={d[1]}&{pips}", name="GET /move")

    @task(int(_MIX.get("hint", 0)))
    def world_class_hint(self):
        pid, d, _ = self._next()
        self.client.post("/v1/hint", json={"position": {"gnubg_id": pid}, "dice": d, "level": "world-class", "top": 5}, name="POST /v1/hint world-class")
