"""Training recipes: `bgrl train --config RECIPE` (bgrl.training.pipeline) and its resume."""

import json
from pathlib import Path

import pytest
import torch

from bgrl.cli import main
from bgrl.training.pipeline import load_recipe, run_pipeline, shipped_recipes

ROOT = Path(__file__).resolve().parents[2]

TINY = """
name = "tiny"

[[stage]]
kind = "td"
name = "td"
games = 200
hidden = 8
parallel = 32
seed = 3
eval_every = 0
checkpoint_every = 64

[[stage]]
kind = "widen"
hidden = 12

[[stage]]
kind = "distill"
games = 8
ply = 0
epochs = 3
lr = 0.003
batch = 64
seed = 5

[[stage]]
kind = "average"
stage = "distill"
epochs = [2, 3]
"""


def _weights(path):
    return torch.load(path, map_location="cpu", weights_only=True)["model"]


def _same(a, b):
    wa, wb = _weights(a), _weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_tiny_pipeline_resumes_mid_stage_to_the_same_weights(tmp_path):
    cfg = tmp_path / "tiny.toml"
    cfg.write_text(TINY)
    recipe = load_recipe(cfg)
    quiet = dict(progress=False, log=lambda *_: None)
    a = run_pipeline(recipe, tmp_path / "a", **quiet)
    b_dir = tmp_path / "b"
    assert run_pipeline(recipe, b_dir, stop_after=("td", 1), **quiet) is None  # killed mid-TD
    assert not (b_dir / "01-td" / "done.json").exists() and (b_dir / "01-td" / "latest.pt").exists()
    assert run_pipeline(None, b_dir, resume=True, stop_after=("distill", 1), **quiet) is None  # killed mid-fit
    assert (b_dir / "03-distill" / "epoch_1.pt").exists() and not (b_dir / "03-distill" / "epoch_2.pt").exists()
    b = run_pipeline(None, b_dir, resume=True, **quiet)
    for part in ("01-td/final.pt", "02-widen/final.pt", "03-distill/epoch_3.pt", "04-average/final.pt"):
        assert _same(tmp_path / "a" / part, b_dir / part), part
    assert _same(a, b)
    assert _weights(a)["fc1.weight"].shape == (12, 202)  # the widened network went through every stage
    assert not _same(tmp_path / "a" / "02-widen/final.pt", a)  # distillation changed it
    assert json.loads((b_dir / "pipeline.json").read_text())["name"] == "tiny"


SOUP = """
name = "soup"

[[stage]]
kind = "td"
name = "td"
games = 64
hidden = 8
parallel = 32
seed = 3
eval_every = 0

[[stage]]
kind = "distill"
name = "fit_a"
init = "@td"
games = 8
ply = 0
epochs = 2
lr = 0.003
batch = 64
seed = 5

[[stage]]
kind = "distill"
name = "fit_b"
init = "@td"
data_seeds = []
extra_data = ["fit_a"]
epochs = 2
lr = 0.003
batch = 64
seed = 6

[[stage]]
kind = "average"
name = "soup"
checkpoints = ["@fit_a", "@fit_b"]
"""


def test_a_second_fit_on_earlier_data_and_a_soup_of_stage_results(tmp_path, monkeypatch):
    """data_seeds = [] with extra_data fits the earlier stage's positions only (no new files,
    so its teacher is never loaded); an average stage's "@NAME" checkpoints are those stages'
    results, element-wise averaged."""
    import bgrl.evaluation.networks as networks

    loads, real_load = [], networks.load_network
    monkeypatch.setattr(networks, "load_network", lambda path, *a, **k: loads.append(Path(path)) or real_load(path, *a, **k))
    cfg = tmp_path / "soup.toml"
    cfg.write_text(SOUP)
    run = tmp_path / "run"
    out = run_pipeline(load_recipe(cfg), run, progress=False, log=lambda *_: None)
    assert not list((run / "03-fit_b").glob("data_*.npz"))  # no positions of its own
    # fit_a loads td's result twice (teacher, student), fit_b once (student only)
    assert loads.count(run / "01-td" / "final.pt") == 3, loads
    a, b, soup = (_weights(run / f) for f in ("02-fit_a/final.pt", "03-fit_b/final.pt", "04-soup/final.pt"))
    assert not torch.equal(a["fc1.weight"], b["fc1.weight"])  # another seed, another fit
    for k in soup:
        assert torch.allclose(soup[k], (a[k] + b[k]) / 2, atol=1e-6), k
    assert _same(out, run / "04-soup/final.pt")


