"""Packaging: the package-dir mapping and the numpy-only rules core."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_subpackages_come_from_env_and_training():
    import bgrl.env
    import bgrl.training

    assert bgrl.env.__name__ == "bgrl.env"
    assert Path(bgrl.env.__file__).resolve().parent == ROOT / "env"
    assert Path(bgrl.training.__file__).resolve().parent == ROOT / "training"


def test_rules_core_loads_neither_torch_nor_gymnasium():
    code = (
        "import sys, bgrl, bgrl.rules.board, bgrl.rules.movegen, bgrl.rules.outcome, bgrl.rules.notation, bgrl.evaluation.encoding;"
        "bgrl.legal_plays(bgrl.Position.start(), (3, 1));"
        "bad = [m for m in ('torch', 'gymnasium') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stdout + r.stderr


def test_console_script_installed():
    exe = Path(sys.executable).parent / "bgrl"
    r = subprocess.run([str(exe), "moves", "4HPwATDgc/ABMA", "21", "--json"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.count('"play"') == 15


def test_ruff_clean():
    """pyflakes-level errors and TID251: `env`/`training` imported from the repository root
    would give a second copy of bgrl.env / bgrl.training (DESIGN.md)."""
    import shutil

    import pytest

    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff not installed (it comes with the test extra)")
    r = subprocess.run([ruff, "check", "bgrl", "env", "training", "scripts", "tests"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:]


def test_wheel_ships_network_and_hint_runs_from_it(tmp_path):
    """A wheel (not the editable checkout) carries checkpoints/default.pt, py.typed and the
    bear-off database, and `bgrl hint` works from an install of that wheel alone (issue:
    packaged network), reading the database from the installed package."""
    import zipfile

    wheel_dir, target = tmp_path / "wheel", tmp_path / "target"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheel_dir), str(ROOT)],
        capture_output=True, text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = wheel_dir.glob("bgrl-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bgrl/checkpoints/default.pt" in names and "bgrl/py.typed" in names
    assert "bgrl/checkpoints/distilled2.npz" in names  # expert's numpy twin (hint without torch)
    assert "bgrl/checkpoints/distilled2c.npz" in names  # grandmaster's
    assert "bgrl/checkpoints/distilled7.npz" in names  # world-class
    assert "bgrl/data/bearoff.npz" in names
    assert "bgrl/data/benchmark.npz" in names  # the error-rate benchmark (bgrl.arena.benchmark)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    code = ("import sys, warnings, bgrl; assert bgrl.__file__.startswith(sys.argv[1]), bgrl.__file__;"
            "warnings.simplefilter('error');"
            "from bgrl.evaluation import bearoff; p = bearoff.shipped_db_path(); assert str(p).startswith(sys.argv[1]) and p.is_file(), p;"
            "bearoff.database();"
            "from bgrl.cli import main; sys.argv = ['bgrl', 'hint', '4HPwATDgc/ABMA', '31', '--json']; main()")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    r = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stdout[-1000:] + r.stderr[-2000:]
    assert '"8/5 6/5"' in r.stdout


def test_hint_does_not_import_torch():
    """issue 17 item 8: `bgrl hint POSITION DICE` at every level's ply (0-ply expert, 1-ply
    world-class) and at 2-ply evaluates the shipped networks' numpy twins and never imports
    torch (checked in a fresh interpreter); its table is the usual one."""
    code = (
        "import sys\n"
        "from bgrl.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "print('TORCH', 'torch' in sys.modules, file=sys.stderr)\n"
        "sys.exit(rc or 0)\n"
    )
    for extra in ([], ["--level", "world-class"], ["--ply", "2"], ["--json"]):
        argv = ["hint", "4HPwATDgc/ABMA", "31", *extra]
        r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd="/")
        assert r.returncode == 0 and "TORCH False" in r.stderr, (argv, r.stderr[-1500:])
        assert "8/5 6/5" in r.stdout, r.stdout


def test_shipped_networks_resolve_by_name(tmp_path, monkeypatch):
    """Every network in checkpoints/manifest.json is reachable by its bare name (``default``,
    ``early``, ...) from any folder; a file of that name in the working folder wins."""
    import json

    from bgrl._resources import resolve_checkpoint, shipped_checkpoint

    monkeypatch.chdir(tmp_path)
    names = json.loads((ROOT / "checkpoints" / "manifest.json").read_text()).keys()
    assert "default" in names
    for name in names:
        assert resolve_checkpoint(name) == shipped_checkpoint(name) and shipped_checkpoint(name).is_file(), name
    (tmp_path / "early").mkdir()
    assert resolve_checkpoint("early") == tmp_path / "early" or resolve_checkpoint("early") == Path("early")
    assert resolve_checkpoint("nosuch") == Path("nosuch")


def test_quick_commands_do_not_import_torch():
    """issue 17 item 8: `bgrl moves`, `bgrl --help` and `bgrl --version` start without
    importing torch (or numba, or the service): checked in a fresh interpreter."""
    code = (
        "import sys\n"
        "from bgrl.cli import main\n"
        "argv = sys.argv[1:]\n"
        "try:\n"
        "    rc = main(argv)\n"
        "except SystemExit as e:\n"
        "    rc = e.code\n"
        "bad = [m for m in ('torch', 'numba', 'fastapi', 'gymnasium', 'scipy') if m in sys.modules]\n"
        "print('HEAVY', bad, file=sys.stderr)\n"
        "sys.exit(3 if bad else (rc or 0))\n"
    )
    for argv in (["moves", "4HPwATDgc/ABMA", "31"], ["moves", "4HPwATDgc/ABMA", "31", "--json"], ["--help"],
                 ["--version"], ["play", "--help"], ["hint", "--help"]):
        r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd="/")
        assert r.returncode == 0 and "HEAVY []" in r.stderr, (argv, r.stderr[-1500:])
