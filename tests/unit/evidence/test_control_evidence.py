"""EVIDENCE rows for orderings and the controls none / swap / gold / reversed."""
import pytest

from evidence_ledger.evidence.assemble import (EvidenceBuilder, PrefixCaps, UnitInfo, assemble_evidence,
                                               derangement)
from support.evidence_tokenizers import budget_tokenizers


@pytest.fixture(scope="module")
def toks(tmp_path_factory):
    return budget_tokenizers(tmp_path_factory.mktemp("tok"))


def fever_builder(toks, budgets):
    units = {f"{p}::{i}": UnitInfo(f"{p} fact {i}", "", "sentence", p) for p in "ABC" for i in range(4)}
    units["A::9"] = UnitInfo("a very long sentence with many many words in it", "", "sentence", "A")
    return EvidenceBuilder("fever", units, toks, budgets, PrefixCaps(non_cell=2))


def ordering(cid, ids):
    return {"claim_id": cid, "unit_ids": ids}


def test_swap_is_a_deterministic_derangement():
    ids = [str(i) for i in range(10)]
    d = derangement(ids, seed=5)
    assert sorted(d) == ids and sorted(d.values()) == ids
    assert all(d[c] != c for c in ids)
    assert derangement(list(reversed(ids)), seed=5) == d
    assert derangement(ids, seed=6) != d
    with pytest.raises(ValueError):
        derangement(["1"], seed=5)


def test_orderings_and_controls_rows(toks):
    b = fever_builder(toks, {"short": 6, "long": 9})
    orderings = {"bm25": [ordering("1", ["A::0", "A::1", "A::2"]), ordering("2", ["B::0", "B::1", "B::2"])],
                 "bge": [ordering("1", ["A::2", "A::0", "A::1"]), ordering("2", ["B::1", "B::0", "B::2"])]}
    gold = {"1": [["A::9"], ["A::3", "C::0"]], "2": []}
    rows = assemble_evidence(b, orderings, {}, gold, swap_seed=1)
    by = {(r["claim_id"], r["source"], r["budget"]): r for r in rows}
    assert len(rows) == 2 * 8 * 2  # claims x (2 orderings + none, gold + swap, reversed per ordering) x budgets
    short = by[("1", "bm25", "short")]
    assert short["visible_unit_ids"] == ["A::0", "A::1"]  # 3 tokens each: 6 fit, 9 do not
    assert short["visible_text"] == "A fact 0\nA fact 1"
    assert short["tokens_by_tokenizer"] == {"pieces": 6, "words": 6}
    assert by[("1", "bm25", "long")]["visible_unit_ids"] == ["A::0", "A::1", "A::2"]
    assert by[("1", "bm25", "long")]["scored_unit_ids"] == ["A::0", "A::1"]  # cap 2
    assert by[("1", "bge", "short")]["visible_unit_ids"] == ["A::2", "A::0"]
    assert by[("1", "none", "long")]["visible_unit_ids"] == [] and by[("1", "none", "long")]["visible_text"] == ""
    assert by[("1", "reversed_bm25", "long")]["visible_unit_ids"] == ["A::2", "A::1", "A::0"]
    assert by[("1", "reversed_bm25", "long")]["scored_unit_ids"] == ["A::2", "A::1"]
    # reversed is built from each source's own ordering: bge long shows A::2, A::0, A::1
    assert by[("1", "reversed_bge", "long")]["visible_unit_ids"] == ["A::1", "A::0", "A::2"]
    assert by[("1", "reversed_bge", "short")]["visible_unit_ids"] == ["A::0", "A::2"]
    # two claims: the derangement swaps them, under each source's own evidence
    assert by[("1", "swap_bm25", "short")]["visible_unit_ids"] == ["B::0", "B::1"]
    assert by[("2", "swap_bm25", "long")]["visible_unit_ids"] == ["A::0", "A::1", "A::2"]
    assert by[("1", "swap_bge", "short")]["visible_unit_ids"] == ["B::1", "B::0"]
    assert by[("2", "swap_bge", "long")]["visible_unit_ids"] == ["A::2", "A::0", "A::1"]
    assert ("1", "swap", "short") not in by and ("1", "reversed", "short") not in by
    # gold: the first group (10 tokens) fits neither budget; the second (6 tokens) fits both
    assert by[("1", "gold", "short")]["visible_unit_ids"] == ["A::3", "C::0"]
    assert by[("1", "gold", "short")]["fits_budget"] is True
    assert by[("2", "gold", "short")]["visible_unit_ids"] == [] and by[("2", "gold", "short")]["fits_budget"]