def _err(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, err


@pytest.mark.parametrize("body,needle", [
    ('[[stage]]\nkind = "tdd"\n', "stage 1: unknown kind 'tdd'; expected one of td, widen, distill, average"),
    ('[[stage]]\nkind = "td"\ngames = "many"\n', "stage 1 (td): games must be an int, got str"),
    ('[[stage]]\nkind = "td"\nalpha = true\n', "alpha must be a float"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\nepochs = 1.5\n', "stage 2 (distill): epochs must be an int"),
    ('[[stage]]\nkind = "td"\nbogus = 1\n', "unknown setting 'bogus'"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\nphases = ["endgame"]\n',
     "stage 2 (distill): phases must be a non-empty list of contact, race, bearoff, crashed"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\ndata_seeds = [1, 2]\ndata_noises = [0.02]\n',
     "data_noises needs one noise per data seed"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\ndata_noises = [-0.1]\n', "data_noises must be >= 0"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\nlr_final = 0\n', "lr_final must be > 0"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "distill"\ndata_seeds = []\ndata_noises = []\n', "data_seeds must not be empty"),
    ('[[stage]]\nkind = "td"\n[[stage]]\nkind = "average"\nstage = "nope"\nepochs = [1, 2]\n', "'nope' is not an earlier stage"),
    ('[[stage]]\nkind = "td"\nname = "a"\n[[stage]]\nkind = "average"\ncheckpoints = ["@a", "@b"]\n', "'b' is not an earlier stage"),
])
def test_bad_recipes_are_one_line_errors(tmp_path, capsys, body, needle):
    cfg = tmp_path / "r.toml"
    cfg.write_text(body)
    code, err = _err(["train", "--config", str(cfg), "--run-dir", str(tmp_path / "run")], capsys)
    assert code == 2 and err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "run").exists()


def test_recipe_refuses_td_flags(tmp_path, capsys):
    code, err = _err(["train", "--config", "early", "--games", "10", "--run-dir", str(tmp_path / "r")], capsys)
    assert code == 2 and "--games" in err and "recipe" in err


def test_every_shipped_network_names_its_shipped_recipe():
    manifest = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())
    names = shipped_recipes()
    assert set(names) == set(manifest)
    for net, entry in manifest.items():
        assert entry["recipe"] == net
        r = load_recipe(entry["recipe"])  # a bare name finds the packaged file
        assert r.name == net and r.stages


def test_distilled_recipe_mirrors_the_manifest():
    r = load_recipe("distilled")
    kinds = [s.kind for s in r.stages]
    assert kinds == ["widen", "distill", "distill", "distill", "average"]
    cfg = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())["distilled"]["config"]
    for stage, rnd in zip(r.stages[1:4], cfg["rounds"]):
        assert stage.settings["epochs"] == rnd["epochs"] and stage.settings["lr"] == rnd["lr"]
    assert r.stages[4].settings["epochs"] == [8, 16]


def test_distilled3_recipe_mirrors_the_manifest():
    r = load_recipe("distilled3")
    assert [s.kind for s in r.stages] == ["widen", "distill", "average"]
    entry = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())["distilled3"]
    (rnd,) = entry["config"]["rounds"]
    widen, fit, avg = r.stages
    assert widen.settings["hidden"] == 640 and widen.init == "distilled2"
    assert entry["network"].startswith("220-640-5")
    assert fit.settings["teacher"] == rnd["teacher"] == "distilled2"
    assert fit.settings["data_seeds"] == rnd["data_seeds"] and fit.settings["data_noises"] == rnd["noise"]
    for key in ("epochs", "lr", "batch", "seed"):
        assert fit.settings[key] == rnd[key], key
    assert entry["recipe"] == "distilled3" and avg.settings["epochs"] == [8, 16]


@pytest.mark.parametrize("net, parent, teacher, width", [("distilled4", "distilled3", "distilled3", 640),
                                                         ("distilled5", "distilled4", "distilled4", 640),
                                                         ("distilled2b", "distilled2", "distilled4", 320),
                                                         ("distilled2c", "distilled2b", "distilled7", 320)])
