"""The preflight's machine checks: GPU fit, a GPU for GPU jobs, the devices GPU jobs are pinned to,
and free disk for what the run writes.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

from evidence_ledger.run.checks import machine, plan
from evidence_ledger.run.checks.context import NOTE, OK
from evidence_ledger.run.preflight import command_line_run, run_checks

from support.paths import REPO_ROOT
from support.preflight_runs import PAPER, REHEARSAL, checks, failures, only_failure


def _machine(*entries, files=(PAPER,), gpus_granted=None, visible=(0, "no nvidia-smi on PATH")):
    ctx = command_line_run(list(files), list(entries), REPO_ROOT, gpus_granted=gpus_granted)
    return machine.machine_checks(ctx, 0, plan.planned_rows(ctx), gpus=visible)


def test_a_population_known_only_after_ingest_is_said_in_the_disk_line_not_a_crash(tree):
    """A dataset whose claims are all sampled and whose size the planner is not told (a plugin's,
    say) cannot be counted before ingest: the disk line says so; the run is not refused for it."""
    ctx = command_line_run([PAPER, REHEARSAL], [f"data_root={tree}", "sampling={fever: {method: all, n: null}}"],
                           REPO_ROOT)
    del ctx.config["generation"]["planner"]["population"]["fever"]   # no layer can remove a key
    disk = [c for c in run_checks(ctx) if c.text.startswith("disk:")]
    assert len(disk) == 1 and disk[0].status == OK
    assert "not counted in it: no population size for fever: set sampling.fever.n or " \
           "generation.planner.population.fever" in disk[0].text


def test_gpu_jobs_granted_a_gpu_on_a_machine_without_one_are_refused(tree):
    text = only_failure(_machine(f"data_root={tree}", gpus_granted=1))
    assert text.startswith("the run grants 1 GPU(s) (--resources gpu=1) to its GPU jobs (generate, ")
    assert "but none is visible here (no nvidia-smi on PATH)" in text and "--config gpu_jobs=cpu" in text
    # no run-wide grant (SLURM places the jobs): said, not refused; asking for CPU: nothing to say
    assert [c.status for c in _machine(f"data_root={tree}") if "GPU" in c.text and "fit" not in c.text] == [NOTE]
    assert not failures(_machine(f"data_root={tree}", "gpu_jobs=cpu", gpus_granted=1))
    assert not failures(_machine(f"data_root={tree}", gpus_granted=1, visible=(1, "nvidia-smi lists 1")))


def test_a_job_that_does_not_fit_the_granted_gpus_is_refused_naming_rule_and_key(tree):
    failed = failures(_machine(f"data_root={tree}", "models={llama3_70b: {quantization: null, tensor_parallel_size: 2}}",
                               gpus_granted=1, visible=(1, "nvidia-smi lists 1")))
    assert failed and all(f.startswith("GPU fit: wikicontradict_judge") for f in failed)
    assert "models.llama3_70b needs 2 GPUs (tensor_parallel_size) but the run grants 1" in failed[0]


def test_too_little_disk_for_what_the_run_writes_is_refused(tree):
    failed = failures(_machine(f"data_root={tree}", "sampling={fever: {n: 100000000000}}", "gpu_jobs=cpu"))
    assert len(failed) == 1 and failed[0].startswith("disk: ") and "the run writes at most about" in failed[0]


def test_more_gpus_granted_than_cuda_visible_devices_lists_is_refused(data, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    result = checks(f"data_root={data}", gpus_granted=2)
    assert "--resources gpu=2 but CUDA_VISIBLE_DEVICES='3' names 1 device(s)" in " ".join(failures(result))
