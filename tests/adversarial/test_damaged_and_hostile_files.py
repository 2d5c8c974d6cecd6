"""Probes: files the pipeline reads back or writes over, made hostile or damaged: a table cut short
or overwritten, a response-cache file emptied, a pickle that would run code, a weight index
that is not JSON, an output path that is a link out of its directory or a file. Each is refused
in one line naming the file (and the entry or the rule that writes it), or, for the cache, set
aside with a warning naming it; nothing outside the directory is read or written, nothing is
left half written."""
import logging

import pytest

from evidence_ledger.__main__ import main
from evidence_ledger.generation.cache import ResponseCache
from evidence_ledger.tables import write_table
from evidence_ledger.tables.retrieval import RETRIEVED


@pytest.fixture
def cli(capsys, monkeypatch):
    """``python -m evidence_ledger ARGV`` in this process (``cwd``: its working directory):
    (exit code, stderr)."""
    def run(*argv, cwd=None) -> tuple[int, str]:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(argv))
        return code, capsys.readouterr().err
    return run


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize("content", [b"", b"PAR1", b"claim_id\tdoc_id\n1\tP\n"], ids=["empty", "magic-only", "tsv"])
def test_a_damaged_intermediate_table_is_one_line_naming_the_file_and_its_rule(tmp_path, content, cli):
    (tmp_path / "retrieved.parquet").write_bytes(content)
    code, err = cli("call", "build_pools", "retrieved=retrieved.parquet", "units=units.parquet",
                    "pools=pools.parquet", "max_units=10", "pool_kinds=[sentence]", cwd=tmp_path)
    line = one_line(err)
    assert code == 2 and line.startswith("error: retrieved.parquet: not a readable Parquet file (")
    assert "table retrieved, written by rule retrieve" in line
    assert not (tmp_path / "pools.parquet").exists()


def test_a_table_cut_short_by_a_full_disk_is_named_with_its_rule(tmp_path, cli):
    good = write_table(RETRIEVED.empty(), tmp_path / "good.parquet", RETRIEVED).read_bytes()
    (tmp_path / "retrieved.parquet").write_bytes(good[:-10])
    code, err = cli("call", "build_pools", "retrieved=retrieved.parquet", "units=units.parquet",
                    "pools=pools.parquet", "max_units=10", "pool_kinds=[sentence]", cwd=tmp_path)
    assert code == 2 and "retrieved.parquet: not a readable Parquet file" in one_line(err)


def cache_rows(keys):
    return [{"cache_key": k, "text": f"answer {k}", "n_prompt_tokens": 3, "n_output_tokens": 1, "finish_reason": "stop",
             "identity_json": "{}"} for k in keys]


@pytest.mark.parametrize("damage", [b"", b"PAR1 cut", "other-table"])
def test_damaged_cache_files_are_set_aside_with_a_warning_and_the_rest_is_read(tmp_path, caplog, damage):
    cache = ResponseCache(tmp_path / "cache")
    intact = cache.append(cache_rows(["a", "b"]), "qwen3-fever-s0-000000")
    bad = cache.directory / "qwen3-fever-s0-000001-0123456789abcdef.parquet"
    if damage == "other-table":
        write_table(RETRIEVED.empty(), bad, RETRIEVED)
    else:
        bad.write_bytes(damage)
    content = bad.read_bytes()
    with caplog.at_level(logging.WARNING):
        found = cache.load()
    assert sorted(found) == ["a", "b"]
    aside = cache.directory / "damaged" / bad.name
    assert aside.read_bytes() == content and not bad.exists() and intact.exists()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].startswith(f"{bad}: damaged response-cache file set aside as {aside}")
    bad.write_bytes(content)  # damaged again: set aside beside the first, never over it
    cache.load()
    assert sorted(p.name for p in aside.parent.iterdir()) == sorted([bad.name, f"{bad.stem}.1.parquet"])


def test_a_weights_file_linked_from_outside_the_model_directory_is_refused_in_one_line(tmp_path, cli):
    import torch

    torch.save({"w": torch.zeros(1)}, tmp_path / "elsewhere.bin")
    source = tmp_path / "m"
    source.mkdir()
    (source / "config.json").write_text("{}")
    (source / "pytorch_model.bin").symlink_to(tmp_path / "elsewhere.bin")
    code, err = cli("convert-weights", str(source), "--out", str(tmp_path / "out"))
    assert code == 2 and f"{source}/pytorch_model.bin: a link to {tmp_path}/elsewhere.bin, outside the model " \
                         f"directory" in one_line(err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("index", ['{"weight_map": ', '{"weight_map": ["pytorch_model-1.bin"]}'])
def test_a_malformed_weight_index_is_one_line_naming_it(tmp_path, index, cli):
    source = tmp_path / "m"
    source.mkdir()
    (source / "config.json").write_text("{}")
    (source / "pytorch_model.bin.index.json").write_text(index)
    code, err = cli("convert-weights", str(source), "--out", str(tmp_path / "out"))
    assert code == 2 and f"{source}/pytorch_model.bin.index.json" in one_line(err)
    assert not (tmp_path / "out").exists()


def test_convert_weights_into_a_file_or_through_a_dangling_link_is_refused(tmp_path, cli):
    import torch

    source = tmp_path / "m"
    source.mkdir()
    (source / "config.json").write_text("{}")
    torch.save({"w": torch.zeros(1)}, source / "pytorch_model.bin")
    (tmp_path / "file").write_text("mine")
    code, err = cli("convert-weights", str(source), "--out", str(tmp_path / "file"))
    assert code == 2 and "exists and is not a directory" in one_line(err)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    code, err = cli("convert-weights", str(source), "--out", str(tmp_path / "dangling"))
    assert code == 2 and "is a link to nothing" in one_line(err)
    assert not (tmp_path / "nowhere").exists() and (tmp_path / "file").read_text() == "mine"


def test_rehearsal_data_force_refuses_a_linked_readme_and_keeps_the_outside_file(tmp_path, cli):
    out = tmp_path / "data"
    assert cli("rehearsal-data", "--out", str(out))[0] == 0
    (tmp_path / "notes.md").write_text("my notes")
    (out / "README.md").unlink()
    (out / "README.md").symlink_to(tmp_path / "notes.md")
    code, err = cli("rehearsal-data", "--out", str(out), "--force")
    assert code == 2 and f"{out}/README.md is a link to {tmp_path}/notes.md, outside the --out directory" in one_line(err)
    assert (tmp_path / "notes.md").read_text() == "my notes"
