"""Retrieval stage: corpus BM25 retrieval, candidate pools and the two pool orderings.

Modules:
  text        - the one lexical tokenisation shared by corpus and within-pool BM25
  corpus      - page/abstract BM25 index (bm25s; built once, saved, memory-mapped) and top-k retrieval
  pools       - candidate pools (at most N units of the retrieved documents, pool order)
  pool_bm25   - rank_bm25 ``BM25Okapi`` scores within a pool, vectorised (bit-identical)
  ordering    - deterministic ordering of scored pools (score, pool order, unit id)
  reranker    - cross-encoder reranking through FlagEmbedding's ``FlagReranker``
"""
