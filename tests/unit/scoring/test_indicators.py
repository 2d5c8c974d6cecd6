"""Indicator tables from the central tables: crossing them reproduces the official scores."""
import json

import pytest

from support.paths import shared_file
from evidence_ledger.tables.report_tsv import write_report_tsv
from evidence_ledger.scoring import fever, indicators, scifact
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.generation import PARSED
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT


def claim_row(dataset, claim_id, label, groups, gold_abstracts=()):
    row = {c: None for c in CLAIMS.columns}
    row.update(dataset=dataset, claim_id=str(claim_id), claim="c", label=label, evidence_groups=groups,
               gold_abstracts=[{"doc_id": d, "label": lab} for d, lab in gold_abstracts], cited_doc_ids=[],
               source_file="gold.jsonl", source_line=1)
    return row


def evidence_row(dataset, claim_id, scored, doc_id="", source="bm25", budget="short", unresolved=0):
    return {"dataset": dataset, "claim_id": str(claim_id), "doc_id": doc_id, "source": source, "budget": budget,
            "visible_unit_ids": list(scored), "visible_text": "", "tokens_by_tokenizer": [],
            "scored_unit_ids": list(scored), "unresolved": unresolved, "fits_budget": True, "submitted_unit_ids": None}


def parsed_row(dataset, claim_id, label, doc_id="", model="m", source="bm25", budget="short", fmt="labels",
               replicate=0, lenient=None):
    return {"model": model, "dataset": dataset, "claim_id": str(claim_id), "doc_id": doc_id, "source": source,
            "budget": budget, "format": fmt, "replicate": replicate, "seed": 0, "request_key": "k",
            "raw_response": label, "strict_label": label, "lenient_label": lenient or label}


# --- real FEVER predictions through the tables --------------------------------------


def _fever_tables():
    actual = shared_file("fever", "fever-scorer_tests", "actual.jsonl")
    predictions = shared_file("fever", "fever-scorer_tests", "predictions.jsonl")
    claims, evidence, parsed = [], [], []
    for i, (g_line, p_line) in enumerate(zip(actual.open(), predictions.open())):
        g, p = json.loads(g_line), json.loads(p_line)
        groups = [] if g["label"] == fever.NEI else [[f"{e[2]}::{e[3]}" for e in group] for group in g["evidence"]]
        claims.append(claim_row("fever", i, g["label"], groups))
        evidence.append(evidence_row("fever", i, [f"{page}::{line}" for page, line in p["predicted_evidence"]],
                                     source="provider", budget="full"))
        parsed.append(parsed_row("fever", i, p["predicted_label"], source="provider", budget="full"))
    return actual, predictions, claims, evidence, parsed


def test_crossed_table_indicators_reproduce_official_fever_strict_score(tmp_path):
    actual, predictions, claims, evidence, parsed = _fever_tables()
    paths = {name: tmp_path / f"{name}.parquet" for name in ("sample", "evidence", "parsed", "ev_ind", "rel", "ans")}
    write_table(CLAIMS.from_rows(claims), paths["sample"], CLAIMS)
    write_table(EVIDENCE.from_rows(evidence), paths["evidence"], EVIDENCE)
    write_table(PARSED.from_rows(parsed), paths["parsed"], PARSED)
    indicators.score_evidence_tables(paths["evidence"], paths["sample"], paths["ev_ind"], paths["rel"])
    indicators.score_answer_tables(paths["parsed"], paths["sample"], paths["ans"])
    eligible = {r["claim_id"]: r["eligible"] for r in read_table(paths["ev_ind"], EVIDENCE_INDICATORS).to_pylist()}
    answers = [r for r in read_table(paths["ans"], ANSWER_INDICATORS).to_pylist() if r["parser"] == "strict"]
    crossed = sum(r["label_correct"] * eligible[r["claim_id"]] for r in answers) / len(answers)
    # scored against paper_dev.jsonl: the same labels and evidence row for row as actual.jsonl, with the
    # real claim ids (actual.jsonl redacts every id to 0, which id matching refuses)
    assert crossed == fever.score_files(shared_file("fever", "paper_dev.jsonl"), predictions).strict_score
    relevant = read_table(paths["rel"], RELEVANT).to_pylist()
    assert len(relevant) == len(claims) and {r["n_relevant"] for r in relevant} == {1}


def test_table_outputs_are_byte_identical_on_rerun(tmp_path):
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]]), claim_row("fever", 2, "NOT ENOUGH INFO", [])]
    evidence = [evidence_row("fever", 2, []), evidence_row("fever", 1, ["P::0"])]
    write_table(CLAIMS.from_rows(claims), tmp_path / "s.parquet", CLAIMS)
    write_table(EVIDENCE.from_rows(evidence), tmp_path / "e.parquet", EVIDENCE)
    for k in (1, 2):
        indicators.score_evidence_tables(tmp_path / "e.parquet", tmp_path / "s.parquet", tmp_path / f"i{k}.parquet",
                                         tmp_path / f"r{k}.parquet")
    assert (tmp_path / "i1.parquet").read_bytes() == (tmp_path / "i2.parquet").read_bytes()
    assert (tmp_path / "r1.parquet").read_bytes() == (tmp_path / "r2.parquet").read_bytes()


