"""Study 1 indicators recombine into the official-semantics FEVEROUS strict score."""
import json
import random

import pytest

from evidence_ledger import tables
from evidence_ledger.scoring import feverous
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
from evidence_ledger.tables.verifier import UNRESOLVED_FLAGS, VERIFIER_ANSWERS, VERIFIER_INPUTS
from evidence_ledger.verifier.indicators import feverous_scored_prefix, run_study1_indicators

LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
SOURCES = ["provider_a", "provider_b"]


def sentences(page, idx):
    return [f"{page}_sentence_{i}" for i in idx]


def cells(page, idx):
    return [f"{page}_cell_0_{i}_1" for i in idx]


def constructed_claims():
    """(claim_id, label, gold sets, {source: ranked ids or None}) covering the truncation rules."""
    P = "Lake Orvel"
    return [
        ("1", "SUPPORTS", [sentences(P, [0])], {"provider_a": sentences(P, [0, 1]), "provider_b": sentences(P, [1])}),
        # gold sentence 6th among sentences: kept by neither source's first 5
        ("2", "REFUTES", [sentences(P, [5])], {"provider_a": sentences(P, range(6)),
                                               "provider_b": sentences(P, [5]) + sentences(P, range(5))}),
        # gold cell 26th among cells; sentences interleaved do not use the cell budget
        ("3", "SUPPORTS", [cells(P, [25])], {"provider_a": cells(P, range(26)),
                                             "provider_b": sentences(P, range(7)) + cells(P, [25])}),
        # mixed set: sentence + header cell + table caption + item
        ("4", "REFUTES", [sentences(P, [2]) + [f"{P}_header_cell_0_0_1", f"{P}_table_caption_0", f"{P}_item_0_3"]],
         {"provider_a": [f"{P}_table_caption_0", f"{P}_item_0_3"] + sentences(P, [2]) + [f"{P}_header_cell_0_0_1"],
          "provider_b": [f"{P}_table_caption_0"] + sentences(P, [2])}),
        # two alternative gold sets; the second is complete under source b
        ("5", "SUPPORTS", [sentences(P, [3, 4]), [f"{P}_title"]], {"provider_a": sentences(P, [3]),
                                                                   "provider_b": [f"{P}_title", f"{P}_section_1"]}),
        # NEI needs evidence in FEVEROUS
        ("6", "NOT ENOUGH INFO", [sentences(P, [7])], {"provider_a": sentences(P, [7]), "provider_b": []}),
        # duplicates consume budget
        ("7", "SUPPORTS", [sentences(P, [9])], {"provider_a": sentences(P, [1] * 5) + sentences(P, [9]),
                                                "provider_b": sentences(P, [9, 9])}),
        # missing from source b: empty submission
        ("8", "REFUTES", [sentences(P, [8])], {"provider_a": sentences(P, [8]), "provider_b": None}),
        ("9", "SUPPORTS", [cells(P, [1, 2])], {"provider_a": cells(P, [2, 1]), "provider_b": cells(P, [1])}),
    ]


def claims_table(items):
    return CLAIMS.from_rows([{
        "dataset": "feverous", "claim_id": cid, "claim": f"claim {cid}", "label": label, "evidence_groups": groups,
        "gold_abstracts": [], "cited_doc_ids": [], "source_file": "dev.jsonl", "source_line": i + 2,
        "unresolved_ids": []} for i, (cid, label, groups, _) in enumerate(items)])


def evidence_table(items, source, unresolved=None):
    unresolved = unresolved or {}
    return EVIDENCE.from_rows([{
        "dataset": "feverous", "claim_id": cid, "doc_id": "", "source": source, "budget": "full",
        "visible_unit_ids": ids[source], "visible_text": "", "tokens_by_tokenizer": [], "scored_unit_ids": ids[source],
        "unresolved": unresolved.get(cid, 0), "fits_budget": True, "submitted_unit_ids": ids[source]}
        for cid, _, _, ids in items if ids[source] is not None])


def answers_table(items, rng):
    rows = []
    for k in (1, 2):
        for source in SOURCES:
            for cid, gold, _, _ in items:
                label = gold if rng.random() < 0.6 else rng.choice(LABELS)
                rows.append({"dataset": "feverous", "system": "verifier", "checkpoint": k, "source": source,
                             "claim_id": cid, "predicted_label": label, "p_supports": 0.0, "p_refutes": 0.0,
                             "p_nei": 0.0})
    return VERIFIER_ANSWERS.from_rows(rows)


