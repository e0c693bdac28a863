"""issue 17 item 8: a missing optional extra is always reported the same way, naming the pip
command (bgrl._extras), in the CLI, the service, the gnubg adapter, Ray and PettingZoo."""

import ast
import sys
from pathlib import Path

import pytest

from bgrl._extras import EXTRAS, MissingExtraError, install_command, missing_extra, require

ROOT = Path(__file__).resolve().parents[2]


def test_sentence_and_require():
    text = missing_extra("serve", "bgrl serve")
    assert text == ("bgrl serve needs the optional extra 'serve' (FastAPI, uvicorn, prometheus-client): "
                    "pip install -e '.[serve]' in the bgrl checkout")
    with pytest.raises(KeyError, match="no optional extra 'nosuch'"):
        install_command("nosuch")
    with pytest.raises(MissingExtraError, match=r"x needs the optional extra 'ray' \(Ray\)"):
        require("no_such_module_bgrl_test", "ray", "x")
    assert require("json", "ray", "x").__name__ == "json"


def test_every_extra_in_the_table_is_in_pyproject():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)


def test_no_other_install_message_in_the_code():
    """Every string literal of the package code (docstrings aside) that names a pip command
    comes from bgrl._extras."""
    offenders = []
    for top in ("bgrl", "env", "training"):
        for f in (ROOT / top).rglob("*.py"):
            if f.name == "_extras.py":
                continue
            tree = ast.parse(f.read_text(encoding="utf-8"))
            docs = {id(n.body[0].value) for n in ast.walk(tree)
                    if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                    and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
            for n in ast.walk(tree):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and "pip install" in n.value:
                    offenders.append(f"{f.relative_to(ROOT)}:{n.lineno}")
    assert not offenders, offenders


@pytest.mark.parametrize("module, extra, call", [
    ("uvicorn", "serve", lambda: __import__("bgrl.cli", fromlist=["main"]).main(["serve"])),
    ("gnubg_nn", "gnubg", lambda: __import__("bgrl.cli", fromlist=["main"]).main(["match", "gnubg", "random", "--games", "2"])),
])
def test_cli_reports_a_missing_extra_in_one_line(module, extra, call, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ImportError
    assert call() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"needs the optional extra '{extra}'" in err and install_command(extra) in err


def test_library_imports_report_a_missing_extra(monkeypatch):
    from bgrl.gnubg.adapter import require_gnubg

    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[gnubg\]'"):
        require_gnubg()
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    monkeypatch.delitem(sys.modules, "bgrl.env.pettingzoo", raising=False)
    with pytest.raises(ImportError, match=r"needs the optional extra 'pettingzoo'.*pip install -e '\.\[pettingzoo\]'"):
        import bgrl.env.pettingzoo  # noqa: F401
