"""Rule functions of the accounting stage (one per rule of ``workflow/rules/accounting.smk``).

  study1_accounting   ANSWER/EVIDENCE_INDICATORS + RELEVANT (+ UNRESOLVED_FLAGS) -> ESTIMATES,
                      CLUSTER_COUNTS (populations all + resolved), COVERAGE, summary TSV
  study1_bootstrap    CLUSTER_COUNTS -> INTERVALS (+ TSV), paired claim bootstrap
  study1_items        CLUSTER_COUNTS + indicators + claims, evidence, verifier answers -> ITEMS, ITEM_TEXTS
  study2_accounting   indicators of every dataset x model + FAMILIES -> ESTIMATES and report
                      TSVs, INVALID_RATES, family CLUSTER_COUNTS, COVERAGE, PATTERN_TRACES
  study2_items        indicators + FAMILIES + samples, evidence, parsed answers -> ITEMS, ITEM_TEXTS
  study2_bootstrap    CLUSTER_COUNTS -> INTERVALS (+ TSV) of one comparison family
  decision_labels     primary INTERVALS + ESTIMATES -> DECISION_CRITERIA, DECISION_LABEL (+ TSVs)
  study2_forest_plot  primary INTERVALS -> Figure 1 (PNG, SVG)
  study2_controls     indicators + FAMILIES -> controls TSV (Appendix F)
  control_generations REQUESTS of every model x dataset -> control generations after reuse (TSV)
  study2_answer_accuracy  ANSWER_INDICATORS + FAMILIES -> accuracy per cell with intervals (TSV)
  study2_parser_sensitivity  indicators + FAMILIES -> primary family under every parser (counts, TSV)
  study1_answer_metrics  Study 1 ANSWER_INDICATORS + RELEVANT (+ EVIDENCE_INDICATORS) -> accuracy / macro-F1
                      (eligibility, Eq. 4 terms) intervals (TSV)
  study2_endpoints    ESTIMATES + exploratory INTERVALS -> Tables 6 and 7 (TSV)
  design_tables       REQUESTS + sampling / families / indicators -> Tables 4 and 5 (TSVs)

Each takes paths and plain values (keyword-only); ``reference`` is the optional paper
reference-values file. Output paths end in ``_out``. The Study 2 tables come as lists in panel
order: ``answers`` (and ``requests``) one per dataset x model, dataset-major with the models in
``models`` order; ``evidence``, ``relevant``, ``families``, ``samples`` and
``sample_summaries`` one per dataset of ``datasets`` (``study2_inputs`` in
workflow/rules/accounting_functions.smk).
"""
from __future__ import annotations

import logging
from typing import Sequence

import pandas as pd

from .. import tables
from ..tables.report_tsv import write_report_tsv
from ..tables.accounting import (CLUSTER_COUNTS, COVERAGE, DECISION_CRITERIA, DECISION_LABEL, ESTIMATES,
                                 INTERVALS, INVALID_RATES, PATTERN_TRACES)
from ..tables.sampling import FAMILIES
from ..tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
from ..tables.generation import REQUESTS
from ..tables.ingest import CLAIMS
from ..tables.verifier import UNRESOLVED_FLAGS
from .accuracy import eligible_by_claim, study1_metric_rows, study2_accuracy_rows
from ..resampling.bootstrap import bonferroni_tail
from .controls import control_rows
from .populations import design_rows, population_rows
from .decisions import DecisionRule, criteria_table, decide, forest_plot
from .inputs import by_dataset, by_dataset_and_model
from .estimates import sort_estimates, study1_estimates, study2_panel_estimates
from .intervals import draw_progress_logger, interval_table, panel_intervals
from .panel import (aggregate_to_families, build_claim_panel, panel_from_frame, panel_to_frame, replicate_subpanel,
                    sort_claims)
from .patterns import invalid_rates, pattern_examples, pattern_traces
from .items import write_item_tables
from .pipeline_items import study1_item_tables, write_study2_item_tables
from .reference import attach_reference, read_reference, reference_decision_label

log = logging.getLogger(__name__)


def _reference(path) -> pd.DataFrame | None:
    return read_reference(path) if path else None


