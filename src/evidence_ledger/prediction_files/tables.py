"""The accounting of two sources' runs: the tables the pipeline's Study 1 writes.

In:  :class:`~.runs.Runs` (per-item, per-run numbers of one system's source-0 and source-1
     runs, in any format), the system and source names, the draw settings and optionally claim
     families.
Out: :class:`Accounted`: ESTIMATES, CLUSTER_COUNTS, COVERAGE and INTERVALS frames
     (``tables.accounting``) and the answer-metric rows of the Study 1 report
     (``answer_metrics.tsv``), computed by the same functions as the pipeline's
     ``study1_accounting``, ``study1_bootstrap`` and ``study1_answer_metrics``; the ITEMS and
     ITEM_TEXTS of its items (``prediction_files.items``).

Study 1's method ("What Changes When Fact-Verification Scores Improve?", Study 1): T00..T11
and the components (gain, E0, A1, A0, E1, interaction) from exact per-run scores averaged over
runs; where the answers are labels (the runs carry classes: FEVER, FEVEROUS) per-gold-class
contributions, accuracy / macro-F1 / eligibility per source and the Eq. 4 decomposition; where
the answers have a per-item score beside an evidence score (KILT: the answer metric and the
R-precision) those scores and the eligibility per source and Eq. 4 with the continuous answer
score (``accounting.answer_scores``); and intervals from the paired claim bootstrap (runs averaged,
not resampled; every interval from the same claim draws). ``families`` makes claim families
the resampling units (the cluster bootstrap); ``resample_runs`` draws the runs with replacement
in every draw, as Study 2 does with its sampled seeds. Rows carry ``study`` ``study1`` (the
protocol), ``format`` ``official`` (answers from official prediction files), ``parser``
``none`` and ``budget`` ``full``. There is no ``resolved`` population: official files do
not say which cited ids a model could not read.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import tables
from ..accounting.accuracy import study1_metric_job
from ..accounting.estimates import sort_estimates, study1_cell_rows, study1_rows
from ..accounting.intervals import draw_progress_logger, interval_table, panel_interval_job
from ..accounting.answer_scores import (continuous_indicators, continuous_metric_estimates,
                                        continuous_metric_job)
from ..accounting.metrics import is_continuous
from ..accounting.panel import (ClaimIndicators, CountPanel, aggregate_to_families, check_unique_keys,
                                panel_to_frame, sort_claims)
from ..accounting.reference import attach_reference
from ..errors import InputError
from ..resampling.bootstrap import bonferroni_tail, run_jobs
from ..tables.accounting import ESTIMATES
from ..tables.sampling import FAMILIES
from .items import runs_item_texts, runs_items
from .runs import BUDGET, FORMAT, PARSER, Runs


@dataclass(frozen=True)
class DrawSettings:
    """The bootstrap: ``draws`` from ``PCG64(seed)`` in batches of ``batch_size``, percentile
    bounds at the Bonferroni tail ``alpha / (2 family_size)`` (``alpha = 1 - level``)."""

    draws: int
    seed: int
    alpha: float
    family_size: int
    batch_size: int
    resample_runs: bool = False

    @property
    def tail(self) -> float:
        return bonferroni_tail(self.alpha, self.family_size)


@dataclass
class Accounted:
    estimates: pd.DataFrame
    counts: pd.DataFrame
    coverage: pd.DataFrame
    intervals: pd.DataFrame
    metrics: pd.DataFrame | None
    items: pd.DataFrame | None = None  # ITEMS of the one comparison
    item_texts: pd.DataFrame | None = None  # ITEM_TEXTS of its items


def read_families(path, dataset: str, units: list[str]) -> pd.DataFrame:
    """A file mapping claim to family as a FAMILIES frame: the pipeline's FAMILIES Parquet
    table (``results/families/<dataset>/families.parquet``), or a tab-separated text file with
    the header ``claim_id<TAB>family_id``. A claim id that is not a gold claim, a repeated one
    or a gold claim without a family is an InputError naming the file (and line)."""
    path = Path(path)
    if path.suffix == ".parquet":
        frame = tables.read_frame(path, FAMILIES)
        frame = frame[frame["dataset"] == dataset][["claim_id", "family_id"]].astype(str)
        lines = [None] * len(frame)
    else:
        frame, lines = _read_family_tsv(path)
    known = set(units)
    for (claim_id, line) in zip(frame["claim_id"], lines):
        if claim_id not in known:
            raise InputError(path, line, "claim_id", f"claim {claim_id!r} is not a gold claim")
    check_unique_keys(frame, ["claim_id"], str(path))
    missing = [c for c in units if c not in set(frame["claim_id"])]
    if missing:
        raise InputError(path, None, "claim_id", f"{len(missing)} gold claims have no family; first: {missing[0]!r}")
    return frame.assign(dataset=dataset)


def _read_family_tsv(path: Path) -> tuple[pd.DataFrame, list[int]]:
    rows, lines = [], []
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if header != ["claim_id", "family_id"]:
            raise InputError(path, 1, None, f"header {header!r}; expected 'claim_id<TAB>family_id'")
        for number, text in enumerate(handle, start=2):
            if not text.strip():
                continue
            fields = text.rstrip("\n").split("\t")
            if len(fields) != 2 or not all(fields):
                raise InputError(path, number, None, f"expected 'claim_id<TAB>family_id', got {text.rstrip()!r}")
            rows.append(fields)
            lines.append(number)
    return pd.DataFrame(rows, columns=["claim_id", "family_id"]), lines


def claim_panel(runs: Runs, *, system: str, sources: tuple[str, str]) -> CountPanel:
    """The claim panel of the runs: one format, one budget, runs as replicates 1..R (continuous
    numerators kept in float64, the integer counts in int64)."""
    K, R = runs.num.shape[:2]
    num_dtype = np.float64 if is_continuous(runs.num) else np.int64
    return CountPanel(runs.format, system, runs.metric, list(runs.units), runs.replicates, [FORMAT],
                      list(sources), [BUDGET], [BUDGET], runs.num.reshape(K, R, 1, 2, 1, 2, 1).astype(num_dtype),
                      runs.den.reshape(K, R, 1, 2, 1).astype(np.int64))


def claim_indicators(runs: Runs, sources: tuple[str, str]) -> ClaimIndicators:
    """The per-claim factorised indicators of runs whose answers are labels (nothing is unresolved)."""
    return ClaimIndicators(list(runs.units), runs.replicates, list(sources), runs.answer, runs.eligible,
                           runs.predicted, runs.gold_class, np.zeros(len(runs.units), dtype=bool))


def answer_frame(runs: Runs, *, system: str, sources: tuple[str, str]) -> pd.DataFrame:
    """ANSWER_INDICATORS rows of runs whose answers are labels (one per claim x run x source)."""
    K, R, A = runs.answer.shape
    k, r, a = (x.ravel() for x in np.meshgrid(np.arange(K), np.arange(R), np.arange(A), indexing="ij"))
    return pd.DataFrame({
        "dataset": runs.format, "system": system, "format": FORMAT, "replicate": np.asarray(runs.replicates)[r],
        "parser": PARSER, "answer_source": np.asarray(sources, dtype=object)[a], "answer_budget": BUDGET,
        "claim_id": np.asarray(runs.units, dtype=object)[k], "doc_id": "", "gold_label": runs.gold_class[k],
        "predicted_label": runs.predicted[k, r, a], "label_correct": runs.answer[k, r, a].astype(bool),
        "submitted": True,
    })


def account_runs(runs: Runs, *, system: str, sources: tuple[str, str], settings: DrawSettings,
                 families: pd.DataFrame | None = None, families_path: str = "families", log=None) -> Accounted:
    """Every Study 1 quantity of the runs with its interval (see the module doc); ``log``: a
    logger for the draws' progress (a tqdm bar on stderr and a line at every 10%)."""
    if len(sources) != 2 or sources[0] == sources[1]:
        raise ValueError(f"two different source names are needed, got {list(sources)}")
    panel = claim_panel(runs, system=system, sources=sources)
    reps = runs.replicates
    labelled = runs.gold_class is not None
    scored = not labelled and all(x is not None for x in (runs.answer, runs.eligible, runs.evidence))
    if labelled:
        ind = claim_indicators(runs, sources)
        rows = study1_rows({"all": panel}, ind, gold=runs.gold_class, classes=sort_claims(runs.gold_class),
                           dataset=runs.format, system=system, parser=PARSER, fmt=FORMAT, budget=BUDGET,
                           replicates=reps)
    else:
        rows = study1_cell_rows(panel, dataset=runs.format, system=system, parser=PARSER, fmt=FORMAT,
                                budget=BUDGET, replicates=reps)
    if scored:
        rows += continuous_metric_estimates(
            continuous_indicators(runs.units, reps, sources, runs.answer, runs.eligible), runs.evidence,
            metric=runs.answer_name, evidence_name=runs.evidence_name, dataset=runs.format, system=system,
            parser=PARSER, fmt=FORMAT, budget=BUDGET)
    estimates = sort_estimates(attach_reference(pd.DataFrame(rows), None))[list(ESTIMATES.columns)]
    counts = panel_to_frame(panel, study="study1", population="all", parser=PARSER)

    cluster_of = None
    boot_panel = panel
    if families is not None:
        boot_panel = aggregate_to_families(panel, families, path=families_path)
        fam_ids = boot_panel.units
        cluster_of = families.set_index("claim_id")["family_id"].reindex(panel.units).map(
            {f: i for i, f in enumerate(fam_ids)}).to_numpy(dtype=np.int64)
    # every interval from one set of claim (family) draws: the components' and the answer metrics'
    jobs = [panel_interval_job(boot_panel, "study1", replicates=reps, resample_seeds=settings.resample_runs,
                               draws=settings.draws, seed=settings.seed, batch_size=settings.batch_size,
                               tail=settings.tail)]
    if labelled:
        jobs.append(study1_metric_job(
            answer_frame(runs, system=system, sources=sources), runs.units, dataset=runs.format, system=system,
            parser=PARSER, sources=sources, replicates=reps, classes=sort_claims(runs.gold_class),
            draws=settings.draws, seed=settings.seed, tail=settings.tail, eligible=runs.eligible,
            cluster_of=cluster_of))
    elif scored:
        jobs.append(continuous_metric_job(runs.answer, runs.evidence, runs.eligible, metric=runs.answer_name,
                                          evidence_name=runs.evidence_name, dataset=runs.format, system=system,
                                          parser=PARSER, draws=settings.draws, seed=settings.seed,
                                          tail=settings.tail, cluster_of=cluster_of))
    results = run_jobs(jobs, draws=settings.draws, seed=settings.seed, batch_size=settings.batch_size,
                       resample_seeds=settings.resample_runs,
                       progress=draw_progress_logger(log, f"{system}/intervals", settings.draws))
    intervals = interval_table(results[0], study="study1", family="study1", population_of="all",
                               family_size=settings.family_size, reference=None)
    metrics = None
    if len(results) > 1:
        metrics = attach_reference(pd.DataFrame(results[1]).assign(study="study1", population="all"), None)

    coverage = {"population_claims": len(runs.units), "runs_per_source": runs.n_runs,
                "clusters": len(boot_panel.units), **runs.facts}
    coverage = pd.DataFrame([{"study": "study1", "population": "all", "dataset": runs.format, "system": system,
                              "parser": PARSER, "item": item, "count": int(n)} for item, n in coverage.items()])
    items = runs_items(runs, system=system, sources=sources, families=families)
    return Accounted(estimates, counts, coverage, intervals, metrics, items,
                     runs_item_texts(runs, system=system, sources=sources))
