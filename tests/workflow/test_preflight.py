"""Refuse at start: the workflow's own start (every run and dry run) and the ``check`` and ``plan``
commands refuse what can be known before a job, one line each, and no job runs.

Each test makes a mistake a new user makes with the paper configuration or the demo (models
not in the Hugging Face cache, a data_root that is not there, ``plan`` in a checkout holding
other results, untyped ``--config`` values, a typo, a report plan that resolved paths against
the package) and asserts the message and that nothing ran: a refused ``snakemake`` leaves no
``results/`` and no ``logs/`` and plans no job. Per-check detail is in tests/unit/run/checks/.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_ledger.config.layers import layered_config
from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data

from support.hang_guard import HANG_GUARD_S
from support.hub_cache import paper_hub_models
from support.paths import REPO_ROOT
from support.snakemake_runs import run_snakemake

PAPER = str(REPO_ROOT / "config" / "paper.yaml")
REHEARSAL = str(REPO_ROOT / "config" / "rehearsal.yaml")
PROFILE = str(REPO_ROOT / "workflow" / "profiles" / "default")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("preflight") / "data"
    write_rehearsal_data(root, force=True)
    return root


@pytest.fixture
def data(tree, tmp_path) -> Path:
    """A copy of the tree this test may change."""
    return Path(shutil.copytree(tree, tmp_path / "data"))


@pytest.fixture(scope="module")
def empty_hub(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hf-cache-empty")


def env_with(hub: Path | None = None) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if hub is not None:
        env["HF_HUB_CACHE"] = str(hub)
    return env


def snakemake(workdir: Path, *args: str, hub: Path | None = None) -> subprocess.CompletedProcess:
    return run_snakemake(workdir, *args, env={"HF_HUB_OFFLINE": "1"}, hub_cache=hub)


def command(*args: str, cwd: Path = REPO_ROOT, hub: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evidence_ledger", *args], capture_output=True, text=True,
                          env=env_with(hub), cwd=cwd, timeout=HANG_GUARD_S)


def assert_nothing_ran(proc: subprocess.CompletedProcess, workdir: Path) -> None:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "Job stats" not in proc.stdout and "\nrule " not in proc.stdout and "\nlocalrule " not in proc.stdout
    assert not (workdir / "results").exists() and not (workdir / "logs").exists()
    assert proc.stderr.strip().splitlines()[-1].startswith("error: preflight: ")


def fail_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("FAIL ")]


@pytest.mark.workflow
@pytest.mark.parametrize("dry", [False, True])
def test_paper_run_with_its_models_missing_from_the_cache_stops_before_any_job(data, empty_hub, tmp_path, dry):
    """README's paper command on the rehearsal tree with an empty converted-verifier directory and
    an empty Hugging Face cache: every missing model named with its command, no job run (the run
    used to finish 15 jobs first); the dry run refuses the same way."""
    (data / "models" / "deberta-large-mnli").mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    proc = snakemake(work, *(["-n"] if dry else []), "--profile", PROFILE, "--configfile", PAPER,
                     "--config", f"data_root={data}", hub=empty_hub)
    assert_nothing_ran(proc, work)
    failed = fail_lines(proc)
    for hub_id, revision in paper_hub_models(layered_config(REPO_ROOT, [PAPER])):
        assert any(f"{hub_id}@{revision} is not in the local Hugging Face cache" in line
                   and f"hf download {hub_id} --revision {revision}" in line for line in failed), hub_id
    assert any(line.startswith("FAIL models  verifier.base_model.local_dir -> ") and "no config.json" in line
               and "convert-weights microsoft/deberta-large-mnli" in line for line in failed)
    assert not any(line.startswith("FAIL data") for line in failed)


@pytest.mark.workflow
def test_a_data_root_that_does_not_exist_is_named_as_such(tmp_path, empty_hub):
    work = tmp_path / "work"
    work.mkdir()
    proc = snakemake(work, "--configfile", PAPER, "--config", f"data_root={tmp_path / 'no-such-dir'}", hub=empty_hub)
    assert_nothing_ran(proc, work)
    data = [line for line in fail_lines(proc) if line.startswith("FAIL data")]
    assert len(data) == 1 and f"{tmp_path / 'no-such-dir'} does not exist" in data[0]
    assert "convert-weights" not in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = snakemake(work, "-n", "--configfile", PAPER, REHEARSAL, "--config", f"data_root={tmp_path / 'empty'}")
    assert_nothing_ran(proc, work)
    assert f"{tmp_path / 'empty'} is an empty directory" in proc.stderr


@pytest.mark.workflow
def test_the_rehearsal_passes_the_check_and_the_workflow_start(rehearsal_data, rehearsal_dry_run):
    """``check`` and the workflow's start (the session's dry run of the rehearsal) on the rehearsal's tree."""
    proc = command("check", "--profile", PROFILE, "--configfile", PAPER, REHEARSAL, "--config",
                   f"data_root={rehearsal_data}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("check: all ") and all(line.startswith("ok   ") for line in lines[:-1])
    assert {line.split()[1] for line in lines[:-1]} == {"config", "paths", "data", "models", "machine"}
    proc = rehearsal_dry_run
    assert "preflight: " in proc.stderr and " checks passed" in proc.stderr and "Job stats" in proc.stdout


def test_check_exits_nonzero_with_one_line_per_failure(tmp_path):
    proc = command("check", "--configfile", PAPER, REHEARSAL, "--config", f"data_root={tmp_path / 'nowhere'}",
                   "evidence={budgets: {short: 2048}}")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("FAIL")] == ["config", "data"]
    assert proc.stderr.strip().startswith("error: check: 2 of ") and len(proc.stderr.strip().splitlines()) == 1