def study1_accounting(*, answers, evidence, relevant, unresolved=None, reference=None, dataset: str, system: str,
                      parser: str, sources: Sequence[str], budget: str, checkpoints: Sequence[int],
                      answer_format: str, estimates_out, summary_out, counts_out, coverage_out,
                      unresolved_scope: str) -> None:
    """Study 1: estimates (+ summary TSV of replicate-averaged rows and per-checkpoint T00/T11/gain),
    per-claim counts of both populations, coverage. ``unresolved``: the verifier's per-claim
    UNRESOLVED_FLAGS (optional; else the flag comes from EVIDENCE_INDICATORS). ``unresolved_scope``
    ``window`` (an unresolved id inside a source's verifier input window excludes the claim from
    the ``resolved`` population) or ``list`` (anywhere in its whole submitted list)."""
    answers_frame = tables.read_frame(answers, ANSWER_INDICATORS)
    evidence_frame = tables.read_frame(evidence, EVIDENCE_INDICATORS)
    relevant_frame = tables.read_frame(relevant, RELEVANT)
    paths = {"answers": str(answers), "evidence": str(evidence), "relevant": str(relevant),
             "unresolved": str(unresolved)}
    flags = None
    if unresolved:
        flags = tables.read_frame(unresolved, UNRESOLVED_FLAGS,
                                  columns=["dataset", "claim_id", "any_unresolved", "any_unresolved_in_list"])
    res = study1_estimates(answers_frame, evidence_frame, relevant_frame, dataset=dataset, system=system,
                           parser=parser, sources=sources, budget=budget, replicates=checkpoints, fmt=answer_format,
                           paths=paths, unresolved_flags=flags, unresolved_scope=unresolved_scope)
    est = sort_estimates(attach_reference(res["estimates"], _reference(reference)))
    tables.write_table(est, estimates_out, ESTIMATES)
    per_checkpoint = (est["replicate"] > 0) & est["quantity"].isin(["T00", "T11", "gain"])
    write_report_tsv(est[(est["replicate"] == -1) | per_checkpoint].drop(columns=["study"]), summary_out)
    counts = pd.concat([panel_to_frame(p, study="study1", population=pop, parser=parser)
                        for pop, p in res["panels"].items()], ignore_index=True)
    tables.write_table(counts, counts_out, CLUSTER_COUNTS)
    tables.write_table(res["coverage"], coverage_out, COVERAGE)
    log.info("study1: %d claims (%d resolved), %d estimate rows", len(res["panels"]["all"].units),
             len(res["panels"]["resolved"].units), len(est))


def study1_bootstrap(*, counts, reference=None, sources: Sequence[str], budget: str, checkpoints: Sequence[int],
                     answer_format: str, draws: int, alpha: float, family_size: int, seed: int, batch_size: int,
                     intervals_out, summary_out) -> None:
    """Paired claim bootstrap of Study 1 for both populations (each from a fresh
    ``PCG64(seed)``): checkpoints averaged, not resampled; percentile intervals at the
    Bonferroni tail ``alpha / (2 family_size)`` for gain, E0, A1, A0, E1, interaction."""
    count_rows = tables.read_frame(counts, CLUSTER_COUNTS)
    tail = bonferroni_tail(alpha, family_size)
    ref = _reference(reference)
    frames = []
    for population in ("all", "resolved"):
        sub = count_rows[count_rows["population"] == population]
        panel = panel_from_frame(sub, formats=[answer_format], sources=sources, answer_budgets=[budget],
                                 evidence_budgets=[budget], replicates=checkpoints, path=str(counts))
        rows = panel_intervals(panel, "study1", replicates=checkpoints, resample_seeds=False, draws=draws,
                               seed=seed, batch_size=batch_size, tail=tail,
                               progress=draw_progress_logger(log, f"study1/{population}", draws))
        frames.append(interval_table(rows, study="study1", family="study1", population_of=population,
                                     family_size=family_size, reference=ref))
    out = pd.concat(frames, ignore_index=True)
    tables.write_table(out, intervals_out, INTERVALS)
    write_report_tsv(out, summary_out)


