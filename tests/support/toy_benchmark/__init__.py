"""A toy benchmark plugin: what adding a benchmark takes (README "Extending").

Importing this module registers ``toy`` (per-claim unit, labels TRUE / FALSE / UNKNOWN, corpus
under config ``data.toy.pages``) and its prompt templates. The workflow imports it when config
``benchmark_plugins`` lists ``toy_benchmark`` (with ``tests/support`` on ``PYTHONPATH``).
"""
from evidence_ledger.benchmark_registry import UNIT_CLAIM, Benchmark, register_benchmark

from . import prompts  # noqa: F401  (registers the "toy" prompt family)

TOY = register_benchmark(Benchmark(
    name="toy",
    labels=("TRUE", "FALSE", "UNKNOWN"),
    nei_label="UNKNOWN",
    metric="strict",
    unit=UNIT_CLAIM,
    corpus_key="pages",
    reader="toy_benchmark.reader:ingest_toy",
    scorer="toy_benchmark.scorer",
    prompt_family="toy",
    scorer_caps={"max_evidence": 5},  # the scorer reads the first 5 scored units
    prompts="toy_benchmark.prompts",
    ingest_resources={"mem_mb": 500, "runtime": 5},
))
