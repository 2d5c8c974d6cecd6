"""Generation planner: ``python -m evidence_ledger plan --configfile CONFIG``.

In:  a workflow config file (YAML) and, when they exist, the pipeline's sampled populations
     (``results/sampling/{dataset}/sample.parquet``) and evidence tables
     (``results/evidence/{dataset}/evidence.parquet``), relative to ``--workdir``.
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

Each row carries ``exact`` (True for the ``evidence`` basis). Config-mode counts cannot be
exact: a ``gold`` control with no annotated evidence (FEVER NEI claims, SciFact abstracts
without a rationale) shows empty evidence and so *is* the ``none`` request (reused), gold
evidence that does not fit the budget is not asked, and two orderings may show the same text;
all of that is known only from the evidence tables. ``--exact`` refuses to print upper bounds.
The pipeline's own exact count after reuse is rule ``control_generations`` (from the request
tables); see docs/accounting.md for how it compares with the paper's 42,834.

A condition's count is the number of *new* unique requests it adds after all earlier
conditions (primary first), i.e. reuse of identical requests is credited to the first
condition that needs them. Estimated GPU seconds =
``prompt_tokens / planner.prompt_tokens_per_s + requests * max_new_tokens / planner.output_tokens_per_s``
(``max_new_tokens`` is an upper bound on output length, so the estimate is conservative).

Below the request table the text output prints the GPU-fit table of every GPU job the config
runs (:mod:`evidence_ledger.gpu_fit`: weights, KV-cache room, tokens of KV that fit against
``max_model_len``, GPUs needed, whether the job fits one GPU of ``device_memory_gb``), the same
arithmetic the workflow checks when it starts.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

from ..gpu_fit import config_device_memory_gb, format_gpu_fit, gpu_fit_rows
from .requests import enumerate_conditions, plan_requests

# Relative data_root values in a config are relative to the repository (as in the Snakefile).
REPO_ROOT = Path(__file__).resolve().parents[3]


def results_match_config(config: Mapping[str, Any], dataset: str, workdir: Path) -> bool:
    """Whether ``workdir/results`` was produced for this config's sample of ``dataset``.

    A sample drawn from another claims file (its ``source_file`` is not the file this config
    names under ``data_root``), or whose row count differs from a configured hash-sample size
    ``n``, belongs to another config (e.g. the demo's results when planning the paper config
    from the repo root): the planner then counts from the config instead of mixing the two."""
    import pyarrow.parquet as pq

    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    if not sample.exists():
        return True  # nothing to contradict the config
    settings = config.get("sampling", {}).get(dataset) or {}
    n = settings.get("n")
    table = pq.read_table(sample, columns=["source_file"])
    if n is not None and table.num_rows != int(n):
        return False
    claims_file = ((config.get("data", {}).get(dataset) or {}).get("claims") or {}).get(settings.get("split", "dev"))
    if table.num_rows and claims_file and "data_root" in config:
        root = Path(config["data_root"])
        if not root.is_absolute():
            root = REPO_ROOT / root
        expected = (root / claims_file).resolve()
        if Path(table.column(0)[0].as_py()).resolve() != expected:
            return False
    return True


def _population(config: Mapping[str, Any], dataset: str, workdir: Path) -> tuple[int, str]:
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    if sample.exists() and results_match_config(config, dataset, workdir):
        import pyarrow.parquet as pq

        return pq.ParquetFile(sample).metadata.num_rows, "sample"
    n = (config.get("sampling", {}).get(dataset) or {}).get("n")
    if n is None:
        n = config["generation"]["planner"]["population"].get(dataset)
    if n is None:
        raise ValueError(f"planner: no population size for {dataset}: set sampling.{dataset}.n "
                         f"or generation.planner.population.{dataset}")
    return int(n), "config"


def _condition_name(c) -> str:
    if c.condition == "primary":
        return "primary"
    if c.condition == "code_mapping":
        return f"code_mapping:{c.code_mapping}"
    return f"control:{c.condition}"


def plan_from_config(config: Mapping[str, Any], dataset: str, model: str, workdir: Path) -> list[dict]:
    """Counts per condition from population sizes alone (see module docstring)."""
    gen = config["generation"]
    planner = gen["planner"]
    n_claims, _ = _population(config, dataset, workdir)
    units = n_claims * int(planner.get("docs_per_claim", {}).get(dataset, 1))
    out: OrderedDict[str, dict] = OrderedDict()
    seen_none_formats: set[tuple[str, str]] = set()
    for c in enumerate_conditions(gen):
        name = _condition_name(c)
        if c.source == "none":
            key = (c.format, c.code_mapping)
            if key in seen_none_formats:
                continue
            seen_none_formats.add(key)
        budgets = config["evidence"]["budgets"]
        ev_tokens = 0 if c.source == "none" else int(budgets[c.budget])
        d = out.setdefault(name, {"requests": 0, "prompt_tokens": 0})
        d["requests"] += units
        d["prompt_tokens"] += units * (int(planner["prompt_tokens_overhead"]) + ev_tokens)
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "config", "exact": False, **v}
            for k, v in out.items()]


def _token_counter(config: Mapping[str, Any], model: str, workdir: Path):
    mcfg = config.get("models", {}).get(model, {})
    local = mcfg.get("local_dir")
    if local and (workdir / local).is_dir():
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(str(workdir / local), local_files_only=True, trust_remote_code=False)
            kwargs = dict(mcfg.get("chat_template_kwargs") or {})

            def count(msgs):
                text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, **kwargs)
                return len(tok(text, add_special_tokens=False)["input_ids"])

            return count
        except Exception:  # a broken local dir falls back to the character estimate
            pass
    cpt = float(config["generation"]["planner"]["chars_per_token"])
    return lambda msgs: int(round(sum(len(m["content"]) for m in msgs) / cpt))


def plan_from_evidence(config: Mapping[str, Any], dataset: str, model: str, workdir: Path,
                       evidence_path: Path) -> list[dict]:
    """Exact de-duplicated counts from the evidence table (see module docstring)."""
    from ..tables import read_table
    from ..tables.evidence import EVIDENCE

    gen = config["generation"]
    sample = workdir / "results" / "sampling" / dataset / "sample.parquet"
    evidence = read_table(evidence_path, EVIDENCE).to_pylist()
    if sample.exists():
        import pyarrow.parquet as pq

        claims = pq.read_table(sample).to_pylist()
    else:  # population = every claim that has evidence; a distinct stand-in text per claim, so
        # greedy requests of two claims never coincide through the missing text
        claims = [{"claim_id": str(e["claim_id"]), "claim": f"claim {e['claim_id']}", "label": "",
                   "gold_abstracts": []} for e in evidence]
    table, _ = plan_requests(model, dataset, claims, evidence, gen, str(evidence_path))
    count_tokens = _token_counter(config, model, workdir)
    order = [_condition_name(c) for c in enumerate_conditions(gen)]
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
    return [{"model": model, "dataset": dataset, "condition": k, "basis": "evidence", "exact": True, **v}
            for k, v in out.items()]


def plan(config: Mapping[str, Any], workdir: Path) -> list[dict]:
    """Rows {model, dataset, condition, basis, requests, prompt_tokens, gpu_seconds}."""
    gen = config["generation"]
    planner = gen["planner"]
    rows = []
    for model in gen["models"]:
        for dataset in gen["datasets"]:
            ev = workdir / "results" / "evidence" / dataset / "evidence.parquet"
            use_results = ev.exists() and results_match_config(config, dataset, workdir)
            part = (plan_from_evidence(config, dataset, model, workdir, ev) if use_results
                    else plan_from_config(config, dataset, model, workdir))
            rows.extend(part)
    for r in rows:
        r["gpu_seconds"] = round(
            r["prompt_tokens"] / float(planner["prompt_tokens_per_s"])
            + r["requests"] * int(gen["max_new_tokens"]) / float(planner["output_tokens_per_s"]), 1)
    return rows


def format_plan(rows: list[dict]) -> str:
    head = f"{'model':<10} {'dataset':<9} {'condition':<24} {'basis':<8} {'requests':>10} {'prompt_tokens':>14} {'gpu_h':>8}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['model']:<10} {r['dataset']:<9} {r['condition']:<24} {r['basis']:<8} "
                     f"{r['requests']:>10,} {r['prompt_tokens']:>14,} {r['gpu_seconds'] / 3600:>8.2f}")
    tot_r = sum(r["requests"] for r in rows)
    tot_t = sum(r["prompt_tokens"] for r in rows)
    tot_s = sum(r["gpu_seconds"] for r in rows)
    ctl = sum(r["requests"] for r in rows if r["condition"] != "primary")
    exact = all(r.get("exact") for r in rows)
    lines.append("-" * len(head))
    lines.append(f"total: {tot_r:,} requests ({ctl:,} control requests after reuse, "
                 f"{'exact' if exact else 'upper bound: some datasets counted from the config'}), {tot_t:,} prompt "
                 f"tokens, estimated {tot_s / 3600:.2f} GPU hours")
    return "\n".join(lines)


def planned_config(configfiles: list[str]) -> dict:
    """The run config the workflow would build from ``configfiles`` (config_layers), validated as
    the workflow validates it at start (schema, then the agreement and revision checks); a plan
    needs no data, so an unset ``data_root`` is not an error here."""
    import jsonschema
    import yaml

    from evidence_ledger.config_checks import agreement_errors, revision_pin_errors
    from evidence_ledger.config_layers import layered_config, repo_root

    repo = repo_root()
    config = layered_config(repo, configfiles)
    schema = yaml.safe_load((repo / "workflow" / "schemas" / "config.schema.yaml").read_text())
    try:
        jsonschema.validate(config, schema)
    except jsonschema.ValidationError as err:
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise SystemExit(f"plan: config key {where}: {err.message}") from None
    errors = agreement_errors(config) + revision_pin_errors(config)
    if errors:
        raise SystemExit("plan: config:\n  - " + "\n  - ".join(errors))
    return config


def run(args: argparse.Namespace) -> int:
    config = planned_config(args.configfile)
    rows = plan(config, Path(args.workdir))
    if args.exact:
        missing = sorted({f"{r['model']}/{r['dataset']}" for r in rows if not r["exact"]})
        if missing:
            print(f"plan --exact: no evidence table for this config under {args.workdir}/results for "
                  f"{', '.join(missing)}; run the pipeline up to assemble_evidence first", file=sys.stderr)
            return 2
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_plan(rows))
        print()
        print(format_gpu_fit(gpu_fit_rows(config, args.workdir), config_device_memory_gb(config)))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("plan", help="count generation requests and estimate GPU time")
    p.add_argument("--configfile", required=True, nargs="+",
                   help="config layers over config/defaults.yaml, as given to snakemake (e.g. config/paper.yaml)")
    p.add_argument("--workdir", default=".", help="directory holding results/ (default: current)")
    p.add_argument("--json", action="store_true", help="print rows as JSON instead of a table")
    p.add_argument("--exact", action="store_true",
                   help="fail unless every count is exact (built from the evidence tables, not the config)")
    p.set_defaults(func=run)
