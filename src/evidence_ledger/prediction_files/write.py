"""Writing an accounting: the pipeline's Study 1 tables, the summary page, ``ledger.json``, the terminal table.

In:  an :class:`~.tables.Accounted` (frames), output paths, and for the ``account`` command
     the inputs and settings it ran with.
Out: under one directory (``account --out``; the pipeline's ``results/account/<system>/``):

  estimates.parquet   ESTIMATES (``tables.accounting``)       estimates.tsv   its report rows
  counts.parquet      CLUSTER_COUNTS (per claim; continuous numerators: CLUSTER_SCORES)  coverage.parquet  COVERAGE
  intervals.parquet   INTERVALS (the Study 1 family)          intervals.tsv   its report rows
  items.parquet       ITEMS: per item its cells, its share of every component, its scores
  item_texts.parquet  ITEM_TEXTS: per item the claim, each run's answer and cited evidence
  answer_metrics.tsv  the answer and evidence rates per source with intervals (labels: accuracy,
                      macro-F1, eligibility; KILT: the answer metric, R-precision and
                      eligibility); header only where the format has none (SciFact)
  and from the command also provenance.tsv (inputs with their sha256, settings, packages),
  summary.html + decomposition.png (the pipeline's summary-page code), items.html (the item
  explorer of items.parquet, ``report.items_page``) and ledger.json.

The report TSVs are those the pipeline writes under ``results/accounting/study1/`` (the
estimates TSV: replicate-averaged rows and per-run T00, T11 and gain).
"""
from __future__ import annotations

import platform
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from .. import tables
from ..report.ledger import LedgerSource, build_ledger, file_sha256, write_ledger
from ..report.provenance import package_versions, write_provenance_tsv
from ..report.accounted import accounted_summary_page
from ..report.items_page import write_items_page
from ..tables.report_tsv import write_report_tsv
from ..accounting.items import write_item_tables
from ..accounting.metrics import is_continuous
from ..tables.accounting import CLUSTER_COUNTS, CLUSTER_SCORES, COVERAGE, ESTIMATES, INTERVALS
from .tables import Accounted

TABLE_FILES = {
    "estimates": "estimates.parquet", "estimates_tsv": "estimates.tsv", "counts": "counts.parquet",
    "coverage": "coverage.parquet", "intervals": "intervals.parquet", "intervals_tsv": "intervals.tsv",
    "metrics_tsv": "answer_metrics.tsv", "item_rows": "items.parquet", "item_texts": "item_texts.parquet",
}
PAGE_FILES = {"provenance": "provenance.tsv", "html": "summary.html", "decomposition": "decomposition.png",
              "ledger": "ledger.json", "items_html": "items.html"}
METRIC_COLUMNS = ("dataset", "system", "parser", "quantity", "classes", "estimate", "lower", "upper", "boot_mean",
                  "boot_sd", "tail", "n_draws", "seed", "n_clusters", "study", "population", "reference",
                  "reference_lower", "reference_upper")
#: packages whose versions an account run records (those its numbers depend on)
ACCOUNT_PACKAGES = ("evidence-ledger", "numpy", "pandas", "pyarrow", "matplotlib")


def estimate_report_rows(estimates: pd.DataFrame) -> pd.DataFrame:
    """The estimates report TSV rows: replicate-averaged rows and each run's T00, T11 and gain
    (``study`` dropped), as the pipeline's ``study1_accounting`` writes them."""
    per_run = (estimates["replicate"] > 0) & estimates["quantity"].isin(["T00", "T11", "gain"])
    return estimates[(estimates["replicate"] == -1) | per_run].drop(columns=["study"])


def counts_schema(counts: pd.DataFrame):
    """CLUSTER_SCORES for continuous numerators (KILT's F1, ROUGE-L), else CLUSTER_COUNTS."""
    return CLUSTER_SCORES if len(counts) and is_continuous(counts["value"].to_numpy()) else CLUSTER_COUNTS


def write_tables(accounted: Accounted, paths: Mapping[str, str]) -> None:
    """The tables and report TSVs at ``paths`` (keys of :data:`TABLE_FILES`)."""
    tables.write_table(accounted.estimates, paths["estimates"], ESTIMATES)
    write_report_tsv(estimate_report_rows(accounted.estimates), paths["estimates_tsv"])
    tables.write_table(accounted.counts, paths["counts"], counts_schema(accounted.counts))
    tables.write_table(accounted.coverage, paths["coverage"], COVERAGE)
    tables.write_table(accounted.intervals, paths["intervals"], INTERVALS)
    write_report_tsv(accounted.intervals, paths["intervals_tsv"])
    metrics = accounted.metrics if accounted.metrics is not None else pd.DataFrame(columns=list(METRIC_COLUMNS))
    write_report_tsv(metrics, paths["metrics_tsv"])
    write_item_tables(accounted.items, accounted.item_texts, paths["item_rows"], paths["item_texts"])


