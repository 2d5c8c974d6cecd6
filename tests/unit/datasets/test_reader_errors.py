"""Ingest errors reach the rule's log; ``on_unresolved: count`` logs what it kept."""
import json
import logging
import subprocess
import sys
import textwrap

from support.paths import REPO_ROOT
from support.in_memory_release import read_fever_claims

CLAIM = {"id": 7, "verifiable": "VERIFIABLE", "label": "SUPPORTS", "claim": "c",
         "evidence": [[[1, 2, "Page", 0], [1, 3, "Gone", 4]]]}


def test_on_unresolved_count_logs_the_count_it_kept(tmp_path, caplog):
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps(CLAIM) + "\n" + json.dumps(dict(CLAIM, id=8, evidence=[[[1, 2, "Page", 0]]])) + "\n")
    with caplog.at_level(logging.INFO, logger="evidence_ledger"):
        table = read_fever_claims(path, unit_ids={"Page::0"}, on_unresolved="count")
    assert table.column("unresolved_ids").to_pylist() == [["Gone::4"], []]
    assert f"{path}: on_unresolved=count kept 1 gold evidence ids that do not resolve to a unit " \
           f"(1 of 2 claims affected)" in caplog.text


def test_ingest_input_error_is_written_to_the_rule_log_as_one_line(tmp_path):
    """scripts/call_stage.py for rule ingest_fever, run as Snakemake runs it (a ``snakemake`` global): the
    InputError naming file and line must be in the rule's log file as one ``error:`` line (an
    expected error needs no traceback), not only on the job's stderr."""
    bad = tmp_path / "dev.jsonl"
    bad.write_text(json.dumps(CLAIM) + "\n" + '{"id": 9,\n')
    log = tmp_path / "logs" / "ingest_fever.log"
    runner = textwrap.dedent(f"""
        import runpy, types
        snakemake = types.SimpleNamespace(
            rule="ingest_fever", log=[{str(log)!r}], resources={{}},
            input={{"claim_files": [{str(bad)!r}]}},
            output={{"claim_tables": [{str(tmp_path / 'c.parquet')!r}], "units": {str(tmp_path / 'u.parquet')!r},
                    "documents": {str(tmp_path / 'd.parquet')!r}}},
            params={{"splits": ["dev"], "on_unresolved": "error", "benchmark": "fever", "data_root": {str(tmp_path)!r}}})
        runpy.run_path({str(REPO_ROOT / 'scripts' / 'call_stage.py')!r}, init_globals={{"snakemake": snakemake}})
    """)
    proc = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(REPO_ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    text = log.read_text()
    assert "Traceback" not in text and f"error: {bad}:2: field '<json>': malformed JSON" in text


def test_wikicontradict_full_json_undecodable_or_deeply_nested_is_an_input_error(tmp_path):
    """The one reader that is a JSON array, not JSON lines, follows the same error format."""
    import pytest

    from evidence_ledger.datasets.wikicontradict import read_full_json
    from evidence_ledger.errors import InputError

    path = tmp_path / "full.json"
    path.write_bytes(b'[\n{"question_ID": "q\xff"}\n]\n')
    with pytest.raises(InputError, match=r"full\.json:2: field '<json>': not valid UTF-8 \(byte 0xff\)"):
        read_full_json(path)
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(InputError, match=r"full\.json: field '<json>': malformed JSON: nested too deeply"):
        read_full_json(path)
