"""The summary page's templates: the page's bytes are pinned, text is escaped once, and the
templates ship with the package.

Pages built from fixed inputs (``support.summary_cases``: the pipeline's page with every study,
Study 1 alone, a paper run, a paper run on public files, an accounted system beside a table shown
whole, the ``account`` command's page, and text holding every character HTML escapes) equal the
expected pages in ``tests/fixtures/summary_pages`` byte for byte, apart from the base64 text of
the embedded PNGs, which is checked against the PNGs themselves (matplotlib's bytes may differ
between machines)."""
import base64
import fnmatch
import tomllib
from pathlib import Path

import pytest

from support.paths import FIXTURES, REPO_ROOT
from support.summary_cases import CASES, build_case, embedded_pngs, pinned_form

import evidence_ledger
from evidence_ledger.report.summary import Section, render_page

EXPECTED = FIXTURES / "summary_pages"


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_equals_the_expected_page_byte_for_byte(case, tmp_path):
    page, pngs = build_case(case, tmp_path)
    assert pinned_form(page).encode("utf-8") == (EXPECTED / f"{case}.html").read_bytes()
    payloads = embedded_pngs(page)
    assert [base64.b64decode(payload) for payload in payloads] == pngs
    assert all(len(line) <= 76 for payload in payloads for line in payload.split("\n"))  # see png_base64_lines


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


def test_a_block_the_templates_cannot_lay_out_is_refused():
    with pytest.raises(TypeError, match="unknown block str in section 'odd'"):
        render_page([Section("odd", "Odd", blocks=("a bare string",))])


def test_the_templates_ship_as_package_data():
    """Every file in ``report/templates`` matches a ``[tool.setuptools.package-data]`` pattern,
    so an installed (non-editable) package holds the templates it loads."""
    package = Path(evidence_ledger.__file__).parent
    patterns = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["evidence_ledger"]
    templates = [p.relative_to(package).as_posix() for p in (package / "report/templates").iterdir()]
    assert "report/templates/summary.html" in templates
    assert [t for t in templates if not any(fnmatch.fnmatch(t, pattern) for pattern in patterns)] == []