def ledger_sources(paths: Mapping[str, str], rule: str, inputs: Sequence[str]) -> dict[str, LedgerSource]:
    """The ledger's source tables of one accounting: estimates, intervals and answer metrics,
    written by ``rule`` from ``inputs``."""
    return {"estimates": LedgerSource(paths["estimates_tsv"], "estimates", "study1", rule, tuple(inputs)),
            "intervals": LedgerSource(paths["intervals_tsv"], "intervals", "study1", rule, tuple(inputs)),
            "answer_metrics": LedgerSource(paths["metrics_tsv"], "intervals", "study1", rule, tuple(inputs))}


def account_provenance_rows(inputs: Sequence[tuple[str, str]], settings: Mapping) -> list[tuple[str, str, str]]:
    """Rows ``(section, key, value)`` of an account run: run kind and Python, each input file
    (role -> path and sha256), each setting, the package versions."""
    rows = [("run", "kind", "account"), ("run", "python", platform.python_version())]
    rows += [("input", role, f"{path} (sha256 {file_sha256(path)})") for role, path in inputs]
    rows += [("setting", key, str(value)) for key, value in settings.items()]
    rows += [("package", name, version) for name, version in package_versions(ACCOUNT_PACKAGES).items()]
    return rows


def write_account_dir(accounted: Accounted, out: Path, *, title: str, intro: str, caption: str,
                      inputs: Sequence[tuple[str, str]], settings: Mapping, layout: Mapping,
                      matching: Mapping[str, int] | None = None) -> dict[str, Path]:
    """Everything the ``account`` command writes under ``out`` (see the module doc); returns
    name -> path. ``inputs``: ``(role, path)`` of every file read; ``layout``: the format's page
    layout (``AccountedFormat.page_layout``); ``matching``: how the files' lines were paired, where
    the format reports it (``ledger.json``'s ``matching``)."""
    out.mkdir(parents=True, exist_ok=True)
    names = {**TABLE_FILES, **PAGE_FILES}
    paths = {key: str(out / name) for key, name in names.items()}
    write_tables(accounted, paths)
    provenance = account_provenance_rows(inputs, settings)
    write_provenance_tsv(provenance, paths["provenance"])
    accounted_summary_page(title=title, intro=intro, caption=caption, estimates=paths["estimates_tsv"],
                           intervals=paths["intervals_tsv"], metrics=paths["metrics_tsv"],
                           provenance=paths["provenance"], html_out=paths["html"],
                           decomposition_out=paths["decomposition"], layout=layout)
    write_items_page(items=[paths["item_rows"]], item_texts=[paths["item_texts"]], html_out=paths["items_html"],
                     title=f"Evidence Ledger: {title}: the items behind each component")
    ledger = build_ledger(kind="account", sources=ledger_sources(TABLE_FILES, "account", [p for _, p in inputs]),
                          provenance=provenance, settings=settings, base_dir=out, inputs_dir=".",
                          matching=dict(matching) if matching else None)
    write_ledger(ledger, paths["ledger"])
    return {key: Path(p) for key, p in paths.items()}


CELL_ROWS = (
    ("T00", "source-0 answers, source-0 evidence"), ("T01", "source-0 answers, source-1 evidence"),
    ("T10", "source-1 answers, source-0 evidence"), ("T11", "source-1 answers, source-1 evidence"),
    ("gain", "T11 - T00"), ("E0", "evidence change, source-0 answers (T01 - T00)"),
    ("A1", "answer change, source-1 evidence (T11 - T01)"), ("A0", "answer change, source-0 evidence (T10 - T00)"),
    ("E1", "evidence change, source-1 answers (T11 - T10)"), ("interaction", "E1 - E0"),
)


def terminal_table(accounted: Accounted, rate_rows: Sequence[tuple[str, str]] = (),
                   matching: Mapping[str, int] | None = None, matching_rows: Mapping[str, str] | None = None) -> str:
    """The short table the command prints: the cells, the components and the format's
    ``rate_rows`` (labels: accuracy, macro-F1 and eligibility; KILT: the answer metric,
    R-precision and eligibility per source), each with its interval where it has one (points);
    then the ``matching`` counts that ``matching_rows`` explains (files paired by position and
    their ``id_disagreements``)."""
    est = accounted.estimates
    est = est[(est["replicate"] == -1) & (est["part"] == "") & (est["population"] == "all")].set_index("quantity")
    bounds = accounted.intervals.set_index("quantity")[["lower", "upper"]]
    if accounted.metrics is not None:
        bounds = pd.concat([bounds, accounted.metrics.set_index("quantity")[["lower", "upper"]]])
    lines = [f"{'quantity':<17}{'estimate':>9}  {'interval':<18}  meaning"]
    for quantity, meaning in CELL_ROWS + tuple(rate_rows):
        if quantity not in est.index:
            continue
        value = float(est.at[quantity, "value"])
        interval = ""
        if quantity in bounds.index:
            lo, hi = bounds.loc[quantity, ["lower", "upper"]]
            interval = f"[{lo:7.2f}, {hi:7.2f}]"
        lines.append(f"{quantity:<17}{value:9.2f}  {interval:<18}  {meaning}")
    for item, n in (matching or {}).items():
        if item in (matching_rows or {}):
            lines.append(f"{item:<17}{n:9d}  {'':<18}  {matching_rows[item]}")
    return "\n".join(lines)
