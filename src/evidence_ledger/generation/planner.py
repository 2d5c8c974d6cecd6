"""Generation planner, behind ``python -m evidence_ledger plan --configfile CONFIG [--config KEY=VALUE ...]``
(:mod:`evidence_ledger.run.plan_command`) and rule generation_plan.

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
were made for this config (:func:`results_match_config`: the sample was drawn from the claims
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
know, is an error naming the model and the directory (:class:`PlannerError`), never a quiet
switch to another estimate. :func:`longest_prompt_tokens` bounds the longest prompt a
``generate`` job sends (the preflight compares it with ``generation.vllm.max_model_len``) and
:func:`written_bytes_estimate` what a run writes under ``results/`` (the preflight's disk check).

Below the request table the text output prints the GPU-fit table of every GPU job the config
runs (:mod:`evidence_ledger.models.gpu_fit`: weights, KV-cache room, tokens of KV that fit against
``max_model_len``, GPUs needed, whether the job fits one GPU of ``device_memory_gb``), the same
arithmetic the workflow checks when it starts.
"""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..benchmark_registry import get_benchmark
from ..evidence.budget import budget_tokenizer_models
from ..errors import ExpectedError
from ..models.gpu_fit import config_device_memory_gb, model_backend, model_facts, served
from ..models.gpu_fit import vllm_row
from . import prefix_reuse
from .prompts import CODES
from .requests import condition_name, enumerate_conditions, plan_requests, prefix_order

# What a run writes under results/ per byte of corpus it reads: ingest tables, the page index,
# retrieval and pools (benchmarks/results/scale.json: 1.00-1.09 from 100k to 1.2M pages).
CORPUS_OUTPUT_RATIO = 1.1
# bytes of one cached response row besides its text (ids, seed, model identity, counts)
RESPONSE_ROW_BYTES = 200
FP32_BYTES = 4  # a verifier checkpoint stores float32 weights


class PlannerError(ExpectedError, ValueError):
    """Something the planner cannot count (a tokenizer it cannot load, unknown parameters)."""


def sample_summary(path: Path) -> dict[str, str]:
    """The key/value rows of a ``sample_summary.tsv`` (rule sample_claims)."""
    import csv

    with open(path, encoding="utf-8", newline="") as fh:
        return {row["key"]: row["value"] for row in csv.DictReader(fh, delimiter="\t")}


def sample_mismatch(config: Mapping[str, Any], dataset: str, workdir: Path, data_root: Path | None) -> str | None:
    """Why ``workdir/results/sampling/<dataset>/sample.parquet`` was not drawn for this config
    (None when it was): another claims file (its ``source_file`` is not the file this config
    names under ``data_root``, an absolute directory), another method, salt or size (its
    ``sample_summary.tsv``), or no summary to tell."""
    import pyarrow.parquet as pq

    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    settings = (config.get("sampling") or {}).get(dataset) or {}
    summary_path = sample.with_name("sample_summary.tsv")
    if not summary_path.exists():
        return f"{summary_path} is missing, so the sample's method and salt are unknown"
    summary = sample_summary(summary_path)
    method = settings.get("method", "hash")
    n = settings.get("n")
    wanted = {"method": method, "salt": settings.get("salt", "") if method == "hash" else "",
              "requested": str(-1 if n is None or method == "all" else int(n))}
    for key, value in wanted.items():
        if summary.get(key) != str(value):
            return f"sampled with {key} {summary.get(key)!r}, the config says {value!r}"
    table = pq.read_table(sample, columns=["source_file"])
    claims_file = ((config.get("data", {}).get(dataset) or {}).get("claims") or {}).get(settings.get("split", "dev"))
    if table.num_rows and claims_file and data_root is not None:
        expected = (Path(data_root) / claims_file).resolve()
        found = Path(table.column(0)[0].as_py()).resolve()
        if found != expected:
            return f"drawn from {found}, the config names {expected}"
    return None


def results_match_config(config: Mapping[str, Any], dataset: str, workdir: Path, data_root: Path | None = None
                         ) -> bool:
    """Whether ``workdir/results`` holds a sample of ``dataset`` drawn for this config
    (:func:`sample_mismatch`; no sample at all is no match: nothing says which config it is).
    ``data_root``: the run's data directory as the workflow resolved it (default: config
    ``data_root``, relative to the run directory ``workdir``; unset: the claims file is not
    compared)."""
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    if not sample.exists():
        return False
    return sample_mismatch(config, dataset, workdir, _data_root(config, data_root, workdir)) is None


