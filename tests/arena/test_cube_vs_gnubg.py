"""scripts/bench/cube_vs_gnubg.py: bad flags exit 2; on a few positions bgrl's cube maths with gnubg's
0-1-ply cube life give gnubg's own 0-ply decisions and equities."""

import json

import pytest

from tests.project.test_scripts_errors import _script  # the one loader of a script as a module


@pytest.mark.parametrize("argv, words", [(["--positions", "0"], "--positions must be >= 1"),
                                         (["--ref-plies", "5"], "--ref-plies must be 0..3"),
                                         (["--level", "nope"], "--level must be one of")])
def test_cube_vs_gnubg_bad_flags(capsys, argv, words):
    mod = _script("cube_vs_gnubg")
    with pytest.raises(SystemExit) as exc:
        mod.main(argv)
    assert exc.value.code == 2
    assert words in capsys.readouterr().err.strip().splitlines()[-1]


def test_cube_maths_equal_gnubg_0_ply(tmp_path, capsys):
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("gnubg")
    mod = _script("cube_vs_gnubg")
    out = tmp_path / "c.json"
    assert mod.main(["--positions", "25", "--seed", "3", "--no-level", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(a) cube maths" in text and "(a')" in text
    obj = json.loads(out.read_text())
    for label, s in obj["a_shallow"].items():
        assert s["positions"] == 25 and s["agreement"] == 1.0, label
        assert s["mean_abs_nd"] < 2e-3 and s["mean_abs_dt"] < 5e-3, label  # gnubg prints 5 decimals
    assert all(s["agreement"] >= 0.8 for s in obj["a"].values())
