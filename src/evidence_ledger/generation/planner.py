"""Generation planner, behind ``python -m evidence_ledger plan --configfile CONFIG [--config KEY=VALUE ...]``
(:mod:`evidence_ledger.commands.plan`) and rule generation_plan.

In:  the run's config, built and checked as the workflow builds it (``--configfile`` and
     ``--config`` exactly as given to Snakemake; :mod:`evidence_ledger.run.preflight`), and, when
     they exist and match that config, the pipeline's sampled populations
     (``results/sampling/{dataset}/sample.parquet`` and its ``sample_summary.tsv``) and evidence
     tables (``results/evidence/{dataset}/evidence.parquet``), relative to the run directory
     (``--directory``, default the current one).
Out: a table on stdout: requests per model x dataset x condition *after de-duplication*,
     prompt-token totals and the estimated GPU time; ``--json`` prints it as JSON.

Two modes per dataset, stated in the output's ``basis`` column:

* ``evidence`` - the evidence table exists: the real request table is built
  (:func:`requests.plan_requests`), identical requests are removed exactly, and prompt
  tokens are counted with each model's tokenizer when its local directory exists (else
  ``prompt characters / planner.chars_per_token``).
* ``config`` - nothing has run yet: units = population size (``sampling.{dataset}.n``,
  else ``generation.planner.population.{dataset}``) x ``planner.docs_per_claim.{dataset}``
  (SciFact: 3 abstracts per claim); every condition counts one request per unit, except
  that the ``none`` control is counted once per format (no evidence makes both budgets
  identical). Other coincidences (e.g. two orderings showing the same text) are only known
  from evidence, so config-mode counts are upper bounds. Prompt tokens =
  ``planner.prompt_tokens_overhead`` + the budget's evidence tokens
  (``evidence.budgets.{budget}``; 0 for ``none``). Budgets are upper bounds on evidence
  tokens, so this too is an upper bound.

Each row carries ``exact`` (True for the ``evidence`` basis). Results are used only when they
were made for this config (:func:`.plan_results.results_match_config`: the sample was drawn from the claims
file this config names, by its method, salt and size; the evidence covers every claim of that
sample, the config's sources and budgets under its budget tokenizers); anything else counts from the
config. Config-mode counts cannot be
exact: a ``gold`` control with no annotated evidence (FEVER NEI claims, SciFact abstracts
without a rationale) shows empty evidence and so *is* the ``none`` request (reused), gold
evidence that does not fit the budget is not asked, and two orderings may show the same text;
all of that is known only from the evidence tables. ``--exact`` refuses to print upper bounds.
The pipeline's own exact count after reuse is rule ``control_generations`` (from the request
tables); see docs/accounting.md for how it compares with the paper's 42,834.

A condition's count is the number of *new* unique requests it adds after all earlier
conditions (primary first), i.e. reuse of identical requests is credited to the first
condition that needs them.

GPU time, per row (``gpu_seconds``), from what the jobs really do:

* prompt tokens *net of prefix reuse*: each job's request stream is replayed in the order
  the job sends it (one job per model x dataset x shard, shared-prefix order) through the
  block-level prefix-cache model of :mod:`.prefix_reuse`, sized like the KV cache the
  ``generate`` job gets (:mod:`evidence_ledger.models.gpu_fit`); ``reused`` is the share of the
  row's prompt tokens served from cache, ``computed`` the rest. From the config the replay
  takes the first ``planner.reuse_sample_units`` units of a job with the cache scaled by the
  same fraction (the cache holds the same share of the stream); from evidence it replays
  the real prompts (characters / ``chars_per_token`` per token). No prefix cache (the
  transformers backend, ``enable_prefix_caching: false``) reuses nothing.
* output tokens from the answers' real lengths: the job's RESPONSES when they exist (mean
  ``n_output_tokens`` per format), else the format's answers (codes ``A``/``B``/``C``, or the
  benchmark's labels) under the model's tokenizer when its local directory exists, else
  characters / ``chars_per_token``, plus one end-of-turn token - not ``max_new_tokens``.
* prefill at ``planner.prefill_utilisation`` of ``planner.peak_flops`` (2 x parameters FLOP per
  token); decode at ``planner.output_tokens_per_s``; and one model load
  (``planner.model_load_s``) per job: a ``model_load`` row per model x dataset.

A served model (``models.<name>.backend: openai``) is counted the same way: the same requests,
prompt tokens and answers, its server taken for a vLLM engine with this config's
``generation.vllm`` settings (prefix reuse replayed per job as above); its jobs start no engine,
so its ``model_load`` rows hold one server start per model (on its first dataset) instead.

Beside each estimate the *compute floor*: 2 x parameters x (computed prompt + output tokens)
/ ``peak_flops``, the time at 100% of the peak - no plan can go below it.

The planner fails loudly: a tokenizer it cannot load, or a model whose parameters it cannot
know, is an error naming the model and the directory (:class:`.plan_results.PlannerError`), never a quiet
switch to another estimate. :func:`longest_prompt_tokens` bounds the longest prompt a
``generate`` job sends (the preflight compares it with ``generation.vllm.max_model_len``) and
:func:`written_bytes_estimate` what a run writes under ``results/`` (the preflight's disk check).

Below the request table the text output prints the GPU-fit table of every GPU job the config
runs (:mod:`evidence_ledger.models.gpu_fit`: weights, KV-cache room, tokens of KV that fit against
``max_model_len``, GPUs needed, whether the job fits one GPU of ``device_memory_gb``), the same
arithmetic the workflow checks when it starts.

Where each part lives: :mod:`.plan_results` (whether results match the config, the population,
``PlannerError``), :mod:`.plan_config` and :mod:`.plan_evidence` (the two modes' counts),
:mod:`.plan_tokens` (the tokenizers' counters), :mod:`.plan_gpu_time` (output tokens, GPU time,
model loads), :mod:`.plan_format` (the text table and the report rows); this module joins them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .plan_config import plan_from_config
from .plan_evidence import plan_from_evidence
from .plan_gpu_time import add_gpu_time
from .plan_results import results_match_config
from .requests import enumerate_conditions

# What a run writes under results/ per byte of corpus it reads: ingest tables, the page index,
# retrieval and pools (benchmarks/results/scale.json: 1.00-1.09 from 100k to 1.2M pages).
CORPUS_OUTPUT_RATIO = 1.1
# bytes of one cached response row besides its text (ids, seed, model identity, counts)
RESPONSE_ROW_BYTES = 200
FP32_BYTES = 4  # a verifier checkpoint stores float32 weights


def plan(config: Mapping[str, Any], workdir: Path, data_root: Path | None = None) -> list[dict]:
    """Rows {model, dataset, condition, basis, exact, requests, prompt_tokens, reused_tokens,
    computed_tokens, output_tokens, gpu_seconds, floor_seconds}, then the ``model_load`` rows.
    ``data_root``: the run's data directory as the workflow resolved it (absolute)."""
    gen = config["generation"]
    rows = []
    for model in gen["models"]:
        for dataset in gen["datasets"]:
            ev = workdir / "results" / "evidence" / dataset / "evidence.parquet"
            part = None
            if ev.exists() and results_match_config(config, dataset, workdir, data_root):
                part = plan_from_evidence(config, dataset, model, workdir, ev)
            rows.extend(part if part is not None else plan_from_config(config, dataset, model, workdir, data_root))
    return add_gpu_time(config, rows, workdir)


