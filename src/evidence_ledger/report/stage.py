"""Rule functions of the report stage (one per rule of ``workflow/rules/report.smk``).

  provenance    the resolved config + the repository -> provenance TSV (section, key, value) and
                the GPU-fit TSV (one row per GPU rule x model)
  claim_traces  PATTERN_TRACES + per dataset the Study 2 sample (CLAIMS), EVIDENCE and UNITS
                -> claim_traces TSV (one row per selected trace)
  summary_page  the report TSVs of the studies (+ Figure 1 PNG) and the provenance TSV -> summary
                HTML page (its run-kind banner and headline marked as the report's landing
                part) and the Study 1 decomposition PNG
  items_page    every ITEMS / ITEM_TEXTS pair the accountings wrote -> the item explorer HTML
                (``report.items_page``)
  ledger        the headline report TSVs, the files their rules read and the provenance TSV ->
                ledger.json (every headline number with its provenance, the run's settings)

Each takes paths and plain values (keyword-only).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from ..models.gpu_fit import gpu_fit_rows
from ..tables.report_tsv import write_report_tsv
from ..files.safe_files import write_text_atomic
from ..tables import read_filtered, read_frame
from ..tables.accounting import PATTERN_TRACES
from ..tables.evidence import EVIDENCE
from ..tables.ingest import CLAIMS
from ..tables.ingest_readers import read_units
from .accounted import accounted_sections
from .decomposition import decomposition_figure
from .items_page import write_items_page
from .ledger import LedgerSource, build_ledger, read_provenance_rows, write_ledger
from .provenance import provenance_rows, write_provenance_tsv
from .sources import read_source_table
from .conflict_sections import diffgr_section, wikicontradict_section
from .run_sections import (headline_section, provenance_section, run_kind_section, substitutes_section,
                           whole_table_section)
from .study1_sections import eq4_section, study1_bars, study1_population_section, study1_section
from .study2_sections import (answer_accuracy_section, controls_section, crossed_section, decision_section,
                              endpoints_section, invalid_rates_section, partition_section)
from .summary import render_page
from .traces import TRACE_COLUMNS, build_trace_rows, select_traces, trace_unit_ids

log = logging.getLogger(__name__)


GPU_FIT_COLUMNS = ("rule", "key", "precision", "engine", "params", "source", "tp", "weights_gb", "kv_room_gb",
                   "kv_tokens", "max_model_len", "utilization", "gpus_needed", "fits", "device_memory_gb")


def provenance(*, config: Mapping, repo, verifier_base_dir=None, out, device_memory_gb: float | None = None,
               gpu_fit_out=None, budget_tokenizers: Mapping | None = None) -> None:
    """Config hash, git commit, package versions, what ran in each model slot, model revisions,
    backend settings and substitutes for author-held inputs of a run. ``repo``: the workflow
    directory (its git state is recorded); ``verifier_base_dir``: ``verifier.base_model.local_dir``
    resolved in ``data_root`` (None when unset). ``gpu_fit_out``: also the GPU-fit table
    (:func:`evidence_ledger.models.gpu_fit.gpu_fit_rows`, GPUs of ``device_memory_gb``) of every GPU
    job the config runs, with the facts of the local model directories as built (the table
    ``python -m evidence_ledger plan`` prints; computed for the configured GPU whether or not
    this run used one). ``budget_tokenizers``: name -> {"path", "revision"} of the tokenizers that
    bounded the evidence budgets (their tokenizer.json hashes are recorded)."""
    rows = provenance_rows(config, Path(repo), verifier_base_dir, budget_tokenizers)
    write_provenance_tsv(rows, out)
    log.info("wrote %d provenance rows to %s", len(rows), out)
    if gpu_fit_out is not None:
        fit = gpu_fit_rows(config, ".", device_memory_gb)
        frame = pd.DataFrame([{**row, "device_memory_gb": device_memory_gb} for row in fit],
                             columns=list(GPU_FIT_COLUMNS))
        write_report_tsv(frame, gpu_fit_out)
        log.info("wrote the GPU fit of %d jobs to %s", len(frame), gpu_fit_out)


def claim_traces(*, traces, claims: Sequence[str], evidence: Sequence[str], units: Sequence[str],
                 datasets: Sequence[str], sources: Sequence[str], per_pattern: int, out) -> None:
    """Per-claim traces of evidence-only credit changes: ``per_pattern`` traces per dataset x
    system x pattern, with the evidence text of both sources (newlines kept as `` | ``).

    ``claims`` / ``evidence`` / ``units``: the sample (CLAIMS), EVIDENCE and UNITS tables of every
    dataset of ``datasets``, in that order; ``sources``: (source 0, source 1)."""
    if not len(claims) == len(evidence) == len(units) == len(datasets):
        raise ValueError(f"claim traces: {len(claims)} claims, {len(evidence)} evidence and {len(units)} units tables "
                         f"for the {len(datasets)} datasets {list(datasets)}")
    claims, evidence, units = (dict(zip(datasets, paths)) for paths in (claims, evidence, units))
    trace_rows = read_frame(traces, PATTERN_TRACES)
    selected = select_traces(trace_rows, int(per_pattern))
    parts = []
    for dataset in datasets:
        chosen = selected[selected["dataset"] == dataset]
        if chosen.empty:
            continue
        # only the rows of the chosen claims and the units they show (the UNITS table is the corpus)
        claim_ids = set(chosen["claim_id"])
        evidence_rows = read_filtered(evidence[dataset], EVIDENCE, "claim_id", claim_ids).to_pandas()
        unit_ids = trace_unit_ids(chosen, evidence_rows, tuple(sources))
        parts.append(build_trace_rows(
            chosen,
            read_filtered(claims[dataset], CLAIMS, "claim_id", claim_ids, columns=["claim_id", "claim"]).to_pandas(),
            evidence_rows,
            read_units(units[dataset], unit_ids=unit_ids, columns=["unit_id", "text"]),
            tuple(sources),
        ))
        log.info("%s: %d traces selected of %d", dataset, len(chosen), int((trace_rows["dataset"] == dataset).sum()))
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=TRACE_COLUMNS)
    for column in ("evidence_0_text", "evidence_1_text"):
        table[column] = table[column].str.replace("\n", " | ", regex=False)
    write_report_tsv(table, out)
    log.info("wrote %d trace rows", len(table))


def _table(path):
    return read_source_table(path) if path else None


def summary_page(*, study1_estimates=None, study1_intervals=None, study1_unresolved=None, study2_primary=None,
                 study2_exploratory=None, study2_crossed=None, decision_label=None, decision_criteria=None,
                 forest_plot=None, study2_endpoints=None, study2_controls=None, control_generations=None,
                 answer_accuracy=None, partition=None, invalid_rates=None, wikicontradict_rates=None,
                 wikicontradict_detection=None, diffgr=None, diffgr_files=None, provenance=None,
                 study1_family_size: int, study1_alpha: float, unresolved_scope: str, study2_parser: str,
                 study2_sources: Sequence[str],
                 extra_tables: Sequence = (), extra_titles: Sequence[str] = (), accounted_estimates: Sequence = (),
                 accounted_intervals: Sequence = (), accounted_metrics: Sequence = (),
                 accounted_titles: Sequence[str] = (), accounted_layouts: Sequence = (), html_out,
                 decomposition_out) -> None:
    """The summary page a reader opens first, built only from report TSVs of the run (and
    Figure 1's PNG): the run kind and headline; Study 1 cells, components, restricted
    population, Eq. 4 and rates beside the paper; Study 2 decision label, criteria and
    Figure 1, crossed-budget components, Tables 6 and 7, greedy controls, answer accuracy,
    the identical-answer partition and INVALID rates; WikiContradict and DiffGR headline
    rates; each system accounted from its prediction files (config ``external``: its
    ``accounted_estimates`` / ``_intervals`` / ``_metrics`` TSVs under ``accounted_titles``, shown
    as ``accounted_layouts``, their formats' page layouts, say: :func:`accounted_sections`); provenance; then each of ``extra_tables`` whole under its title
    from ``extra_titles``. Absent inputs (a study switched off) leave their section saying so.

    Settings (config values, passed by the rule's params): ``study1_family_size`` /
    ``study1_alpha`` (``accounting.study1.bootstrap``: what the Study 1 intervals are),
    ``unresolved_scope`` (``accounting.study1.unresolved_scope``), ``study2_parser``
    (``accounting.study2.parser``: the rows shown, and the parser the paper's INVALID rates
    sit beside) and ``study2_sources`` (``generation.sources``). Also writes the Study 1
    decomposition figure (``decomposition_out``, PNG)."""
    if len(extra_tables) != len(extra_titles):
        raise ValueError(f"{len(extra_tables)} extra tables but {len(extra_titles)} titles")
    s1_estimates, s1_intervals = _table(study1_estimates), _table(study1_intervals)
    Path(decomposition_out).parent.mkdir(parents=True, exist_ok=True)
    decomposition_figure(study1_bars(s1_estimates, s1_intervals), decomposition_out,
                         title="Study 1: gain = E0 + A1 = A0 + E1 (points)")
    with open(decomposition_out, "rb") as fh:
        decomposition_png = fh.read() if s1_estimates is not None else None
    forest_png = None
    if forest_plot:
        with open(forest_plot, "rb") as fh:
            forest_png = fh.read()
    label = _table(decision_label)
    provenance_table = _table(provenance)
    primary = _table(study2_primary)
    banner, substituted = run_kind_section(provenance_table), substitutes_section(provenance_table)
    sections = [banner] if banner is not None else []
    sections.append(headline_section(s1_intervals, label, provenance_table))
    sections += [substituted] if substituted is not None else []
    sections += [
        study1_section(s1_estimates, s1_intervals, decomposition_png, study1_family_size, study1_alpha),
        study1_population_section(_table(study1_unresolved), s1_intervals, unresolved_scope),
        eq4_section(s1_estimates),
        decision_section(label, _table(decision_criteria), primary, forest_png),
        crossed_section(_table(study2_crossed)),
        endpoints_section(_table(study2_endpoints), primary, _table(study2_exploratory)),
        controls_section(_table(study2_controls), _table(control_generations), study2_parser),
        answer_accuracy_section(_table(answer_accuracy), study2_sources, study2_parser),
        partition_section(_table(partition), study2_parser),
        invalid_rates_section(_table(invalid_rates), study2_parser),
        wikicontradict_section(_table(wikicontradict_rates), _table(wikicontradict_detection)),
        diffgr_section(_table(diffgr), _table(diffgr_files)),
    ]
    sections += accounted_sections(accounted_estimates, accounted_intervals, accounted_metrics, accounted_titles,
                                   accounted_layouts)
    sections += [whole_table_section(f"extra{i}", title, read_source_table(path))
                 for i, (path, title) in enumerate(zip(extra_tables, extra_titles), start=1)]
    sections.append(provenance_section(provenance_table))
    write_text_atomic(html_out, render_page(sections))
    log.info("summary page: %d sections (%d absent) -> %s", len(sections), sum(bool(s.absent) for s in sections),
             html_out)


def items_page(*, item_tables: Sequence[str], item_text_tables: Sequence[str], html_out) -> None:
    """The run's item explorer (``report.items_page``) beside the summary page, which links each
    decomposition to it: ``item_tables`` / ``item_text_tables`` the ITEMS and ITEM_TEXTS tables of
    every accounting of the run (Study 1, Study 2, each system under config ``external``),
    aligned. (Snakemake reserves the input name ``items``.)"""
    write_items_page(items=item_tables, item_texts=item_text_tables, html_out=html_out)


def ledger(*, sources: Mapping[str, Mapping], provenance, settings: Mapping, ledger_out) -> None:
    """``ledger.json`` of a pipeline run: ``sources`` maps a table key to its ``path``, ``kind``
    (``report.ledger.TABLE_KINDS`` or ``label``), ``study``, the ``rule`` that wrote it and that
    rule's ``inputs``; ``provenance`` the provenance TSV; ``settings`` the resolved config."""
    specs = {key: LedgerSource(path=spec["path"], kind=spec["kind"], study=spec["study"], rule=spec["rule"],
                               inputs=tuple(spec["inputs"])) for key, spec in sources.items()}
    built = build_ledger(kind="pipeline", sources=specs, provenance=read_provenance_rows(provenance),
                         settings=settings)
    write_ledger(built, ledger_out)
    log.info("ledger: %d numbers, %d labels from %d tables -> %s", len(built["numbers"]), len(built["labels"]),
             len(specs), ledger_out)