# --- FEVER / FEVEROUS rows -----------------------------------------------------------


def test_fever_nei_claim_is_always_eligible_and_feverous_nei_is_not():
    fever_claims = [claim_row("fever", 1, "NOT ENOUGH INFO", [])]
    rows = indicators.evidence_indicator_rows(fever_claims, [evidence_row("fever", 1, [])])
    assert rows[0]["eligible"] is True
    feverous_claims = [claim_row("feverous", 1, "NOT ENOUGH INFO", [["P_sentence_1"]])]
    rows = indicators.evidence_indicator_rows(feverous_claims, [evidence_row("feverous", 1, ["P_sentence_0"])])
    assert rows[0]["eligible"] is False


def test_feverous_scored_ids_are_split_and_truncated_by_type():
    claims = [claim_row("feverous", 1, "SUPPORTS", [["P_sentence_6", "P_header_cell_0_0_1"]])]
    sentences = [f"P_sentence_{i}" for i in range(7)]
    ok = indicators.evidence_indicator_rows(claims, [evidence_row("feverous", 1, sentences[5:] + ["P_header_cell_0_0_1"])])
    late = indicators.evidence_indicator_rows(claims, [evidence_row("feverous", 1, sentences + ["P_header_cell_0_0_1"])])
    assert (ok[0]["eligible"], late[0]["eligible"], late[0]["n_scored"]) == (True, False, 8)


def test_fever_answer_rows_one_per_parser_and_invalid_is_wrong():
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]])]
    rows = indicators.answer_indicator_rows(claims, [parsed_row("fever", 1, "INVALID", lenient="SUPPORTS")])
    assert [(r["parser"], r["predicted_label"], r["label_correct"], r["submitted"]) for r in rows] == [
        ("lenient", "SUPPORTS", True, True), ("strict", "INVALID", False, True)]


def test_unknown_claim_duplicate_row_and_unknown_label_are_errors():
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]])]
    with pytest.raises(ValueError, match="claim '9' is not in the claims table"):
        indicators.evidence_indicator_rows(claims, [evidence_row("fever", 9, [])])
    with pytest.raises(ValueError, match="occurs twice"):
        indicators.evidence_indicator_rows(claims, [evidence_row("fever", 1, [])] * 2)
    with pytest.raises(ValueError, match="strict_label: predicted label 'MAYBE'"):
        indicators.answer_indicator_rows(claims, [parsed_row("fever", 1, "MAYBE")])
    with pytest.raises(ValueError, match="not of the form 'page::line'"):
        indicators.evidence_indicator_rows(claims, [evidence_row("fever", 1, ["P:0"])])


def test_primary_condition_missing_a_claim_is_an_error_but_controls_may():
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]]), claim_row("fever", 2, "REFUTES", [["Q::0"]])]
    with pytest.raises(ValueError, match="lacks 1 of 2 claims"):
        indicators.evidence_indicator_rows(claims, [evidence_row("fever", 1, ["P::0"])])
    rows = indicators.evidence_indicator_rows(claims, [evidence_row("fever", 1, ["P::0"], source="gold")])
    assert len(rows) == 1


# --- SciFact rows --------------------------------------------------------------------


SCIFACT_CLAIM = claim_row("scifact", 7, "SUPPORT", [["10:1", "10:2"], ["10:5"], ["20:0"]],
                          gold_abstracts=[("10", "SUPPORT"), ("20", "CONTRADICT"), ("30", "SUPPORT")])


def test_scifact_relevant_counts_every_gold_abstract():
    rows = indicators.relevant_rows([SCIFACT_CLAIM, claim_row("fever", 1, "SUPPORTS", [["P::0"]])])
    assert [(r["dataset"], r["n_relevant"]) for r in rows] == [("fever", 1), ("scifact", 3)]


def test_scifact_eligibility_needs_complete_rationale_in_first_three_sentences_of_a_gold_abstract():
    ev = [evidence_row("scifact", 7, ["10:9", "10:2", "10:1"], doc_id="10"),
          evidence_row("scifact", 7, ["20:4", "20:3", "20:2", "20:0"], doc_id="20"),
          evidence_row("scifact", 7, ["40:0"], doc_id="40"),
          evidence_row("scifact", 7, ["99:5", "10:5"], doc_id="10", source="swap")]
    rows = indicators.evidence_indicator_rows([SCIFACT_CLAIM], ev)
    assert [(r["evidence_source"], r["doc_id"], r["eligible"]) for r in rows] == [
        ("bm25", "10", True), ("bm25", "20", False), ("bm25", "40", False), ("swap", "10", True)]


