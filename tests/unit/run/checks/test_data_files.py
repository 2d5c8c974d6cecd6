"""The preflight's data checks: a missing, empty or malformed data file is refused in one line
naming its key and path; nothing past a file's first record is read.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

import json
import sqlite3

import pytest

from evidence_ledger.run.checks import data_files
from evidence_ledger.run.checks.context import FAIL, NOTE
from evidence_ledger.run.preflight import command_line_run

from support.paths import REPO_ROOT
from support.preflight_runs import PAPER, REHEARSAL, checks, failures, only_failure


def test_a_data_root_that_does_not_exist_is_named_as_such_not_as_a_missing_conversion(tmp_path, hub):
    result = checks(f"data_root={tmp_path / 'nowhere'}", files=(PAPER,))
    data = [c for c in result if c.area == "data" and c.text.startswith("data_root")]
    assert len(data) == 1 and data[0].status == FAIL
    assert data[0].text.startswith(f"data_root = '{tmp_path / 'nowhere'}' (--config): {tmp_path / 'nowhere'} does not exist")
    assert not any("convert-weights" in t for t in failures(result))
    assert any(c.status == NOTE and c.text.startswith("verifier.base_model.local_dir") for c in result)


def test_an_empty_data_root_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    text = [t for t in failures(checks(f"data_root={empty}")) if t.startswith("data_root")]
    planned = len(data_files.planned_data_files(command_line_run([PAPER, REHEARSAL], []).config))
    assert text == [f"data_root = '{empty}' (--config): {empty} is an empty directory; give the directory holding "
                    f"the benchmark files (config/README.md, 'Paper data layout'); {planned} data files not checked"]


def _remove(path):
    path.unlink()


def _empty(path):
    path.write_bytes(b"")


def _garbage_first_line(path):
    path.write_text("this is not json\n" + path.read_text())


def _drop_field(field):
    def change(path):
        lines = path.read_text().splitlines()
        first = json.loads(lines[0])
        del first[field]
        path.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    return change


def _csv_without(column):
    def change(path):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[0] = lines[0].replace(f"{column},", "")
        path.write_text("".join(lines), encoding="utf-8")
    return change


def _rename_table(path):
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE wiki RENAME TO pages")


def _not_sqlite(path):
    path.write_text("SQLite? no.\n")


def _only_comments(path):
    path.write_text("# nothing reserved\n\n")


def _no_jsonl(path):
    for f in path.glob("*.jsonl"):
        f.rename(f.with_suffix(".json"))


@pytest.mark.parametrize("key, relpath, change, message", [
    ("data.fever.claims.dev", "fever/shared_task_dev.jsonl", _remove, "does not exist"),
    ("data.scifact.corpus", "scifact/corpus.jsonl", _empty, "is empty"),
    ("data.feverous.claims.pool", "feverous/pool.jsonl", _garbage_first_line, "line 1: not a JSON object"),
    ("data.nqcc.records", "conflict_qa/nqcc.jsonl", _drop_field("answer"), "line 1: the first record lacks answer"),
    ("data.wikicontradict.rag_qa_csv", "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv",
     _csv_without("contradictType"), "line 1: the CSV header lacks column(s) contradictType"),
    ("data.feverous.wiki", "feverous/feverous_wikiv1.db", _rename_table, "no table 'wiki' (tables: pages)"),
    ("data.feverous.wiki", "feverous/feverous_wikiv1.db", _not_sqlite, "not a readable SQLite database"),
    ("data.feverous.reserved_ids", "feverous/reserved_ids.txt", _only_comments, "holds no record"),
    ("data.fever.wiki", "fever/wiki-pages", _no_jsonl, "holds no *.jsonl file"),
    ("external.feverous.providers.sources.unifee.0", "feverous/providers/unifee.jsonl", _drop_field("predicted_evidence"),
     "the first record lacks predicted_evidence"),
])
def test_a_bad_data_file_is_named_by_its_key_and_path(data, key, relpath, change, message):
    change(data / relpath)
    text = only_failure(checks(f"data_root={data}"))
    assert text.startswith(f"{key} = ") and f"{(data / relpath).resolve()}" in text and message in text, text


def test_a_file_outside_data_root_the_jobs_read_is_checked_where_it_resolves(tree, tmp_path):
    """The judge's few-shot file: the workflow's own (set by its defaults) passes; one you name
    resolves against the run directory and is checked there."""
    ok = [c.text for c in checks(f"data_root={tree}") if c.text.startswith("wikicontradict.judge.fewshot_file")]
    assert ok == [f"wikicontradict.judge.fewshot_file: {REPO_ROOT / 'resources/prompts/wikicontradict_fewshot.jsonl'} "
                  f"(JSON line with question, response, judgement)"]
    text = only_failure(checks(f"data_root={tree}", "wikicontradict={judge: {fewshot_file: mine.jsonl}}",
                               run_dir=tmp_path))
    assert text == f"wikicontradict.judge.fewshot_file = 'mine.jsonl' (--config): {tmp_path / 'mine.jsonl'} does not exist"


def test_a_bad_wiki_file_among_many_is_named(data):
    page_file = sorted((data / "fever/wiki-pages").glob("*.jsonl"))[-1]
    page_file.write_text('{"id": "x"}\n')
    text = only_failure(checks(f"data_root={data}"))
    assert text.startswith("data.fever.wiki = ") and f"{page_file.name}: line 1: the first record lacks lines" in text


def test_data_checks_read_no_more_than_the_first_record(data):
    """A file whose second line is broken passes: the check reads the first record only."""
    claims = data / "fever" / "shared_task_dev.jsonl"
    lines = claims.read_text().splitlines()
    claims.write_text("\n".join([lines[0], "{ broken"] + lines[1:]) + "\n")
    assert not failures(checks(f"data_root={data}"))


def test_kilt_gold_and_prediction_files_are_checked_by_their_first_record_in_kilt_format(tmp_path):
    """external.kilt: the gold file's first record holds id, input and output, each prediction
    file's id and output (a FEVER prediction file given as a KILT run is named)."""
    config = {"external": {"kilt": {"rag": {"gold_file": "nq-dev-kilt.jsonl", "task": "nq",
                                            "sources": {"bm25": ["a.jsonl"], "dpr": ["b.jsonl"]}}}}}
    planned = {f.key: f for f in data_files.planned_data_files(config)}
    gold, run = planned["external.kilt.rag.gold_file"], planned["external.kilt.rag.sources.dpr.0"]
    assert (gold.relpath, run.relpath) == ("nq-dev-kilt.jsonl", "b.jsonl")
    demo = REPO_ROOT / "resources/demo/kilt"
    assert data_files.first_record_problem(demo / "nq-dev-kilt.jsonl", gold.format) is None
    assert data_files.first_record_problem(demo / "predictions/nq/dpr_run1.jsonl", run.format) is None
    assert "the first record lacks input" in data_files.first_record_problem(demo / "predictions/nq/dpr_run1.jsonl",
                                                                              gold.format)
    fever = tmp_path / "fever_pred.jsonl"
    fever.write_text(json.dumps({"id": 1, "predicted_label": "SUPPORTS", "predicted_evidence": []}) + "\n")
    assert "line 1: the first record lacks output" in data_files.first_record_problem(fever, run.format)
