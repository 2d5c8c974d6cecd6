"""The item explorer in a real browser: headless Chromium loads it at a link (the summary page's
form, plus filters in the fragment), runs its script and dumps the DOM; the groups it shows have
the counts the ITEMS table gives, and an opened item shows its texts as text.

Skipped (with the reason) where no Chromium binary is installed; on Debian/Ubuntu
``apt-get install -y chromium`` provides one.
"""
import re
import shutil
import subprocess
from urllib.parse import quote

import pandas as pd
import pytest

from support.item_tables import HOSTILE_CLAIM, dumped_group_counts, dumped_status, write_demo_items

from evidence_ledger.report.item_links import items_href
from evidence_ledger.report.items_page import write_items_page
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.items import ITEMS

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium / chromium-browser / google-chrome binary on "
                                                         "PATH (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def explorer(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer")
    items, texts = write_demo_items(root)
    page = write_items_page(items=items, item_texts=texts, html_out=root / "report" / "items.html")
    return page, pd.concat([read_frame(p, ITEMS) for p in items])


def dom_at(page, key: str, component: str | None = None, **filters: str) -> str:
    """The DOM once the page's script has run, opened at the summary page's link to ``key``
    (and ``component``) with ``filters`` added to the fragment."""
    url = page.parent.as_uri() + "/" + items_href(key, component)
    url += "".join(f"&{name}={quote(value, safe='')}" for name, value in filters.items())
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
                           "--dump-dom", url], capture_output=True, text=True, timeout=180)
    assert "<html" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def table_counts(table: pd.DataFrame, key: str, component: str, gold=None, pattern=None) -> dict[str, int]:
    rows = table[table["comparison"] == key]
    if gold is not None:
        rows = rows[rows["gold"] == gold]
    if pattern is not None:
        rows = rows[rows["pattern"] == pattern]
    return {"raises": int((rows[component] > 0).sum()), "lowers": int((rows[component] < 0).sum()),
            "leaves": int((rows[component] == 0).sum())}


def test_a_grouping_and_a_gold_filter_from_the_link_show_the_tables_counts(explorer):
    page, table = explorer
    key = "study2/fever/llama/codes/strict/long"
    dom = dom_at(page, key, "A1", gold="REFUTES")
    status = dumped_status(dom)
    expected = table_counts(table, key, "A1", gold="REFUTES")
    assert (status["state"], status["comparison"], status["component"], status["gold"]) == ("ready", key, "A1",
                                                                                           "REFUTES")
    assert dumped_group_counts(dom) == expected
    assert int(status["shown"]) == sum(expected.values()) and int(status["items"]) == 30
    shown_rows = re.findall(r'<tr data-item="(f\d+)"', dom)
    assert sorted(shown_rows) == sorted(table[(table["comparison"] == key) & (table["gold"] == "REFUTES")]["item_id"])


def test_a_pattern_filter_on_continuous_scores_shows_the_tables_counts(explorer):
    """KILT's F1 items (shares between the strict 0 / 100 steps), grouped by E0, one pattern."""
    page, table = explorer
    key = "study1/kilt/mysystem/official/none/full"
    pattern = table[table["comparison"] == key]["pattern"].value_counts().index[0]
    dom = dom_at(page, key, "E0", pattern=pattern)
    assert dumped_status(dom)["pattern"] == pattern
    assert dumped_group_counts(dom) == table_counts(table, key, "E0", pattern=pattern)


def test_an_opened_item_shows_its_claim_evidence_and_answers_as_text(explorer):
    """The hostile claim is shown as text (the title is unchanged, no element came from it);
    each source's evidence and one answer per checkpoint and source."""
    page, _ = explorer
    dom = dom_at(page, "study1/feverous/verifier/verifier/none/full", "gain", item="fv007")
    assert dumped_status(dom)["item"] == "fv007"
    panel = dom[dom.index('<section id="item-panel"'):]
    panel = panel[:panel.index("</section>")]
    escaped = HOSTILE_CLAIM.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert f'<p class="claim-text">{escaped}</p>' in panel
    assert "<title>Evidence Ledger: the items behind each decomposition</title>" in dom
    assert re.findall(r'<details open="" class="evidence" data-source="(\w+)"', panel) == ["retrieval_bm25",
                                                                                            "provider"]
    assert "[provider on fv007]" in panel
    assert re.findall(r'<tr data-replicate="(\d+)">', panel) == ["0", "1", "2", "3"]


def test_a_link_to_a_comparison_the_page_lacks_says_so(explorer):
    page, table = explorer
    dom = dom_at(page, "study2/fever/qwen/codes/strict/long", "E0")
    assert "This page has no comparison study2/fever/qwen/codes/strict/long." in dom
    first = sorted(table[table["comparison"].str.startswith("study1/feverous")]["comparison"])[0]
    assert dumped_status(dom)["comparison"] == first