def study2_accounting(*, answers: Sequence[str], evidence: Sequence[str], relevant: Sequence[str],
                      families: Sequence[str],
                      reference=None, datasets: Sequence[str], models: Sequence[str], sources: Sequence[str],
                      budgets: Sequence[str], formats: Sequence[str], parser: str,
                      sensitivity_parsers: Sequence[str], greedy_replicate: int | None,
                      seed_replicates: Sequence[int], estimates_out, contrasts_out, cells_out, partition_out,
                      crossed_out, invalid_rates_out, invalid_rates_tsv_out, counts_out, coverage_out, traces_out,
                      examples_out) -> None:
    """Study 2: estimates for every dataset x model panel and parser (report TSVs contrasts,
    cells, partition, crossed of the primary ``parser``), family count arrays of the primary
    parser over the sampled seeds, invalid rates, (1,0,1,0)/(0,1,0,1) traces and examples,
    coverage.

    ``answers`` (dataset x model), ``evidence``, ``relevant`` and ``families`` (per dataset): the
    input tables of every dataset of ``datasets`` and model of ``models``, in panel order."""
    datasets, models = list(datasets), list(models)
    answers = by_dataset_and_model(answers, datasets, models)
    evidence, relevant, families = (by_dataset(x, datasets) for x in (evidence, relevant, families))
    seeds, greedy = list(seed_replicates), greedy_replicate
    replicates = ([greedy] if greedy is not None else []) + seeds
    ref = _reference(reference)
    est_parts, count_parts, cov_rows, inv_parts, trace_parts = [], [], [], [], []
    for dataset in datasets:
        evidence_frame = tables.read_frame(evidence[dataset], EVIDENCE_INDICATORS)
        relevant_frame = tables.read_frame(relevant[dataset], RELEVANT)
        families_frame = tables.read_frame(families[dataset], FAMILIES)
        for model in models:
            apath = answers[dataset][model]
            answers_frame = tables.read_frame(apath, ANSWER_INDICATORS)
            paths = {"answers": str(apath), "evidence": str(evidence[dataset]), "relevant": str(relevant[dataset])}
            for p in [parser] + [x for x in sensitivity_parsers if x != parser]:
                if not (answers_frame["parser"] == p).any():
                    cov_rows.append({"study": "study2", "population": "all", "dataset": dataset, "system": model,
                                     "parser": p, "item": "parser_absent", "count": 0})
                    log.warning("%s: no answer rows with parser %r; its estimates are skipped", apath, p)
                    continue
                panel = build_claim_panel(answers_frame, evidence_frame, relevant_frame, dataset=dataset,
                                          system=model, parser=p, formats=formats, sources=sources,
                                          answer_budgets=budgets, evidence_budgets=budgets, replicates=replicates,
                                          paths=paths)
                est_parts.append(study2_panel_estimates(panel, answers_frame, parser=p, seeds=seeds, greedy=greedy))
                inv_parts.append(invalid_rates(answers_frame, dataset=dataset, system=model, parser=p,
                                               formats=formats, sources=sources, budgets=budgets))
                if p == parser:
                    fam_panel = aggregate_to_families(panel, families_frame, path=str(families[dataset]))
                    count_parts.append(panel_to_frame(replicate_subpanel(fam_panel, seeds), study="study2",
                                                      population="all", parser=p))
                    trace_parts.append(pattern_traces(answers_frame, evidence_frame, dataset=dataset, system=model,
                                                      parser=p, formats=formats, sources=sources, budgets=budgets))
                    cov = fam_panel.coverage
                else:
                    cov = panel.coverage
                cov_rows += [{"study": "study2", "population": "all", "dataset": dataset, "system": model,
                              "parser": p, "item": k, "count": int(v)} for k, v in cov.items()]
                log.info("study2 %s/%s parser=%s: %d claims, coverage %s", dataset, model, p, len(panel.units), cov)
    est = sort_estimates(attach_reference(pd.concat(est_parts, ignore_index=True), ref))
    tables.write_table(est, estimates_out, ESTIMATES)
    main = est[est["parser"] == parser]
    greedy_or_mean = greedy if greedy is not None else -1
    write_report_tsv(main[(main["factor"] != "") & (main["replicate"].isin([-1, greedy_or_mean]))
                          & ~main["quantity"].str.startswith("crossed.")].drop(columns=["study", "population"]),
                     contrasts_out)
    write_report_tsv(main[(main["factor"] == "") & (main["part"] == "") & (main["replicate"] == -1)
                          & (main["quantity"] != "F")].drop(columns=["study", "population", "factor", "part"]),
                     cells_out)
    write_report_tsv(main[main["part"] != ""].drop(columns=["study", "population", "factor"]), partition_out)
    write_report_tsv(main[(main["quantity"] == "F") | main["quantity"].str.startswith("crossed.")]
                     .drop(columns=["study", "population", "format", "part"]), crossed_out)
    inv = pd.concat(inv_parts, ignore_index=True)
    inv = attach_reference(inv.assign(study="study2", population="all", quantity="invalid_rate", factor="",
                                      budget="", part=""), ref, value_cols=("reference",))
    inv = inv[list(INVALID_RATES.columns)]
    tables.write_table(inv, invalid_rates_out, INVALID_RATES)
    write_report_tsv(inv, invalid_rates_tsv_out)
    tables.write_table(pd.concat(count_parts, ignore_index=True), counts_out, CLUSTER_COUNTS)
    tables.write_table(pd.DataFrame(cov_rows), coverage_out, COVERAGE)
    traces = pd.concat(trace_parts, ignore_index=True) if trace_parts else PATTERN_TRACES.empty().to_pandas()
    tables.write_table(traces, traces_out, PATTERN_TRACES)
    write_report_tsv(pattern_examples(traces, greedy), examples_out)


