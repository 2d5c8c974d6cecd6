"""GPU time of the planner's rows: output tokens, prefill and decode time, compute floor, model loads.

In:  the run's config, the planner's rows (requests and prompt tokens per model x dataset x
     condition), the run directory (its RESPONSES, when they exist, give the answers' lengths).
Out: the same rows with ``output_tokens``, ``computed_tokens``, ``gpu_seconds`` and
     ``floor_seconds``, and one ``model_load`` row per model x dataset (:mod:`.planner`).
"""
from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

from ..benchmark_registry import get_benchmark
from ..models.gpu_fit import model_facts, served
from .plan_results import PlannerError
from .plan_tokens import text_token_counter
from .prompts import CODES


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
    count = text_token_counter(config, model, workdir)
    return sum(count(a) for a in answers) / len(answers) + 1


def model_params(config: Mapping[str, Any], model: str, workdir: Path) -> int:
    """Parameters of ``model`` (gpu_fit's facts: a local directory's config.json, else that of the
    model's snapshot in the Hugging Face cache, else the Hub page);
    unknown parameters are a :class:`PlannerError` saying how to make them known."""
    mcfg = config["models"][model]
    facts = model_facts(mcfg.get("hub_id"), mcfg.get("local_dir"), workdir, mcfg.get("revision"))
    if facts.params is None:
        if mcfg.get("local_dir"):
            how = ("it is built by rule build_demo_models: run `snakemake --until build_demo_models` first"
                   if any((m or {}).get("build") and m.get("local_dir") == mcfg["local_dir"]
                          for m in config["models"].values())
                   else "place the model there first")
            raise PlannerError(f"planner: the GPU time of models.{model} needs its parameters, read from "
                               f"{workdir / mcfg['local_dir']}/config.json, which does not exist yet; {how}")
        raise PlannerError(f"planner: parameters of models.{model} unknown ({facts.source}); give it a local_dir "
                           f"holding its config.json, or fetch that file into the Hugging Face cache: "
                           f"hf download {mcfg.get('hub_id')} --revision {mcfg.get('revision') or 'main'} "
                           f"--include config.json")
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
