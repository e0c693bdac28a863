"""Start-up with compiled kernels: the quick commands load no numba, the numba cache works where
the package folder cannot be written, and ``BGRL_COMPILED`` switches the kernels.

No timing here (benchmarks print figures: ``python -X importtime``, docs/benchmarks.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bgrl.evaluation import _numba

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, env: dict | None = None) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300,
                       env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


_CLI = """
import sys
sys.argv = ["bgrl"] + {args!r}
from bgrl.cli import main
try:
    main()
except SystemExit:
    pass
print("LOADED", " ".join(sorted({{m.split(".")[0] for m in sys.modules}} & {{"numba", "llvmlite", "torch"}})))
"""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["moves", "4HPwATDgc/ABMA", "31"],
                                  ["hint", "4HPwATDgc/ABMA", "31", "--level", "expert"]])
def test_quick_commands_load_no_numba(args):
    out = _run(_CLI.format(args=args))
    loaded = out.rsplit("LOADED", 1)[1].split()
    assert "numba" not in loaded and "llvmlite" not in loaded, (args, loaded)


def test_cache_folder_choice(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    src_ro = blocked / "pkg"  # its __pycache__ cannot be made: a file is in the way (also for root)
    home = tmp_path / "home"
    assert _numba.cache_dir(tmp_path / "pkg", env={}) == (None, True)  # writable: numba's default
    assert _numba.cache_dir(src_ro, env={"BGRL_HOME": str(home)}) == (str(home / "numba-cache"), True)
    assert (home / "numba-cache").is_dir()
    assert _numba.cache_dir(src_ro, env={"NUMBA_CACHE_DIR": "/somewhere"}) == (None, True)  # the user's own
    assert _numba.cache_dir(src_ro, env={"BGRL_HOME": str(blocked / "home")}) == (None, False)  # nowhere
    assert _numba.bgrl_home({}) == Path.home() / ".bgrl"


_READ_ONLY_INSTALL = """
import importlib.util, sys, types
from pathlib import Path
spec = importlib.util.find_spec("bgrl.evaluation._numba")
mod = types.ModuleType("bgrl.evaluation._numba")
mod.__file__ = {fake!r}  # a package folder whose __pycache__ cannot be written
exec(compile(Path(spec.origin).read_text(), spec.origin, "exec"), mod.__dict__)
assert "numba" in sys.modules and mod.CACHE and mod.CACHE_DIR == {want!r}, (mod.CACHE, mod.CACHE_DIR)
sys.path.insert(0, {kernel_dir!r})
import kernel_mod
kernel_mod.build(mod.njit)
print(kernel_mod.f(20))
"""

_KERNEL = """
def build(njit):
    global f
    @njit(cache=True)
    def f(n):
        s = 0
        for i in range(n):
            s += i
        return s
"""


def test_numba_cache_in_the_bgrl_folder_when_the_package_is_read_only(tmp_path):
    pytest.importorskip("numba")
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    home = tmp_path / "bgrl-home"
    kdir = tmp_path / "kernels"
    kdir.mkdir()
    (kdir / "kernel_mod.py").write_text(_KERNEL)
    env = {"BGRL_HOME": str(home), "NUMBA_CACHE_DIR": ""}
    code = _READ_ONLY_INSTALL.format(fake=str(blocked / "site" / "_numba.py"), want=str(home / "numba-cache"),
                                     kernel_dir=str(kdir))
    assert _run(code, env).split()[-1] == "190"
    cached = sorted(p.name for p in (home / "numba-cache").rglob("*") if p.is_file())
    assert any(n.endswith(".nbi") for n in cached) and any(n.endswith(".nbc") for n in cached), cached
    assert _run(code, env).split()[-1] == "190"  # and read back from there


def test_bgrl_compiled_0_keeps_the_numpy_paths():
    out = _run("import bgrl, numpy as np\n"
               "from bgrl.evaluation import compiled\n"
               "from bgrl.rules import movegen\n"
               "rows = bgrl.hint(bgrl.Position.start(), (3, 1), level='expert', ply=0, top=1)\n"
               "print(compiled.MODE, compiled.active(), movegen._ONE_POSITION is None, rows[0].play.notation)",
               {"BGRL_COMPILED": "0"})
    assert out.split()[-5:] == ["0", "False", "True", "8/5", "6/5"]


def test_a_first_compile_is_stated_once():
    """Once, however many threads make their first call at the same time."""
    r = subprocess.run([sys.executable, "-c", "from concurrent.futures import ThreadPoolExecutor\n"
                        "from bgrl.evaluation import compiled\n"
                        "compiled.COMPILE_NOTE_S = -1.0  # as if the kernels had just been compiled\n"
                        "with ThreadPoolExecutor(4) as ex:\n"
                        "    assert all(ex.map(lambda _: compiled.ensure(), range(4)))\n"
                        "print(compiled.ensure(), compiled.ensure())"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "BGRL_COMPILED": "1"})
    assert r.returncode == 0 and r.stdout.split() == ["True", "True"], r.stderr[-2000:]
    assert r.stderr.count("bgrl compiled its numba kernels in") == 1 and "cached in" in r.stderr


def test_the_compile_note_names_the_cache_folder(monkeypatch):
    from types import SimpleNamespace

    from bgrl.evaluation.compiled import _cache_note

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert "__pycache__" in _cache_note(SimpleNamespace(CACHE=True, CACHE_DIR=None))
    assert _cache_note(SimpleNamespace(CACHE=True, CACHE_DIR="/home/u/.bgrl/numba-cache")).endswith(
        "cached in /home/u/.bgrl/numba-cache")
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/users/own/cache")  # the user's own folder, kept by _numba
    assert _cache_note(SimpleNamespace(CACHE=True, CACHE_DIR=None)).endswith("cached in /users/own/cache")
    assert "every start compiles them again" in _cache_note(SimpleNamespace(CACHE=False, CACHE_DIR=None))


def test_every_kernel_module_takes_njit_from_bgrls_numba_module():
    """Kernels decorated with numba's own njit would skip _numba's cache folder (a read-only
    install) and its fallback where nothing can be written (numba refuses cache=True there)."""
    import ast

    for folder in ("bgrl", "training", "env"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "_numba.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "numba":
                    raise AssertionError(f"{path.relative_to(ROOT)} imports from numba directly: take njit "
                                         "from bgrl.evaluation._numba")