def study1_items(*, counts, answers, evidence, claims, evidence_texts: Sequence[str], verifier_answers, dataset: str,
                 system: str, parser: str, sources: Sequence[str], budget: str, checkpoints: Sequence[int],
                 answer_format: str, items_out, texts_out) -> None:
    """Study 1's ITEMS and ITEM_TEXTS (``accounting.pipeline_items``): each claim's cells and share
    of every component, the verifier's answers, each source's evidence text."""
    items, texts = study1_item_tables(
        counts=counts, answers=answers, evidence=evidence, claims=claims, evidence_texts=evidence_texts,
        verifier_answers=verifier_answers, dataset=dataset, system=system, parser=parser, sources=sources,
        budget=budget, checkpoints=checkpoints, answer_format=answer_format)
    write_item_tables(items, texts, items_out, texts_out)


def study2_items(*, answers: Sequence[str], evidence: Sequence[str], relevant: Sequence[str],
                 families: Sequence[str], samples: Sequence[str], evidence_texts: Sequence[str],
                 parsed: Sequence[str], datasets: Sequence[str], models: Sequence[str], sources: Sequence[str],
                 budgets: Sequence[str], formats: Sequence[str], parser: str, seed_replicates: Sequence[int],
                 items_out, texts_out) -> None:
    """ITEMS and ITEM_TEXTS of every Study 2 comparison (dataset x model x format x budget of the
    primary ``parser``, over the sampled seeds; ``accounting.pipeline_items``), written dataset by dataset."""
    write_study2_item_tables(
        answers=answers, evidence=evidence, relevant=relevant, families=families, samples=samples,
        evidence_texts=evidence_texts, parsed=parsed, datasets=datasets, models=models, sources=sources,
        budgets=budgets, formats=formats, parser=parser, seed_replicates=seed_replicates, items_out=items_out,
        texts_out=texts_out)


def study2_bootstrap(*, counts, reference=None, family: str, datasets: Sequence[str], models: Sequence[str],
                     sources: Sequence[str], budgets: Sequence[str], formats: Sequence[str],
                     seed_replicates: Sequence[int], draws: int, alpha: float, family_size: int, seed: int,
                     batch_size: int, intervals_out, summary_out) -> None:
    """Family bootstrap of every Study 2 panel for one comparison family (primary,
    exploratory, crossed): whole claim families and, independently, seed indices resampled
    with replacement; a fresh ``PCG64(seed)`` per dataset, so both models of a dataset share
    their family draws; Bonferroni tail ``alpha / (2 family_size)``."""
    count_rows = tables.read_frame(counts, CLUSTER_COUNTS)
    tail = bonferroni_tail(alpha, family_size)
    rows = []
    for dataset in datasets:
        panels = []
        for model in models:
            sub = count_rows[(count_rows["dataset"] == dataset) & (count_rows["system"] == model)]
            panels.append(panel_from_frame(sub, formats=formats, sources=sources, answer_budgets=budgets,
                                           evidence_budgets=budgets, replicates=seed_replicates, path=str(counts)))
        rows += panel_intervals(panels, family, replicates=seed_replicates, resample_seeds=True, draws=draws,
                                seed=seed, batch_size=batch_size, tail=tail,
                                progress=draw_progress_logger(log, f"{family}/{dataset}", draws))
    out = interval_table(rows, study="study2", family=family, population_of="all", family_size=family_size,
                         reference=_reference(reference))
    if int(out["in_family"].sum()) != family_size:
        raise ValueError(f"{family} family: {int(out['in_family'].sum())} comparisons, but a Bonferroni size of {family_size}; the "
                         f"size is derived from the family's comparisons (config_checks.study2_family_size)")
    tables.write_table(out, intervals_out, INTERVALS)
    write_report_tsv(out, summary_out)


