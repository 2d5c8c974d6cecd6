"""The report of the paper rehearsal (the session run of test_rehearsal.py) as a reader opens it.

`snakemake --report` builds it without a docutils error or warning; its landing view embeds the
summary page byte for byte; in headless Chromium the headline numbers are on the first screen at
1280 x 800 and fit, in readable type, a 390 px wide screen - in the report's landing view and on
the stand-alone summary page (positions measured by a script the test adds to a copy of each
page); the report lists the GPU-fit table. Each check keeps its screenshots of the first screen
in its temporary directory (docs/screenshots/ holds those of the rehearsal).
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from support.hang_guard import HANG_GUARD_S
from support.rehearsal import rehearsal_args
from support.snakemake_runs import WITHOUT_MAKEFILE_ENV, run_snakemake

pytestmark = pytest.mark.workflow

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
NO_CHROMIUM = "no chromium / chromium-browser / google-chrome binary on PATH (apt-get install -y chromium)"
DOCUTILS_MESSAGE = re.compile(r"\((?:DEBUG|INFO|WARNING|ERROR|SEVERE)/\d\)|System Message")
SCREENS = {"desktop": (1280, 800), "phone": (390, 844)}
MIN_FONT_PX = 12


@pytest.fixture(scope="module")
def report(rehearsal_run, rehearsal_data) -> tuple[Path, subprocess.CompletedProcess]:
    out = rehearsal_run / "report.html"
    proc = run_snakemake(rehearsal_run, *rehearsal_args(rehearsal_data), "--report", out, env=WITHOUT_MAKEFILE_ENV,
                         check=True)
    return out, proc


def workflow_description(report_html: str) -> str:
    """The landing text as the report carries it: the JSON string of ``var workflow_desc``."""
    start = report_html.index("var workflow_desc = ") + len("var workflow_desc = ")
    return json.JSONDecoder().raw_decode(report_html, start)[0]


def test_report_builds_without_docutils_messages(report):
    path, proc = report
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if DOCUTILS_MESSAGE.search(line)]
    assert not lines, "docutils reported:\n" + "\n".join(lines[:20])
    text = path.read_text(encoding="utf-8")
    assert "system-message" not in text and "Undefined substitution" not in text


def test_landing_embeds_the_summary_page_byte_for_byte(report, rehearsal_run):
    path, _ = report
    description = workflow_description(path.read_text(encoding="utf-8"))
    frames = re.findall(r'<iframe title="Evidence Ledger summary page"[^>]*\ssrcdoc="([^"]*)"', description)
    assert len(frames) == 1
    page = (rehearsal_run / "results" / "report" / "summary.html").read_bytes()
    assert html.unescape(frames[0]).encode("utf-8") == page


def test_report_lists_the_gpu_fit_table(report, rehearsal_run):
    fit = (rehearsal_run / "results" / "report" / "gpu_fit.tsv").read_text().splitlines()
    rules = {line.split("\t")[0] for line in fit[1:]}
    assert {"generate", "wikicontradict_generate", "wikicontradict_judge", "diffgr_generate", "order_bge",
            "train_verifier", "predict_verifier"} <= rules
    assert "gpu_fit.tsv" in report[0].read_text(encoding="utf-8")


# --- in a browser ---

# A page that shows the page under test in an iframe of exactly the screen's size (a headless
# window cannot be narrower than 500 px, and its viewport is smaller than the window) and, once the
# element holding the headline exists there (the report renders its landing text with React after
# load), records the geometry of the headline's paragraphs and of the landing's iframe in a
# <pre id="measured"> that --dump-dom prints. Chromium runs with --allow-file-access-from-files,
# so that the outer page may read the inner one.
MEASURE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="screen" src="%(src)s" style="width:%(w)dpx;height:%(h)dpx;border:0"></iframe>
<pre id="measured"></pre>
<script>
function measure(tries) {
  var win = document.getElementById('screen').contentWindow, doc = win.document;
  var head = doc.querySelector('#headline');
  if (!head && tries > 0) { return setTimeout(function () { measure(tries - 1); }, 100); }
  var out = {viewport: [win.innerWidth, win.innerHeight], paragraphs: []};
  if (head) {
    head.querySelectorAll('p').forEach(function (p) {
      var r = p.getBoundingClientRect();
      out.paragraphs.push({text: p.textContent, top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                           font: parseFloat(win.getComputedStyle(p).fontSize)});
    });
  }
  var frame = doc.querySelector('iframe[title="Evidence Ledger summary page"]');
  if (frame) { out.srcdoc_length = frame.srcdoc.length; }
  document.getElementById('measured').textContent = JSON.stringify(out);
}
document.getElementById('screen').addEventListener('load', function () { measure(100); });
</script></body></html>"""


def measured(page: Path, size: tuple[int, int], tmp_path: Path, shot: Path | None = None) -> dict:
    """Geometry of the headline in ``page`` on a screen of ``size`` (CSS pixels), from headless
    Chromium; ``shot``: also a screenshot of that screen."""
    probe = tmp_path / f"probe_{page.stem}_{size[0]}.html"
    probe.write_text(MEASURE % {"src": page.as_uri(), "w": size[0], "h": size[1]}, encoding="utf-8")
    window = f"--window-size={max(size[0], 500) + 16},{size[1] + 200}"
    browser = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--allow-file-access-from-files", window, "--virtual-time-budget=15000"]
    dom = subprocess.run(browser + ["--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=HANG_GUARD_S).stdout
    found = re.search(r'<pre id="measured">(.+?)</pre>', dom, flags=re.S)
    assert found, f"the measuring page found nothing in {page}: {dom[-2000:]}"
    result = json.loads(html.unescape(found.group(1)))
    assert result["viewport"] == list(size), result["viewport"]
    if shot is not None:  # the screen alone, as docs/screenshots/ keeps it
        subprocess.run(browser + [f"--screenshot={shot}", probe.as_uri()], capture_output=True, timeout=HANG_GUARD_S)
        Image.open(shot).convert("RGB").crop((0, 0, *size)).save(shot)
    return result


def headline_numbers(result: dict) -> list[dict]:
    """The headline's paragraphs that carry a number (the Study 1 gain; a decision label)."""
    return [p for p in result["paragraphs"] if p["text"].startswith(("Study 1 gain", "Study 2 decision"))]


@pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)
@pytest.mark.parametrize("which", ["report", "summary"])
def test_headline_is_on_the_first_screen_and_readable_on_a_phone(which, report, rehearsal_run, tmp_path):
    page = report[0] if which == "report" else rehearsal_run / "results" / "report" / "summary.html"
    desktop = measured(page, SCREENS["desktop"], tmp_path, tmp_path / f"{which}_1280x800.png")
    numbers = headline_numbers(desktop)
    assert numbers, desktop
    assert all(p["bottom"] <= SCREENS["desktop"][1] for p in numbers), (
        f"{which}: the headline numbers end below the first screen (800 px): {numbers}")
    phone = measured(page, SCREENS["phone"], tmp_path, tmp_path / f"{which}_390.png")
    width = phone["viewport"][0]
    for p in headline_numbers(phone):
        assert p["left"] >= 0 and p["right"] <= width, f"{which} at 390 px: cut off at the side: {p}"
        assert p["right"] - p["left"] >= 0.6 * width, f"{which} at 390 px: squeezed into a narrow column: {p}"
        assert p["font"] >= MIN_FONT_PX, f"{which} at 390 px: type smaller than {MIN_FONT_PX} px: {p}"
    if which == "report":
        assert desktop["srcdoc_length"] == len((rehearsal_run / "results/report/summary.html").read_text("utf-8"))
