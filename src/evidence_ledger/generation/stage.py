"""File-level entry points of the generation rules (read tables, call the library, write).

Each function here is what the job of the rule of its name calls (keyword-only, paths and plain
values):
  plan_requests     CLAIMS (Study 2 population) + EVIDENCE -> REQUESTS of one model x dataset
  generate          REQUESTS -> RESPONSES of one shard, through the response cache (one engine
                    per job, ``call_size`` requests per call in shared-prefix order; first ends
                    the processes a killed earlier attempt left, :mod:`.orphans`)
  gather_responses  REQUESTS + shard RESPONSES -> RESPONSES (every planned request once)
  parse_responses   REQUESTS + RESPONSES -> PARSED + parse-failure TSV
  generation_plan   the run's config + its evidence and parsed answers -> the planner's table
                    (``python -m evidence_ledger plan`` for this run) as a report TSV
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from ..tables.report_tsv import write_report_tsv
from ..tables import read_table, write_table
from ..tables.evidence import EVIDENCE
from ..tables.generation import PARSED, REQUESTS, RESPONSES
from ..tables.ingest import CLAIMS
from . import parsing
from . import requests as request_table
from .backends import load_backend, model_spec_from_config
from .cache import ResponseCache
from .orphans import end_orphans, record_processes
from .responses import gather_shard_responses, generate_responses, unique_requests

log = logging.getLogger(__name__)

_PARSE_FAILURE_COLUMNS = ["model", "dataset", "format", "n", "strict_invalid", "strict_invalid_rate",
                         "lenient_invalid", "lenient_invalid_rate"]


def plan_requests(
    *,
    claims: str,
    evidence: str,
    requests: str,
    model: str,
    dataset: str,
    seeds: Sequence[int],
    temperature: float,
    top_p: float,
    top_k: int,
    repetition_penalty: float,
    max_new_tokens: int,
    formats: Sequence[str],
    sources: Sequence[str],
    budgets: Sequence[str],
    code_mappings: Mapping[str, Any],
    control_sources: Sequence[str],
    control_budgets: Sequence[str],
    control_formats: Sequence[str],
    control_code_mapping_budgets: Sequence[str],
    control_design: str,
    shards: int,
) -> None:
    """Write the REQUESTS table of ``model`` x ``dataset`` (config ``generation.*``) to ``requests``."""
    settings = {
        "seeds": seeds,
        "sampling": {"temperature": temperature, "top_p": top_p, "top_k": top_k,
                     "repetition_penalty": repetition_penalty},
        "max_new_tokens": max_new_tokens,
        "formats": formats,
        "sources": sources,
        "budgets": budgets,
        "code_mappings": code_mappings,
        "controls": {"sources": control_sources, "budgets": control_budgets, "formats": control_formats,
                     "code_mapping_budgets": control_code_mapping_budgets, "design": control_design},
    }
    claim_rows = read_table(claims, CLAIMS).to_pylist()
    evidence_rows = read_table(evidence, EVIDENCE).to_pylist()
    table, skipped = request_table.plan_requests(model, dataset, claim_rows, evidence_rows, settings,
                                                 evidence_path=evidence, n_shards=shards)
    unique = len(set(table.column("request_id").to_pylist()))
    log.info("%d request rows, %d unique requests; control rows skipped (evidence does not fit / absent): %s",
             table.num_rows, unique, skipped)
    write_table(table, requests, REQUESTS)


def generate(
    *,
    requests: str,
    responses: str,
    model: str,
    shard: int,
    model_spec: Mapping[str, Any],
    backend: str,
    backend_options: Mapping[str, Any],
    cache_dir: str,
    call_size: int,
) -> None:
    """Generate the unique requests of ``shard`` with ``model`` (its ``models:`` entry
    ``model_spec``) on ``backend`` through the cache in ``cache_dir``, ``call_size`` requests
    per backend call; write RESPONSES. The PID file ``.generate_{shard}.pid`` beside
    ``responses`` names this attempt's processes, so a rerun ends them if they outlived a kill."""
    shard = int(shard)
    pid_file = Path(responses).parent / f".generate_{shard}.pid"
    end_orphans(pid_file)
    record_processes(pid_file)
    table = read_table(requests, REQUESTS)
    n = len(unique_requests(table, shard))
    spec = model_spec_from_config(model, model_spec)
    log.info("model %s from %s (revision %r, weights %s); backend %s; %d unique requests in shard %d",
             spec.name, spec.path, spec.revision, spec.weights_hash[:12], backend, n, shard)
    loaded = load_backend(backend, spec, **dict(backend_options))
    record_processes(pid_file)  # again: the engine may have started child processes
    log.info("engine options: %s", getattr(loaded, "engine_kwargs", dict(backend_options)))
    progress = _LoggedProgress(n, "generate")
    try:
        out = generate_responses(table, loaded, ResponseCache(cache_dir), shard=shard,
                                 call_size=int(call_size), progress=progress.update)
        _log_prefix_cache(loaded)
    finally:
        loaded.close()
    write_table(out, responses, RESPONSES)
    log.info("wrote %d responses", out.num_rows)
    pid_file.unlink(missing_ok=True)


