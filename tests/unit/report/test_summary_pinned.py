"""The summary page's bytes are pinned: pages built from fixed inputs (``support.summary_cases``:
the pipeline's page with every study, Study 1 alone, a paper run, a paper run on public files,
an accounted system beside a table shown whole, the ``account`` command's page, and text holding
every character HTML escapes) equal the expected pages in ``tests/fixtures/summary_pages`` byte
for byte, apart from the base64 text of the embedded PNGs, which is checked against the PNGs
themselves (matplotlib's bytes may differ between machines)."""
import base64

import pytest

from support.paths import FIXTURES
from support.summary_cases import CASES, build_case, embedded_pngs, pinned_form

EXPECTED = FIXTURES / "summary_pages"


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_equals_the_expected_page_byte_for_byte(case, tmp_path):
    page, pngs = build_case(case, tmp_path)
    assert pinned_form(page).encode("utf-8") == (EXPECTED / f"{case}.html").read_bytes()
    payloads = embedded_pngs(page)
    assert [base64.b64decode(payload) for payload in payloads] == pngs
    assert all(len(line) <= 76 for payload in payloads for line in payload.split("\n"))  # see render_page


def test_every_expected_page_has_a_case():
    assert sorted(path.stem for path in EXPECTED.glob("*.html")) == sorted(CASES)


def test_escaped_text_reads_as_it_was_given(tmp_path):
    """The escaping case's characters come back unchanged when the page is parsed, and no
    entity is escaped twice."""
    from support.summary_page import PageParser

    page, _ = build_case("escaping", tmp_path)
    parser = PageParser()
    parser.feed(page)
    assert parser.headings == ['Quotes: "double", \'single\' & <tag>', "Absent <section>"]
    assert parser.paragraphs[0] == 'A lede "quoted" & <escaped>.'
    (value,) = {v["data-src"]: v for v in parser.values if v["data-col"] == "it's"}.values()
    assert (value["data-src"], value["data-text"], value["shown"]) == ('tables/a&b "quoted" <x>.tsv', "<1 & 2>",
                                                                       "<1 & 2>")
    assert "&amp;amp;" not in page and "&amp;lt;" not in page