def decision_labels(*, intervals, estimates, reference=None, parser: str, seed_replicates: Sequence[int],
                    models: Sequence[str], magnitude: float, min_agreeing_seeds: int, min_datasets: int,
                    required_dataset: str, bound: float, criteria_out, criteria_tsv_out, label_out,
                    label_tsv_out) -> None:
    """The Study 2 decision criteria table and label from the primary intervals and the per-seed E0 contrasts."""
    interval_rows = tables.read_frame(intervals, INTERVALS)
    estimate_rows = tables.read_frame(estimates, ESTIMATES)
    rule = DecisionRule(magnitude=magnitude, min_agreeing_seeds=min_agreeing_seeds, min_datasets=min_datasets,
                        required_dataset=required_dataset, bound=bound)
    primary = interval_rows[interval_rows["quantity"] == "E0"]
    seeds = estimate_rows[(estimate_rows["quantity"] == "E0") & (estimate_rows["factor"] != "")
                          & (estimate_rows["part"] == "") & (estimate_rows["parser"] == parser)
                          & estimate_rows["replicate"].isin(seed_replicates)]
    crit = criteria_table(primary, seeds, rule)
    tables.write_table(crit, criteria_out, DECISION_CRITERIA)
    write_report_tsv(crit, criteria_tsv_out)
    decision = decide(crit, rule, systems=models)
    label = pd.DataFrame([dict(decision, reference_label=reference_decision_label(_reference(reference)))])
    tables.write_table(label, label_out, DECISION_LABEL)
    write_report_tsv(label, label_tsv_out)
    log.info("decision: %s (%s)", decision["label"], decision["reason"])


def study2_forest_plot(*, intervals, bound: float, png_out, svg_out) -> None:
    """Figure 1: the primary (E0) contrasts with their Bonferroni intervals and the +/-bound band."""
    interval_rows = tables.read_frame(intervals, INTERVALS)
    primary = interval_rows[interval_rows["quantity"] == "E0"]
    tail = float(primary["tail"].iat[0]) if len(primary) else float("nan")
    forest_plot(primary, bound, png_out, svg_out,
                title=f"Primary contrasts, percentile bounds at {tail:.5f} / {1 - tail:.5f}")
    log.info("forest plot written to %s and %s", png_out, svg_out)


def study2_controls(*, answers: Sequence[str], evidence: Sequence[str], relevant: Sequence[str],
                    families: Sequence[str],
                    datasets: Sequence[str], models: Sequence[str], parser: str, budget: str,
                    formats: Sequence[str], control_sources: Sequence[str], primary_sources: Sequence[str],
                    mappings: Sequence[str], greedy_replicate: int, draws: int, alpha: float, family_size: int,
                    seed: int, batch_size: int, controls_out) -> None:
    """The greedy controls analysed (``accounting.controls``): per model x dataset x format x
    control its units, feasibility, score, E-type contrasts against ``none`` and answer agreement
    with ``none``, intervals by the primary draw protocol at tail ``alpha / (2 family_size)``.
    Inputs in panel order as in :func:`study2_accounting`."""
    answers = by_dataset_and_model(answers, datasets, models)
    evidence, relevant, families = (by_dataset(x, datasets) for x in (evidence, relevant, families))
    tail = bonferroni_tail(alpha, family_size)
    rows = []
    for dataset in datasets:
        ev = tables.read_frame(evidence[dataset], EVIDENCE_INDICATORS)
        rel = tables.read_frame(relevant[dataset], RELEVANT)
        fam = tables.read_frame(families[dataset], FAMILIES)
        for model in models:
            ans = tables.read_frame(answers[dataset][model], ANSWER_INDICATORS)
            rows += control_rows(ans, ev, rel, fam, dataset=dataset, system=model, parser=parser, budget=budget,
                                 replicate=greedy_replicate, formats=formats, control_sources=control_sources,
                                 primary_sources=primary_sources, mappings=mappings, draws=draws, seed=seed,
                                 batch_size=batch_size, tail=tail)
            log.info("controls %s/%s: %d rows", dataset, model, len(rows))
    write_report_tsv(pd.DataFrame(rows), controls_out)