def _log_prefix_cache(backend) -> None:
    """Log the engine's own prefix-cache hit rate (vLLM backend; others have none)."""
    stats = backend.prefix_cache_stats() if hasattr(backend, "prefix_cache_stats") else None
    if stats and stats["queries"]:
        log.info("vLLM prefix cache: %d of %d prompt tokens served from cache (%.1f%%)",
                 stats["hits"], stats["queries"], 100.0 * stats["hits"] / stats["queries"])


def gather_responses(*, requests: str, shards: Sequence[str], responses: str) -> None:
    """Concatenate the shard RESPONSES (each planned request exactly once) into ``responses``."""
    planned = read_table(requests, REQUESTS, columns=["request_id"])
    table = gather_shard_responses(planned, [read_table(p, RESPONSES) for p in shards])
    write_table(table, responses, RESPONSES)
    log.info("gathered %d responses from %d shards", table.num_rows, len(shards))


def parse_responses(
    *, requests: str, responses: str, parsed: str, failures: str, code_mappings: Mapping[str, Any]
) -> None:
    """Strict and lenient labels of every response (PARSED) and the INVALID counts per format (TSV)."""
    request_rows = read_table(requests, REQUESTS)
    response_rows = read_table(responses, RESPONSES)
    table, failure_rows = parsing.parse_responses(request_rows, response_rows,
                                                  request_table.code_mappings({"code_mappings": code_mappings}))
    write_table(table, parsed, PARSED)
    _write_parse_failures(failure_rows, failures)
    for row in failure_rows:
        log.info("%s", row)


def _write_parse_failures(rows: Sequence[Mapping[str, Any]], path: str) -> None:
    write_report_tsv(pd.DataFrame(list(rows), columns=list(_PARSE_FAILURE_COLUMNS)), path)


class _LoggedProgress:
    """Progress of a long loop as log lines: at most one every ``interval`` seconds, and the last."""

    def __init__(self, total: int, desc: str, interval: float = 5.0):
        self.total, self.desc, self.interval = total, desc, interval
        self.done = 0
        self._last = time.monotonic()

    def update(self, k: int) -> None:
        self.done += k
        now = time.monotonic()
        if now - self._last >= self.interval or self.done >= self.total:
            self._last = now
            log.info("%s: %d/%d", self.desc, self.done, self.total)


def generation_plan(*, config: Mapping[str, Any], workdir: str, out: str, data_root: str | None = None) -> None:
    """The planner (:mod:`.planner`) on this run's config and results: counts from the evidence
    tables (exact, identical requests removed), prompt tokens net of prefix reuse, output tokens
    from the cached answers, GPU hours per stage beside the compute floor; written as a TSV for
    the report, its printed form to the log. ``data_root``: the run's data directory as the
    workflow resolved it (its claims files identify the run's samples)."""
    from .plan_format import PLAN_COLUMNS, format_plan, plan_report_rows
    from .planner import plan

    rows = plan(config, Path(workdir), Path(data_root) if data_root else None)
    log.info("generation plan of this run:\n%s", format_plan(rows, config["generation"]["planner"]))
    write_report_tsv(pd.DataFrame(plan_report_rows(rows), columns=PLAN_COLUMNS), out)