def _data_root(config: Mapping[str, Any], data_root: Path | None, workdir: Path) -> Path | None:
    """``data_root`` as given, else config ``data_root`` (relative: in the run directory ``workdir``)."""
    if data_root is not None:
        return Path(data_root)
    value = config.get("data_root")
    return None if not value else Path(workdir) / value


def evidence_mismatch(config: Mapping[str, Any], dataset: str, evidence: list[dict], claim_ids: set[str]
                      ) -> str | None:
    """Why an evidence table was not built for this config's run (None when it was): it lacks
    claims of the sample (it may hold more: the claims of ``retrieval.extra_claim_splits``), lacks
    a (source, budget) the config generates from, was not counted under every budget tokenizer,
    or holds evidence over a budget's token limit."""
    gen = config["generation"]
    missing_claims = claim_ids - {str(e["claim_id"]) for e in evidence}
    if missing_claims:
        return f"it has no evidence for {len(missing_claims)} claims of the sample"
    pairs = {(e["source"], e["budget"]) for e in evidence}
    missing = [(s, b) for s in gen["sources"] for b in gen["budgets"] if (s, b) not in pairs]
    if missing:
        return f"it has no evidence for (source, budget) {missing[:3]}"
    budgets = config["evidence"]["budgets"]
    tokenizers = set(budget_tokenizer_models(config))
    for e in evidence:
        counts = dict(e["tokens_by_tokenizer"] or {})
        if e["budget"] in budgets and e["source"] in gen["sources"]:
            if not tokenizers <= set(counts):
                return f"its token counts are not under every budget tokenizer {sorted(tokenizers)}"
            if e["fits_budget"] and max(counts[t] for t in tokenizers) > int(budgets[e["budget"]]):
                return f"its {e['budget']} evidence is over evidence.budgets.{e['budget']} = {budgets[e['budget']]}"
    return None


def _population(config: Mapping[str, Any], dataset: str, workdir: Path, data_root: Path | None = None
                ) -> tuple[int, str]:
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    if results_match_config(config, dataset, workdir, data_root):
        import pyarrow.parquet as pq

        return pq.ParquetFile(sample).metadata.num_rows, "sample"
    n = (config.get("sampling", {}).get(dataset) or {}).get("n")
    if n is None:
        n = config["generation"]["planner"]["population"].get(dataset)
    if n is None:
        raise PlannerError(f"planner: no population size for {dataset}: set sampling.{dataset}.n "
                           f"or generation.planner.population.{dataset}")
    return int(n), "config"


def plan_from_config(config: Mapping[str, Any], dataset: str, model: str, workdir: Path,
                     data_root: Path | None = None, reuse: bool = True) -> list[dict]:
    """Counts per condition from population sizes alone (see module docstring); ``reuse``
    False skips the prefix-cache replay (no reused tokens: what the preflight needs)."""
    gen = config["generation"]
    planner = gen["planner"]
    n_claims, _ = _population(config, dataset, workdir, data_root)
    units = n_claims * int(planner.get("docs_per_claim", {}).get(dataset, 1))
    out: OrderedDict[str, dict] = OrderedDict()
    seen_none_formats: set[tuple[str, str]] = set()
    for c in enumerate_conditions(gen):
        name = condition_name(c)
        asked = units
        if c.source == "none":  # no evidence: one greedy request per claim and format
            key = (c.format, c.code_mapping)
            if key in seen_none_formats:
                continue
            seen_none_formats.add(key)
            asked = n_claims
        budgets = config["evidence"]["budgets"]
        ev_tokens = 0 if c.source == "none" else int(budgets[c.budget])
        d = out.setdefault(name, {"requests": 0, "prompt_tokens": 0})
        d["requests"] += asked
        d["prompt_tokens"] += asked * (int(planner["prompt_tokens_overhead"]) + ev_tokens)
    shares = config_reuse_shares(config, model, dataset, units, workdir) if reuse else {}
    for name, d in out.items():
        d["reused_tokens"] = int(round(d["prompt_tokens"] * shares.get(name, 0.0)))
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "config", "exact": False, **v}
            for k, v in out.items()]


