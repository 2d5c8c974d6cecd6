"""The embedded demo's small local models, standing in for the paper's (built by the demo rules).

The demo data under ``resources/demo/`` is written by another package, ``evidence_ledger.fixtures``
(``python -m evidence_ledger.fixtures``).

  ``tiny_models``     tiny Qwen3- / Llama-3.1-style chat models standing in for the Study 2 LLMs
  ``conflict_tasks``  the knowledge-conflict prompts mixed into those models' training
  ``reranker``        the tiny XLM-R cross-encoder standing in for ``BAAI/bge-reranker-base``
  ``reranker_data``   its training examples, read from the retrieval stage's tables and index
  ``tiny_verifier``   the tiny DeBERTa-v2 classifier standing in for ``microsoft/deberta-large-mnli``
  ``stage``           the three demo rules' functions (``build_demo_models``, ``build_demo_reranker``,
                      ``build_demo_verifier``)

The production packages never import this package (``tests/unit/demo/test_demo_isolation.py``);
only the demo rules (``workflow/rules/demo.smk``), tests and benchmarks do.
"""
