"""GPU-declaring rules: one mechanism (``gpu_resources`` in workflow/rules/common.smk), and the
README's list of them is the rules' own.

Scans the rule files for the rules whose ``resources:`` use ``gpu_resources(...)``, refuses any
other way of asking for a GPU, compares with the README's "GPU-declaring rules:" list, and dry-runs
the demo to see that every job asking for a GPU gets the GPU partition, and none asks under
``gpu_jobs=cpu``; dry-runs the paper config to see the preflight's GPU-fit check refuse a two-GPU
judge on one granted GPU before any job.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from support.snakemake_runs import run_snakemake

REPO = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((REPO / "workflow" / "rules").glob("*.smk"))


def _rule_blocks() -> dict[str, str]:
    """rule name -> text of its ``resources:`` block, from every rule file."""
    blocks = {}
    for path in RULE_FILES:
        text = path.read_text()
        for match in re.finditer(r"^(?:rule|checkpoint) (\w+):\n(.*?)(?=^\S|\Z)", text, re.S | re.M):
            resources = re.search(r"^    resources:\n((?:        .*\n)+)", match.group(2), re.M)
            blocks[match.group(1)] = resources.group(1) if resources else ""
    return blocks


def gpu_declaring_rules() -> set[str]:
    return {name for name, block in _rule_blocks().items() if "gpu_resources(" in block}


def readme_gpu_rules() -> set[str]:
    text = (REPO / "README.md").read_text()
    match = re.search(r"GPU-declaring rules:(.*?)\.(?:\s|$)", text, re.S)
    assert match, "README.md has no 'GPU-declaring rules:' list"
    return set(re.findall(r"`(\w+)`", match.group(1)))


def test_rules_ask_for_gpus_only_through_gpu_resources():
    other = {name: block for name, block in _rule_blocks().items()
             if re.search(r"\bgpu\w*\s*=", block) and "gpu_resources(" not in block}
    assert not other, f"rules asking for a GPU outside gpu_resources(): {sorted(other)}"
    assert len(gpu_declaring_rules()) >= 8


def test_readme_lists_exactly_the_gpu_declaring_rules():
    assert readme_gpu_rules() == gpu_declaring_rules()


def _dry_run_jobs(workdir: Path, *config: str) -> list[tuple[str, str]]:
    """(rule, resources line) of every job of the demo's dry run in ``workdir``."""
    proc = run_snakemake(workdir, "-n", "--cores", "2", "--config", *config, check=True)
    return re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    resources: (.*)$", proc.stdout + proc.stderr, re.M)


@pytest.mark.workflow
def test_every_gpu_job_gets_the_gpu_partition_and_none_on_the_cpu_route(tmp_path):
    jobs = _dry_run_jobs(tmp_path, "slurm_gpu_partition=gpu_part")
    gpu_jobs = {rule for rule, res in jobs if re.search(r"\bgpu=[1-9]", res)}
    assert gpu_jobs and gpu_jobs <= gpu_declaring_rules()
    for rule, res in jobs:
        asks_gpu = re.search(r"\bgpu=[1-9]", res) is not None
        assert asks_gpu == ("slurm_partition=gpu_part" in res), (rule, res)
    cpu_route = _dry_run_jobs(tmp_path, "gpu_jobs=cpu")
    assert {rule for rule, _ in cpu_route} >= gpu_jobs
    assert not [(rule, res) for rule, res in cpu_route if re.search(r"\bgpu=[1-9]", res)]


def _dry_run_paper(tmp_path: Path, judge: dict, *args: str) -> str:
    """Output of ``snakemake -n`` of config/paper.yaml with the judge's model entry updated. The
    preflight runs every check whatever another found (here the paper's data and models are
    absent), so the GPU-fit lines show whether the fit check refused the run."""
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["models"]["llama3_70b"].update(judge)
    path = tmp_path / "paper.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    if "--config" in args:
        at = args.index("--config") + 1
        args = (*args[:at], f"data_root={tmp_path}", *args[at:])
    else:
        args = (*args, "--config", f"data_root={tmp_path}")
    proc = run_snakemake(tmp_path / "work", "-n", "--cores", "2", "--configfile", path, *args)
    assert "Job stats" not in proc.stdout
    return proc.stdout + proc.stderr


@pytest.mark.workflow
def test_tp2_judge_on_one_granted_gpu_is_refused_before_any_job(tmp_path):
    bf16_tp2 = {"quantization": None, "tensor_parallel_size": 2}
    out = _dry_run_paper(tmp_path, bf16_tp2, "--resources", "gpu=1")
    assert ("FAIL machine GPU fit: wikicontradict_judge: models.llama3_70b needs 2 GPUs (tensor_parallel_size) but "
            "the run grants 1") in out
    assert "set models.llama3_70b.quantization: fp8 and tensor_parallel_size: 1" in out
    assert "error: preflight: " in out
    for args in (["--resources", "gpu=2"], ["--resources", "gpu=1", "--config", "gpu_jobs=cpu"]):
        out = _dry_run_paper(tmp_path, bf16_tp2, *args)
        assert "preflight: " in out and "GPU fit:" not in out.replace("ok   machine GPU fit:", ""), args
    # the shipped paper config (judge in fp8 on one GPU) passes on the workstation profile's one GPU
    out = _dry_run_paper(tmp_path, {}, "--resources", "gpu=1")
    assert "preflight: " in out and "FAIL machine GPU fit" not in out
