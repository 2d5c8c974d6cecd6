"""A resumed generation cleans what its killed predecessor left, loses and repeats nothing; a
damaged cache file is set aside (moved, never deleted) and only its requests are generated again;
the orphan-process guard of a generate job ends only its own earlier attempt."""
import logging
import os
import subprocess
import sys
import time

import pytest

from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model
from evidence_ledger.generation import prompts
from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
from evidence_ledger.generation.cache import ResponseCache, generate_cached
from evidence_ledger.generation.orphans import end_orphans, record_processes
from evidence_ledger.tables import read_table
from evidence_ledger.tables.generation import CACHE_ENTRIES

WORDS = "the river city film actor was born in capital country played by a of mountain".split()


@pytest.fixture(scope="module")
def qwen(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    ex = [TrainingExample("fever", " ".join(WORDS[i:i + 5]), " ".join(WORDS[i + 1:i + 6]), "SUPPORTS")
          for i in range(8)]
    build_demo_model(root / "qwen3", "qwen3", ex, [e.claim + " " + e.evidence for e in ex],
                     {"primary": {"A": "support", "B": "refute", "C": "nei"}}, {"enable_thinking": False},
                     steps=5, vocab_size=300)
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": {"enable_thinking": False}},
                                  str(root / "qwen3"))
    return load_backend("transformers", spec, batch_size=4)


def _requests(n):
    return [ChatRequest.from_messages(prompts.build_messages("fever", "labels", f"claim {i}", f"evidence {i}"),
                                      SamplingSpec(0.0 if i % 2 else 0.7, 0.8, 20, 1.0, 4, 100 + i))
            for i in range(n)]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_resume_removes_the_temporary_a_killed_write_left_and_keeps_every_row_once(qwen, tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    reqs = _requests(10)
    done = generate_cached(qwen, reqs[:4], cache, batch_size=4, tag="qwen3-fever-s0")  # the call that completed
    # The call in flight when the job was killed: its half-written shard under a temporary name
    # (write_table's `.{name}.tmp<pid>`), of a writer process that no longer exists.
    leftover = cache.directory / f".qwen3-fever-s0-000001-{'e' * 16}.parquet.tmp{_dead_pid()}"
    leftover.write_bytes(b"PAR1 half a file")
    other_writer = cache.directory / f".qwen3-fever-s1-000000-{'f' * 16}.parquet.tmp{os.getpid()}"
    other_writer.write_bytes(b"PAR1 a live writer's file")  # another shard's job, still running
    resumed = generate_cached(qwen, reqs, cache, batch_size=4, tag="qwen3-fever-s0")
    assert not leftover.exists()
    assert other_writer.exists()
    assert [g.from_cache for g in resumed] == [True] * 4 + [False] * 6
    assert [g.text for g in resumed[:4]] == [g.text for g in done]
    keys = []
    for path in cache.shard_paths():
        keys += read_table(path, CACHE_ENTRIES).column("cache_key").to_pylist()
    assert sorted(keys) == sorted(g.cache_key for g in resumed)  # every request once, none lost


def test_a_truncated_cache_file_is_set_aside_and_only_its_requests_are_generated_again(qwen, tmp_path, caplog):
    cache = ResponseCache(tmp_path / "cache")
    reqs = _requests(8)
    first = generate_cached(qwen, reqs, cache, batch_size=4, tag="qwen3-fever-s0")
    damaged, intact = cache.shard_paths()
    damaged_keys = set(read_table(damaged, CACHE_ENTRIES).column("cache_key").to_pylist())
    intact_bytes, intact_mtime = intact.read_bytes(), intact.stat().st_mtime_ns
    cut = damaged.read_bytes()[:damaged.stat().st_size // 2]  # a full disk cut the write short
    damaged.write_bytes(cut)
    with caplog.at_level(logging.WARNING, logger="evidence_ledger.generation.cache"):
        again = generate_cached(qwen, reqs, cache, batch_size=4, tag="qwen3-fever-s0")
    aside = cache.directory / "damaged" / damaged.name
    assert aside.read_bytes() == cut  # moved, not deleted
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
        f"{damaged}: damaged response-cache file set aside as {aside} (not readable Parquet: Parquet magic bytes "
        f"not found in footer. Either the file is corrupted or this is not a parquet file.); its requests are "
        f"generated again"]
    assert [g.from_cache for g in again] == [g.cache_key not in damaged_keys for g in first]
    assert [g.text for g in again] == [g.text for g in first]
    assert intact.read_bytes() == intact_bytes and intact.stat().st_mtime_ns == intact_mtime  # nothing else touched
    assert sorted(p.name for p in cache.directory.iterdir()) == sorted([damaged.name, intact.name, "damaged"])


def test_a_cache_file_linked_from_outside_the_cache_directory_is_refused(qwen, tmp_path):
    from evidence_ledger.files.safe_files import PathOutside

    elsewhere = ResponseCache(tmp_path / "elsewhere")
    generate_cached(qwen, _requests(2), elsewhere, batch_size=2, tag="other")
    cache = ResponseCache(tmp_path / "cache")
    cache.directory.mkdir()
    (cache.directory / "linked.parquet").symlink_to(elsewhere.shard_paths()[0])
    with pytest.raises(PathOutside, match=r"response-cache file .*linked\.parquet leads to .*elsewhere"):
        generate_cached(qwen, _requests(2), cache, batch_size=2, tag="qwen3-fever-s0")


def _started(proc):
    """Wait until ``proc`` runs its own command line (right after fork it is still the parent's)."""
    from evidence_ledger.generation.orphans import command_line

    for _ in range(200):
        if "sleep(120)" in (command_line(proc.pid) or ""):
            return proc
        time.sleep(0.05)
    raise AssertionError("child did not start")


def test_end_orphans_ends_the_recorded_process_and_spares_a_reused_pid(tmp_path):
    orphan = _started(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]))
    try:
        pid_file = tmp_path / ".generate_0.pid"
        assert orphan.pid in record_processes(pid_file, orphan.pid)
        assert end_orphans(pid_file, grace_s=10) == [orphan.pid]
        assert orphan.wait(timeout=10) is not None
    finally:
        orphan.kill()
    bystander = _started(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]))
    try:
        # the file names the bystander's PID with another command line: a reused PID, left alone
        pid_file.write_text(f'{{"{bystander.pid}": "python generate.py"}}')
        assert end_orphans(pid_file, grace_s=1) == []
        time.sleep(0.2)
        assert bystander.poll() is None
    finally:
        bystander.kill()
