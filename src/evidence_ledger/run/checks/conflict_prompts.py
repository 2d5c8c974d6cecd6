"""At start: whether the WikiContradict and DiffGR prompts fit their models' context.

In:  the run's config and run directory; the ingested inputs of the generating jobs where they
     already exist (``results/ingest/wikicontradict/instances.parquet``,
     ``results/ingest/<dataset>/records.parquet``: a rerun, or a run after ingest).
Out: ``(status, line)`` per model x input of a vLLM model (``status``: the preflight's ``ok`` /
     ``FAIL`` / ``note``), area ``plan`` of the preflight.

The request rows are the jobs' own (``wikicontradict.run.wikicontradict_request_rows``,
``diffgr.pipeline.reader_request_rows``, with the values of the keys the rules pass), counted
and judged as the jobs judge them before their engine loads (:mod:`evidence_ledger.generation.prompt_fit`).
Inputs not yet ingested are left to the jobs (an ``ok`` line says so: nothing is wrong yet); the
judge's prompts hold the answers, so only its job checks them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ...errors import ExpectedError
from ...generation.prompt_fit import CHECKED_BACKEND, PromptTokens, context_limit, overflow_line
from ...models.gpu_fit import model_backend


def _ingested(run_dir: Path, dataset: str, name: str) -> Path:
    return run_dir / "results" / "ingest" / dataset / f"{name}.parquet"


def wikicontradict_requests(config: Mapping[str, Any], model: str, run_dir: Path) -> tuple[Path, Callable]:
    """The instances path of ``model``'s ``wikicontradict_generate`` job and a function giving its rows."""
    wc = config["wikicontradict"]
    path = _ingested(run_dir, "wikicontradict", "instances")

    def rows() -> list[dict]:
        from ...tables import read_table
        from ...tables.conflict_inputs import WIKICONTRADICT_INSTANCES
        from ...wikicontradict.run import wikicontradict_request_rows

        instances = read_table(path, WIKICONTRADICT_INSTANCES).to_pylist()
        return wikicontradict_request_rows(instances, model, list(wc["templates"]), wc["max_new_tokens"],
                                           wc["seed"], wc["passage_version"])[0]

    return path, rows


def diffgr_requests(config: Mapping[str, Any], model: str, dataset: str, run_dir: Path) -> tuple[Path, Callable]:
    """The records path of ``model`` x ``dataset``'s ``diffgr_generate`` job and a function giving its rows."""
    dg = config["diffgr"]
    path = _ingested(run_dir, dataset, "records")

    def rows() -> list[dict]:
        from ...diffgr.pipeline import reader_request_rows
        from ...diffgr.reader_setup import reader_system_message_from_config
        from ...tables import read_table
        from ...tables.conflict_inputs import CONFLICT_QA_RECORDS

        records = read_table(path, CONFLICT_QA_RECORDS).to_pylist()
        system = reader_system_message_from_config(model, config["models"][model], dg.get("reader_system_message"))
        return reader_request_rows(records, model, dataset, dg["prompt"], dg["closed_book_prompt"],
                                   context_orders=list(dg["context_orders"]), max_new_tokens=dg["max_new_tokens"],
                                   seed=dg["seed"], threshold=dg["length_threshold"], system_message=system,
                                   shuffle_seed=dg["random_order_seed"])[0]

    return path, rows


def planned_requests(config: Mapping[str, Any], run_dir: Path) -> Iterator[tuple]:
    """(study, rule, model, the columns naming a request, input path, rows function) of every
    planned generating job of the two stages whose model runs on vLLM."""
    from ...diffgr.pipeline import REQUEST_ITEM as DG_ITEM  # the stages' packages (pyarrow, numpy): not on a
    from ...wikicontradict.run import REQUEST_ITEM as WC_ITEM  # submit host, where the preflight notes so

    studies = config.get("studies") or {}
    vllm = [m for m in config["models"] if model_backend(config, m) == CHECKED_BACKEND]
    if studies.get("wikicontradict"):
        for model in (m for m in config["wikicontradict"]["models"] if m in vllm):
            yield ("wikicontradict", "wikicontradict_generate", model, WC_ITEM,
                   *wikicontradict_requests(config, model, run_dir))
    if studies.get("diffgr"):
        for model in (m for m in config["diffgr"]["models"] if m in vllm):
            for dataset in config["diffgr"]["datasets"]:
                yield "diffgr", "diffgr_generate", model, DG_ITEM, *diffgr_requests(config, model, dataset, run_dir)


def conflict_prompt_lines(config: Mapping[str, Any], run_dir: Path) -> list[tuple[str, str]]:
    """The preflight's lines (module doc) for every planned WikiContradict / DiffGR vLLM model."""
    from .context import FAIL, NOTE, OK

    out = []
    max_model_len = ((config.get("generation") or {}).get("vllm") or {}).get("max_model_len")
    for study, rule, model, item_keys, path, rows in planned_requests(config, run_dir):
        what = f"{rule}, models.{model}, {path.relative_to(run_dir)}"
        if not path.is_file():
            out.append((OK, f"{what}: not ingested yet; the job checks its prompts before its engine loads"))
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
        planned = rows()
        line = overflow_line(what, planned, count, limit, key, item_keys, f"{study}.max_new_tokens")
        out.append((FAIL, line) if line else (OK, f"{what}: {len(planned):,} prompts + {study}.max_new_tokens fit "
                                                  f"{key} = {limit:,}"))
    return out
