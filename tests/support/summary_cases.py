"""Summary pages built from fixed inputs, whose bytes a test pins (``tests/fixtures/summary_pages``).

Each case writes the hand-built report TSVs of ``support.summary_tables`` under a directory and
builds one page from them the way the pipeline's ``summary_page`` rule or the ``account``
command does, running in that directory so that the paths the page cites are relative and the
page is the same wherever it is built. A case returns the page's text and the PNGs it embeds, in
page order.

The PNGs matplotlib draws may differ between machines (fonts, library versions), so the pinned
form of a page has each embedded PNG's base64 text replaced by :data:`PNG_PLACEHOLDER`
(:func:`pinned_form`); the test checks the payloads themselves against the PNGs.

Write the expected pages again (only after a deliberate change to the page) with::

    .venv/bin/python tests/support/summary_cases.py tests/fixtures/summary_pages
"""
from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: import the test support package like pytest does
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.summary_tables import write_summary_inputs

from evidence_ledger.prediction_files.format_registry import get_format
from evidence_ledger.report.accounted import accounted_summary_page, decomposition_png, interval_caption
from evidence_ledger.report.provenance import write_provenance_tsv
from evidence_ledger.report.sources import Value, read_source_table
from evidence_ledger.report.stage import summary_page
from evidence_ledger.report.summary import Figure, Paragraph, Section, Table, render_page

PNG_PLACEHOLDER = "(PNG)"
EMBEDDED_PNG = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=\n]*)"')

PAGE = "results/report/summary.html"
DECOMPOSITION = "results/report/study1_decomposition.png"
#: the settings the summary_page rule passes (fixed here: the pinned pages depend on them)
PAGE_SETTINGS = {"study1_family_size": 1, "study1_alpha": 0.05, "unresolved_scope": "window",
                   "study2_parser": "strict", "study2_sources": ["bm25", "bge"]}

PAPER_PROVENANCE = [
    ("run", "kind", "paper"), ("run", "kind_reason", "released data and the configured Hub models"),
    ("run", "config_sha256", "9484b010b0bde7b41ad1e9d51ddda6f558ef6fc6846964b1e512936a1c2f4c51"),
    ("departure", "models.llama3_70b.quantization", "quantization fp8 on models.llama3_70b: the paper ran bfloat16"),
    ("ran", "models.qwen3", "Qwen/Qwen3-8B @ b968826d9c46dd6066d109eabc6255188de91218"),
    ("model", "models.qwen3.hub_id", "Qwen/Qwen3-8B"),
]
PUBLIC_PROVENANCE = [
    ("run", "kind", "paper"), ("run", "kind_reason", "released data and the configured Hub models"),
    ("substitute", "the Study 2 FEVEROUS candidate pool (data.feverous.claims.pool)",
     "the Study 2 FEVEROUS sample is 2000 claims drawn by hash sampling from the public dev split"),
    ("substitute", "Study 1's verifier predictions (external.feverous.predictions)",
     "source 0 is retrieval_bm25: the pipeline's own bm25 ordering, exported as a submission"),
]
ACCOUNT_PROVENANCE = [
    ("run", "kind", "account"),
    ("input", "gold", "resources/demo/feverous/dev.jsonl (sha256 32a20f9d76f2c2c5)"),
    ("setting", "draws", "10000"), ("setting", "level", "0.95"), ("setting", "resample_runs", "False"),
]


def read_page(path) -> str:
    """A page's text exactly as written (no newline translation)."""
    return Path(path).read_bytes().decode("utf-8")


def relative_inputs(root: Path) -> dict[str, Path]:
    """The summary tables written under ``root``; name -> path relative to ``root``."""
    return {name: path.relative_to(root) for name, path in write_summary_inputs(root).items()}


def full_page(root: Path) -> tuple[str, list[bytes]]:
    """Every study's tables and the demo provenance (the run-kind banner)."""
    paths = relative_inputs(root)
    summary_page(**paths, **PAGE_SETTINGS, html_out=PAGE, decomposition_out=DECOMPOSITION)
    return read_page(PAGE), [Path(DECOMPOSITION).read_bytes(), paths["forest_plot"].read_bytes()]


def study1_bonferroni_page(root: Path) -> tuple[str, list[bytes]]:
    """Study 1 alone with a family of 6 (every other section absent, no provenance table)."""
    paths = relative_inputs(root)
    summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                 **{**PAGE_SETTINGS, "study1_family_size": 6}, html_out=PAGE, decomposition_out=DECOMPOSITION)
    return read_page(PAGE), [Path(DECOMPOSITION).read_bytes()]


def _page_with_provenance(root: Path, rows) -> tuple[str, list[bytes]]:
    """The Study 2 label and the provenance ``rows`` only (no Study 1, so no figure)."""
    paths = relative_inputs(root)
    write_provenance_tsv(rows, paths["provenance"])
    summary_page(decision_label=paths["decision_label"], provenance=paths["provenance"], **PAGE_SETTINGS, html_out=PAGE,
                 decomposition_out=DECOMPOSITION)
    return read_page(PAGE), []


