"""The capability layout as tests (docs/architecture.md): layers, a numpy-only rules core,
no import circles, no private names across modules, no re-export modules, and every package's
star import."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "gymnasium", "numba", "tqdm", "fastapi", "tensorboard")


def _loaded_after(code: str) -> set[str]:
    """Top-level modules in sys.modules after running ``code`` in a fresh interpreter."""
    r = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return set(r.stdout.split())


def _package_modules(package: str) -> list[str]:
    import pkgutil

    pkg = importlib.import_module(package)
    return [f"{package}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__) if m.name != "__main__"]


def test_the_whole_rules_package_loads_numpy_only():
    mods = _package_modules("bgrl.rules")
    assert {"bgrl.rules.board", "bgrl.rules.movegen", "bgrl.rules.notation", "bgrl.rules.xgid"} <= set(mods)
    loaded = _loaded_after("\n".join(f"import {m}" for m in mods))
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_import_bgrl_loads_numpy_only_and_torch_names_load_on_first_use():
    assert not _loaded_after("import bgrl; bgrl.legal_plays(bgrl.Position.start(), (3, 1))") & set(HEAVY)
    assert "torch" in _loaded_after("import bgrl; bgrl.load_evaluator(\"default\")")


@pytest.mark.parametrize("module", ["bgrl.agents.search", "bgrl.agents.hints", "bgrl.agents.levels",
                                    "bgrl.records.review", "bgrl.records.cube_review", "bgrl.records.review_report",
                                    "bgrl.evaluation.probabilities", "bgrl.evaluation.pubeval"])
def test_search_hints_levels_and_review_import_without_torch(module):
    assert "torch" not in _loaded_after(f"import {module}")


def test_import_linter_contracts_are_kept():
    exe = Path(sys.executable).parent / "lint-imports"
    if not exe.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    r = subprocess.run([str(exe), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]
    assert "BROKEN" not in r.stdout and r.stdout.count("KEPT") >= 3


def _sources():
    for folder in ("bgrl", "env", "training"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield folder, path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_env_and_training_never_import_the_front_ends():
    """bgrl.env and bgrl.training (mapped folders grimp does not walk) sit below cli and service."""
    bad = []
    for folder, path, tree in _sources():
        if folder == "bgrl":
            continue
        for node in ast.walk(tree):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.startswith(("bgrl.cli", "bgrl.service"))]
    assert not bad, bad


def test_no_private_names_are_imported_across_modules():
    """``from bgrl.x import _name`` is refused; a package's own private module (``_kernels``) is fine."""
    bad = []
    for _folder, path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bgrl"):
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    own_module = private and (ROOT / node.module.replace(".", "/").replace("bgrl/training", "training")
                                              .replace("bgrl/env", "env") / f"{alias.name}.py").is_file()
                    if private and not own_module:
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module} import {alias.name}")
    assert not bad, bad


def test_no_import_circles():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("bgrl")
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in graph.modules or not w.startswith("bgrl"):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    assert not circles, circles


def test_no_top_level_module_re_exports_another():
    """Every module at ``bgrl/``'s top level (the package's ``__init__`` aside) holds code of its
    own: none is only imports and an ``__all__`` (the deprecated re-export modules are gone)."""
    bare = []
    for path in sorted((ROOT / "bgrl").glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        own = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom))
               and not (isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["__all__"])
               and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))]
        if not own:
            bare.append(path.name)
    assert not bare, bare


OPTIONAL = {"bgrl.service": "fastapi", "bgrl.gnubg": None}


@pytest.mark.parametrize("package", ["bgrl", "bgrl.rules", "bgrl.evaluation", "bgrl.agents", "bgrl.arena", "bgrl.records",
                                     "bgrl.gnubg", "bgrl.cli", "bgrl.service", "bgrl.env", "bgrl.training"])
def test_every_package_star_imports(package):
    """``from bgrl.<package> import *`` works: every name in ``__all__`` exists."""
    if OPTIONAL.get(package):
        pytest.importorskip(OPTIONAL[package])
    namespace: dict = {}
    exec(f"from {package} import *", namespace)
    mod = importlib.import_module(package)
    assert all(name in namespace for name in getattr(mod, "__all__", [])), package


