"""Benchmark of corpus and within-pool BM25 (writes benchmarks/results/bm25.json).

1. Corpus retrieval on a synthetic collection (default 200,000 documents, Zipf-distributed
   vocabulary of 50,000 words, 20-80 words per document): build time of the bm25s index
   (tokenisation + indexing + save, ``retrieval.corpus.build_corpus_index``), memory-mapped
   load, then queries/s of ``retrieve_top_k`` (top 5) versus ``rank_bm25.BM25Okapi``
   (``get_scores`` + top 5) on the same tokenised collection and queries (5 content words
   of a random document; the 100 most frequent synthetic words stand in for stop words and
   are not used in queries, as the real tokenisation drops stop words), in one run
   (target >= 300x). rank-bm25 answers only a few queries (it is slow: every query walks
   every document's dict); its queries/s is measured on those.
2. Within-pool ordering: >= 1,000 random pools (5-100 documents of the collection, query
   = 5 words of one of them): ``pool_bm25.bm25okapi_scores`` + ``ordering.order_pool``
   versus ``rank_bm25.BM25Okapi(pool).get_scores`` with the same tie rule; counts pools
   whose scores are bit-identical and whose order is identical (must be all).

Times are wall clock and process CPU; speed-ups use CPU time, which is less disturbed by
other jobs on a shared machine. Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bm25.py
Options: --docs N, --queries N (bm25s), --rank-bm25-queries N, --pools N, --seed S.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402

from evidence_ledger.retrieval.corpus import build_corpus_index, load_corpus_index, retrieve_top_k  # noqa: E402
from evidence_ledger.retrieval.ordering import order_pool  # noqa: E402
from evidence_ledger.retrieval.pool_bm25 import bm25okapi_scores  # noqa: E402
from evidence_ledger.retrieval.text import bm25_tokens  # noqa: E402
from evidence_ledger.config.layers import DEFAULTS_FILE, read_layer, repo_root  # noqa: E402

# the settings a run uses (config/defaults.yaml): the index's and the pool ordering's BM25
RETRIEVAL = read_layer(repo_root() / DEFAULTS_FILE)["retrieval"]

OUT = Path(__file__).resolve().parent / "results" / "bm25.json"
STOP_RANKS = 100


def clock():
    return time.perf_counter(), time.process_time()


def since(t0):
    w, c = clock()
    return round(w - t0[0], 3), round(c - t0[1], 3)


def synthetic_corpus(n_docs: int, vocab: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(vocab)])
    p = 1.0 / np.arange(1, vocab + 1) ** 1.07
    p /= p.sum()
    lengths = rng.integers(20, 81, size=n_docs)
    flat = rng.choice(vocab, size=int(lengths.sum()), p=p)
    docs, at = [], 0
    for n in lengths:
        docs.append(" ".join(words[flat[at:at + n]]))
        at += n
    return docs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--rank-bm25-queries", type=int, default=10)
    ap.add_argument("--pools", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed + 1)

    t = clock()
    docs = synthetic_corpus(args.docs, args.vocab, args.seed)
    gen_s = since(t)
    doc_ids = [f"d{i:07d}" for i in range(len(docs))]
    # queries: 5 distinct content words of a random document. Content word = vocabulary rank
    # >= STOP_RANKS: the most frequent synthetic words play the part of stop words, which the
    # pipeline's tokenisation removes from real claims (so neither engine sees them in queries).
    qdocs = rng.integers(0, len(docs), size=args.queries)
    queries = []
    for d in qdocs:
        toks = sorted({t for t in docs[d].split() if int(t[1:]) >= STOP_RANKS})
        queries.append(" ".join(rng.choice(toks, size=min(5, len(toks)), replace=False)))

    tmp = Path(tempfile.mkdtemp(prefix="bm25bench"))
    try:
        t = clock()
        build_corpus_index(doc_ids, [""] * len(docs), docs, tmp / "index", **RETRIEVAL["corpus_bm25"])
        build_s = since(t)
        t = clock()
        index = load_corpus_index(tmp / "index", mmap=True)
        load_s = since(t)
        t = clock()
        bm25s_top = [retrieve_top_k(index, q, 5)[0] for q in queries]
        bm25s_s = since(t)
        self_hit = sum(doc_ids[d] in top for d, top in zip(qdocs, bm25s_top)) / len(queries)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    t = clock()
    tokenised = [bm25_tokens(d) for d in docs]
    okapi = BM25Okapi(tokenised, **RETRIEVAL["pool_bm25"])
    rank_build_s = since(t)
    nq = min(args.rank_bm25_queries, len(queries))
    t = clock()
    for q in queries[:nq]:
        scores = okapi.get_scores(bm25_tokens(q))
        np.argsort(-scores, kind="stable")[:5]
    rank_s = since(t)
    del okapi

    bm25s_qps = (len(queries) / bm25s_s[0], len(queries) / max(bm25s_s[1], 1e-9))
    rank_qps = (nq / rank_s[0], nq / max(rank_s[1], 1e-9))

    # within-pool: our vectorised BM25Okapi against rank_bm25 on random pools
    identical_scores = identical_order = 0
    ours_cpu = ref_cpu = 0.0
    for _ in range(args.pools):
        size = int(rng.integers(5, 101))
        members = rng.choice(len(docs), size=size, replace=False)
        pool = [tokenised[m] for m in members]
        src = pool[int(rng.integers(0, size))]
        query = list(rng.choice(src, size=min(5, len(src)), replace=False))
        ids = [doc_ids[m] for m in members]
        c0 = time.process_time()
        ours = bm25okapi_scores(pool, query, **RETRIEVAL["pool_bm25"])
        ours_order = order_pool(ids, ours)
        c1 = time.process_time()
        ref = BM25Okapi(pool, **RETRIEVAL["pool_bm25"]).get_scores(query)
        ref_order = sorted(range(size), key=lambda i: (-float(ref[i]), i, ids[i]))
        c2 = time.process_time()
        ours_cpu += c1 - c0
        ref_cpu += c2 - c1
        identical_scores += bool(np.array_equal(ours, ref))
        identical_order += ours_order == ref_order

    result = {
        "machine": {"python": platform.python_version(), "processor": platform.machine(), "cpus": os.cpu_count(),
                    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")},
        "seed": args.seed,
        "corpus": {"docs": len(docs), "vocab": args.vocab, "query_words": "5 distinct words of a random document "
                   f"with vocabulary rank >= {STOP_RANKS} (the most frequent ranks stand in for stop words)", "tokens": int(sum(len(t) for t in tokenised)),
                   "generate_s": gen_s[0]},
        "bm25s": {"index_build_wall_s": build_s[0], "index_build_cpu_s": build_s[1],
                  "mmap_load_wall_s": load_s[0], "queries": len(queries),
                  "query_wall_s": bm25s_s[0], "query_cpu_s": bm25s_s[1],
                  "queries_per_s_wall": round(bm25s_qps[0], 2), "queries_per_s_cpu": round(bm25s_qps[1], 2),
                  "source_doc_in_top5": round(self_hit, 4)},
        "rank_bm25": {"build_wall_s": rank_build_s[0], "build_cpu_s": rank_build_s[1], "queries": nq,
                      "query_wall_s": rank_s[0], "query_cpu_s": rank_s[1],
                      "queries_per_s_wall": round(rank_qps[0], 4), "queries_per_s_cpu": round(rank_qps[1], 4)},
        "speedup_queries_per_s_cpu": round(bm25s_qps[1] / rank_qps[1], 1),
        "speedup_queries_per_s_wall": round(bm25s_qps[0] / rank_qps[0], 1),
        "speedup_target": 300,
        "within_pool": {"pools": args.pools, "identical_scores": identical_scores, "identical_order": identical_order,
                        "all_identical": identical_order == args.pools and identical_scores == args.pools,
                        "ours_cpu_s": round(ours_cpu, 3), "rank_bm25_cpu_s": round(ref_cpu, 3)},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
