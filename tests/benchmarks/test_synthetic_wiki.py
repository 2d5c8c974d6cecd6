"""benchmarks/synthetic_wiki.py is calibrated to the published statistics of the real wikis
(docs/scale.md): non-stop tokens per page as the index tokenises them, and vocabulary growth
by the Heaps law whose value at the FEVER wiki's published token count is its distinct-term
count. Small samples (2,000 pages), so the tolerances are stated per figure."""
import importlib.util

import pytest

from support.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location("synthetic_wiki", REPO_ROOT / "benchmarks" / "synthetic_wiki.py")
wiki = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wiki)


def test_fever_pages_carry_the_published_token_density():
    """Anserini's FEVER paragraph index: 322,660,814 analysed terms over 5,396,106 pages (59.8 a
    page); the sample is within 5% of it."""
    stats = wiki.sample_statistics("fever", 2000)
    assert stats["tokens_per_page"] == pytest.approx(322_660_814 / 5_396_106, rel=0.05)


def test_feverous_pages_are_full_articles():
    """FEVEROUS pages are whole articles: at least 280 non-stop tokens a page (3% sampling slack)
    and more units than a FEVER introduction."""
    stats = wiki.sample_statistics("feverous", 2000)
    assert stats["tokens_per_page"] >= 0.97 * 280
    assert stats["units_per_page"] > 3 * wiki.sample_statistics("fever", 500)["units_per_page"]


def test_vocabulary_follows_the_heaps_law_fitted_to_the_published_count():
    """The Heaps law reaches ~4M distinct terms at the FEVER wiki's 322.7M tokens (within 2%),
    and the sample's distinct terms are that law's prediction for its own token count (10%):
    at 5.4M pages the vocabulary is millions of terms, not the tens of millions of the old
    Zipf(1.2) open vocabulary."""
    assert wiki.heaps_vocabulary(322_660_814) == pytest.approx(4_000_000, rel=0.02)
    for corpus in ("fever", "feverous"):
        stats = wiki.sample_statistics(corpus, 2000)
        assert stats["distinct_terms"] == pytest.approx(stats["heaps_prediction"], rel=0.10), corpus


def test_page_ids_are_unique_and_add_no_term_per_page():
    ids = [wiki.page_id(k) for k in range(200_000)]
    assert len(set(ids)) == len(ids)
    words = {w.lower() for i in ids for w in i.split("_")}
    assert len(words) <= 500