def test_same_width_round_recipe_mirrors_the_manifest(net, parent, teacher, width):
    """distilled4 and distilled5: one round of a 640-unit network on its own 1-ply values;
    distilled2b: one round of the 320-unit distilled2 on distilled4's; distilled2c: one round of
    distilled2b on distilled7's."""
    r = load_recipe(net)
    assert [s.kind for s in r.stages] == ["distill", "average"]
    entry = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())[net]
    (rnd,) = entry["config"]["rounds"]
    fit, avg = r.stages
    assert fit.init == parent and entry["network"].startswith(f"220-{width}-5")
    assert fit.settings["teacher"] == rnd["teacher"] == teacher
    assert fit.settings["data_seeds"] == rnd["data_seeds"] and fit.settings["data_noises"] == rnd["noise"]
    assert rnd["games"] == fit.settings["games"] * len(rnd["data_seeds"])
    for key in ("epochs", "lr", "batch", "seed"):
        assert fit.settings[key] == rnd[key], key
    assert entry["recipe"] == net and avg.settings["epochs"] == [8, 16]


@pytest.mark.parametrize("net, parent", [("distilled6", "distilled5"), ("distilled7", "distilled6")])
def test_soup_round_recipe_mirrors_the_manifest(net, parent):
    """distilled6, distilled7: two fits of the parent on the same positions of its own 1-ply
    values (the second reads the first's data), each averaged over epochs 8-16, then the mean
    of the two."""
    r = load_recipe(net)
    assert [s.kind for s in r.stages] == ["distill", "average", "distill", "average", "average"]
    entry = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())[net]
    (rnd,) = entry["config"]["rounds"]
    fit_a, swa_a, fit_b, swa_b, soup = r.stages
    assert fit_a.init == fit_b.init == parent and entry["network"].startswith("220-640-5")
    assert fit_a.settings["teacher"] == fit_b.settings["teacher"] == rnd["teacher"] == parent
    assert fit_a.settings["data_seeds"] == rnd["data_seeds"] and fit_a.settings["data_noises"] == rnd["noise"]
    assert rnd["games"] == fit_a.settings["games"] * len(rnd["data_seeds"])
    assert fit_b.settings["data_seeds"] == [] and fit_b.settings["extra_data"] == [fit_a.name]
    assert [fit_a.settings["seed"], fit_b.settings["seed"]] == rnd["seeds"]
    for key in ("epochs", "lr", "batch"):
        assert fit_a.settings[key] == fit_b.settings[key] == rnd[key], key
    assert swa_a.settings == {"stage": fit_a.name, "epochs": [8, 16]} and swa_b.settings == {"stage": fit_b.name, "epochs": [8, 16]}
    assert soup.settings["checkpoints"] == [f"@{swa_a.name}", f"@{swa_b.name}"] and entry["recipe"] == net


def test_fit_device_path_on_cpu_matches_the_default(tmp_path):
    """device='auto' runs the same code as the default (on a machine without CUDA it is the CPU),
    and gives the same weights; a bad device name is refused."""
    import numpy as np

    from bgrl.evaluation.model import TDNet
    from bgrl.evaluation.table import network_evaluator
    from bgrl.training.distill import collect_positions, fit, resolve_device

    torch.manual_seed(0)
    base = TDNet(202, 8)
    ev = network_evaluator(base, "td198r")
    boards = collect_positions(ev, 4, seed=1)
    targets = np.asarray(ev(boards), dtype=np.float32)
    nets = []
    for dev in ("cpu", "auto"):
        n = TDNet(202, 8)
        n.load_state_dict(base.state_dict())
        fit(n, "td198r", boards, targets, epochs=2, lr=1e-2, batch=32, device=dev, log=lambda *_: None)
        nets.append(n)
    if not torch.cuda.is_available():
        assert all(torch.equal(a, b) for a, b in zip(nets[0].state_dict().values(), nets[1].state_dict().values()))
    assert not torch.equal(nets[0].fc1.weight, base.fc1.weight)
    assert next(nets[1].parameters()).device.type == "cpu"  # back on the CPU after the fit
    with pytest.raises(ValueError, match="device must be cpu, cuda or auto"):
        resolve_device("tpu")


@pytest.mark.parametrize("name,content,needle", [
    ("r.toml", b"[[stage]]\nkind = \n", "expected a TOML or JSON table"),
    ("r.json", b'{"stage": [', "expected a TOML or JSON table"),
    ("r.cfg", b"not = [valid\n", "expected a TOML or JSON table"),
    ("r.toml", b"\xb8\x00\xff\x10binary", "not a text file"),
    ("r.json", b"[1, 2]", "expected a table, got list"),
])
def test_config_and_recipe_files_share_one_reader(tmp_path, capsys, name, content, needle):
    """bgrl.training.config.read_config_table reads flat configs and recipes alike: one line each."""
    from bgrl.training.config import read_config_table
    from bgrl.training.pipeline import is_recipe

    cfg = tmp_path / name
    cfg.write_bytes(content)
    with pytest.raises(ValueError, match=needle) as exc:
        read_config_table(cfg)
    assert "\n" not in str(exc.value) and str(cfg) in str(exc.value)
    assert not is_recipe(cfg)
    code, err = _err(["train", "--config", str(cfg), "--run-dir", str(tmp_path / "run")], capsys)
    assert code == 2 and err.count("\n") == 1 and needle in err, err


