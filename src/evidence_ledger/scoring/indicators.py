"""Per-unit indicator tables: the scorers applied to the pipeline's central tables.

In:  CLAIMS rows (gold: ``label``, ``evidence_groups`` as unit ids, ``gold_abstracts``),
     EVIDENCE rows (``scored_unit_ids`` per dataset / claim / doc / source / budget) and
     PARSED rows (``strict_label`` / ``lenient_label`` per answer observation).
Out: EVIDENCE_INDICATORS, ANSWER_INDICATORS and RELEVANT rows (``tables.scoring``), so that
     for every claim ``strict_ab = label_correct_a * eligible_b`` (FEVER, FEVEROUS) and
     SciFact ``C_ab = sum label_correct_a * eligible_b`` over claim x abstract, ``P_a = sum
     submitted_a``, ``R = sum n_relevant``.

Unit ids: FEVER ``"{page}::{line}"`` -> ``(page, line)`` pairs; FEVEROUS released ids split
into ``(page, type, position)`` as the official evaluate.py does; SciFact
``"{doc_id}:{sentence}"`` -> sentence index within ``doc_id``.

Bad input raises ``ValueError`` naming the row: an evidence or answer row for a claim that
is not in the claims table, a duplicated row, a label outside the dataset's label set (or
INVALID), a FEVER/FEVEROUS primary (source, budget) that lacks some claim (controls none /
gold / swap_{source} / reversed_{source} and 'codes:{mapping}' formats are exempt), a malformed unit id. A SciFact unit of another abstract
(swap control) occupies one of the 3 slots and matches no rationale.

Benchmark facts (label sets, NEI label, unit of evaluation, scorer module) come from
``evidence_ledger.benchmark_registry``. Every benchmark's scorer module (built-in or plugin)
supplies its evidence condition as ``unit_evidence_eligible(claim, doc_id, scored_unit_ids, *,
max_evidence, max_evidence_cell, max_sentences) -> bool``; answers are scored by the
benchmark's unit: per claim like FEVER, per claim x abstract like SciFact.
"""
from __future__ import annotations

import importlib
from typing import Iterable, Mapping, Sequence

import pandas as pd

from ..benchmark_registry import Benchmark, benchmark_names, get_benchmark, is_benchmark
from ..vocabulary import INVALID, control_of, is_alternative_mapping_format
from ..tables.report_tsv import write_report_tsv
from ..tables import read_table, write_table
from ..tables.evidence import EVIDENCE
from ..tables.generation import PARSED
from ..tables.ingest import CLAIMS
from ..tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
from . import fever, feverous, scifact

# Controls may legitimately lack claims (e.g. gold evidence that does not fit a budget); the
# completeness check covers the primary sources and formats only (alternative code mappings
# are formats 'codes:{mapping}').
PARSERS = ("strict", "lenient")


def _check_dataset(dataset: str) -> Benchmark:
    if not is_benchmark(dataset):
        raise ValueError(f"scoring indicators: unknown dataset {dataset!r}; expected one of {list(benchmark_names())}")
    return get_benchmark(dataset)


def _claims_by_id(claims: Iterable[Mapping]) -> dict[str, Mapping]:
    out: dict[str, Mapping] = {}
    for row in claims:
        key = str(row["claim_id"])
        if key in out:
            raise ValueError(f"claims table: claim_id {key!r} occurs twice")
        out[key] = row
    return out


def evidence_eligible(dataset: str, claim: Mapping, doc_id: str, scored_unit_ids: Sequence[str], *,
                      max_evidence: int = fever.MAX_EVIDENCE, max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL,
                      max_sentences: int = scifact.MAX_ABSTRACT_SENTS) -> bool:
    """The benchmark's evidence condition on a scored prefix, for one claim (x abstract): the
    ``unit_evidence_eligible`` of the benchmark's registered scorer module."""
    scorer = importlib.import_module(_check_dataset(dataset).scorer)
    return scorer.unit_evidence_eligible(claim, doc_id, scored_unit_ids, max_evidence=max_evidence,
                                         max_evidence_cell=max_evidence_cell, max_sentences=max_sentences)