def write_other_run_results(workdir: Path) -> None:
    """What a finished demo leaves in results/sampling (its sample of its own claims file)."""
    from evidence_ledger.sampling.sample import summary_table
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.ingest import CLAIMS

    row = {"dataset": "fever", "claim_id": "1", "claim": "c", "label": "SUPPORTS", "evidence_groups": [],
           "gold_abstracts": [], "cited_doc_ids": [], "source_file": str(REPO_ROOT / "resources/demo/fever/paper_dev.jsonl"),
           "source_line": 1, "unresolved_ids": []}
    out = workdir / "results" / "sampling" / "fever"
    write_table(CLAIMS.from_rows([row]), out / "sample.parquet", CLAIMS)
    summary_table({"dataset": "fever", "method": "hash", "salt": "evidence-ledger-demo-fever", "requested": 60,
                   "selected": 1}).to_csv(out / "sample_summary.tsv", sep="\t", index=False)


def test_plan_in_a_checkout_holding_another_runs_results_counts_from_the_config(tmp_path):
    write_other_run_results(tmp_path)
    proc = command("plan", "--configfile", PAPER, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout)
    assert {r["basis"] for r in rows} == {"config"}


def test_plan_takes_typed_config_values_and_refuses_in_one_line(tmp_path):
    proc = command("plan", "--configfile", PAPER, "--config", f"data_root={tmp_path}", "sampling={fever: {n: 100}}",
                   "models={llama3_70b: {quantization: null, tensor_parallel_size: 2}}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    judge = [line.split() for line in proc.stdout.splitlines() if line.startswith("wikicontradict_judge ")]
    assert judge and judge[0][1:3] == ["models.llama3_70b", "bfloat16"] and judge[0][7] == "2"
    rows = json.loads(command("plan", "--configfile", PAPER, "--config", "sampling={fever: {n: 100}}", "--json",
                              cwd=tmp_path).stdout)
    assert {r["requests"] for r in rows if r["dataset"] == "fever" and r["condition"] == "primary"} == {100 * 48}
    demo = command("plan", "--configfile", str(REPO_ROOT / "config" / "demo.yaml"), cwd=tmp_path)
    assert demo.returncode == 2 and "Traceback" not in demo.stderr
    assert demo.stderr.strip().splitlines() == [
        f"error: planner: the GPU time of models.qwen3 needs its parameters, read from {tmp_path}/results/models/"
        f"qwen3/config.json, which does not exist yet; it is built by rule build_demo_models: run "
        f"`snakemake --until build_demo_models` first"]


@pytest.mark.workflow
def test_the_config_readme_nested_override_runs_as_written(tmp_path):
    proc = snakemake(tmp_path, "-n", "--cores", "1", "--config", "sampling={fever: {n: 100}}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Job stats" in proc.stdout


@pytest.mark.workflow
def test_a_one_key_typo_is_one_line_not_a_schema_dump(tmp_path):
    proc = snakemake(tmp_path, "-n", "--cores", "1", "--config", "studdies={study1: false}")
    assert_nothing_ran(proc, tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3, lines   # the refused key, "the other checks run once ...", the summary
    assert lines[0].startswith("FAIL config  unknown key 'studdies' (--config) (did you mean 'studies'?)")


@pytest.mark.workflow
def test_a_repeated_key_in_a_config_file_stops_the_run_naming_file_and_line(tmp_path):
    layer = tmp_path / "mine.yaml"
    layer.write_text("data_root: /a\nsampling:\n  fever: {n: 10}\nsampling:\n  fever: {n: 20}\n")
    proc = snakemake(tmp_path, "-n", "--cores", "1", "--configfile", str(layer))
    assert proc.returncode != 0 and "Job stats" not in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: {layer}:4: key 'sampling' is repeated (first at line 2); a config names each key once "
        f"(YAML would keep only the second value)")


def test_check_names_a_layer_snakemake_itself_refuses(tree, tmp_path):
    """Snakemake reads --configfile files itself before the workflow and refuses a list or an
    empty file (only comments) without naming it: ``check`` names the file, the empty one in a
    FAIL line saying to write ``{}``."""
    listed = tmp_path / "listed.yaml"
    listed.write_text("- data_root\n")
    proc = command("check", "--configfile", PAPER, REHEARSAL, str(listed), "--config", f"data_root={tree}")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {listed}: a config file holds a mapping of keys at the top level, not a list"
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing to change yet\n")
    proc = command("check", "--configfile", PAPER, REHEARSAL, str(empty), "--config", f"data_root={tree}")
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert [line for line in proc.stdout.splitlines() if line.startswith("FAIL")] == [
        f"FAIL config  {empty}: the config file is empty (or holds only comments), which Snakemake refuses as a "
        f"--configfile without naming the file; write {{}} in it for a layer that sets nothing, or leave it out"]


def test_check_refuses_an_empty_generation_datasets_while_study2_is_planned():
    """``generation.datasets: []`` with Study 2 on used to pass the start and end in a KeyError
    traceback in control_generations: ``check`` refuses it in one line naming the key."""
    proc = command("check", "--config", "generation={datasets: []}")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert [line for line in proc.stdout.splitlines() if line.startswith("FAIL")] == [
        "FAIL config  generation.datasets is empty, but Study 2 generates, scores and accounts each dataset: name at "
        "least one, or set studies.study2: false [generation.datasets: --config; studies.study2: "
        "config/defaults.yaml:25]"]


def test_call_with_an_unknown_rule_is_one_line(tmp_path):
    proc = command("call", "--rule", "no_such_rule", "dataset=fever", "--directory", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == ("error: call --rule no_such_rule: the workflow has no rule "
                                                     "'no_such_rule' (`snakemake --list-rules` lists them)")
    assert "Traceback" not in proc.stderr


def test_call_with_a_wildcard_value_typo_is_one_line_with_the_allowed_values(tmp_path):
    """A wildcard value outside the rule's constraint would end in Snakemake's "No rule to
    produce" traceback: one line names the wildcard, the value, the values allowed and the closest."""
    proc = command("call", "--rule", "sample_claims", "dataset=fevr", "--directory", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == ("error: call --rule sample_claims: wildcard dataset='fevr' is "
                                                     "not one of fever, feverous, scifact (did you mean 'fever'?)")
    assert "Traceback" not in proc.stderr


def test_the_report_plan_gets_data_root_resolved_in_the_run_directory(tree, tmp_path):
    """A relative data_root resolves against the run directory (--directory), for the rules and
    for the report's generation plan (which used to resolve it against the package's checkout)."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "mydata").symlink_to(tree)
    proc = command("call", "--rule", "generation_plan", "--print", "--directory", str(run), "--configfile", PAPER,
                   REHEARSAL, "--config", "data_root=mydata", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["kwargs"]["data_root"] == str(tree.resolve())
