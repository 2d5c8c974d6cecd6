"""Benchmark of cross-encoder reranking through FlagEmbedding (writes benchmarks/results/reranker.json).

Builds a randomly initialised XLM-R cross-encoder locally (the demo reranker's builder with no
training steps; ``--size base`` gives the bge-reranker-base shape: hidden 768, 12 layers, 12
heads, and its 250,002 embedding rows: ~278M parameters, with a tokenizer of as many pieces
that declares the real model's tokenizer class, XLMRobertaTokenizer), loads it through the
pipeline's ``load_reranker`` (FlagReranker, fp16 on a GPU, fp32 on CPU) and scores ``--pairs``
(claim, passage) pairs of ~``--words`` words, reporting pairs/s after one warm-up call and the
process's peak RSS (``VmHWM``: what loading and scoring hold, as in the order_bge rule; the
model is built in a child process): once right after ``load_reranker`` (on a GPU: the weights
read from the file in chunks into the device, CUDA's host libraries loaded) and once after
scoring; on a GPU also the device's peak allocation. Weights are random: only speed and memory are measured.
Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/reranker.py [--size base --pairs 20000]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from evidence_ledger.demo.reranker import build_tiny_reranker  # noqa: E402
from evidence_ledger.retrieval.reranker import RerankerSpec, load_reranker, score_pairs  # noqa: E402
from evidence_ledger.memory.peak_rss import own_peak_rss_kib  # noqa: E402
from evidence_ledger.config.layers import DEFAULTS_FILE, read_layer, repo_root  # noqa: E402

RERANKER = read_layer(repo_root() / DEFAULTS_FILE)["retrieval"]["reranker"]  # a run's settings (config/defaults.yaml)

SIZES = {"tiny": {"hidden_size": 64, "layers": 2, "heads": 2}, "base": {"hidden_size": 768, "layers": 12, "heads": 12}}
# bge-reranker-base's embedding rows (XLM-R's 250,002-piece vocabulary): the "base" stand-in's
# embedding matrix is grown to it (rows beyond the stand-in's tokenizer are never looked up), so
# its parameters, weights and host memory are the real model's (~278M parameters)
EMBEDDING_ROWS = {"base": 250_002}
# the tokenizer class bge-reranker-base's tokenizer_config.json names: AutoTokenizer (so
# FlagReranker) loads the "base" stand-in's tokenizer by the real model's loading path (the
# demo builder's "TokenizersBackend" takes a different one, with its own memory)
TOKENIZER_CLASS = {"base": "XLMRobertaTokenizer"}


def grow_embeddings(model_dir: Path, rows: int) -> None:
    """Resize the saved cross-encoder's token embeddings to ``rows`` rows and save it again."""
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(model_dir)
    model.resize_token_embeddings(rows)
    model.save_pretrained(model_dir, safe_serialization=True)
    del model


# characters of the stand-in tokenizer's extra pieces: Latin, accented Latin, Cyrillic, Greek and
# CJK, so the pieces' UTF-8 bytes are about those of a multilingual vocabulary like XLM-R's
PIECE_ALPHABET = ("abcdefghijklmnopqrstuvwxyz" "àáâäçèéêëíîïñóôöúûüß" "абвгдежзиклмнопрстуфхцчшщыэюя"
                  "αβγδεζηθικλμνξοπρστυφχψω" "的一是不了人我在有他这中大来上国个到说们")


def grow_tokenizer(model_dir: Path, pieces: int, seed: int) -> None:
    """Give the saved Unigram tokenizer ``pieces`` pieces in all (as XLM-R's 250,002), the new ones
    random strings of 1-8 characters scored below the trained ones, so the tokenizer the
    benchmark loads takes the memory of a vocabulary that size."""
    rng = random.Random(seed)
    path = model_dir / "tokenizer.json"
    data = json.loads(path.read_text())
    vocab = data["model"]["vocab"]
    seen = {p for p, _ in vocab}
    lowest = min(score for _, score in vocab)
    while len(vocab) < pieces:
        piece = ("\u2581" if rng.random() < 0.5 else "") + "".join(rng.choice(PIECE_ALPHABET)
                                                                  for _ in range(rng.randint(1, 8)))
        if piece not in seen:
            seen.add(piece)
            vocab.append([piece, round(lowest - rng.uniform(1, 8), 6)])
    path.write_text(json.dumps(data, ensure_ascii=False))


