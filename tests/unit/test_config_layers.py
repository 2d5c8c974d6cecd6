"""How a run's config is built: defaults, then the demo only when no file is named, then the named
files and the command line; a paper run never sees a demo-only key."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config_layers import layered_config, merge_layer, snakemake_run_config

from support.paths import REPO_ROOT

PAPER = REPO_ROOT / "config" / "paper.yaml"
REHEARSAL = REPO_ROOT / "config" / "rehearsal.yaml"


def _keys(node, prefix=""):
    out = set()
    for k, v in node.items():
        out.add(prefix + k)
        if isinstance(v, dict):
            out |= _keys(v, prefix + k + ".")
    return out


def test_merge_layer_merges_mappings_and_replaces_lists():
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 1}
    merge_layer(base, {"a": {"y": [3], "z": 2}})
    assert base == {"a": {"x": 1, "y": [3], "z": 2}, "b": 1}


def test_no_named_file_means_the_demo():
    demo = layered_config(REPO_ROOT)
    assert demo["data_root"] == "resources/demo"
    assert demo["generation"]["backend"] == "transformers"


def test_paper_run_sees_no_key_that_only_the_demo_sets():
    demo_only = _keys(yaml.safe_load((REPO_ROOT / "config" / "demo.yaml").read_text())) - _keys(
        layered_config(REPO_ROOT, [PAPER]))
    paper = layered_config(REPO_ROOT, [PAPER])
    assert not demo_only & _keys(paper)
    # the keys that leaked when the paper file was merged over the demo's
    assert "train" not in paper["data"]["fever"]["claims"]
    assert "train" not in paper["data"]["scifact"]["claims"]
    assert paper["retrieval"]["extra_claim_splits"] == {}
    assert set(paper["external"]["feverous"]["providers"]["sources"]) == {"dcuf", "unifee"}
    assert set(paper["external"]["feverous"]) == {"providers"}  # the demo's example system stays in the demo
    assert paper["data_root"] is None


def test_snakemake_command_line_layers_win_and_skip_the_demo():
    cli = {"data_root": "/data", "sampling": {"fever": {"n": 5}}}
    cfg = snakemake_run_config(REPO_ROOT, [str(PAPER)], merge_layer(yaml.safe_load(PAPER.read_text()), cli))
    assert cfg["data_root"] == "/data"
    assert cfg["sampling"]["fever"] == {"split": "dev", "method": "hash", "salt": "evidence-ledger-paper-fever", "n": 5}
    assert "train" not in cfg["data"]["fever"]["claims"]
    demo = snakemake_run_config(REPO_ROOT, [], {"data_root": "elsewhere"})
    assert demo["data_root"] == "elsewhere" and "train" in demo["data"]["fever"]["claims"]


def test_paper_file_holds_only_values_that_differ_from_the_defaults():
    defaults = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "defaults.yaml"])

    def same(layer, base, prefix=""):
        out = []
        for k, v in layer.items():
            if isinstance(v, dict) and isinstance(base.get(k), dict):
                out += same(v, base[k], prefix + k + ".")
            elif k in base and base[k] == v:
                out.append(prefix + k)
        return out

    for path in (PAPER, REPO_ROOT / "config" / "demo.yaml", REHEARSAL):
        layer = yaml.safe_load(path.read_text())
        base = defaults if path != REHEARSAL else layered_config(REPO_ROOT, [PAPER])
        repeated = [k for k in same(layer, base)
                    # a model entry is read whole: its fields stay together even where a default matches
                    if not k.startswith("models.")]
        assert not repeated, f"{path.name} repeats values of the layers below it: {repeated}"


def test_tracked_configs_never_set_data_root_for_the_paper():
    assert "data_root" not in yaml.safe_load(PAPER.read_text())
    assert "data_root" not in yaml.safe_load(REHEARSAL.read_text())


@pytest.mark.parametrize("flags", [[], ["--replace-workflow-config"]])
def test_snakemake_paper_run_refuses_without_data_root_whatever_the_flags(tmp_path: Path, flags):
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO_ROOT / "Snakefile"), "-d", str(tmp_path),
                           "-n", "--configfile", str(PAPER), *flags],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "data_root is not set" in proc.stdout + proc.stderr
    assert "MissingInputException" not in proc.stdout + proc.stderr