def cache_blocks(config: Mapping[str, Any], model: str, workdir: Path) -> int | None:
    """KV-cache blocks of one ``generate`` job of ``model`` (gpu_fit's KV tokens / block size);
    None when the job has no prefix cache (transformers backend, prefix caching off, or a
    model whose KV shape is unknown)."""
    gen = config["generation"]
    if not (model_backend(config, model) == "vllm" or served(config, model)) or not gen.get("enable_prefix_caching"):
        return None
    if served(config, model):  # its server taken for a vLLM engine with this config's settings
        config = {**config, "models": {**config["models"], model: {**config["models"][model], "backend": "vllm"}}}
    row = vllm_row(config, "generate", model, workdir, config_device_memory_gb(config))
    return None if not row.get("kv_tokens") else int(row["kv_tokens"]) // prefix_reuse.BLOCK_TOKENS


def _shares(counts: Mapping[str, "prefix_reuse.ReuseCounts"]) -> dict[str, float]:
    return {name: c.reuse_share for name, c in counts.items()}


def config_reuse_shares(config: Mapping[str, Any], model: str, dataset: str, units: int, workdir: Path
                        ) -> dict[str, float]:
    """Share of prompt tokens per condition served from the prefix cache, replaying the first
    ``planner.reuse_sample_units`` units of a job in shared-prefix order (module docstring)."""
    blocks = cache_blocks(config, model, workdir)
    if blocks is None or units == 0:
        return {}
    gen, planner = config["generation"], config["generation"]["planner"]
    sample = min(units, int(planner["reuse_sample_units"]))
    docs = int(planner.get("docs_per_claim", {}).get(dataset, 1))
    stream = prefix_reuse.config_stream(gen, config["evidence"]["budgets"], int(planner["prompt_tokens_overhead"]),
                                        sample, docs)
    names = {rid: name for rid, name, _ in stream}
    order = sorted(stream, key=lambda item: (prefix_reuse.sort_key(item[2]), item[0]))
    scaled = max(1, int(blocks * sample / units / max(1, int(gen["shards"]))))
    return _shares(prefix_reuse.replay_by_label([segs for _, _, segs in order], [names[rid] for rid, _, _ in order],
                                                scaled))


def local_tokenizer(config: Mapping[str, Any], model: str, workdir: Path):
    """The tokenizer of ``models.<model>.local_dir`` when that directory exists, else None (a
    Hub model: characters / ``chars_per_token``). A directory whose tokenizer does not load is a
    :class:`PlannerError` naming the model and the directory, never a quiet estimate."""
    mcfg = (config.get("models") or {}).get(model) or {}
    local = mcfg.get("local_dir")
    if not local or not (workdir / local).is_dir():
        return None
    from transformers import AutoTokenizer

    from ..models.model_files import model_directory

    try:
        directory = model_directory(str(workdir / local))  # the one model-directory rule: nothing read from outside it
        return AutoTokenizer.from_pretrained(str(directory), local_files_only=True,
                                             trust_remote_code=bool(mcfg.get("trust_remote_code", False)))
    except (ExpectedError, OSError, ValueError, TypeError, KeyError, ImportError) as err:
        raise PlannerError(f"planner: the tokenizer of models.{model} in {workdir / local} does not load "
                           f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}); the prompts "
                           f"cannot be counted: rebuild or replace that directory") from err


def _token_counter(config: Mapping[str, Any], model: str, workdir: Path):
    mcfg = (config.get("models") or {}).get(model) or {}
    tok = local_tokenizer(config, model, workdir)
    if tok is not None:
        kwargs = dict(mcfg.get("chat_template_kwargs") or {})

        def count(msgs):
            text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, **kwargs)
            return len(tok(text, add_special_tokens=False)["input_ids"])

        return count
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    return lambda msgs: int(round(sum(len(m["content"]) for m in msgs) / cpt))


