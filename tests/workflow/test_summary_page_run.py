"""The summary_page rule through Snakemake on hand-built report TSVs (no upstream stages),
and `snakemake --report` with the page as the first results category: one run of the rule (and
account_system) and one report, read by both tests."""
import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support.hang_guard import HANG_GUARD_S
from support.snakemake_runs import run_snakemake
from support.summary_tables import write_summary_inputs

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
TARGET = "results/report/summary.html"


def _snakemake(workdir, *args):
    return run_snakemake(workdir, "--configfile", REPO / "config/demo.yaml", "--cores", "1", *args, "--allowed-rules",
                         "summary_page", "account_system", check=True)


@pytest.fixture(scope="module")
def summary_run(tmp_path_factory) -> Path:
    """A work directory of hand-built report TSVs where the summary_page rule ran, and its
    `snakemake --report` (report.html)."""
    workdir = tmp_path_factory.mktemp("summary_page")
    write_summary_inputs(workdir)
    _snakemake(workdir, TARGET)
    _snakemake(workdir, TARGET, "--report", workdir / "report.html")
    return workdir


def test_summary_page_rule_and_report(summary_run):
    """The rule reads the demo config's inputs (all four studies on, reader files set, the example
    system of `external` and the two KILT systems accounted by account_system from their files) and
    cites them by their workflow paths;
    the report lists the page and the decomposition figure under '1 Summary (start here)',
    which sorts before every other category name (they start with a letter)."""
    page = (summary_run / TARGET).read_text(encoding="utf-8")
    cited = set(re.findall(r'data-src="([^"]+)"', page))
    assert cited == {f"results/{p}" for p in (
        "accounting/study1/estimates.tsv", "accounting/study1/intervals.tsv", "accounting/study2/intervals_primary.tsv",
        "accounting/study2/intervals_crossed.tsv", "accounting/study2/decision_label.tsv",
        "accounting/study2/decision_criteria.tsv", "accounting/study2/invalid_rates.tsv", "wikicontradict/rates.tsv",
        "wikicontradict/detection.tsv", "diffgr/diffgr.tsv", "diffgr/reader_files.tsv", "report/provenance.tsv",
        "study1/unresolved.tsv", "accounting/study2/intervals_exploratory.tsv", "accounting/study2/endpoints.tsv",
        "accounting/study2/controls.tsv", "accounting/study2/control_generations.tsv",
        "accounting/study2/answer_accuracy.tsv", "accounting/study2/partition.tsv", "account/example/estimates.tsv",
        "account/example/intervals.tsv", "account/example/answer_metrics.tsv", "account/rag_nq/intervals.tsv",
        "account/rag_nq/answer_metrics.tsv", "account/rag_eli5/intervals.tsv", "account/rag_eli5/answer_metrics.tsv")}
    assert "example on FEVEROUS: baseline → improved" in page
    assert "rag_nq on KILT (" in page and "rag_eli5 on KILT (" in page
    assert "Study 2: observations with an INVALID response" in page
    assert "pointwise 95% intervals" in page  # the demo config's accounting.study1.bootstrap.family_size 1
    assert (summary_run / "results/report/study1_decomposition.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (summary_run / "report.html").read_text(encoding="utf-8", errors="replace")
    assert "1 Summary (start here)" in report and "summary.html" in report and "study1_decomposition.png" in report


CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _rendered_text(dom: str) -> str:
    """The text of a dumped DOM without its scripts (the report carries the landing text as a
    JSON string in a script too; only what React rendered counts)."""
    dom = re.sub(r"<script\b.*?</script>", "", dom, flags=re.S)
    dom = re.sub(r"</?span\b[^>]*>", "", dom)  # inline: the page's tagged values
    return html.unescape(re.sub(r"<[^>]+>", " ", dom))


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium / chromium-browser / google-chrome binary on PATH "
                                              "(apt-get install -y chromium)")
def test_report_opens_on_the_summary_headline(summary_run, tmp_path):
    """`snakemake --report` on hand-built report TSVs (only summary_page runs), loaded in
    headless Chromium: the landing view's rendered DOM holds the demo banner, the run kind and
    the Study 1 headline, and the summary page is embedded (an iframe whose srcdoc is the page); a
    screenshot of the first view is saved in the test's own directory."""
    report = summary_run / "report.html"
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1000",
               "--virtual-time-budget=8000"]
    dom = subprocess.run(browser + ["--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=HANG_GUARD_S)
    text = " ".join(_rendered_text(dom.stdout).split())
    landing = text[text.index("Evidence Ledger: run summary."):]
    assert landing.index("Not a paper run: the demo") < landing.index("At a glance")
    assert "Run kind: demo (data_root is resources/demo)." in landing
    assert "Study 1 gain T11 − T00: 9.61 [8.77, 10.43] points; paper: 9.61 [8.77, 10.43]." in landing
    assert re.search(r'<iframe title="Evidence Ledger summary page"[^>]*srcdoc="&lt;!DOCTYPE html&gt;', dom.stdout)
    shot = tmp_path / "first_view.png"
    subprocess.run(browser + [f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=HANG_GUARD_S)
    assert shot.stat().st_size > 10_000