def evidence_indicator_rows(claims: Iterable[Mapping], evidence: Iterable[Mapping], *,
                            max_evidence: int = fever.MAX_EVIDENCE,
                            max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL,
                            max_sentences: int = scifact.MAX_ABSTRACT_SENTS) -> list[dict]:
    """EVIDENCE rows -> EVIDENCE_INDICATORS rows, sorted by (dataset, source, budget, claim, doc).

    FEVER/FEVEROUS: every (source, budget) present must cover every claim of ``claims``
    (a missing claim would silently shrink a denominator).
    """
    by_id = _claims_by_id(claims)
    rows, seen = [], set()
    for ev in evidence:
        dataset = ev["dataset"]
        _check_dataset(dataset)
        claim_id, doc_id = str(ev["claim_id"]), str(ev["doc_id"])
        key = (dataset, ev["source"], ev["budget"], claim_id, doc_id)
        if claim_id not in by_id:
            raise ValueError(f"evidence row {key}: claim {claim_id!r} is not in the claims table")
        if key in seen:
            raise ValueError(f"evidence row {key} occurs twice")
        seen.add(key)
        scored = list(ev["scored_unit_ids"] or [])
        try:
            eligible = evidence_eligible(dataset, by_id[claim_id], doc_id, scored, max_evidence=max_evidence,
                                         max_evidence_cell=max_evidence_cell, max_sentences=max_sentences)
        except ValueError as exc:
            raise ValueError(f"evidence row {key}: {exc}") from None
        rows.append({
            "dataset": dataset, "evidence_source": ev["source"], "evidence_budget": ev["budget"],
            "claim_id": claim_id, "doc_id": doc_id, "eligible": bool(eligible),
            "n_scored": len(scored), "unresolved": int(ev["unresolved"]),
        })
    _check_complete(rows, by_id, "evidence_source", "evidence_budget", "evidence")
    rows.sort(key=lambda r: (r["dataset"], r["evidence_source"], r["evidence_budget"], r["claim_id"], r["doc_id"]))
    return rows


def _check_complete(rows: list[dict], by_id: Mapping, source_key: str, budget_key: str, what: str,
                    extra_keys: Sequence[str] = ()) -> None:
    """FEVER/FEVEROUS (per-claim units): each primary condition must have a row for every claim."""
    covered: dict[tuple, set] = {}
    for r in rows:
        if (not get_benchmark(r["dataset"]).per_document and control_of(r[source_key]) is None
                and not is_alternative_mapping_format(r.get("format", ""))):
            cond = (r["dataset"], r[source_key], r[budget_key], *(r[k] for k in extra_keys))
            covered.setdefault(cond, set()).add(r["claim_id"])
    for cond, ids in sorted(covered.items(), key=lambda kv: tuple(map(str, kv[0]))):
        missing = sorted(set(by_id) - ids)
        if missing:
            raise ValueError(f"{what} condition {cond} lacks {len(missing)} of {len(by_id)} claims, "
                             f"e.g. {missing[:5]}")


