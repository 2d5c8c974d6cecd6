"""Reading a summary page back: its tagged values, tables, paragraphs and images, and the
check that every tagged value is the cell of the source TSV it names."""
import re
from html.parser import HTMLParser
from pathlib import Path

from evidence_ledger.report.sources import display_text, read_source_table

TEXT_KINDS = {"text", "flag"}


class PageParser(HTMLParser):
    """Tagged values (span.v), table cells (text, text outside tagged values, class), paragraph
    texts and links (``[href, text]``) of a summary page."""

    def __init__(self):
        super().__init__()
        self.values, self.tables, self.paragraphs, self.images, self.headings = [], [], [], [], []
        self.links = []
        self._span = self._cell = self._row = self._para = self._heading = self._link = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "href" in attrs:
            self._link = [attrs["href"], ""]
            self.links.append(self._link)
        if tag == "span" and attrs.get("class") == "v":
            self._span = dict(attrs, shown="")
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = {"class": attrs.get("class", tag), "text": "", "outside": ""}
        elif tag == "p":
            self._para = ""
        elif tag == "h2":
            self._heading = ""
        elif tag == "img":
            self.images.append(attrs)

    def handle_endtag(self, tag):
        if tag == "a":
            self._link = None
        if tag == "span" and self._span is not None:
            self.values.append(self._span)
            self._span = None
        elif tag in ("td", "th"):
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr":
            self.tables[-1].append(self._row)
        elif tag == "p":
            self.paragraphs.append(self._para)
            self._para = None
        elif tag == "h2":
            self.headings.append(self._heading)
            self._heading = None

    def handle_data(self, data):
        if self._link is not None:
            self._link[1] += data
        if self._span is not None:
            self._span["shown"] += data
        if self._cell is not None:
            self._cell["text"] += data
            if self._span is None:
                self._cell["outside"] += data
        if self._para is not None:
            self._para += data
        if self._heading is not None:
            self._heading += data


def parse(path) -> PageParser:
    parser = PageParser()
    parser.feed(Path(path).read_text(encoding="utf-8"))
    return parser


def check_values_against_sources(page: PageParser, root=None) -> tuple[int, set[str]]:
    """Assert that each tagged value's text is exactly the cell its ``data-src`` (relative to
    ``root`` when given) / ``data-line`` / ``data-col`` name, that its shown text is that cell
    rounded for reading, and that number cells hold no digit outside tagged values.
    Returns (number of numeric values, set of source paths)."""
    tables = {}
    for v in page.values:
        path = Path(root, v["data-src"]) if root else Path(v["data-src"])
        table = tables.setdefault(v["data-src"], read_source_table(path))
        row = table.rows[table.lines.index(int(v["data-line"]))]
        assert row[v["data-col"]] == v["data-text"], v
        assert v["shown"] == display_text(v["data-text"], v["data-kind"]), v
    for table in page.tables:
        for row in table:
            for cell in row:
                if cell["class"] == "num":
                    assert not re.search(r"\d", cell["outside"]), cell
    return sum(v["data-kind"] not in TEXT_KINDS for v in page.values), set(tables)
