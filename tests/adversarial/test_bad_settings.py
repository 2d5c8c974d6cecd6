"""Probes: config keys. A bad setting is an error before any job runs, naming the key
(``evidence_ledger.run.config_checks`` on the demo config; ``snakemake -n`` for the workflow's own
start, asserting that no job was planned or run)."""
import copy

import pytest

from evidence_ledger.run.config_checks import config_errors
from evidence_ledger.config.layers import layered_config
from support.paths import REPO_ROOT

from .probe import dry_run

DEMO = layered_config(REPO_ROOT)


def with_setting(dotted: str, value):
    """The demo config with one key set (``a.b.c``)."""
    cfg = copy.deepcopy(DEMO)
    node = cfg
    *parents, last = dotted.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return cfg


def test_demo_config_has_no_start_errors():
    assert config_errors(DEMO) == []


@pytest.mark.parametrize("key, value, message", [
    ("generation.formats", ["codes"], "generation.formats = ['codes']: Study 2 compares two levels of it"),
    ("generation.models", ["qwen3", "nosuch"], "generation.models names ['nosuch'], which models does not define"),
    ("evidence.budgets", {"short": 192, "long": 64}, "evidence.budgets.short = 192 must be smaller than evidence.budgets.long"),
    ("generation.seeds", [], "generation.seeds is empty"),
    ("accounting.study2.seed_replicates", [1, 99], "accounting.study2.seed_replicates names [99]"),
    ("wikicontradict.models", ["nosuch"], "wikicontradict.models names ['nosuch']"),
    ("data_root", None, "data_root is not set"),
])
def test_bad_setting_is_named_by_its_key(key, value, message):
    errors = config_errors(with_setting(key, value))
    assert any(message in e for e in errors), errors


@pytest.mark.workflow
@pytest.mark.parametrize("override, message", [
    ("generation={sources: [bm25, bge, bm25x]}",
     "generation.sources = ['bm25', 'bge', 'bm25x']: Study 2 compares two levels of it"),
    ("generation={models: [qwen3, nosuch]}", "generation.models names ['nosuch'], which models does not define"),
])
def test_workflow_start_refuses_the_setting_before_any_job(tmp_path, override, message):
    proc = dry_run(tmp_path, override)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert message in output
    assert "Job stats" not in output and "rule " not in proc.stdout
    assert not (tmp_path / "results").exists() and not (tmp_path / "logs").exists()