@pytest.mark.parametrize("old, names", [("bgrl.rules", ["game_results", "is_race", "SINGLE", "GAMMON", "BACKGAMMON"]),
                                        ("bgrl.agents", ["Agent", "RandomAgent", "PubevalAgent", "load_agent"]),
                                        ("bgrl.env", ["pettingzoo_env"]),
                                        ("bgrl.training", [])])
def test_old_package_paths_keep_their_names(old, names):
    mod = importlib.import_module(old)
    for n in names:
        assert getattr(mod, n) is not None, n


# ----------------------------------------------------------------------------- the whole import graph, lazy imports included
#: The most in-function imports of project modules allowed across bgrl/, env/ and training/
#: (issue 38: 232 before). Those left keep torch, numba or an optional extra (fastapi, ray,
#: sqlalchemy, gnubg, prometheus-client) off the start-up path of ``import bgrl``, ``bgrl.env``
#: and the ``bgrl`` command, or sit in a ``try`` for a missing extra.
MAX_IN_FUNCTION_IMPORTS = 120
MAPPED = {"bgrl": "bgrl", "env": "bgrl.env", "training": "bgrl.training"}


def _project_modules() -> dict[str, Path]:
    """Dotted name -> file, for bgrl/ and the mapped packages env/ and training/."""
    out = {}
    for folder, package in MAPPED.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


def _project_imports(modules: dict[str, Path]) -> list[tuple[str, str, int, bool]]:
    """(importer, imported module, line, inside a function) for every import of a project module;
    ``from package import module`` names the module."""
    def resolve(dotted: str, exact: bool = False):
        if not dotted.startswith("bgrl"):
            return None
        while dotted and dotted not in modules and not exact:
            dotted = dotted.rpartition(".")[0]
        return dotted if dotted in modules else None

    found = []
    for name, path in modules.items():
        def walk(node, in_function):
            for child in ast.iter_child_nodes(node):
                inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.Import):
                    found.extend((name, t, child.lineno, in_function) for a in child.names if (t := resolve(a.name)))
                elif isinstance(child, ast.ImportFrom):
                    base = child.module or ""
                    if child.level:
                        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
                        for _ in range(child.level - 1):
                            package = package.rpartition(".")[0]
                        base = f"{package}.{base}" if base else package
                    found.extend((name, t, child.lineno, in_function) for a in child.names
                                 if (t := resolve(f"{base}.{a.name}", exact=True) or resolve(base)))
                walk(child, inner)
        walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_no_import_circle_counting_imports_inside_functions_and_the_mapped_packages():
    """grimp walks bgrl/ only; this walks env/ and training/ too, every import included."""
    modules = _project_modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for a, b, _line, _inner in _project_imports(modules):
        if a != b:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert not circles, circles


def test_in_function_project_imports_stay_few():
    statements = {(a, line) for a, _b, line, inner in _project_imports(_project_modules()) if inner}
    assert len(statements) <= MAX_IN_FUNCTION_IMPORTS, (
        f"{len(statements)} in-function imports of project modules (at most {MAX_IN_FUNCTION_IMPORTS}): import at the "
        "module's top unless the import keeps torch or an optional extra off the start-up path")


#: The most lines a module of bgrl/, env/ or training/ may have (issue 38: split the mixed files).
MAX_MODULE_LINES = 800


def test_no_module_is_over_800_lines():
    """Every module of bgrl/, env/ and training/ has at most :data:`MAX_MODULE_LINES` lines,
    counted as ``wc -l`` counts them (newline characters)."""
    long = {str(path.relative_to(ROOT)): n for path in _project_modules().values()
            if (n := path.read_bytes().count(b"\n")) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by concern): {long}"


def test_the_architecture_page_names_every_module():
    """docs/architecture.md's module table has one row per module of bgrl/, env/ and training/
    (as bgrl.env, bgrl.training), and no row for a module that is gone."""
    import re

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(bgrl(?:\.\w+)*)` \|", page, flags=re.M))
    modules = set(_project_modules())
    assert not modules - rows, f"modules missing from docs/architecture.md's table: {sorted(modules - rows)}"
    assert not rows - modules, f"rows of docs/architecture.md's table naming no module: {sorted(rows - modules)}"
