"""README and documentation-site statements that the code can check: counts, defaults and error codes they name.

The README is a front page; most of its former text lives in the site's pages, docs/*.md. The
checks read the README and every page, so a sentence keeps being checked wherever it moves.
"""

from __future__ import annotations

import re
from pathlib import Path

from bgrl import Position

ROOT = Path(__file__).parents[2]
PAGES = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
         for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
README = "\n\n".join(PAGES.values())  # the README and all the docs pages
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _section(title: str) -> str:
    """The text from the heading containing ``title`` to the next heading of any level, in the
    README or whichever docs page holds it."""
    for text in PAGES.values():
        m = re.search(rf"^#+ [^\n]*{re.escape(title)}[^\n]*\n(.*?)(?=^#|\Z)", text, re.S | re.M)
        if m:
            return m.group(1)
    raise AssertionError(f"neither README.md nor docs/*.md has a section {title!r}")


def test_docs_pages_are_read():
    assert "README.md" in PAGES and "docs/rules.md" in PAGES and len(PAGES) > 3


def test_gym_environment_count_matches_the_registry():
    import gymnasium as gym

    import bgrl.env  # noqa: F401  (registers)

    ours = sorted(k for k in gym.registry if k.startswith("bgrl/"))
    m = re.search(r"`import bgrl\.env` registers (\w+) versioned environments", README)
    assert m, "neither README nor docs say how many environments import bgrl.env registers"
    assert NUMBERS[m.group(1)] == len(ours), (m.group(1), ours)
    assert all(f"`{k}`" in README for k in ours)


def test_hint_top_default_matches_the_code():
    """`bgrl hint` shows 10 plays in text and all in JSON unless --top says otherwise."""
    from bgrl.cli import build_parser
    from bgrl.agents.hints import RankedPlay
    from bgrl.cli._table import hint_json, hint_text
    from bgrl.evaluation.probabilities import Probabilities
    from bgrl.rules.notation import legal_plays

    pos = Position.start()
    plays = legal_plays(pos, (2, 1))
    assert len(plays) > 10
    ranked = [RankedPlay(i + 1, p, -0.01 * i, 0.01 * i, Probabilities(0.5, 0, 0, 0, 0)) for i, p in enumerate(plays)]
    assert len(hint_json(pos, (2, 1), ranked, "expert", 1)["plays"]) == len(plays)
    text = hint_text(pos, (2, 1), ranked, "expert", 1)
    assert text == hint_text(pos, (2, 1), ranked, "expert", 1, top=10) != hint_text(pos, (2, 1), ranked, "expert", 1, top=0)
    assert build_parser().parse_args(["hint", "4HPwATDgc/ABMA", "21"]).top is None  # None = 10 in text, all in JSON
    hint = _section("`bgrl hint POSITION")
    assert "default 10 in the text output, all in JSON" in hint and "(default and `0`: all)" not in hint


def test_readme_does_not_say_xgid_is_missing():
    from bgrl.service.engine import parse_position

    pos, dice = parse_position(xgid="XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert dice == (3, 1) and pos.position_id == Position.start().position_id
    for stale in ("xgid_unsupported", "once the XGID reader", "until it is installed"):
        assert stale not in README, stale


def test_readme_links_reach_the_docs_pages():
    """The front page's relative links (mkdocs checks the pages' own links, not the README's)."""
    links = re.findall(r"\]\(((?:docs/)[^)#\s]*)(?:#[^)]*)?\)", PAGES["README.md"])
    assert len(links) >= 10
    for link in links:
        assert (ROOT / link).exists(), link
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        if page.startswith("docs/"):
            assert f": {page.removeprefix('docs/')}" in nav, f"{page} is not in mkdocs.yml's nav"


def test_the_test_count_of_docs_index_stays_near_the_suite():
    """docs/index.md's test count (with its date) is at least the number of test functions
    (parametrized ones count once here, more when collected) and at most twice it."""
    import ast
    import re

    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    m = re.search(r"\(([\d,]+) tests as `pytest --collect-only` counted them\s+on (\d{4}-\d\d-\d\d)", text)
    assert m, "docs/index.md: the test count and its date"
    documented = int(m.group(1).replace(",", ""))
    functions = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")
                    for p in (ROOT / "tests").rglob("test_*.py") for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))
    assert functions <= documented <= 2 * functions, (documented, functions)