def plan_from_evidence(config: Mapping[str, Any], dataset: str, model: str, workdir: Path,
                       evidence_path: Path) -> list[dict] | None:
    """Exact de-duplicated counts from the evidence table and the sample it was built for (see
    module docstring); None when the evidence was not built for this config
    (:func:`evidence_mismatch`)."""
    from ..tables import read_table
    from ..tables.evidence import EVIDENCE

    import pyarrow.parquet as pq

    gen = config["generation"]
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    evidence = read_table(evidence_path, EVIDENCE).to_pylist()
    claims = pq.read_table(sample).to_pylist()
    if evidence_mismatch(config, dataset, evidence, {str(c["claim_id"]) for c in claims}) is not None:
        return None
    table, _ = plan_requests(model, dataset, claims, evidence, gen, str(evidence_path))
    count_tokens = _token_counter(config, model, workdir)
    order = [condition_name(c) for c in enumerate_conditions(gen)]
    out: OrderedDict[str, dict] = OrderedDict((k, {"requests": 0, "prompt_tokens": 0}) for k in dict.fromkeys(order))
    seen: set[str] = set()
    rows = table.select(["request_id", "condition", "code_mapping", "messages"]).to_pylist()
    rank = {k: i for i, k in enumerate(out)}

    def name(r):
        if r["condition"] == "primary":
            return "primary"
        if r["condition"] == "code_mapping":
            return f"code_mapping:{r['code_mapping']}"
        return f"control:{r['condition']}"

    for r in sorted(rows, key=lambda r: rank[name(r)]):
        if r["request_id"] in seen:
            continue
        seen.add(r["request_id"])
        d = out[name(r)]
        d["requests"] += 1
        d["prompt_tokens"] += count_tokens(r["messages"])
    shares = evidence_reuse_shares(config, model, rows, name, workdir)
    for k, d in out.items():
        d["reused_tokens"] = int(round(d["prompt_tokens"] * shares.get(k, 0.0)))
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "evidence", "exact": True, **v}
            for k, v in out.items()]


def evidence_reuse_shares(config: Mapping[str, Any], model: str, rows: list[dict], name, workdir: Path
                          ) -> dict[str, float]:
    """Share of prompt tokens per condition served from the prefix cache, replaying the real
    prompts (characters / ``chars_per_token`` per token) in the order the job sends them."""
    blocks = cache_blocks(config, model, workdir)
    if blocks is None or not rows:
        return {}
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    first: dict[str, dict] = {}
    for r in rows:
        first.setdefault(r["request_id"], r)
    ordered = prefix_order(list(first.values()))
    stream = [prefix_reuse.text_segments("\n".join(m["content"] for m in r["messages"]), cpt) for r in ordered]
    return _shares(prefix_reuse.replay_by_label(stream, [name(r) for r in ordered], blocks))


def answer_tokens(config: Mapping[str, Any], model: str, dataset: str, fmt: str, workdir: Path) -> float:
    """Mean output tokens of an answer in ``fmt``: the job's RESPONSES when they exist, else the
    format's answers (codes, or the benchmark's labels) under the model's tokenizer or
    characters / ``chars_per_token``, plus the end-of-turn token (module docstring)."""
    responses = workdir / "results" / "generation" / model / dataset / "responses.parquet"
    requests = responses.with_name("requests.parquet")
    if responses.exists() and requests.exists():
        import pyarrow.parquet as pq

        fmt_of = dict(zip(*pq.read_table(requests, columns=["request_id", "format"]).to_pydict().values()))
        got = pq.read_table(responses, columns=["request_id", "n_output_tokens"]).to_pydict()
        lengths = [n for rid, n in zip(got["request_id"], got["n_output_tokens"]) if fmt_of.get(rid) == fmt]
        if lengths:
            return sum(lengths) / len(lengths)
    answers = list(CODES) if fmt == "codes" else list(get_benchmark(dataset).labels)
    count = _text_token_counter(config, model, workdir)
    return sum(count(a) for a in answers) / len(answers) + 1


def _text_token_counter(config: Mapping[str, Any], model: str, workdir: Path):
    tok = local_tokenizer(config, model, workdir)
    if tok is not None:
        return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    return lambda text: max(1, int(round(len(text) / cpt)))


