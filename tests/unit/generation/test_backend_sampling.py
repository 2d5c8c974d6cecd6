"""transformers backend, chat templates, response cache and resume after a killed run."""
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from evidence_ledger.generation import prompts
from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
from evidence_ledger.generation.cache import ResponseCache, generate_cached
from evidence_ledger.demo.tiny_models import ARCHS, TrainingExample, build_demo_model, train_tokenizer
from support.hang_guard import HANG_GUARD_S

MAPPINGS = {"primary": {"A": "support", "B": "refute", "C": "nei"}}
WORDS = "the river city film actor was born in capital country played by a of mountain".split()


def synthetic_examples(n=60, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        claim = " ".join(rng.choice(WORDS) for _ in range(6))
        label = rng.choice(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"])
        evidence = {"SUPPORTS": claim, "REFUTES": "not " + claim}.get(label, " ".join(rng.sample(WORDS, 6)))
        out.append(TrainingExample("fever", claim, evidence, label))
    return out


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    ex = synthetic_examples()
    texts = [e.claim + " " + e.evidence for e in ex]
    build_demo_model(root / "qwen3", "qwen3", ex, texts, MAPPINGS, {"enable_thinking": False}, steps=25, vocab_size=400)
    return root


@pytest.fixture(scope="module")
def qwen(tiny_dirs):
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": {"enable_thinking": False}},
                                  str(tiny_dirs / "qwen3"))
    return load_backend("transformers", spec, batch_size=3)


def _requests(n, greedy_every=3):
    reqs = []
    for i in range(n):
        msgs = prompts.build_messages("fever", "labels", f"claim {i} {WORDS[i % len(WORDS)]}", f"evidence {i}")
        temp = 0.0 if i % greedy_every == 0 else 0.7
        reqs.append(ChatRequest.from_messages(msgs, SamplingSpec(temp, 0.8, 20, 1.0, 8, 1000 + i)))
    return reqs


def test_qwen3_template_renders_empty_think_block(qwen):
    text = qwen.render([{"role": "user", "content": "hi"}])
    assert text == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"


def test_llama31_template_renders_header_and_bos():
    tok = train_tokenizer(ARCHS["llama31"], [e.claim for e in synthetic_examples()], vocab_size=300)
    text = tok.apply_chat_template([{"role": "user", "content": " hi "}], tokenize=False, add_generation_prompt=True)
    assert text.startswith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n")
    assert text.endswith("<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>"
                         "<|start_header_id|>assistant<|end_header_id|>\n\n")


def test_seeded_sampling_repeats_exactly_and_does_not_depend_on_the_batch(qwen):
    prompt = qwen.render(prompts.build_messages("fever", "labels", "the film actor", "the film actor"))
    specs = [SamplingSpec(1.5, 1.0, 0, 1.0, 8, s) for s in range(8)]
    first = [g.text for g in qwen.generate([prompt] * 8, specs)]
    again = [g.text for g in qwen.generate([prompt] * 8, specs)]
    alone = [qwen.generate([prompt], [s])[0].text for s in specs[:3]]
    assert first == again
    assert alone == first[:3]
    assert len(set(first)) > 1  # different seeds give different samples at temperature 1.5


def test_rerun_with_warm_cache_generates_nothing(qwen, tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    reqs = _requests(6) + _requests(2)  # the last two repeat requests 0 and 1
    first = generate_cached(qwen, reqs, cache, batch_size=4)
    assert [g.from_cache for g in first] == [False] * 8
    assert sum(1 for _ in cache.shard_paths()) == 2  # 6 unique keys in cache batches of 4
    assert first[6].text == first[0].text and first[6].cache_key == first[0].cache_key
    second = generate_cached(qwen, reqs, cache, batch_size=4)
    assert all(g.from_cache for g in second)
    assert [g.text for g in second] == [g.text for g in first]
    assert sum(1 for _ in cache.shard_paths()) == 2


DRIVER = textwrap.dedent("""
    import pathlib, sys, threading
    from evidence_ledger.generation import prompts
    from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
    from evidence_ledger.generation.cache import ResponseCache, generate_cached
    model_dir, cache_dir, n, marker = sys.argv[1], sys.argv[2], int(sys.argv[3]), pathlib.Path(sys.argv[4])
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": {"enable_thinking": False}},
                                  model_dir)
    backend = load_backend("transformers", spec, batch_size=3)
    words = %r
    reqs = []
    for i in range(n):
        msgs = prompts.build_messages("fever", "labels", f"claim {i} {words[i %% len(words)]}", f"evidence {i}")
        reqs.append(ChatRequest.from_messages(msgs, SamplingSpec(0.0 if i %% 3 == 0 else 0.7, 0.8, 20, 1.0, 8, 1000 + i)))

    def signal_then_block(k):
        # progress() runs after a batch's cache shard is written: say so, then wait to be killed
        marker.write_text(str(k))
        threading.Event().wait()

    generate_cached(backend, reqs, ResponseCache(cache_dir), batch_size=3, progress=signal_then_block)
    print("done")
""" % (WORDS,))


def _kill_after_first_cache_shard(tmp_path, model_dir, cache_dir, n):
    """Run the driver in a child, wait until it says its first cache shard is written (it then
    blocks, so nothing races the kill), and SIGKILL it. The deadline is only a hang guard."""
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    marker = tmp_path / "first_shard_written"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.Popen([sys.executable, str(script), str(model_dir), str(cache_dir), str(n), str(marker)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the driver hung before writing its first cache shard"
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_resume_after_kill_yields_the_rows_of_an_uninterrupted_run(tiny_dirs, qwen, tmp_path):
    n = 15  # 5 cache batches of 3
    killed = tmp_path / "killed"
    _kill_after_first_cache_shard(tmp_path, tiny_dirs / "qwen3", killed, n)
    assert len(ResponseCache(killed).shard_paths()) == 1  # interrupted after exactly one of 5 batches
    partial = ResponseCache(killed).load()

    reqs = _requests(n)
    resumed = generate_cached(qwen, reqs, ResponseCache(killed), batch_size=3)
    assert sum(not g.from_cache for g in resumed) == n - len(partial)  # only the missing ones
    clean = generate_cached(qwen, reqs, ResponseCache(tmp_path / "clean"), batch_size=3)

    def rows(cache_dir):
        from evidence_ledger.tables import read_table
        from evidence_ledger.tables.generation import CACHE_ENTRIES

        out = []
        for p in ResponseCache(cache_dir).shard_paths():
            out += [(r["cache_key"], r["text"], r["n_output_tokens"]) for r in read_table(p, CACHE_ENTRIES).to_pylist()]
        return sorted(out)

    assert len(rows(tmp_path / "clean")) == n
    assert rows(killed) == rows(tmp_path / "clean")  # no lost rows, no duplicated rows, same outputs
    assert [g.text for g in resumed] == [g.text for g in clean]
