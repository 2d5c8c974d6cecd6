"""Claim families: link rules on small inputs, and concrete links on the real FEVER paper_dev."""

import pytest

from support.paths import shared_file
from support.in_memory_release import read_fever_claims
from evidence_ledger.sampling.families import (assign_families, build_family_links, citation_links, claim_sort_key,
                                      exact_match_links, family_population, families_rows,
                                      negation_mutation_links, normalise_claim, numeric_mutation_links, claim_tokens)

NEG = ["not", "never", "no"]


def test_normalisation_casefolds_and_drops_punctuation_and_extra_spaces():
    assert normalise_claim("  The Hundred Years' War   includes ... the CIVIL war!") == "the hundred years war includes the civil war"


def test_exact_match_links_star_to_smallest_id():
    links = exact_match_links(["30", "4", "100"], ["Shinji Mikami directed Halo.", "shinji mikami directed halo", "Halo."])
    assert links == [("4", "30", "exact_match", 1.0)]


def test_negation_mutation_needs_exactly_one_removed_negation_token():
    texts = ["Ed Wood is about the filmmaker.", "Ed Wood is not about the filmmaker.",
             "Ed Wood is not never about the filmmaker.", "Ed Wood is surely about the filmmaker."]
    ids = ["1", "2", "3", "4"]
    links = negation_mutation_links(ids, [claim_tokens(t) for t in texts], NEG)
    assert links == [("1", "2", "negation_mutation", 1.0), ("2", "3", "negation_mutation", 1.0)]


def test_numeric_mutation_differs_in_exactly_one_number():
    texts = ["EA Black Box was founded in 1998.", "EA Black Box was founded in 1999.",
             "EA Black Box was founded in 1999 and 2001.", "EA Black Box was created in 1997.",
             "EA Black Box was founded in 1,998."]
    ids = ["1", "2", "3", "4", "5"]
    links = numeric_mutation_links(ids, [claim_tokens(t) for t in texts])
    assert links == [("1", "2", "numeric_mutation", 1.0), ("1", "5", "numeric_mutation", 1.0)]


def test_citation_links_join_claims_sharing_a_cited_document():
    links = citation_links(["5", "2", "9"], [["11", "12"], ["12"], ["13"]])
    assert links == [("2", "5", "citation", 0.5)]


def test_near_duplicates_need_jaccard_above_threshold_among_bm25_neighbours():
    texts = ["Craig David is a pop music performer.", "Craig David is a British pop music performer.",
             "Craig David is a singer.", "The Thames flows through London."]
    ids = ["1", "2", "3", "4"]
    links = build_family_links(ids, texts, None, NEG, top_k=50, threshold=0.8)
    assert links == [("1", "2", "near_duplicate", 0.875)]
    low = build_family_links(ids, texts, None, NEG, top_k=50, threshold=0.5)
    assert ("1", "3", "near_duplicate", 0.5) in low  # 4 shared of 8 distinct tokens


def test_family_id_is_the_smallest_member_in_numeric_order():
    ids = ["100", "9", "25", "7"]
    links = [("9", "100", "exact_match", 1.0), ("25", "100", "citation", 1.0)]
    assert assign_families(ids, links) == {"100": "9", "9": "9", "25": "9", "7": "7"}
    fam_rows, _ = families_rows("x", ids, links)
    assert [r["claim_id"] for r in fam_rows] == ["7", "9", "25", "100"]
    assert claim_sort_key("9") < claim_sort_key("10") < claim_sort_key("abc")


def test_population_of_several_splits_keeps_shared_ids_once_and_rejects_conflicts():
    from evidence_ledger.tables.ingest import CLAIMS

    def table(rows):
        return CLAIMS.from_rows([{"dataset": "feverous", "claim_id": c, "claim": t, "label": "SUPPORTS",
                                  "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [],
                                  "source_file": "f", "source_line": 1, "unresolved_ids": None} for c, t in rows])
    ids, texts, _ = family_population([table([("1", "a"), ("2", "b")]), table([("2", "b"), ("3", "c")])])
    assert ids == ["1", "2", "3"]
    with pytest.raises(ValueError, match="claim id 2 has different texts"):
        family_population([table([("2", "b")]), table([("2", "B!")])])


TOP_K = 50


@pytest.fixture(scope="module")
def real_fever_families():
    """The real paper_dev families, and how many claim pairs the near-duplicate step compared
    (``token_jaccard`` calls, counted by a wrapper that still computes every one)."""
    from evidence_ledger.sampling import families

    claims = read_fever_claims(shared_file("fever", "paper_dev.jsonl"))
    ids, texts = claims.column("claim_id").to_pylist(), claims.column("claim").to_pylist()
    compared = []
    jaccard = families.token_jaccard

    def counted_jaccard(a, b):
        compared.append(1)
        return jaccard(a, b)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(families, "token_jaccard", counted_jaccard)
        links = build_family_links(ids, texts, None, NEG, top_k=TOP_K, threshold=0.8)
    return ids, texts, links, assign_families(ids, links), len(compared)


def test_real_fever_negated_claims_share_a_family(real_fever_families):
    ids, texts, links, family, _ = real_fever_families
    text = dict(zip(ids, texts))
    # verified by eye: "Alexandra Daddario is an actress." / "... is not an actress."
    assert (text["367"], text["150313"]) == ("Alexandra Daddario is an actress.", "Alexandra Daddario is not an actress.")
    assert ("367", "150313", "negation_mutation", 1.0) in links
    assert family["367"] == family["150313"]
    # "Ed Wood is about the eponymous filmmaker." / "Ed Wood is not about the eponymous filmmaker."
    assert ("1666", "1667", "negation_mutation", 1.0) in links and family["1667"] == "1666"


def test_real_fever_numeric_mutation_and_exact_duplicate_links(real_fever_families):
    ids, texts, links, family, _ = real_fever_families
    text = dict(zip(ids, texts))
    assert (text["1480"], text["1481"]) == ("EA Black Box was founded in 1998.", "EA Black Box was founded in 1999.")
    assert ("1480", "1481", "numeric_mutation", 1.0) in links
    # "TakePart is the digital division of Participant Media." appears three times
    assert {family["833"], family["37112"], family["129932"]} == {family["833"]}
    assert ("833", "37112", "exact_match", 1.0) in links


def test_real_fever_families_are_deterministic_and_compare_top_k_neighbours_only(real_fever_families):
    """Deterministic, and linear in the claims: the near-duplicate step compares each claim with at
    most its ``top_k`` BM25 neighbours (<= n * top_k pairs), never all n(n-1)/2 pairs (a count, not
    a clock: the run's speed on a loaded machine is no test)."""
    ids, texts, links, family, compared = real_fever_families
    again = build_family_links(ids, texts, None, NEG, top_k=TOP_K, threshold=0.8)
    assert again == links
    assert assign_families(ids, again) == family
    assert 0 < compared <= len(ids) * TOP_K < len(ids) * (len(ids) - 1) // 2
