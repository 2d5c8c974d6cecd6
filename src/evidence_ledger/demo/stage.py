"""File-level entry points of the demo rules (``workflow/rules/demo.smk``): read tables, build a small model.

Each function here is what the job of the rule of its name calls (:mod:`evidence_ledger.jobs.stage_job`):
  build_demo_models    training CLAIMS + UNITS (+ conflict inputs) -> a tiny chat model directory
  build_demo_reranker  corpus indexes + training CLAIMS + UNITS -> the tiny reranker directory
  build_demo_verifier  training CLAIMS + UNITS -> the tiny verifier base model directory
"""
from __future__ import annotations

import logging
from pathlib import Path

from ..wikicontradict.judge import load_fewshot_examples
from ..generation.requests import code_mappings as read_code_mappings
from ..tables import read_table
from ..tables.conflict_inputs import CONFLICT_QA_RECORDS, WIKICONTRADICT_INSTANCES
from ..tables.ingest import CLAIMS, UNITS
from .conflict_tasks import conflict_mixture
from .reranker import build_tiny_reranker
from .reranker_data import reranker_training_examples
from .tiny_models import build_demo_model, demo_training_examples
from .tiny_verifier import TinyVerifierSpec, build_tiny_verifier

log = logging.getLogger(__name__)


def build_demo_models(*, claims: list, units: list, wikicontradict: list = (), fewshot: list = (),
                      reader_records: list = (),
                      arch: str, chat_template_kwargs: dict, code_mappings: dict,
                      steps: int | None = None, batch_size: int | None = None, lr: float | None = None,
                      seed: int | None = None, vocab_size: int | None = None,
                      conflict_tasks: bool = False, conflict_steps: int = 0, conflict_weights: dict | None = None,
                      templates: list | None = None, passage_version: str | None = None,
                      reader_prompt: str | None = None, closed_book_prompt: str | None = None,
                      reader_system_message: str = "", tokenizer: str | None = None, out) -> dict:
    """Build one tiny chat model (``arch``: qwen3 | llama31) into ``out``; return its training stats.

    ``claims`` / ``units``: CLAIMS (train split) and UNITS paths of the training datasets, in
    the same order. Training settings left ``None`` take :func:`.tiny_models.build_demo_model`'s
    defaults. With ``conflict_tasks`` the conflict-task mixture of :mod:`.conflict_tasks` is
    added (``conflict_steps`` more steps, per-task ``conflict_weights``), built from
    ``wikicontradict`` (WIKICONTRADICT_INSTANCES paths), ``fewshot`` (judge few-shot JSONL),
    ``reader_records`` (CONFLICT_QA_RECORDS paths) and the conflict stage's prompt settings
    (``reader_system_message``: the DiffGR reader system message this model is sent).
    ``tokenizer``: a real tokenizer directory to build over (:mod:`.real_tokenizers`), None to
    train a BPE on the training texts.
    """
    examples, texts = [], []
    for claims_path, units_path in zip(claims, units):
        dataset = Path(claims_path).parent.name
        claim_rows = read_table(claims_path, CLAIMS).to_pylist()
        unit_rows = read_table(units_path, UNITS, columns=["unit_id", "doc_id", "position", "text"]).to_pylist()
        ex = demo_training_examples(dataset, claim_rows, unit_rows)
        log.info("%s: %d train claims -> %d training examples", dataset, len(claim_rows), len(ex))
        examples += ex
        texts += [u["text"] for u in unit_rows] + [c["claim"] for c in claim_rows]
    settings = dict(steps=steps, batch_size=batch_size, lr=lr, seed=seed, vocab_size=vocab_size)
    training = {k: v for k, v in settings.items() if v is not None}
    extra, extra_steps = [], 0
    if conflict_tasks:
        wc_rows = [r for f in wikicontradict for r in read_table(f, WIKICONTRADICT_INSTANCES).to_pylist()]
        examples_fewshot = [e for f in fewshot for e in load_fewshot_examples(f)]
        records = [r for f in reader_records for r in read_table(f, CONFLICT_QA_RECORDS).to_pylist()]
        extra, counts = conflict_mixture(wc_rows, templates, examples_fewshot, records, reader_prompt,
                                         closed_book_prompt, conflict_weights or {}, passage_version,
                                         seed=training.get("seed", 0), reader_system_message=reader_system_message)
        extra_steps = int(conflict_steps)
        log.info("conflict tasks: %s pairs (after weighting), %d extra steps", counts, extra_steps)
    stats = build_demo_model(
        out,
        arch,
        examples,
        texts,
        read_code_mappings({"code_mappings": code_mappings}),
        chat_template_kwargs=chat_template_kwargs,
        extra_pairs=extra,
        extra_steps=extra_steps,
        tokenizer_dir=tokenizer,
        **training,
    )
    log.info("built %s: %s", out, stats)
    return stats


def build_demo_reranker(*, index: list, units: list, claims: list, claims_per_dataset: list, docs_per_claim: list,
                        max_units: int, pool_kinds: list, train: dict, out) -> dict:
    """Train the demo reranker on several datasets' training claims; write it to ``out``.

    Per training dataset ``i`` (config order): ``index[i]`` (corpus index directory),
    ``units[i]`` (UNITS path), the next ``claims_per_dataset[i]`` paths of ``claims`` (CLAIMS
    tables, in input order) and ``docs_per_claim[i]`` (documents retrieved per claim for its
    pool). ``train``: the model and training spec of :func:`.reranker.build_tiny_reranker`
    (config ``retrieval.reranker.build.train``). Returns the training summary.
    """
    examples, passages = [], []
    at = 0
    for index_dir, units_path, n_claims, k in zip(index, units, claims_per_dataset, docs_per_claim, strict=True):
        claims_paths = list(claims[at:at + n_claims])
        at += n_claims
        ex, ps = reranker_training_examples(index_dir, claims_paths, units_path, k, max_units, pool_kinds)
        log.info("demo reranker: %d training claims, %d passages from %s", len(ex), len(ps), units_path)
        examples += ex
        passages += ps
    summary = build_tiny_reranker(examples, out, corpus_passages=passages, **train)
    log.info("demo reranker trained: %s", summary)
    return summary


def build_demo_verifier(*, claims, units, spec: dict, out) -> Path:
    """Build the demo's tiny verifier base model into ``out``.

    The WordPiece tokenizer is trained on the training claims (CLAIMS path ``claims``) and every
    unit text and non-empty context of the corpus (UNITS path ``units``), in table order.
    ``spec``: the model spec (config ``verifier.demo_model``: sizes, vocabulary size, seed).
    """
    model_spec = TinyVerifierSpec(**spec)
    claim_table = read_table(claims, CLAIMS, columns=["claim"])
    unit_table = read_table(units, UNITS, columns=["text", "context"])
    texts = (claim_table["claim"].to_pylist() + unit_table["text"].to_pylist()
             + [c for c in unit_table["context"].to_pylist() if c])
    path = build_tiny_verifier(texts, out, model_spec)
    log.info("built tiny verifier %s into %s", model_spec, out)
    return path
