"""bgrl ubgi: the UBGI v0.2 core, in process (fake evaluator, exact lines) and as a real
subprocess driven through stdin/stdout."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bgrl.rules.board import START_POSITION_ID
from bgrl.agents.levels import LEVEL_NAMES
from bgrl.service.engine import Engine
from bgrl.service.ubgi import UbgiSession

from service_fakes import fake_evaluator


@pytest.fixture(scope="module")
def engine():
    return Engine(evaluator=fake_evaluator, model_sha256="fake")


def run_session(lines, engine):
    out: list[str] = []
    s = UbgiSession(out.append, engine_factory=lambda: engine)
    alive = True
    for ln in lines:
        alive = s.handle(ln)
        if not alive:
            break
    return out, alive


def test_handshake_and_keys(engine):
    out, _ = run_session(["ubgi", "isready"], engine)
    assert out[0].startswith("id name bgrl ")
    assert out[1].startswith("id author ")
    assert out[2] == "proto 0.2"
    assert out[-2:] == ["ubgiok", "readyok"]
    keys = [ln for ln in out if ln.startswith("key ")]
    names = [ln.split()[1] for ln in keys]
    assert names == ["engine.level", "engine.ply", "engine.seed", "game.variant"]
    assert keys[0].startswith(f"key engine.level enum {'|'.join(LEVEL_NAMES)} expert")
    assert "engine.seed int * 0 !" in keys[2]


def test_go_gives_bestmove_in_plain_notation(engine):
    out, _ = run_session(["ubgi", "isready", "newgame", f"position gnubgid {START_POSITION_ID}", "dice 3 1", "go"], engine)
    assert out[-1] == "bestmove 8/5 6/5"  # the fake's only point-making 31
    assert out[-2].startswith("info depth ")
    out2, _ = run_session([f"position gnubgid {START_POSITION_ID}", "dice 1 3", "go chequer"], engine)
    assert out2[-1] == "bestmove 8/5 6/5"


def test_pass_bar_and_off(engine):
    from bgrl.rules.board import Position
    import numpy as np

    b = np.zeros(26, dtype=np.int8)
    b[25], b[1] = 1, 14
    b[19:25] = -2
    pid = Position(b).position_id
    out, _ = run_session([f"position gnubgid {pid}", "dice 3 1", "go"], engine)
    assert out[-1] == "bestmove pass"
    h = np.zeros(26, dtype=np.int8)
    h[1], h[20] = 2, -3
    out, _ = run_session([f"position gnubgid {Position(h).position_id}", "dice 6 5", "go"], engine)
    assert out[-1] == "bestmove 1/off 1/off"


def test_ply_is_root_inclusive(engine):
    out, _ = run_session(["get engine.ply", "set engine.level advanced", "get engine.ply", "set engine.ply 2", "get engine.ply",
                          f"position gnubgid {START_POSITION_ID}", "dice 3 1", "go"], engine)
    assert out[0] == f"value engine.ply {engine.levels['expert'].ply + 1}"
    assert out[1] == f"value engine.ply {engine.levels['advanced'].ply + 1}"
    assert out[2] == "value engine.ply 2"
    assert out[3].startswith("info depth 2 ")  # UBGI 2 = gnubg 1-ply
    assert out[-1].startswith("bestmove ")


def test_same_seed_same_play(engine):
    lv = max(LEVEL_NAMES, key=lambda n: engine.levels[n].noise)
    if engine.levels[lv].noise <= 0:
        pytest.skip("no level has equity noise")

    def play(seed):
        out, _ = run_session([f"set engine.level {lv}", f"set engine.seed {seed}", f"position gnubgid {START_POSITION_ID}", "dice 6 5", "go"], engine)
        return out[-1]

    plays = [play(s) for s in range(10)]
    assert plays == [play(s) for s in range(10)]
    assert len(set(plays)) > 1


@pytest.mark.parametrize(
    "line, reply",
    [
        ("fly away", "error bad_command unknown command fly"),
        ("dice 7 1", "error bad_value dice must_be 1..6"),
        ("dice 3", "error bad_command expected: dice <d1> <d2>"),
        ("dice a b", "error bad_value dice must be two integers 1..6"),
        ("position gnubgid !!!", "error bad_value "),
        ("position fen x", "error bad_command expected: position gnubgid <ID> | position xgid <XGID>"),
        ("go", "error bad_state missing position"),
        ("go cube", "error bad_state missing position"),
        ("go turn", "error unsupported go turn"),
        ("go sideways", "error bad_command expected: go | go chequer"),
        ("set engine.level god", "error bad_value engine.level must_be "),
        ("set engine.ply 0", "error bad_value engine.ply must_be 1.."),
        ("set engine.ply x", "error bad_value engine.ply must_be 1.."),
        ("set engine.seed -1", "error bad_value engine.seed must_be"),
        ("set engine.depth 3", "error unsupported key engine.depth"),
        ("set game.variant nackgammon", "error unsupported game.variant nackgammon"),
        ("set engine.level", "error bad_command expected: set <key> <value>"),
        ("get nothing", "error unsupported key nothing"),
    ],
)
def test_errors(engine, line, reply):
    out, alive = run_session([line], engine)
    assert alive and len(out) == 1 and out[0].startswith(reply), out


def test_position_xgid(engine):
    out, _ = run_session(["position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "go"], engine)
    assert out[-1] == "bestmove 8/5 6/5"  # the XGID's own dice (31)
    out, _ = run_session(["position xgid XGID=nonsense"], engine)
    assert len(out) == 1 and out[0].startswith("error bad_value")


def test_go_cube_answers_bestcube(engine):
    out, _ = run_session([f"position gnubgid {START_POSITION_ID}", "go cube"], engine)
    assert out[0].startswith("info depth ") and " decision " in out[0]
    assert out[-1] in ("bestcube double", "bestcube nodouble")
    out, _ = run_session(["position gnubgid AAAAIAAAAAAAAA", "go cube"], engine)
    assert out[0].startswith("error bad_state the game is over")


def test_missing_dice_is_bad_state(engine):
    out, _ = run_session(["newgame", f"position gnubgid {START_POSITION_ID}", "go"], engine)
    assert out == ["error bad_state missing dice"]
    out, _ = run_session([f"position gnubgid {START_POSITION_ID}", "dice 3 1", "newgame", "go"], engine)
    assert out == ["error bad_state missing position"]


def test_game_over_position_is_bad_state(engine):
    out, _ = run_session(["position gnubgid AAAAIAAAAAAAAA", "dice 3 1", "go"], engine)
    assert out[0].startswith("error bad_state the game is over")


def test_quit_stops(engine):
    out, alive = run_session(["quit", "isready"], engine)
    assert out == [] and alive is False


def test_scripted_session_subprocess():
    """The real engine over stdin/stdout, as a controller (bgci) drives it."""
    script = "\n".join([
        "ubgi", "isready", "newgame", f"position gnubgid {START_POSITION_ID}", "dice 3 1", "go",
        "set engine.level beginner", "set engine.seed 3", "get engine.level", "go", "go cube", "bogus", "quit", "isready",
    ]) + "\n"
    r = subprocess.run([sys.executable, "-m", "bgrl.cli", "ubgi"], input=script, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2] == "proto 0.2" and "ubgiok" in lines and "readyok" in lines
    best = [ln for ln in lines if ln.startswith("bestmove ")]
    assert best[0] == "bestmove 8/5 6/5"
    assert len(best) == 2
    assert "value engine.level beginner" in lines
    assert lines[-2:] == ["bestcube nodouble", "error bad_command unknown command bogus"]  # nobody doubles at the start
    assert lines.count("readyok") == 1  # nothing is answered after quit


@pytest.mark.timeout(180)
def test_interactive_subprocess_answers_line_by_line():
    """A controller writes one command and waits for the answer before the next (no read-ahead)."""
    proc = subprocess.Popen([sys.executable, "-m", "bgrl.cli", "ubgi"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        def send(line):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()

        def read_until(prefix):
            seen = []
            while True:
                ln = proc.stdout.readline()
                assert ln, f"engine closed its output; saw {seen}"
                seen.append(ln.rstrip("\n"))
                if seen[-1].startswith(prefix):
                    return seen

        send("ubgi")
        assert read_until("ubgiok")[2] == "proto 0.2"
        send("isready")
        assert read_until("readyok") == ["readyok"]
        send(f"position gnubgid {START_POSITION_ID}")
        send("dice 3 1")
        send("go")
        assert read_until("bestmove")[-1] == "bestmove 8/5 6/5"
        send("get engine.level")
        assert read_until("value") == ["value engine.level expert"]
        send("quit")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_over_long_line_is_skipped_with_an_error_and_the_session_goes_on():
    """A line over MAX_LINE characters is read in bounded pieces, answered ``error bad_value``
    and skipped; the next command is answered as usual."""
    import io

    from bgrl.service.ubgi import MAX_LINE, main_loop

    out = io.StringIO()
    stdin = io.StringIO("ubgi\n" + "x" * (3 * MAX_LINE + 5) + "\nisready\nquit\n")
    assert main_loop(stdin, out, engine_factory=lambda: Engine(evaluator=fake_evaluator, model_sha256="fake")) == 0
    lines = out.getvalue().splitlines()
    errors = [ln for ln in lines if ln.startswith("error bad_value") and str(MAX_LINE) in ln]
    assert len(errors) == 1 and lines[-1] == "readyok"
