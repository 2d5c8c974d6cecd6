"""Rule items_page, dry: its inputs are the ITEMS and ITEM_TEXTS tables of every accounting the
demo config runs (Study 1, Study 2, each system under ``external`` whose answers are files),
aligned, and it writes results/report/items.html. The tables are stand-in files here: the dry
run only plans the job."""
import re

import pytest
import yaml

from support.defaults import DEFAULTS
from support.paths import REPO_ROOT
from support.rehearsal import job_stats
from support.snakemake_runs import run_snakemake


def demo_accountings() -> list[str]:
    """results/ directories of the demo's accountings, in the rule's order."""
    demo = yaml.safe_load((REPO_ROOT / "config" / "demo.yaml").read_text(encoding="utf-8"))
    studies = {**DEFAULTS["studies"], **(demo.get("studies") or {})}
    systems = [name for systems in (demo.get("external") or {}).values() for name, spec in (systems or {}).items()
               if spec and spec.get("answers", "files") == "files"]
    return ([f"results/accounting/{s}" for s in ("study1", "study2") if studies[s]]
            + [f"results/account/{name}" for name in systems])


@pytest.mark.workflow
def test_the_rule_reads_every_accountings_tables_and_writes_the_page(tmp_path):
    directories = demo_accountings()
    assert len(directories) >= 3
    for directory in directories:
        (tmp_path / directory).mkdir(parents=True)
        for name in ("items.parquet", "item_texts.parquet"):
            (tmp_path / directory / name).touch()
    proc = run_snakemake(tmp_path, "-n", "results/report/items.html")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert job_stats(proc.stdout)["items_page"] == 1
    inputs = re.search(r"rule items_page:\n\s+input: (.*)\n", proc.stdout).group(1).split(", ")
    assert inputs == [f"{d}/items.parquet" for d in directories] + [f"{d}/item_texts.parquet" for d in directories]