def model_params(config: Mapping[str, Any], model: str, workdir: Path) -> int:
    """Parameters of ``model`` (gpu_fit's facts: a built local directory, else the Hub page);
    unknown parameters are a :class:`PlannerError` saying how to make them known."""
    mcfg = config["models"][model]
    facts = model_facts(mcfg.get("hub_id"), mcfg.get("local_dir"), workdir)
    if facts.params is None:
        if mcfg.get("local_dir"):
            how = ("it is built by rule build_demo_models: run `snakemake --until build_demo_models` first"
                   if any((m or {}).get("build") and m.get("local_dir") == mcfg["local_dir"]
                          for m in config["models"].values())
                   else "place the model there first")
            raise PlannerError(f"planner: the GPU time of models.{model} needs its parameters, read from "
                               f"{workdir / mcfg['local_dir']}/config.json, which does not exist yet; {how}")
        raise PlannerError(f"planner: parameters of models.{model} unknown ({facts.source}); give it a local_dir "
                           f"holding its config.json")
    return int(facts.params)


def _condition_format(config: Mapping[str, Any], condition: str) -> list[str]:
    """Formats a condition's requests are asked in (code mappings: codes only)."""
    gen = config["generation"]
    if condition.startswith("code_mapping:"):
        return ["codes"]
    if condition == "primary":
        return list(gen["formats"])
    return list((gen.get("controls") or {}).get("formats") or gen["formats"])


def add_gpu_time(config: Mapping[str, Any], rows: list[dict], workdir: Path) -> list[dict]:
    """Fill ``output_tokens``, ``computed_tokens``, ``gpu_seconds`` and ``floor_seconds`` of each
    row, and append one ``model_load`` row per model x dataset (module docstring)."""
    gen, planner = config["generation"], config["generation"]["planner"]
    peak = float(planner["peak_flops"])
    prefill_tps = {}
    out_len: dict[tuple, float] = {}
    jobs = OrderedDict()
    for r in rows:
        m, d = r["model"], r["dataset"]
        if m not in prefill_tps:
            prefill_tps[m] = (float(planner["prefill_utilisation"]) * peak / (2 * model_params(config, m, workdir)),
                              2 * model_params(config, m, workdir))
        fmts = _condition_format(config, r["condition"])
        per = [out_len.setdefault((m, d, f), answer_tokens(config, m, d, f, workdir)) for f in fmts]
        r["output_tokens"] = int(round(r["requests"] * sum(per) / len(per)))
        r["computed_tokens"] = r["prompt_tokens"] - r.get("reused_tokens", 0)
        tps, flops = prefill_tps[m]
        r["gpu_seconds"] = round(r["computed_tokens"] / tps + r["output_tokens"] / float(planner["output_tokens_per_s"]), 1)
        r["floor_seconds"] = round(flops * (r["computed_tokens"] + r["output_tokens"]) / peak, 1)
        jobs[(m, d)] = r["basis"], r["exact"]
    started: set[str] = set()
    for (m, d), (basis, exact) in jobs.items():
        loads = int(gen["shards"]) if not served(config, m) else int(m not in started)  # a server starts once
        started.add(m)
        rows.append({"model": m, "dataset": d, "condition": "model_load", "basis": basis, "exact": exact,
                     "requests": 0, "prompt_tokens": 0, "reused_tokens": 0, "computed_tokens": 0,
                     "output_tokens": 0, "floor_seconds": 0.0,
                     "gpu_seconds": round(loads * float(planner["model_load_s"]), 1)})
    return rows


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


def _stage(condition: str) -> str:
    return {"primary": "primary", "model_load": "model loads"}.get(condition, "controls")


