"""Provider submissions: id formats, unresolved ids counted, provider order kept, export round trip."""
import json

import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.evidence.assemble import EvidenceBuilder, PrefixCaps, UnitInfo
from evidence_ledger.evidence.providers import export_submission, import_submission_rows, read_submission
from support.evidence_tokenizers import budget_tokenizers


@pytest.fixture(scope="module")
def builder(tmp_path_factory):
    units = {"Page_sentence_0": UnitInfo("First.", "Page", "sentence", "Page"),
             "Page_sentence_3": UnitInfo("Fourth.", "Page", "sentence", "Page"),
             "Page_cell_0_1_2": UnitInfo("42", "Page | Table", "cell", "Page"),
             "Other::3": UnitInfo("A FEVER line.", "Other", "sentence", "Other")}
    return EvidenceBuilder("feverous", units, budget_tokenizers(tmp_path_factory.mktemp("tok")), {},
                           PrefixCaps(non_cell=5, cell=25))


def write_lines(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_id_strings_triples_and_pairs_resolve_and_order_is_kept(tmp_path, builder):
    path = write_lines(tmp_path / "s.jsonl", [
        {"id": 1, "predicted_evidence": [["Page", "cell", "0_1_2"], "Page_sentence_3", ["Other", 3],
                                         "Page_sentence_3", "Missing_sentence_1", ["Page", "sentence", "0"]]},
    ])
    sub = read_submission(path, {"1", "2"})
    # kept exactly as written: the repeated Page_sentence_3 stays
    assert sub == {"1": ["Page_cell_0_1_2", "Page_sentence_3", "Other::3", "Page_sentence_3", "Missing_sentence_1",
                         "Page_sentence_0"]}
    rows, summary = import_submission_rows(builder, ["1", "2"], sub, "provider_x")
    first = rows[0]
    assert first["visible_unit_ids"] == ["Page_cell_0_1_2", "Page_sentence_3", "Other::3", "Page_sentence_0"]
    assert first["submitted_unit_ids"] == sub["1"]
    assert first["unresolved"] == 1 and first["budget"] == "full" and first["source"] == "provider_x"
    assert first["visible_text"].splitlines()[0] == "[Page | Table] 42"
    # claim 2 has no line in the submission: an empty row, counted
    assert rows[1]["visible_unit_ids"] == [] and rows[1]["unresolved"] == 0 and rows[1]["submitted_unit_ids"] == []
    assert summary == {"source": "provider_x", "claims": 2, "claims_without_submission": 1,
                       "predicted_ids": 6, "unresolved_ids": 1, "duplicate_ids": 1, "claims_with_duplicates": 1}


@pytest.mark.parametrize("line, field, message", [
    ("{not json", "<json>", "malformed JSON"),
    ({"predicted_evidence": []}, "id", "missing claim id"),
    ({"id": "9", "predicted_evidence": []}, "id", "not in the claims table"),
    ({"id": "1", "predicted_evidence": "Page_sentence_0"}, "predicted_evidence", "not a list"),
    ({"id": "1", "predicted_evidence": [["Page", "cell", "0", "1"]]}, "predicted_evidence", "neither"),
])
def test_malformed_lines_name_file_line_and_field(tmp_path, line, field, message):
    path = write_lines(tmp_path / "bad.jsonl", [{"id": "2", "predicted_evidence": []}, line])
    with pytest.raises(InputError, match=message) as err:
        read_submission(path, {"1", "2"})
    assert err.value.line == 2 and err.value.field == field and err.value.path == str(path)


def test_claim_given_twice_is_an_error(tmp_path):
    path = write_lines(tmp_path / "dup.jsonl", [{"id": "1", "predicted_evidence": []}] * 2)
    with pytest.raises(InputError, match="appears twice"):
        read_submission(path, {"1"})


def test_exported_ordering_imports_back_unchanged(tmp_path, builder):
    orderings = [{"claim_id": "2", "unit_ids": ["Page_sentence_3", "Page_sentence_0"]},
                 {"claim_id": "1", "unit_ids": ["Page_cell_0_1_2", "Other::3", "Page_sentence_0"]}]
    path = tmp_path / "provider_bm25.jsonl"
    assert export_submission(orderings, path, max_ids=2) == 2
    assert path.read_text().splitlines()[0] == '{"id": "1", "predicted_evidence": ["Page_cell_0_1_2", "Other::3"]}'
    sub = read_submission(path, {"1", "2"})
    rows, summary = import_submission_rows(builder, ["1", "2"], sub, "provider_bm25")
    assert [r["visible_unit_ids"] for r in rows] == [["Page_cell_0_1_2", "Other::3"], ["Page_sentence_3", "Page_sentence_0"]]
    assert summary["unresolved_ids"] == 0


def test_unresolved_id_still_takes_a_scored_sentence_slot(builder):
    # The official scorer truncates the submitted list to 5 sentence-like items in order, by
    # the type written in the id; an id missing from the wiki occupies one of those slots.
    ids = ["Page_sentence_0", "Gone_sentence_1", "Gone_sentence_2", "Page_cell_0_1_2", "Gone_title",
           "Gone_section_1", "Page_sentence_3"]
    rows, _ = import_submission_rows(builder, ["1"], {"1": ids}, "provider_x")
    assert rows[0]["visible_unit_ids"] == ["Page_sentence_0", "Page_cell_0_1_2", "Page_sentence_3"]
    assert rows[0]["scored_unit_ids"] == ["Page_sentence_0", "Gone_sentence_1", "Gone_sentence_2",
                                          "Page_cell_0_1_2", "Gone_title", "Gone_section_1"]
    assert rows[0]["unresolved"] == 4


def test_repeated_ids_stay_in_the_scored_submission_and_take_official_truncation_slots(tmp_path):
    """Through import_evidence_source. Submitted: s0, s0, s1, s1, s2, s3, then c0 x 25, c1.
    Official FEVEROUS truncation (5 non-cell, 25 cell-like, in order, a repeat counts): sentences
    s0, s0, s1, s1, s2 (s3 is the 6th sentence item: dropped); cells c0 x 25 (c1 the 26th:
    dropped). So neither gold set {s0, s3} nor {c1} is complete: not eligible, where the
    de-duplicated list (s0, s1, s2, s3 / c0, c1) would have been. Model input: each unit once.
    Repeats: 1 (s0) + 1 (s1) + 24 (c0) = 26, in 1 claim."""
    from evidence_ledger.scoring import feverous
    from evidence_ledger.scoring.indicators import evidence_eligible
    from evidence_ledger.tables import read_table
    from evidence_ledger.tables.evidence import EVIDENCE
    from support.provider_path import import_provider, write_world

    s = [f"Page_sentence_{i}" for i in range(4)]
    c0, c1 = "Page_cell_0_1_1", "Page_cell_0_1_2"
    submitted = [s[0], s[0], s[1], s[1], s[2], s[3]] + [c0] * 25 + [c1]
    groups = [[s[0], s[3]], [c1]]
    claims_path, units_path = write_world(tmp_path, {"1": ("SUPPORTS", groups)}, {u: u for u in s + [c0, c1]})
    evidence_path, summary = import_provider(tmp_path, "provider_x", {"1": submitted}, claims_path, units_path)
    row = read_table(evidence_path, EVIDENCE).to_pylist()[0]
    expected = [s[0], s[0], s[1], s[1], s[2]] + [c0] * 25
    assert row["scored_unit_ids"] == expected
    official = feverous.truncate_evidence([feverous.split_element_id(u) for u in submitted])
    assert [feverous.split_element_id(u) for u in row["scored_unit_ids"]] == official
    assert row["submitted_unit_ids"] == submitted
    assert row["visible_unit_ids"] == s + [c0, c1]
    claim = {"label": "SUPPORTS", "evidence_groups": groups}
    assert not evidence_eligible("feverous", claim, "", row["scored_unit_ids"])
    assert evidence_eligible("feverous", claim, "", list(dict.fromkeys(submitted)))
    assert summary["duplicate_ids"] == 26 and summary["claims_with_duplicates"] == 1