def control_generations(*, requests: Sequence, design: str, reference=None, requests_out) -> None:
    """Control generations after reuse of identical requests, exactly: per model x dataset the
    unique ``request_id`` values of control and alternative-mapping rows that no primary row of
    the same model x dataset has, by condition, plus a ``total`` row. Every row names the
    control design counted (``generation.controls.design``); the paper's value (``quantity``
    ``control_generations`` in the reference file) stands beside the total only when the
    reference row's ``design`` is the same, and ``reference_design`` names the design the
    paper's figure counts either way (docs/accounting.md, "Control generations after reuse")."""
    rows = []
    for path in requests:
        req = tables.read_frame(path, REQUESTS, columns=["model", "dataset", "condition", "request_id"])
        primary = set(req.loc[req["condition"] == "primary", "request_id"])
        ctl = req[req["condition"] != "primary"]
        seen: set = set(primary)
        for cond in list(dict.fromkeys(ctl["condition"])):
            ids = set(ctl.loc[ctl["condition"] == cond, "request_id"]) - seen
            seen |= ids
            rows.append({"system": str(req["model"].iat[0]), "dataset": str(req["dataset"].iat[0]),
                         "condition": cond, "rows": int((ctl["condition"] == cond).sum()), "value": len(ids)})
    frame = pd.DataFrame(rows)
    total = pd.DataFrame([{"system": "*", "dataset": "*", "condition": "all", "rows": int(frame["rows"].sum()),
                           "value": int(frame["value"].sum())}])
    frame = pd.concat([frame, total], ignore_index=True).assign(study="study2", quantity="control_generations",
                                                                design=design)
    ref = _reference(reference)
    frame = attach_reference(frame, ref, value_cols=("reference",))
    frame.loc[frame["condition"] != "all", "reference"] = float("nan")
    frame["reference_design"] = ""
    if ref is not None:
        designs = ref.loc[ref["quantity"] == "control_generations", "design"]
        frame.loc[frame["condition"] == "all", "reference_design"] = "|".join(sorted(set(designs)))
    write_report_tsv(frame[["study", "system", "dataset", "condition", "quantity", "design", "rows", "value",
                            "reference", "reference_design"]], requests_out)


def study2_answer_accuracy(*, answers: Sequence[str], families: Sequence[str], datasets: Sequence[str],
                           models: Sequence[str], sources: Sequence[str], budgets: Sequence[str], formats: Sequence[str],
                           parsers: Sequence[str], greedy_replicate: int | None, seed_replicates: Sequence[int],
                           draws: int, alpha: float, family_size: int, seed: int, batch_size: int,
                           accuracy_out) -> None:
    """Study 2 answer accuracy per cell (INVALID counted wrong) for every parser, seed mean with
    primary-protocol intervals and the greedy value. Inputs in panel order as in :func:`study2_accounting`."""
    answers, families = by_dataset_and_model(answers, datasets, models), by_dataset(families, datasets)
    tail = bonferroni_tail(alpha, family_size)
    rows = []
    for dataset in datasets:
        fam = tables.read_frame(families[dataset], FAMILIES)
        for model in models:
            ans = tables.read_frame(answers[dataset][model], ANSWER_INDICATORS)
            for p in parsers:
                rows += study2_accuracy_rows(ans, fam, dataset=dataset, system=model, parser=p, formats=formats,
                                             sources=sources, budgets=budgets, seeds=seed_replicates,
                                             greedy=greedy_replicate, draws=draws, seed=seed,
                                             batch_size=batch_size, tail=tail)
    write_report_tsv(pd.DataFrame(rows), accuracy_out)


