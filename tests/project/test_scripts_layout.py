"""scripts/ sorted by kind, no script importing another, and every script path the docs name
exists (issue 38)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
KINDS = {"tools", "bench", "train", "experiments", "examples"}
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(SCRIPTS.rglob("README.md"))]
PATH = re.compile(r"(?<![\w/.-])scripts/[\w./-]+?\.py\b")


def test_scripts_sit_in_folders_by_kind():
    assert not list(SCRIPTS.glob("*.py")), "a script at scripts/'s top level; put it in one of " + ", ".join(sorted(KINDS))
    assert {p.name for p in SCRIPTS.iterdir() if p.is_dir() and p.name != "__pycache__"} <= KINDS


def test_no_script_imports_another_script():
    stems = {p.stem for p in SCRIPTS.rglob("*.py")}
    bad = []
    for path in sorted(SCRIPTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in stems]
    assert not bad, bad


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_script_path_in_the_docs_exists(doc):
    named = set(PATH.findall(doc.read_text(encoding="utf-8")))
    missing = sorted(p for p in named if not (ROOT / p).is_file())
    assert not missing, f"{doc.relative_to(ROOT)} names {missing}"


def test_the_docs_name_scripts_at_all():
    """The check above is not vacuous: the docs name many scripts."""
    assert sum(len(PATH.findall(d.read_text(encoding="utf-8"))) for d in DOCS) > 30