def test_distill_stage_with_data_noises_phases_and_lr_final(tmp_path):
    import numpy as np

    from bgrl.evaluation.phase import CONTACT, CRASHED, classify

    cfg = tmp_path / "phases.toml"
    cfg.write_text('''name = "phases"
[[stage]]
kind = "distill"
init = "default"
games = 6
data_seeds = [1, 2]
data_noises = [0.0, 0.5]
phases = ["contact", "crashed"]
ply = 0
epochs = 2
lr = 0.003
lr_final = 0.001
batch = 64
''')
    lines = []
    out = run_pipeline(load_recipe(cfg), tmp_path / "run", progress=False, log=lines.append)
    folder = tmp_path / "run" / "01-distill"
    boards = np.concatenate([np.load(folder / f"data_{s}.npz")["boards"] for s in (1, 2)])
    kept = int(np.isin(classify(boards), (CONTACT, CRASHED)).sum())
    assert 0 < kept < boards.shape[0]
    assert any(f"phases contact, crashed: {kept} of {boards.shape[0]} positions" in ln for ln in lines), lines
    meta = torch.load(out, map_location="cpu", weights_only=True)["meta"]
    assert meta["distilled"]["positions"] == kept
    state = torch.load(folder / "epoch_2.pt", map_location="cpu", weights_only=True)["trainer"]
    assert state["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.001)
    # the two seeds were played with their own noise: seed 1 greedy (as a noise-0 stage gives)
    cfg0 = tmp_path / "greedy.toml"
    cfg0.write_text(cfg.read_text().replace("data_seeds = [1, 2]\ndata_noises = [0.0, 0.5]", "data_seeds = [1]\nnoise = 0.0"))
    run_pipeline(load_recipe(cfg0), tmp_path / "run0", progress=False, log=lambda *_: None)
    assert np.array_equal(np.load(tmp_path / "run0" / "01-distill" / "data_1.npz")["boards"],
                          np.load(folder / "data_1.npz")["boards"])


def test_ctrl_c_in_a_recipe_prints_the_command_that_resumes_the_recipe(tmp_path, capsys, monkeypatch):
    """Ctrl-C inside a recipe's TD stage (issue 42): every printed resume command names the
    recipe's run folder, not the stage folder; run as printed it finishes the TD stage, runs the
    widen, distill and average stages, ends with the recipe's final network (the uninterrupted
    run's weights) and names it. Resuming the stage folder itself is refused with the right command."""
    import signal

    import bgrl.training.loop as loop

    cfg = tmp_path / "tiny.toml"
    cfg.write_text(TINY)
    full = run_pipeline(load_recipe(cfg), tmp_path / "a", progress=False, log=lambda *_: None)
    run = tmp_path / "b"
    real_save, calls = loop.save_checkpoint, []

    def save_then_ctrl_c(*a, **kw):  # Ctrl-C at the TD stage's first checkpoint
        real_save(*a, **kw)
        calls.append(1)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(loop, "save_checkpoint", save_then_ctrl_c)
    assert main(["train", "--config", str(cfg), "--run-dir", str(run), "--no-progress"]) == 130
    monkeypatch.setattr(loop, "save_checkpoint", real_save)
    out = capsys.readouterr().out
    assert (run / "01-td" / "latest.pt").is_file() and not (run / "01-td" / "done.json").exists()
    printed = [line.split("with: ", 1)[1].split("#")[0].split() for line in out.splitlines() if "bgrl train --resume" in line]
    assert printed and all(cmd == ["bgrl", "train", "--resume", str(run)] for cmd in printed), out
    assert main(printed[0][1:] + ["--no-progress"]) == 0
    out = capsys.readouterr().out
    for stage in ("01-td", "02-widen", "03-distill", "04-average"):
        assert (run / stage / "done.json").is_file(), stage
    assert _same(full, run / "final.pt")
    assert f"bgrl rate {run / 'final.pt'}" in out
    # the stage folder alone: refused (exit 2), naming the recipe's command
    assert main(["train", "--resume", str(run / "01-td"), "--games", "400", "--no-progress"]) == 2
    assert f"bgrl train --resume {run}" in capsys.readouterr().err
