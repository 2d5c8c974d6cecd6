"""Preflight runs built as the command line builds them (``--configfile`` files and ``--config``
entries), for the tests of :mod:`evidence_ledger.run.preflight` and :mod:`evidence_ledger.run.checks`:
the whole preflight's rows (:func:`checks`), its failures, and the paper's models in a Hub cache.
"""
from __future__ import annotations

from pathlib import Path

from evidence_ledger.run.checks.context import FAIL, OK
from evidence_ledger.run.preflight import command_line_run, run_checks

from support.hub_cache import paper_hub_models, stand_in_hub_cache, stand_in_model_dir
from support.paths import REPO_ROOT

PAPER = str(REPO_ROOT / "config" / "paper.yaml")
REHEARSAL = str(REPO_ROOT / "config" / "rehearsal.yaml")
VERIFIER_DIR = "models/deberta-large-mnli"


def checks(*entries: str, files=(PAPER, REHEARSAL), run_dir=None, gpus_granted=None) -> list:
    ctx = command_line_run(list(files), list(entries), run_dir or REPO_ROOT, gpus_granted=gpus_granted)
    return run_checks(ctx)


def failures(result) -> list[str]:
    return [c.text for c in result if c.status == FAIL]


def only_failure(result) -> str:
    failed = failures(result)
    assert len(failed) == 1, [c.line() for c in result if c.status != OK]
    assert "\n" not in failed[0]
    return failed[0]


def paper_ready(data: Path, hub: Path) -> Path:
    """``data`` plus what the paper configuration loads besides it: its Hub models in the cache
    and the converted verifier base in data_root (stand-in files)."""
    from evidence_ledger.config.layers import layered_config

    stand_in_hub_cache(hub, paper_hub_models(layered_config(REPO_ROOT, [PAPER])))
    stand_in_model_dir(data / VERIFIER_DIR, "deberta")
    return data