def declare_tokenizer_class(model_dir: Path, name: str) -> None:
    """Name ``name`` as the saved tokenizer's class in its ``tokenizer_config.json``."""
    path = model_dir / "tokenizer_config.json"
    config = json.loads(path.read_text())
    config["tokenizer_class"] = name
    path.write_text(json.dumps(config, indent=2) + "\n")


WORDS = ("river city band album born founded capital population mountain species company film "
         "released located north south east west century island lake bridge").split()


def synthetic_text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--words", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "reranker.json")
    ap.add_argument("--build-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    import torch

    rng = random.Random(args.seed)
    examples = [{"claim": synthetic_text(rng, 10), "positives": [synthetic_text(rng, args.words)],
                 "same_doc": [synthetic_text(rng, args.words) for _ in range(3)], "candidates": []}
                for _ in range(20)]
    if args.build_into:  # the child that builds the model, so the build's memory is not measured
        build_tiny_reranker(examples, args.build_into, steps=0, seed=args.seed, **SIZES[args.size])
        if args.size in EMBEDDING_ROWS:
            grow_embeddings(args.build_into, EMBEDDING_ROWS[args.size])
            grow_tokenizer(args.build_into, EMBEDDING_ROWS[args.size], args.seed)
        if args.size in TOKENIZER_CLASS:
            declare_tokenizer_class(args.build_into, TOKENIZER_CLASS[args.size])
        return
    pairs = [(synthetic_text(rng, 12), synthetic_text(rng, args.words)) for _ in range(args.pairs)]
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "reranker"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--size", args.size, "--seed", str(args.seed), "--words",
                        str(args.words), "--build-into", str(model_dir)], check=True)
        build_s = time.perf_counter() - t0
        reranker, identity = load_reranker(RerankerSpec(local_dir=str(model_dir), batch_size=args.batch_size, fp16=True,
                                                                max_length=RERANKER["max_length"],
                                                                allow_pickle_weights=False))
        load_peak_mib = own_peak_rss_kib() / 1024
        weights_file_mib = sum(f.stat().st_size for f in model_dir.glob("*.safetensors")) / 2**20
        score_pairs(reranker, pairs[: min(256, len(pairs))])  # warm-up
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        scores = score_pairs(reranker, pairs)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
    params = sum(p.numel() for p in reranker.model.parameters()) if hasattr(reranker, "model") else None
    rows_looked_up = len({i for q, p in pairs for i in reranker.tokenizer(q, p)["input_ids"]})
    result = {
        "size": args.size, "parameters": params, "pairs": len(scores), "words_per_passage": args.words,
        "batch_size": args.batch_size, "device": "cuda:" + torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
        "fp16": torch.cuda.is_available(), "build_s": round(build_s, 3), "score_s": round(elapsed, 3),
        "pairs_per_s": round(len(scores) / elapsed, 1), "torch": torch.__version__, "cuda": torch.version.cuda,
        "cuda_module_loading": os.environ.get("CUDA_MODULE_LOADING"),  # unset: the driver's default (lazy since 12.2)
        "machine": platform.machine(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "tokenizer_pieces": len(reranker.tokenizer), "embedding_rows_looked_up": rows_looked_up,
        "load_peak_rss_mib": round(load_peak_mib, 1), "weights_file_mib": round(weights_file_mib, 1),
        "peak_rss_mib": round(own_peak_rss_kib() / 1024, 1),
        "cuda_peak_allocated_mib": (round(torch.cuda.max_memory_allocated() / 2**20, 1)
                                    if torch.cuda.is_available() else None),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