def study2_parser_sensitivity(*, answers: Sequence[str], evidence: Sequence[str], relevant: Sequence[str],
                              families: Sequence[str],
                              datasets: Sequence[str], models: Sequence[str], sources: Sequence[str],
                              budgets: Sequence[str], formats: Sequence[str], parsers: Sequence[str],
                              seed_replicates: Sequence[int], draws: int, alpha: float, family_size: int,
                              seed: int, batch_size: int, counts_out, sensitivity_out) -> None:
    """The primary family (format and context effects on E0) under every parser, with the
    primary draws (a fresh ``PCG64(seed)`` per dataset and parser, so every parser gets the same
    family and seed-index draws); the family counts of every parser are saved. Inputs in panel
    order as in :func:`study2_accounting`."""
    answers = by_dataset_and_model(answers, datasets, models)
    evidence, relevant, families = (by_dataset(x, datasets) for x in (evidence, relevant, families))
    tail = bonferroni_tail(alpha, family_size)
    rows, count_parts = [], []
    for dataset in datasets:
        ev = tables.read_frame(evidence[dataset], EVIDENCE_INDICATORS)
        rel = tables.read_frame(relevant[dataset], RELEVANT)
        fam = tables.read_frame(families[dataset], FAMILIES)
        frames = [tables.read_frame(answers[dataset][model], ANSWER_INDICATORS) for model in models]
        for p in parsers:
            panels = []
            for model, ans in zip(models, frames):
                panel = build_claim_panel(ans, ev, rel, dataset=dataset, system=model, parser=p, formats=formats,
                                          sources=sources, answer_budgets=budgets, evidence_budgets=budgets,
                                          replicates=list(seed_replicates))
                panels.append(aggregate_to_families(panel, fam))
                count_parts.append(panel_to_frame(panels[-1], study="study2", population="all", parser=p))
            for r in panel_intervals(panels, "primary", replicates=seed_replicates, resample_seeds=True,
                                     draws=draws, seed=seed, batch_size=batch_size, tail=tail):
                rows.append({"parser": p, **r})
    tables.write_table(pd.concat(count_parts, ignore_index=True), counts_out, CLUSTER_COUNTS)
    out = pd.DataFrame(rows)
    base = out[out["parser"] == parsers[0]].set_index(["dataset", "system", "quantity", "factor"])["estimate"]
    out["difference_from_" + parsers[0]] = out["estimate"] - out.set_index(
        ["dataset", "system", "quantity", "factor"]).index.map(base).to_numpy()
    write_report_tsv(out, sensitivity_out)


def study1_answer_metrics(*, answers, relevant, evidence=None, dataset: str, system: str, parser: str,
                          sources: Sequence[str], checkpoints: Sequence[int], classes: Sequence[str] | None,
                          draws: int, alpha: float, family_size: int, seed: int, batch_size: int, reference=None,
                          metrics_out) -> None:
    """Study 1 accuracy and macro-F1 per source and their differences, with the paired claim
    draws of the other Study 1 intervals (same seed, same claims); with ``evidence``
    (EVIDENCE_INDICATORS) also eligibility per source, its difference and the Eq. 4 product and
    covariance terms. ``classes`` None: the gold label set of the population (NOT ENOUGH INFO
    included when present)."""
    ans = tables.read_frame(answers, ANSWER_INDICATORS)
    rel = tables.read_frame(relevant, RELEVANT)
    rel = rel[rel["dataset"] == dataset]
    units = sort_claims(rel["claim_id"])
    classes = list(classes) if classes else sort_claims(rel["gold_label"])
    eligible = None
    if evidence:
        eligible = eligible_by_claim(tables.read_frame(evidence, EVIDENCE_INDICATORS), units, dataset=dataset,
                                     sources=sources, n_replicates=len(checkpoints))
    rows = study1_metric_rows(ans, units, dataset=dataset, system=system, parser=parser, sources=sources,
                              replicates=checkpoints, classes=classes, draws=draws, seed=seed,
                              batch_size=batch_size, tail=bonferroni_tail(alpha, family_size), eligible=eligible)
    frame = pd.DataFrame(rows).assign(study="study1", population="all")
    frame = attach_reference(frame, _reference(reference))
    write_report_tsv(frame, metrics_out)