def answer_indicator(dataset: str, claim: Mapping, doc_id: str, predicted_label: str) -> tuple[str, bool, bool]:
    """``(gold_label, label_correct, submitted)`` of one answer.

    FEVER/FEVEROUS: gold = claim label, correct = case-insensitive equality (INVALID never),
    submitted always. SciFact (unit = claim x abstract): gold = the abstract's gold label or
    NOINFO for a non-gold abstract; correct = gold abstract and equal label; submitted = a valid
    SUPPORT/CONTRADICT label (NOINFO and INVALID do not enter P).
    """
    bench = _check_dataset(dataset)
    if not bench.per_document:
        if predicted_label.upper() not in bench.labels and predicted_label != INVALID:
            raise ValueError(f"predicted label {predicted_label!r} is not one of {list(bench.labels)} or INVALID")
        gold = claim["label"]
        return gold, fever.is_correct_label(gold, predicted_label), True
    if predicted_label not in bench.labels and predicted_label != INVALID:
        raise ValueError(f"predicted label {predicted_label!r} is not one of {list(bench.labels)} or INVALID")
    gold_abstracts = {str(a["doc_id"]): a["label"] for a in claim["gold_abstracts"] or []}
    gold = gold_abstracts.get(doc_id, bench.nei_label)
    correct = doc_id in gold_abstracts and predicted_label == gold
    return gold, correct, predicted_label in bench.verdict_labels


def answer_indicator_rows(claims: Iterable[Mapping], parsed: Iterable[Mapping],
                          parsers: Sequence[str] = PARSERS) -> list[dict]:
    """PARSED rows -> ANSWER_INDICATORS rows, one per observation and parser (strict, lenient).

    Sorted by (dataset, system, format, replicate, parser, source, budget, claim, doc).
    """
    by_id = _claims_by_id(claims)
    rows, seen = [], set()
    for p in parsed:
        dataset = p["dataset"]
        _check_dataset(dataset)
        claim_id, doc_id = str(p["claim_id"]), str(p["doc_id"])
        key = (p["model"], dataset, claim_id, doc_id, p["source"], p["budget"], p["format"], int(p["replicate"]))
        if claim_id not in by_id:
            raise ValueError(f"parsed answer {key}: claim {claim_id!r} is not in the claims table")
        if key in seen:
            raise ValueError(f"parsed answer {key} occurs twice")
        seen.add(key)
        for parser in parsers:
            predicted = p[f"{parser}_label"]
            try:
                gold, correct, submitted = answer_indicator(dataset, by_id[claim_id], doc_id, predicted)
            except ValueError as exc:
                raise ValueError(f"parsed answer {key}, {parser}_label: {exc}") from None
            rows.append({
                "dataset": dataset, "system": p["model"], "format": p["format"], "replicate": int(p["replicate"]),
                "parser": parser, "answer_source": p["source"], "answer_budget": p["budget"],
                "claim_id": claim_id, "doc_id": doc_id, "gold_label": gold, "predicted_label": predicted,
                "label_correct": bool(correct), "submitted": bool(submitted),
            })
    _check_complete(rows, by_id, "answer_source", "answer_budget", "answer",
                    extra_keys=("system", "format", "replicate", "parser"))
    rows.sort(key=lambda r: (r["dataset"], r["system"], r["format"], r["replicate"], r["parser"],
                             r["answer_source"], r["answer_budget"], r["claim_id"], r["doc_id"]))
    return rows


def relevant_rows(claims: Iterable[Mapping]) -> list[dict]:
    """CLAIMS -> RELEVANT: SciFact ``n_relevant`` = gold abstracts (retrieved or not); FEVER/FEVEROUS 1."""
    rows = []
    for claim in claims:
        dataset = claim["dataset"]
        bench = _check_dataset(dataset)
        n = len(claim["gold_abstracts"] or []) if bench.per_document else 1
        rows.append({"dataset": dataset, "claim_id": str(claim["claim_id"]), "gold_label": claim["label"],
                     "n_relevant": n})
    rows.sort(key=lambda r: (r["dataset"], r["claim_id"]))
    return rows


