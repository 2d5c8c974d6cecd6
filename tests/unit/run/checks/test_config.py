"""The preflight's config checks: each makes its mistake and must refuse it in one line naming the
key (and where the value came from), before any job.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

from evidence_ledger.run.checks.context import NOTE
from evidence_ledger.run.preflight import command_line_run

from support.paths import REPO_ROOT
from support.preflight_runs import PAPER, REHEARSAL, checks, failures, only_failure


def test_a_schema_error_is_one_line_and_stops_the_other_areas(tree):
    result = checks(f"data_root={tree}", "generation={max_new_tokens: sixteen}")
    assert [c.area for c in result] == ["config", "config"]
    assert result[0].line() == ("FAIL config  generation.max_new_tokens = 'sixteen' (--config): expected an integer")
    assert result[1].status == NOTE


def test_a_cross_key_error_names_both_keys_and_where_each_was_set(tree):
    text = only_failure(checks(f"data_root={tree}", "generation={budgets: [short, huge]}"))
    assert text.startswith("generation.budgets names ['huge'], which evidence.budgets does not define")
    assert "generation.budgets: --config" in text and "evidence.budgets: config/defaults.yaml:" in text


def test_a_generation_model_outside_the_budget_tokenizers_is_refused(tree):
    text = only_failure(checks(f"data_root={tree}", "evidence={budget_tokenizers: [qwen3]}"))
    assert text.startswith("evidence.budget_tokenizers = ['qwen3'] leaves out generation.models ['llama31']")


def test_an_unset_data_root_is_named_with_the_command_line_to_give(tree):
    text = only_failure(checks())
    assert text.startswith("data_root is not set: give the directory holding the benchmark files on the command line")


def test_an_unknown_generation_backend_is_refused_naming_its_key(data):
    failed = only_failure(checks(f"data_root={data}", "generation={backend: vlm}"))
    assert failed.startswith("generation.backend: ") and "'vlm'" in failed


def test_a_served_model_without_its_api_key_variable_is_refused(data, monkeypatch):
    monkeypatch.delenv("EL_TEST_SERVER_KEY", raising=False)
    failed = only_failure(checks(f"data_root={data}", "models={qwen3: {backend: openai, server: "
                                                       "{base_url: 'http://127.0.0.1:9/v1', api_key_env: EL_TEST_SERVER_KEY}}}"))
    assert failed.startswith("models.qwen3.server.api_key_env: the environment variable EL_TEST_SERVER_KEY is not set")


def test_an_empty_config_file_is_refused_naming_it_and_an_empty_mapping_is_an_empty_layer(tree, tmp_path):
    """Snakemake refuses a --configfile holding no document without naming it; ``{}`` it reads."""
    layer = tmp_path / "mine.yaml"
    layer.write_text("# nothing to change yet\n")
    text = only_failure(checks(f"data_root={tree}", files=(PAPER, REHEARSAL, str(layer))))
    assert text == (f"{layer}: the config file is empty (or holds only comments), which Snakemake refuses as a "
                    f"--configfile without naming the file; write {{}} in it for a layer that sets nothing, or "
                    f"leave it out")
    layer.write_text("# nothing to change yet\n{}\n")
    assert failures(checks(f"data_root={tree}", files=(PAPER, REHEARSAL, str(layer)))) == []
    assert command_line_run([PAPER, str(layer)], [], REPO_ROOT).run.empty_layers == []
