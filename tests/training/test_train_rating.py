"""The default `bgrl train` ends with a short rating on the ladder and the next commands."""

from bgrl.cli import main


def test_train_ends_with_rating_and_next_step(tmp_path, capsys):
    run = tmp_path / "r"
    code = main(["train", "--games", "64", "--hidden", "8", "--parallel", "32", "--eval-every", "64", "--eval-games", "20",
                 "--rate-games", "40", "--run-dir", str(run), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "vs pubeval" in out  # the run's own final evaluation
    where = next(line for line in out.splitlines() if line.startswith("where it sits: "))
    assert "below beginner" in where or "between " in where  # 64 games of TD is no expert
    assert out.count("next:") == 1  # the rating prints the next steps once
    after = out.split("next:")[1]
    assert f"bgrl train --resume {run} --games 100000" in after
    assert "bgrl train --config " in after and "# the recipe of " in after
    assert "vs beginner" in out or "vs casual" in out


def test_no_rating_without_evaluations(tmp_path, capsys):
    assert main(["train", "--games", "32", "--hidden", "8", "--parallel", "32", "--eval-every", "0",
                 "--run-dir", str(tmp_path / "r"), "--no-progress"]) == 0
    assert "where it sits" not in capsys.readouterr().out
