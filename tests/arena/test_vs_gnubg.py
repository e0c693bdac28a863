"""scripts/bench/vs_gnubg.py and scripts/bench/bench_rollout.py: bad flags exit 2; a tiny vs-gnubg session runs."""

import pytest

from tests.project.test_scripts_errors import _script  # the one loader of a script as a module


@pytest.mark.parametrize("argv, words", [(["--games", "0"], "--games must be >= 1"),
                                         (["--pairings", "0,3"], "--pairings"),
                                         (["--pairings", ""], "--pairings"),
                                         (["--pairings", "top", "--network", "distilled6"], "plays only in pairings 0 and 1"),
                                         (["--pairings", "0", "--network", "no/such/net.pt"], "--network"),
                                         (["--pairings", "1", "--network", "no_such_shipped_name"], "--network")])
def test_vs_gnubg_bad_flags(capsys, argv, words):
    mod = _script("vs_gnubg")
    with pytest.raises(SystemExit) as exc:
        mod.main(argv)
    assert exc.value.code == 2
    assert words in capsys.readouterr().err.strip().splitlines()[-1]


def test_bench_rollout_bad_trials(capsys):
    mod = _script("bench_rollout")
    with pytest.raises(SystemExit) as exc:
        mod.main(["--trials", "0"])
    assert exc.value.code == 2 and "--trials must be >= 1" in capsys.readouterr().err


def test_vs_gnubg_two_games_at_0_ply(capsys):
    pytest.importorskip("gnubg_nn")
    mod = _script("vs_gnubg")
    assert mod.main(["--games", "4", "--pairings", "0", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "net at 0-ply vs gnubg 0-ply:" in out and "95% CI" in out
    assert "CPU per move: bgrl" in out and "gnubg" in out.split("CPU per move:")[1]


def test_vs_gnubg_network_not_a_checkpoint(capsys, tmp_path):
    bad = tmp_path / "net.pt"
    bad.write_bytes(b"not a checkpoint")
    mod = _script("vs_gnubg")
    with pytest.raises(SystemExit) as exc:
        mod.main(["--pairings", "0", "--network", str(bad), "--games", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and err[0].startswith("vs_gnubg.py: error: --network:") and "net.pt" in err[0]


def test_vs_gnubg_plays_another_network(capsys):
    pytest.importorskip("gnubg_nn")
    mod = _script("vs_gnubg")
    assert mod.main(["--games", "2", "--pairings", "0", "--seed", "1", "--network", "checkpoints/distilled6.pt"]) == 0
    out = capsys.readouterr().out
    assert "checkpoints/distilled6.pt net at 0-ply vs gnubg 0-ply:" in out
