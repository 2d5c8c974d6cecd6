"""GPU-declaring rules: one mechanism (``gpu_resources`` in workflow/rules/common.smk), and the
README's list of them is the rules' own.

Scans the rule files for the rules whose ``resources:`` use ``gpu_resources(...)``, refuses any
other way of asking for a GPU, compares with the README's "GPU-declaring rules:" list, and dry-runs
the demo to see that every job asking for a GPU gets the GPU partition, and none asks under
``gpu_jobs=cpu``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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


def _dry_run_jobs(*config: str) -> list[tuple[str, str]]:
    """(rule, resources line) of every job of the demo's dry run."""
    snakemake = Path(sys.executable).with_name("snakemake")
    proc = subprocess.run([str(snakemake), "-n", "--cores", "2", "--config", *config], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return re.findall(r"^(?:local)?rule (\w+):\n(?:    .*\n)*?    resources: (.*)$", proc.stdout + proc.stderr, re.M)


def test_every_gpu_job_gets_the_gpu_partition_and_none_on_the_cpu_route():
    jobs = _dry_run_jobs("slurm_gpu_partition=gpu_part")
    gpu_jobs = {rule for rule, res in jobs if re.search(r"\bgpu=[1-9]", res)}
    assert gpu_jobs and gpu_jobs <= gpu_declaring_rules()
    for rule, res in jobs:
        asks_gpu = re.search(r"\bgpu=[1-9]", res) is not None
        assert asks_gpu == ("slurm_partition=gpu_part" in res), (rule, res)
    cpu_route = _dry_run_jobs("gpu_jobs=cpu")
    assert {rule for rule, _ in cpu_route} >= gpu_jobs
    assert not [(rule, res) for rule, res in cpu_route if re.search(r"\bgpu=[1-9]", res)]