def test_scifact_answers_label_correct_only_on_gold_abstracts_and_submitted_only_for_valid_labels():
    parsed = [parsed_row("scifact", 7, "SUPPORT", doc_id="10"), parsed_row("scifact", 7, "SUPPORT", doc_id="20"),
              parsed_row("scifact", 7, "SUPPORT", doc_id="40"), parsed_row("scifact", 7, "NOINFO", doc_id="30"),
              parsed_row("scifact", 7, "INVALID", doc_id="50")]
    rows = indicators.answer_indicator_rows([SCIFACT_CLAIM], [p for p in parsed])
    strict = [(r["doc_id"], r["gold_label"], r["label_correct"], r["submitted"]) for r in rows if r["parser"] == "strict"]
    assert strict == [("10", "SUPPORT", True, True), ("20", "CONTRADICT", False, True),
                      ("30", "SUPPORT", False, False), ("40", "NOINFO", False, True), ("50", "NOINFO", False, False)]


def test_scifact_crossed_counts_reproduce_official_rationalized_f1():
    claim = SCIFACT_CLAIM
    preds = {"10": scifact.PredictedAbstract("SUPPORT", (2, 1, 7)), "20": scifact.PredictedAbstract("SUPPORT", (0,)),
             "40": scifact.PredictedAbstract("CONTRADICT", (3,))}
    gold = scifact.claim_gold_abstracts(claim)
    official = scifact.scifact_score({"7": gold}, {"7": preds})["abstract_rationalized"]["f1"]
    ev = [evidence_row("scifact", 7, [f"{d}:{s}" for s in p.sentences], doc_id=d) for d, p in preds.items()]
    an = [parsed_row("scifact", 7, p.label, doc_id=d) for d, p in preds.items()]
    eligible = {r["doc_id"]: r["eligible"] for r in indicators.evidence_indicator_rows([claim], ev)}
    answers = [r for r in indicators.answer_indicator_rows([claim], an) if r["parser"] == "strict"]
    c = sum(r["label_correct"] * eligible[r["doc_id"]] for r in answers)
    p = sum(r["submitted"] for r in answers)
    r = sum(row["n_relevant"] for row in indicators.relevant_rows([claim]))
    assert (c, p, r) == (1, 3, 3)
    assert 2 * c / (p + r) == pytest.approx(official, abs=1e-15)


def test_answer_completeness_is_checked_for_primary_formats_only():
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]]), claim_row("fever", 2, "REFUTES", [["Q::0"]])]
    with pytest.raises(ValueError, match="answer condition .* lacks 1 of 2 claims"):
        indicators.answer_indicator_rows(claims, [parsed_row("fever", 1, "SUPPORTS", fmt="codes")])
    rows = indicators.answer_indicator_rows(claims, [parsed_row("fever", 1, "SUPPORTS", fmt="codes:rotated")])
    assert [r["format"] for r in rows] == ["codes:rotated", "codes:rotated"]


def test_evidence_of_claims_outside_the_sample_is_set_aside_and_counted(tmp_path):
    sample = [claim_row("feverous", 1, "SUPPORTS", [["P_sentence_0"]])]
    evidence = [evidence_row("feverous", 1, ["P_sentence_0"]), evidence_row("feverous", 2, ["P_sentence_0"]),
                evidence_row("feverous", 3, [])]
    write_table(CLAIMS.from_rows(sample), tmp_path / "s.parquet", CLAIMS)
    write_table(EVIDENCE.from_rows(evidence), tmp_path / "e.parquet", EVIDENCE)
    counts = indicators.score_evidence_tables(tmp_path / "e.parquet", tmp_path / "s.parquet", tmp_path / "i.parquet",
                                              tmp_path / "r.parquet", tmp_path / "summary.tsv")
    assert counts == {"rows": 1, "claims": 1, "outside_sample": 2}
    assert (tmp_path / "summary.tsv").read_text().splitlines() == [
        "dataset\tevidence_source\tevidence_budget\tunits\teligible\teligible_rate\tmean_scored\tunresolved\toutside_sample",
        "feverous\tbm25\tshort\t1\t1\t1\t1\t0\t2"]
    rows = read_table(tmp_path / "i.parquet", EVIDENCE_INDICATORS).to_pylist()
    assert [(r["claim_id"], r["eligible"]) for r in rows] == [("1", True)]


def test_eligibility_summary_rates_per_source_and_budget(tmp_path):
    claims = [claim_row("fever", 1, "SUPPORTS", [["P::0"]]), claim_row("fever", 2, "REFUTES", [["Q::0"]]),
              claim_row("fever", 3, "NOT ENOUGH INFO", [])]
    evidence = [evidence_row("fever", i, ids, source=s, unresolved=u) for s, batch in (
        ("bm25", [(1, ["P::0"], 0), (2, ["P::0", "X::1"], 1), (3, [], 0)]),
        ("bge", [(1, [], 0), (2, ["Q::0"], 0), (3, ["Q::0"], 0)])) for i, ids, u in batch]
    table = indicators.eligibility_summary_table(indicators.evidence_indicator_rows(claims, evidence), 4)
    write_report_tsv(table, tmp_path / "summary.tsv")
    assert (tmp_path / "summary.tsv").read_text().splitlines()[1:3] == [
        "fever\tbge\tshort\t3\t2\t0.6666666666666666\t0.6666666666666666\t0\t4",
        "fever\tbm25\tshort\t3\t2\t0.6666666666666666\t1\t1\t4"]