def format_plan(rows: list[dict], planner: Mapping[str, Any] | None = None) -> str:
    """The request table, GPU hours per stage beside their compute floor, the assumptions, and
    the total line (``total: N requests (C control requests after reuse, ...) ... estimated H
    GPU hours``)."""
    head = (f"{'model':<10} {'dataset':<9} {'condition':<24} {'basis':<8} {'requests':>10} {'prompt_tokens':>14} "
            f"{'reused':>7} {'output_tok':>11} {'gpu_h':>7} {'floor_h':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        share = r.get("reused_tokens", 0) / r["prompt_tokens"] if r["prompt_tokens"] else 0.0
        lines.append(f"{r['model']:<10} {r['dataset']:<9} {r['condition']:<24} {r['basis']:<8} "
                     f"{r['requests']:>10,} {r['prompt_tokens']:>14,} {share:>7.1%} {r.get('output_tokens', 0):>11,} "
                     f"{r['gpu_seconds'] / 3600:>7.2f} {r.get('floor_seconds', 0) / 3600:>7.2f}")
    lines.append("-" * len(head))
    for stage in ("primary", "controls", "model loads"):
        part = [r for r in rows if _stage(r["condition"]) == stage]
        if not part:
            continue
        if stage == "model loads":
            lines.append(f"Study 2 model loads: one engine start per generate job ({len(part)} model x dataset "
                         f"rows; a served model: one server start): about "
                         f"{sum(r['gpu_seconds'] for r in part) / 3600:.2f} GPU hours")
            continue
        pt = sum(r["prompt_tokens"] for r in part)
        reused = sum(r.get("reused_tokens", 0) for r in part)
        lines.append(f"Study 2 {stage}: {sum(r['requests'] for r in part):,} requests, {pt:,} prompt tokens "
                     f"({reused / pt if pt else 0:.1%} from the prefix cache), "
                     f"{sum(r.get('output_tokens', 0) for r in part):,} output tokens: about "
                     f"{sum(r['gpu_seconds'] for r in part) / 3600:.2f} GPU hours "
                     f"(compute floor {sum(r.get('floor_seconds', 0) for r in part) / 3600:.2f})")
    if planner:
        lines.append(f"assumed: prefill at {float(planner['prefill_utilisation']):.0%} of "
                     f"{float(planner['peak_flops']) / 1e12:,.0f} TFLOP/s (2 x parameters FLOP per token), decode "
                     f"{float(planner['output_tokens_per_s']):,.0f} tokens/s, {float(planner['model_load_s']):.0f} s "
                     f"per model load (config generation.planner)")
    tot_r = sum(r["requests"] for r in rows)
    tot_t = sum(r["prompt_tokens"] for r in rows)
    tot_s = sum(r["gpu_seconds"] for r in rows)
    tot_f = sum(r.get("floor_seconds", 0) for r in rows)
    ctl = sum(r["requests"] for r in rows if _stage(r["condition"]) == "controls")
    exact = all(r.get("exact") for r in rows)
    lines.append(f"total: {tot_r:,} requests ({ctl:,} control requests after reuse, "
                 f"{'exact' if exact else 'upper bound: some datasets counted from the config'}), {tot_t:,} prompt "
                 f"tokens, estimated {tot_s / 3600:.2f} GPU hours (compute floor {tot_f / 3600:.2f})")
    return "\n".join(lines)


PLAN_COLUMNS = ["model", "dataset", "condition", "basis", "exact", "requests", "prompt_tokens", "reused_tokens",
                "computed_tokens", "output_tokens", "gpu_hours", "floor_hours"]


def plan_report_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The planner's rows in hours, then one ``all`` row per stage (primary, controls, model
    loads) and a ``total`` row: the figures ``python -m evidence_ledger plan`` prints."""
    def as_row(r, model, dataset, condition):
        return {"model": model, "dataset": dataset, "condition": condition, "basis": r.get("basis", ""),
                "exact": bool(r.get("exact", False)), "requests": int(r["requests"]),
                "prompt_tokens": int(r["prompt_tokens"]), "reused_tokens": int(r.get("reused_tokens", 0)),
                "computed_tokens": int(r.get("computed_tokens", 0)), "output_tokens": int(r.get("output_tokens", 0)),
                "gpu_hours": r["gpu_seconds"] / 3600, "floor_hours": r.get("floor_seconds", 0) / 3600}

    out = [as_row(r, r["model"], r["dataset"], r["condition"]) for r in rows]
    keys = ("requests", "prompt_tokens", "reused_tokens", "computed_tokens", "output_tokens", "gpu_seconds",
            "floor_seconds")
    stages = {"primary": lambda c: c == "primary", "model_loads": lambda c: c == "model_load",
              "controls": lambda c: c not in ("primary", "model_load"), "total": lambda c: True}
    for stage, member in stages.items():
        part = [r for r in rows if member(r["condition"])]
        summed = {k: sum(r.get(k, 0) for r in part) for k in keys}
        summed.update(basis="", exact=all(r.get("exact") for r in part))
        out.append(as_row(summed, "all", "all", stage))
    return out
