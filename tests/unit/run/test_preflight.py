"""The whole preflight: the runs the repository ships pass every check, and a check this
environment cannot run is said, not skipped.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

from evidence_ledger.run import preflight
from evidence_ledger.run.checks.context import NOTE, OK
from evidence_ledger.run.preflight import command_line_run

from support.hub_cache import paper_hub_models
from support.preflight_runs import PAPER, VERIFIER_DIR, checks, failures, paper_ready


# --- the runs the repository ships pass -------------------------------------------------------


def test_rehearsal_over_the_rehearsal_tree_passes_every_check(tree):
    result = checks(f"data_root={tree}")
    assert not failures(result), [c.line() for c in result]
    assert {c.area for c in result} >= {"config", "paths", "data", "models", "machine"}
    data_lines = [c.text for c in result if c.area == "data"]
    assert any(t.startswith("data.fever.wiki: fever/wiki-pages (*.jsonl files") for t in data_lines)


def test_paper_over_the_rehearsal_tree_passes_once_its_models_are_there(data, hub):
    result = checks(f"data_root={paper_ready(data, hub)}", files=(PAPER,))
    assert not failures(result), [c.line() for c in result if c.status != OK]
    assert [c for c in result if c.area == "plan"]  # vLLM: max_model_len checked


def test_paper_over_the_rehearsal_tree_names_the_one_command_for_each_missing_model(data, hub):
    """What rehearsal-data cannot write (the paper's models) is named with the command that makes it."""
    (data / VERIFIER_DIR).mkdir(parents=True)
    failed = failures(checks(f"data_root={data}", files=(PAPER,)))
    assert all(not f.startswith("data") for f in failed)
    models = [f for f in failed if "hf download" in f]
    assert len(models) == len(paper_hub_models(command_line_run([PAPER], []).config))
    assert any(f.startswith("models.qwen3 (") and "Qwen/Qwen3-8B@b968826" in f
               and "hf download Qwen/Qwen3-8B --revision b968826d9c46dd6066d109eabc6255188de91218" in f for f in failed)
    verifier = [f for f in failed if f.startswith("verifier.base_model.local_dir")]
    assert len(verifier) == 1 and "no config.json" in verifier[0]
    assert f"python -m evidence_ledger convert-weights microsoft/deberta-large-mnli --revision " \
           f"7296194b9009373def4f7c5dad292651e4b5cf4e --out {data / VERIFIER_DIR}" in verifier[0]


def test_a_check_this_environment_cannot_run_is_said_not_skipped(tree, monkeypatch):
    """Where a package the planner needs is not installed (the SLURM submit host's environment,
    which the workflow hands the checks to the jobs' interpreter from), the plan checks say so."""
    def no_pyarrow(ctx):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")

    monkeypatch.setattr(preflight, "planned_rows", no_pyarrow)
    monkeypatch.setattr(preflight, "plan_checks", no_pyarrow)
    result = checks(f"data_root={tree}", "generation={backend: vllm}", "gpu_jobs=cpu")
    notes = [c for c in result if c.status == NOTE and c.area == "plan"]
    assert len(notes) == 1 and "which has no pyarrow" in notes[0].text
    disk = next(c.text for c in result if c.text.startswith("disk:"))
    assert "not counted in it: not checked in this environment" in disk


def test_the_until_rules_are_read_from_a_snakemake_command_line():
    """``--until a b`` and ``--until=a`` name rules until the next option; none named: empty."""
    from evidence_ledger.run.preflight import until_rules

    assert until_rules(["--cores", "2", "--until", "assemble_evidence", "sample_claims", "-n"]) == (
        "assemble_evidence", "sample_claims")
    assert until_rules(["--until=assemble_evidence", "results/x.parquet"]) == ("assemble_evidence",)
    assert until_rules(["--cores", "2", "results/x.parquet"]) == ()