def study2_endpoints(*, estimates, exploratory, parser: str, endpoints_out) -> None:
    """The paper's Table 6 analogue (format-averaged E0, S00, S11 and S11 - S00 per budget, seed
    mean) and Table 7 (context effect on E0, E1 and their mean Ebar with their intervals) in one
    table: ``table`` = 6 or 7. Every Table 7 interval, E0's included, is the exploratory family's
    (its draws, its 60-comparison adjustment, E0 drawn beside the family as a companion), as
    the paper's Table 7; the primary family's E0 intervals are the decision table's."""
    est = tables.read_frame(estimates, ESTIMATES)
    est = est[(est["parser"] == parser) & (est["replicate"] == -1) & (est["part"] == "")]
    cells = est[(est["factor"] == "") & est["quantity"].isin(["E0", "T00", "T11", "source_gain"])]
    t6 = (cells.groupby(["dataset", "system", "budget", "quantity"], sort=True)["value"].mean().reset_index()
          .rename(columns={"value": "estimate"}))
    t6["quantity"] = t6["quantity"].replace({"T00": "S00", "T11": "S11"})
    t6 = t6.assign(table=6, factor="", lower=float("nan"), upper=float("nan"))
    iv = tables.read_frame(exploratory, INTERVALS)
    iv = iv[(iv["factor"] == "context") & iv["quantity"].isin(["E0", "E1", "Ebar"])]
    t7 = iv[["dataset", "system", "quantity", "factor", "estimate", "lower", "upper", "family"]].assign(
        table=7, budget="long-short")
    cols = ["table", "dataset", "system", "budget", "quantity", "factor", "estimate", "lower", "upper"]
    out = pd.concat([t6[cols], t7[cols + ["family"]]], ignore_index=True).fillna({"family": ""})
    write_report_tsv(out.sort_values(["table", "dataset", "system", "quantity", "budget"], kind="stable"),
                     endpoints_out)


def design_tables(*, requests: Sequence, sample_summaries: Sequence[str], samples: Sequence[str],
                  families: Sequence[str], evidence: Sequence[str], relevant: Sequence[str], answers: Sequence[str],
                  datasets: Sequence[str],
                  models: Sequence[str], design_out, populations_out) -> None:
    """The paper's Tables 4 (conditions and requests per model x dataset) and 5 (each
    population's size through the joins). ``requests``: the REQUESTS table of every model x
    dataset; the other inputs in panel order as in :func:`study2_accounting` (``sample_summaries``
    and ``samples`` one per dataset)."""
    answers = by_dataset_and_model(answers, datasets, models)
    sample_summaries, samples, families, evidence, relevant = (
        by_dataset(x, datasets) for x in (sample_summaries, samples, families, evidence, relevant))
    req = pd.concat([tables.read_frame(p, REQUESTS, columns=["model", "dataset", "condition", "request_id"]
                                       + ["source", "budget", "format", "code_mapping", "replicate"])
                     for p in requests], ignore_index=True)
    write_report_tsv(pd.DataFrame(design_rows(req)), design_out)
    rows = []
    for dataset in datasets:
        summary = pd.read_csv(sample_summaries[dataset], sep="\t", dtype=str, keep_default_na=False)
        sample = tables.read_frame(samples[dataset], CLAIMS, columns=["claim_id"])
        ans = {m: tables.read_frame(answers[dataset][m], ANSWER_INDICATORS, columns=["dataset", "claim_id", "parser"])
               for m in models}
        ans = {m: a[a["parser"] == a["parser"].iat[0]] if len(a) else a for m, a in ans.items()}
        rows += population_rows(dataset, dict(zip(summary["key"], summary["value"])), list(sample["claim_id"]),
                                tables.read_frame(families[dataset], FAMILIES),
                                tables.read_frame(evidence[dataset], EVIDENCE_INDICATORS),
                                tables.read_frame(relevant[dataset], RELEVANT), ans)
    write_report_tsv(pd.DataFrame(rows), populations_out)