def longest_prompt_tokens(config: Mapping[str, Any]) -> int:
    """An upper bound of the longest prompt a Study 2 ``generate`` job sends, in tokens: the
    template and claim (``planner.prompt_tokens_overhead``) plus the largest evidence budget the
    conditions use (evidence fits its budget under every budget tokenizer)."""
    gen = config["generation"]
    budgets = config["evidence"]["budgets"]
    used = {c.budget for c in enumerate_conditions(gen) if c.source != "none"}
    evidence = max((int(budgets[b]) for b in used if b in budgets), default=0)
    return int(gen["planner"]["prompt_tokens_overhead"]) + evidence


def written_bytes_estimate(config: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], corpus_bytes: int,
                           verifier_params: int | None = None) -> int:
    """What a run writes under ``results/``, an upper-bound estimate: the data path's tables and
    index (:data:`CORPUS_OUTPUT_RATIO` x the corpus bytes it reads), every planned request's
    prompt twice (its request table and its cache row, uncompressed) and answer, and one float32
    checkpoint of the verifier per ``verifier.checkpoint_seeds`` (Study 1)."""
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    prompts = sum(int(r["prompt_tokens"]) for r in rows) * cpt * 2
    answers = sum(int(r["requests"]) * RESPONSE_ROW_BYTES + int(r.get("output_tokens", 0)) * cpt for r in rows)
    checkpoints = 0
    if (config.get("studies") or {}).get("study1") and verifier_params:
        checkpoints = len((config.get("verifier") or {}).get("checkpoint_seeds") or []) * verifier_params * FP32_BYTES
    return int(CORPUS_OUTPUT_RATIO * corpus_bytes + prompts + answers + checkpoints)