def inputs_table(items, window_unresolved):
    rows = []
    for source in SOURCES:
        for cid, label, _, _ in items:
            rows.append({"dataset": "feverous", "split": "dev", "source": source, "claim_id": cid, "gold_label": label,
                         "in_source": True, "candidate_ids": [], "used_unit_ids": [],
                         "unresolved_ids": window_unresolved.get((source, cid), []),
                         "provider_unresolved": 0, "claim_tokens": 1, "unit_tokens": [], "total_tokens": 4,
                         "sentinel": True, "claim_truncated": False, "units_truncated": 0, "input_ids": [1, 5, 2, 2]})
    return VERIFIER_INPUTS.from_rows(rows)


@pytest.fixture
def study1(tmp_path):
    items = constructed_claims()
    paths = {"claims": tmp_path / "claims_dev.parquet", "answers": tmp_path / "answers.parquet",
             "inputs": tmp_path / "inputs_dev.parquet"}
    tables.write_table(claims_table(items), paths["claims"], CLAIMS)
    tables.write_table(answers_table(items, random.Random(11)), paths["answers"], VERIFIER_ANSWERS)
    tables.write_table(inputs_table(items, {("provider_a", "5"): ["Gone_sentence_0"]}), paths["inputs"], VERIFIER_INPUTS)
    evidence = {}
    # whole-list unresolved counts: source a's one id of claim 5 is in its window (inputs table),
    # source b's two ids of claim 3 lie beyond its window
    for source, unresolved in (("provider_a", {"5": 1}), ("provider_b", {"3": 2})):
        evidence[source] = tmp_path / f"{source}.parquet"
        tables.write_table(evidence_table(items, source, unresolved), evidence[source], EVIDENCE)
    outputs = {k: str(tmp_path / f"{k}.parquet") for k in ("answers_ind", "evidence_ind", "relevant", "unresolved")}
    outputs = {"answers": outputs["answers_ind"], "evidence": outputs["evidence_ind"],
               "relevant": outputs["relevant"], "unresolved": outputs["unresolved"]}
    summary = run_study1_indicators(paths["answers"], paths["claims"], {s: str(p) for s, p in evidence.items()},
                                    paths["inputs"], outputs)
    return items, paths, evidence, outputs, summary, tmp_path


def official_files(tmp_path, items, answers, source_a, source_b, checkpoint):
    """Official FEVEROUS gold (with header line) and a predictions file: answers of source a,
    evidence of source b (its full ranked list; the scorer truncates)."""
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / f"pred_{checkpoint}_{source_a}_{source_b}.jsonl"
    lines = [json.dumps({"id": "", "claim": "", "label": "", "evidence": []})]
    lines += [json.dumps({"id": int(cid), "claim": f"claim {cid}", "label": label,
                          "evidence": [{"content": g, "context": {}} for g in groups]}) for cid, label, groups, _ in items]
    gold.write_text("\n".join(lines) + "\n")
    by_claim = {a["claim_id"]: a["predicted_label"] for a in answers
                if a["source"] == source_a and a["checkpoint"] == checkpoint}
    pred.write_text("".join(json.dumps({"id": int(cid), "predicted_label": by_claim[cid],
                                        "predicted_evidence": ids[source_b] or []}) + "\n"
                            for cid, _, _, ids in items))
    return gold, pred


@pytest.mark.parametrize("checkpoint", [1, 2])
@pytest.mark.parametrize("source_a", SOURCES)
@pytest.mark.parametrize("source_b", SOURCES)
def test_indicators_recombine_into_the_feverous_strict_score_for_every_source_pair(study1, checkpoint, source_a, source_b):
    items, paths, _, outputs, _, tmp_path = study1
    ans = tables.read_frame(outputs["answers"], ANSWER_INDICATORS)
    ev = tables.read_frame(outputs["evidence"], EVIDENCE_INDICATORS)
    a = ans[(ans.replicate == checkpoint) & (ans.answer_source == source_a)].set_index("claim_id")
    b = ev[ev.evidence_source == source_b].set_index("claim_id")
    ids = [cid for cid, *_ in items]
    recombined = [bool(a.loc[c, "label_correct"]) and bool(b.loc[c, "eligible"]) for c in ids]
    answers = tables.read_table(paths["answers"], VERIFIER_ANSWERS).to_pylist()
    gold, pred = official_files(tmp_path, items, answers, source_a, source_b, checkpoint)
    official = feverous.score_files(gold, pred)
    assert sum(recombined) / len(ids) == official.strict_score
    by_claim = {x["claim_id"]: x["predicted_label"] for x in answers
                if x["source"] == source_a and x["checkpoint"] == checkpoint}
    for (cid, label, groups, ranked), value in zip(items, recombined):
        per_claim = feverous.score_claim(label, [[feverous.split_element_id(u) for u in g] for g in groups],
                                         by_claim[cid], [feverous.split_element_id(u) for u in ranked[source_b] or []])
        assert per_claim.strict == value, cid


