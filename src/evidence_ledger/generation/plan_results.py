"""Whether a run directory's results were made for a config, and the population the planner counts.

In:  the run's config, the run directory (``workdir``) and its ``results/sampling/{dataset}/``
     (``sample.parquet``, ``sample_summary.tsv``) and evidence rows.
Out: why a sample or an evidence table was not made for this config (None when it was), and the
     population size of a dataset (the matching sample's rows, else the config's size);
     :class:`PlannerError`, the error every part of the planner raises.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..errors import ExpectedError
from ..evidence.budget import budget_tokenizer_models


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


def population(config: Mapping[str, Any], dataset: str, workdir: Path, data_root: Path | None = None
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
