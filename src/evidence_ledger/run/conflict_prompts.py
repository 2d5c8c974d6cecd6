"""At start: whether the WikiContradict and DiffGR prompts fit their models' context.

In:  the run's config and run directory; the ingested inputs of the generating jobs where they
     already exist (``results/ingest/wikicontradict/instances.parquet``,
     ``results/ingest/<dataset>/records.parquet``: a rerun, or a run after ingest).
Out: ``(status, line)`` per model x input of a vLLM model (``status``: the preflight's ``ok`` /
     ``FAIL`` / ``note``), area ``plan`` of the preflight.

The request rows are the jobs' own (``wikicontradict.run.wikicontradict_request_rows``,
``diffgr.pipeline.reader_request_rows``, with the values of the keys the rules pass), counted
and judged as the jobs judge them before their engine loads (:mod:`evidence_ledger.generation.prompt_fit`).
Inputs not yet ingested are left to the jobs (a note says so); the judge's prompts hold the
answers, so only its job checks them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import ExpectedError
from ..generation.prompt_fit import CHECKED_BACKEND, PromptTokens, context_limit, overflow_line
from ..models.gpu_fit import model_backend


def _ingested(run_dir: Path, dataset: str, name: str) -> Path:
    return run_dir / "results" / "ingest" / dataset / f"{name}.parquet"


def wikicontradict_requests(config: Mapping[str, Any], run_dir: Path) -> Iterator[tuple[str, Path, Any]]:
    """(model, instances path, rows or None when not ingested) of every WikiContradict model."""
    wc = config["wikicontradict"]
    path = _ingested(run_dir, "wikicontradict", "instances")
    for model in wc["models"]:
        if not path.is_file():
            yield model, path, None
            continue
        from ..tables import read_table
        from ..tables.conflict_inputs import WIKICONTRADICT_INSTANCES
        from ..wikicontradict.run import wikicontradict_request_rows

        instances = read_table(path, WIKICONTRADICT_INSTANCES).to_pylist()
        rows, _ = wikicontradict_request_rows(instances, model, list(wc["templates"]), wc["max_new_tokens"],
                                              wc["seed"], wc["passage_version"])
        yield model, path, rows


def diffgr_requests(config: Mapping[str, Any], run_dir: Path) -> Iterator[tuple[str, Path, Any]]:
    """(model, records path, rows or None when not ingested) of every DiffGR model x dataset."""
    dg = config["diffgr"]
    for model in dg["models"]:
        for dataset in dg["datasets"]:
            path = _ingested(run_dir, dataset, "records")
            if not path.is_file():
                yield model, path, None
                continue
            from ..diffgr.pipeline import reader_request_rows
            from ..diffgr.reader_setup import reader_system_message_from_config
            from ..tables import read_table
            from ..tables.conflict_inputs import CONFLICT_QA_RECORDS

            records = read_table(path, CONFLICT_QA_RECORDS).to_pylist()
            system = reader_system_message_from_config(model, config["models"][model], dg.get("reader_system_message"))
            rows, _ = reader_request_rows(records, model, dataset, dg["prompt"], dg["closed_book_prompt"],
                                          context_orders=list(dg["context_orders"]),
                                          max_new_tokens=dg["max_new_tokens"], seed=dg["seed"],
                                          threshold=dg["length_threshold"], system_message=system,
                                          shuffle_seed=dg["random_order_seed"])
            yield model, path, rows


STAGES = (("wikicontradict", "wikicontradict_generate", wikicontradict_requests, ("instance_id", "template")),
          ("diffgr", "diffgr_generate", diffgr_requests, ("question_id", "run", "order")))


def conflict_prompt_lines(config: Mapping[str, Any], run_dir: Path) -> list[tuple[str, str]]:
    """The preflight's lines (module doc) for every planned WikiContradict / DiffGR vLLM model."""
    from .preflight import FAIL, NOTE, OK

    out = []
    studies = config.get("studies") or {}
    max_model_len = ((config.get("generation") or {}).get("vllm") or {}).get("max_model_len")
    for study, rule, requests, item_keys in STAGES:
        if not studies.get(study):
            continue
        for model, path, rows in requests(config, run_dir):
            if model_backend(config, model) != CHECKED_BACKEND:
                continue
            what = f"{rule}, models.{model}, {path.relative_to(run_dir)}"
            if rows is None:
                out.append((NOTE, f"{what}: not ingested yet; the job checks its prompts before its engine loads"))
                continue
            spec = dict(config["models"][model])
            if spec.get("local_dir") and not Path(spec["local_dir"]).is_absolute():
                spec["local_dir"] = str(run_dir / spec["local_dir"])
            limit, key = context_limit(max_model_len, model, spec, run_dir)
            if not limit:
                continue
            try:
                count = PromptTokens.of_model(spec)
            except (ExpectedError, OSError, ValueError) as err:
                out.append((NOTE, f"{what}: prompts not counted, the tokenizer does not load here "
                                  f"({str(err).splitlines()[0] if str(err) else type(err).__name__}); the job counts them"))
                continue
            line = overflow_line(what, rows, count, limit, key, item_keys, f"{study}.max_new_tokens")
            out.append((FAIL, line) if line else (OK, f"{what}: {len(rows):,} prompts + {study}.max_new_tokens fit "
                                                      f"{key} = {limit:,}"))
    return out