def paper_run_page(root: Path) -> tuple[str, list[bytes]]:
    """A paper run on its own inputs: no banner, a departure line, a model-slot table."""
    return _page_with_provenance(root, PAPER_PROVENANCE)


def public_route_page(root: Path) -> tuple[str, list[bytes]]:
    """A paper run on public files: its banner and the substitutes after the headline."""
    return _page_with_provenance(root, PUBLIC_PROVENANCE)


#: what the page shows of a FEVEROUS system beyond its cells (its format's page layout)
FEVEROUS_LAYOUT = get_format("feverous").page_layout({"max_evidence": 5, "max_evidence_cell": 25, "match": "auto"})


def accounted_and_extra_page(root: Path) -> tuple[str, list[bytes]]:
    """A system accounted from its files (its own section and figure) and a table shown whole;
    none of the pipeline's own studies ran."""
    paths = relative_inputs(root)
    title = "example on feverous: baseline → improved"
    summary_page(accounted_estimates=[paths["study1_estimates"]], accounted_intervals=[paths["study1_intervals"]],
                 accounted_metrics=[paths["study1_intervals"]], accounted_titles=[title],
                 accounted_layouts=[FEVEROUS_LAYOUT],
                 extra_tables=[paths["invalid_rates"]], extra_titles=["INVALID rates, whole"], **PAGE_SETTINGS, html_out=PAGE,
                 decomposition_out=DECOMPOSITION)
    figure = decomposition_png(read_source_table(paths["study1_estimates"]),
                               read_source_table(paths["study1_intervals"]), f"{title}: gain = E0 + A1 = A0 + E1")
    return read_page(PAGE), [figure]


def account_command_page(root: Path) -> tuple[str, list[bytes]]:
    """The ``account`` command's page: its own lede, headline, the system's section and its
    inputs and settings, citing the tables relative to the page."""
    paths = relative_inputs(root)
    write_provenance_tsv(ACCOUNT_PROVENANCE, "account/provenance.tsv")
    accounted_summary_page(title="example on FEVEROUS: baseline → improved", estimates=paths["study1_estimates"],
                           intervals=paths["study1_intervals"], metrics=paths["study1_intervals"],
                           provenance="account/provenance.tsv", intro="100 claims, 2 run(s) per source.",
                           caption=interval_caption(1, 0.05), layout=FEVEROUS_LAYOUT, html_out="account/summary.html",
                           decomposition_out="account/decomposition.png")
    return (read_page("account/summary.html"),
            [Path("account/decomposition.png").read_bytes()])


def escaping_page(root: Path) -> tuple[str, list[bytes]]:
    """``render_page`` on text holding every character HTML escapes (``& < > " '``), a
    newline in a paragraph, a value whose file, column and text need escaping, a table without
    rows, an absent section and no landing section."""
    png = root / "figure.png"
    png.write_bytes(bytes(range(256)) * 2)
    awkward = Value('tables/a&b "quoted" <x>.tsv', 7, "it's", "<1 & 2>", "text")
    number = Value("tables/plain.tsv", 3, "rate", "0.5", "rate")
    sections = [
        Section("quoted", 'Quotes: "double", \'single\' & <tag>', nav="Q & A",
                intro="An intro with <b>markup</b> that stays text & an ampersand.",
                blocks=(Paragraph(("first line & <more>\nsecond line: ", awkward, "; rate ", number, ".")),
                        Table(('Col "a"', "Col <b>"), ((("x & y",), (number, " [", number, "]")),),
                              (False, True), caption="A caption's quote & <angle>."),
                        Table(("Empty",), (), (False,)),
                        Figure(png.read_bytes(), 'alt with "quotes" & <angle>', "caption's <text> & more"))),
        Section("absent", "Absent <section>", absent="nothing ran & nothing's shown"),
    ]
    page = render_page(sections, title="Title with <tags> & 'quotes'", lede='A lede "quoted" & <escaped>.')
    return page, [png.read_bytes()]


CASES = {"full": full_page, "study1_bonferroni": study1_bonferroni_page, "paper_run": paper_run_page,
         "public_route": public_route_page, "accounted_and_extra": accounted_and_extra_page,
         "account_command": account_command_page, "escaping": escaping_page}


def build_case(name: str, root: Path) -> tuple[str, list[bytes]]:
    """Case ``name`` built in the (new, empty) directory ``root``: the page and the PNGs it
    embeds, in page order."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    with contextlib.chdir(root):
        return CASES[name](root)


def embedded_pngs(page: str) -> list[str]:
    """The base64 text of each embedded PNG, in page order."""
    return EMBEDDED_PNG.findall(page)


def pinned_form(page: str) -> str:
    """The page with each embedded PNG's base64 text replaced by :data:`PNG_PLACEHOLDER`."""
    return EMBEDDED_PNG.sub(f'src="data:image/png;base64,{PNG_PLACEHOLDER}"', page)


def write_expected_pages(out_dir: Path, work_dir: Path) -> None:
    """Every case's pinned form as ``<out_dir>/<case>.html``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        page, _ = build_case(name, work_dir / name)
        (out_dir / f"{name}.html").write_bytes(pinned_form(page).encode("utf-8"))


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        write_expected_pages(Path(sys.argv[1]), Path(scratch))