def test_eligibility_follows_the_5_sentence_and_25_cell_truncation_in_provider_order(study1):
    _, _, _, outputs, summary, _ = study1
    ev = tables.read_frame(outputs["evidence"], EVIDENCE_INDICATORS)
    eligible = {(r.evidence_source, r.claim_id): bool(r.eligible) for r in ev.itertuples()}
    expected_a = {"1": True, "2": False, "3": False, "4": True, "5": False, "6": True, "7": False, "8": True, "9": True}
    expected_b = {"1": False, "2": True, "3": True, "4": False, "5": True, "6": False, "7": True, "8": False, "9": False}
    assert {c: eligible[("provider_a", c)] for c in expected_a} == expected_a
    assert {c: eligible[("provider_b", c)] for c in expected_b} == expected_b
    assert summary["claims_missing_from_source"] == {"provider_a": 0, "provider_b": 1}
    n_scored = {(r.evidence_source, r.claim_id): r.n_scored for r in ev.itertuples()}
    assert n_scored[("provider_a", "2")] == 5 and n_scored[("provider_b", "3")] == 6
    assert n_scored[("provider_a", "3")] == 25


def test_answer_rows_carry_the_verifier_conventions(study1):
    _, _, _, outputs, _, _ = study1
    ans = tables.read_frame(outputs["answers"], ANSWER_INDICATORS)
    assert len(ans) == 2 * 2 * 9
    assert set(ans.format) == {"verifier"} and set(ans.parser) == {"none"} and set(ans.answer_budget) == {"full"}
    assert set(ans.replicate) == {1, 2} and set(ans.doc_id) == {""} and ans.submitted.all()
    rel = tables.read_frame(outputs["relevant"], RELEVANT)
    assert len(rel) == 9 and set(rel.n_relevant) == {1}


def test_claims_with_an_unresolved_unit_under_either_source_leave_the_restricted_population(study1):
    """Claim 5: source a has an unresolved id inside its verifier input window (and so in its
    list); claim 3: source b has two unresolved ids in its list, none in its window. Window
    definition: only claim 5 leaves (8 of 9 claims stay); whole list: claims 3 and 5 (7 stay).
    Repeats (claim 7): source a lists sentence 1 five times (4 repeats), source b sentence 9
    twice (1 repeat)."""
    _, _, _, outputs, summary, _ = study1
    flags = tables.read_frame(outputs["unresolved"], UNRESOLVED_FLAGS).set_index("claim_id")
    assert sorted(flags.index[flags.any_unresolved]) == ["5"]
    assert sorted(flags.index[flags.any_unresolved_in_list]) == ["3", "5"]
    assert dict(flags.loc["3", "unresolved_by_source"]) == {"provider_a": 0, "provider_b": 0}
    assert dict(flags.loc["3", "list_unresolved_by_source"]) == {"provider_a": 0, "provider_b": 2}
    assert dict(flags.loc["5", "unresolved_by_source"]) == {"provider_a": 1, "provider_b": 0}
    assert dict(flags.loc["7", "duplicates_by_source"]) == {"provider_a": 4, "provider_b": 1}
    assert (flags.both_resolved == ~flags.any_unresolved).all()
    assert (flags.both_resolved_in_list == ~flags.any_unresolved_in_list).all()
    assert int(flags.both_resolved.sum()) == 8 and int(flags.both_resolved_in_list.sum()) == 7
    assert summary["claims_with_unresolved"] == 1 and summary["claims_with_unresolved_in_list"] == 2
    assert summary["duplicate_ids_by_source"] == {"provider_a": 4, "provider_b": 1}


def test_scored_prefix_keeps_provider_order_and_independent_budgets():
    ranked = cells("P", range(30)) + sentences("P", range(8))
    kept = feverous_scored_prefix(ranked[:3] + sentences("P", range(8)) + ranked[3:30])
    assert kept == cells("P", range(3)) + sentences("P", range(5)) + cells("P", range(3, 25))
