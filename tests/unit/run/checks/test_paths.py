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