def test_gold_that_fits_no_budget_is_shown_whole_and_flagged(toks):
    b = fever_builder(toks, {"short": 6})
    rows = assemble_evidence(b, {"bm25": [ordering("1", ["A::0"]), ordering("2", ["B::0"])]}, {},
                             {"1": [["A::9", "Z::1"], ["A::9"]], "2": []}, controls=["gold"], swap_seed=1)
    gold = [r for r in rows if r["source"] == "gold" and r["claim_id"] == "1"][0]
    # the first group has an unresolved id, the second resolves but needs 10 tokens > 6
    assert gold["visible_unit_ids"] == ["A::9"]
    assert gold["fits_budget"] is False and gold["unresolved"] == 0
    assert gold["tokens_by_tokenizer"] == {"pieces": 10, "words": 10}


def test_scifact_rows_are_per_retrieved_abstract_in_source_order(toks):
    units = {f"{d}:{i}": UnitInfo(f"s{i} of {d}", "T", "sentence", d) for d in ("11", "22") for i in range(5)}
    b = EvidenceBuilder("scifact", units, toks, {"long": 100}, PrefixCaps(non_cell=3), per_document=True)
    orderings = {"bm25": [ordering("1", ["22:3", "11:0", "22:1", "11:4", "22:0", "11:2", "22:2"]),
                          ordering("2", ["11:1"])]}
    rows = assemble_evidence(b, orderings, {"1": ["11", "22"], "2": ["11"]}, {"1": [["22:1", "22:3"]]},
                             controls=["gold", "swap"], swap_seed=0)
    by = {(r["claim_id"], r["doc_id"], r["source"]): r for r in rows}
    assert by[("1", "11", "bm25")]["visible_unit_ids"] == ["11:0", "11:4", "11:2"]
    assert by[("1", "22", "bm25")]["visible_unit_ids"] == ["22:3", "22:1", "22:0", "22:2"]
    assert by[("1", "22", "bm25")]["scored_unit_ids"] == ["22:3", "22:1", "22:0"]
    assert by[("1", "22", "bm25")]["visible_text"].startswith("[T] s3 of 22\n[T] s1 of 22")
    assert by[("1", "22", "gold")]["visible_unit_ids"] == ["22:1", "22:3"]
    assert by[("1", "11", "gold")]["visible_unit_ids"] == []
    # swap: claim 1's first abstract gets claim 2's first abstract; its second has no donor
    assert by[("1", "11", "swap_bm25")]["visible_unit_ids"] == ["11:1"]
    assert by[("1", "22", "swap_bm25")]["visible_unit_ids"] == []


def test_assembling_some_claims_gives_their_rows_of_every_claim_and_draws_swap_donors_from_all(toks):
    """Only the claims asked for are assembled (the Study 2 sample among every retrieved claim),
    and their rows are those of assembling every claim, byte for byte: the swap donor is drawn
    from every ordered claim and its evidence built, not written; the other claims' are not built."""
    from evidence_ledger.evidence.assemble import claims_to_build

    b = fever_builder(toks, {"short": 6, "long": 9})
    orderings = {src: [ordering(str(k), [f"{p}::{(i + k) % 4}" for i in range(3)]) for k, p in enumerate("ABCAB")]
                 for src in ("bm25", "bge")}
    gold = {str(k): [[f"{p}::0"]] for k, p in enumerate("ABCAB")}
    every = assemble_evidence(b, orderings, {}, gold, swap_seed=3)
    donors = derangement([str(k) for k in range(5)], seed=3)
    wanted = {"1", "4"}
    assert claims_to_build(orderings, {}, False, wanted, True, 3) == {
        s: wanted | {donors["1"], donors["4"]} for s in ("bm25", "bge")}
    assert {donors["1"], donors["4"]} - wanted  # a donor outside the claims asked for: built, not written
    some = assemble_evidence(b, orderings, {}, {c: gold[c] for c in wanted}, swap_seed=3, claim_ids=wanted)
    assert some == [r for r in every if r["claim_id"] in wanted]
    assert claims_to_build(orderings, {}, False, wanted, False, 3) == {"bm25": wanted, "bge": wanted}


def test_controls_need_an_ordering(toks):
    b = fever_builder(toks, {"short": 6})
    with pytest.raises(ValueError, match="ordering"):
        assemble_evidence(b, {}, {}, {}, controls=["none"], swap_seed=1)


def test_control_source_names_round_trip():
    from evidence_ledger.vocabulary import control_of, control_source, control_sources
    assert control_sources(["none", "swap", "gold", "reversed"], ["bm25", "bge"]) == [
        "none", "swap_bm25", "swap_bge", "gold", "reversed_bm25", "reversed_bge"]
    assert control_source("gold", "bge") == "gold"
    assert [control_of(s) for s in ("swap_bge", "reversed_bm25", "none", "gold", "bm25", "provider_bm25")] == [
        "swap", "reversed", "none", "gold", None, None]
