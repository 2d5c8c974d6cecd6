"""The preflight's path checks: a data path outside data_root is refused naming its key; relative
paths resolve against the run directory.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

from support.preflight_runs import checks, failures


def test_a_data_path_escaping_data_root_is_refused_naming_the_key(tree):
    result = checks(f"data_root={tree}", "data={scifact: {corpus: ../../corpus.jsonl}}")
    text = [t for t in failures(result) if t.startswith("data.scifact.corpus")]
    assert text and "outside data_root" in text[0] and "(--config)" in text[0]


def test_relative_paths_resolve_against_the_run_directory(tree, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "mydata").symlink_to(tree)
    result = checks("data_root=mydata", run_dir=run_dir)
    assert not failures(result)
    paths = next(c.text for c in result if c.area == "paths")
    assert f"against the run directory {run_dir}; data_root -> {run_dir / 'mydata'}" in paths


def test_a_stand_in_tokenizer_directory_that_cannot_serve_is_refused_naming_the_key(tree, tmp_path):
    """Missing directory, no tokenizer.json, no chat template: one line each, naming the key."""
    empty = tmp_path / "empty"
    empty.mkdir()
    no_template = tmp_path / "no_template"
    no_template.mkdir()
    (no_template / "tokenizer.json").write_text("{}")
    (no_template / "tokenizer_config.json").write_text('{"eos_token": "x"}')
    result = checks(f"data_root={tree}", f"generation={{demo_models: {{tokenizers: {{qwen3: {tmp_path / 'gone'}, "
                                         f"llama31: {empty}}}}}}}")
    text = sorted(t for t in failures(result) if t.startswith("generation.demo_models.tokenizers"))
    assert len(text) == 2 and all("\n" not in t and "(--config)" in t for t in text)
    assert text[0].startswith("generation.demo_models.tokenizers.llama31") and "holds no tokenizer.json" in text[0]
    assert text[1].startswith("generation.demo_models.tokenizers.qwen3") and "is not a directory" in text[1]
    result = checks(f"data_root={tree}", f"generation={{demo_models: {{tokenizers: {{qwen3: {no_template}}}}}}}")
    (line,) = [t for t in failures(result) if t.startswith("generation.demo_models.tokenizers")]
    assert "has no chat template" in line
    with_template = tmp_path / "with_template"
    with_template.mkdir()
    (with_template / "tokenizer.json").write_text("{}")
    (with_template / "chat_template.jinja").write_text("{{ messages }}")
    result = checks(f"data_root={tree}", f"generation={{demo_models: {{tokenizers: {{qwen3: {with_template}}}}}}}")
    assert not [t for t in failures(result) if t.startswith("generation.demo_models.tokenizers")]