def eligibility_summary_table(rows: Sequence[Mapping], outside_sample: int = 0) -> pd.DataFrame:
    """The evidence condition per (dataset, source, budget) as a report table: units, eligible
    units, eligible_rate (fraction), mean_scored items, unresolved ids, and ``outside_sample``
    (evidence rows of claims outside the sample, set aside and not scored; the same on every row).
    Rows sorted by dataset, source, budget.
    """
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["evidence_source"], r["evidence_budget"]), []).append(r)
    out = []
    for (dataset, source, budget), group in sorted(groups.items()):
        n = len(group)
        eligible = sum(1 for r in group if r["eligible"])
        out.append({"dataset": dataset, "evidence_source": source, "evidence_budget": budget, "units": n,
                    "eligible": eligible, "eligible_rate": eligible / n,
                    "mean_scored": sum(r["n_scored"] for r in group) / n,
                    "unresolved": sum(r["unresolved"] for r in group), "outside_sample": outside_sample})
    columns = ["dataset", "evidence_source", "evidence_budget", "units", "eligible", "eligible_rate",
               "mean_scored", "unresolved", "outside_sample"]
    return pd.DataFrame(out, columns=columns)


# --- Parquet adapters (used by scoring.stage) ----------------------------------


def split_by_population(rows: Iterable[Mapping], claims: Iterable[Mapping]) -> tuple[list, list]:
    """``(rows of sampled claims, rows of other claims)``, matching on (dataset, claim_id).

    The evidence stage also assembles evidence for claims outside the Study 2 sample (e.g. the
    Study 1 dev claims); those rows are set aside here and counted by the caller, not scored.
    """
    population = {(c["dataset"], str(c["claim_id"])) for c in claims}
    inside, outside = [], []
    for r in rows:
        (inside if (r["dataset"], str(r["claim_id"])) in population else outside).append(r)
    return inside, outside


def score_evidence_tables(evidence_path, sample_path, indicators_path, relevant_path, summary_path=None, *,
                          max_evidence: int = fever.MAX_EVIDENCE, max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL,
                          max_sentences: int = scifact.MAX_ABSTRACT_SENTS) -> dict:
    """EVIDENCE + sample (CLAIMS) Parquet -> EVIDENCE_INDICATORS and RELEVANT Parquet.

    Only rows of sampled claims are scored; returns ``{"rows", "claims", "outside_sample"}``
    (``outside_sample`` = evidence rows of claims not in the sample, set aside). With
    ``summary_path``, also writes :func:`eligibility_summary_table`.
    """
    claims = read_table(sample_path, CLAIMS).to_pylist()
    evidence = read_table(evidence_path, EVIDENCE,
                          columns=["dataset", "claim_id", "doc_id", "source", "budget", "scored_unit_ids",
                                   "unresolved"]).to_pylist()
    evidence, outside = split_by_population(evidence, claims)
    rows = evidence_indicator_rows(claims, evidence, max_evidence=max_evidence,
                                   max_evidence_cell=max_evidence_cell, max_sentences=max_sentences)
    relevant = relevant_rows(claims)
    write_table(EVIDENCE_INDICATORS.from_rows(rows), indicators_path, EVIDENCE_INDICATORS)
    write_table(RELEVANT.from_rows(relevant), relevant_path, RELEVANT)
    if summary_path is not None:
        write_report_tsv(eligibility_summary_table(rows, len(outside)), summary_path)
    return {"rows": len(rows), "claims": len(relevant), "outside_sample": len(outside)}


def score_answer_tables(parsed_path, sample_path, indicators_path, parsers: Sequence[str] = PARSERS) -> dict:
    """PARSED + sample (CLAIMS) Parquet -> ANSWER_INDICATORS Parquet.

    Only answers to sampled claims are scored; returns ``{"rows", "outside_sample"}``.
    """
    claims = read_table(sample_path, CLAIMS).to_pylist()
    parsed = read_table(parsed_path, PARSED).to_pylist()
    parsed, outside = split_by_population(parsed, claims)
    rows = answer_indicator_rows(claims, parsed, parsers)
    write_table(ANSWER_INDICATORS.from_rows(rows), indicators_path, ANSWER_INDICATORS)
    return {"rows": len(rows), "outside_sample": len(outside)}
