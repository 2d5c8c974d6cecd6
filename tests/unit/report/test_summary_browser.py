"""The summary page renders in a real browser: headless Chromium takes a screenshot of it.

Skipped (with the reason) where no Chromium binary is installed; on Debian/Ubuntu
``apt-get install -y chromium`` provides one (.ci/run installs it when it can).
"""
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from support.summary_tables import write_summary_inputs

from support.defaults import summary_settings

from evidence_ledger.report.stage import summary_page

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
TAB_BLUE, TAB_ORANGE = (31, 119, 180), (255, 127, 14)  # matplotlib's colours of E and A bars / Figure 1 dots


def colour_pixels(image: np.ndarray, rgb, tolerance=12) -> int:
    return int((np.abs(image[:, :, :3].astype(int) - np.array(rgb)).max(axis=2) <= tolerance).sum())


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium / chromium-browser / google-chrome binary on PATH "
                                              "(apt-get install -y chromium)")
def test_headless_chromium_screenshot_shows_tables_and_both_figures(tmp_path):
    """The screenshot is mostly white page with dark text, and holds the decomposition
    figure's blue (E0, E1) and orange (A1, A0) bars: the embedded PNGs were decoded and drawn."""
    paths = write_summary_inputs(tmp_path)
    html = tmp_path / "summary.html"
    summary_page(**{k: v for k, v in paths.items() if k != "invalid_rates"}, html_out=html,
                 decomposition_out=tmp_path / "d.png", **summary_settings())
    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--window-size=1280,3000", f"--screenshot={shot}", html.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.exists(), proc.stderr[-2000:]
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape[:2] == (3000, 1280)
    dark = (image.max(axis=2) < 90).sum()
    assert dark > 20_000, "hardly any text drawn"
    assert colour_pixels(image, TAB_BLUE) > 1_000 and colour_pixels(image, TAB_ORANGE) > 1_000  # 14988, 4480
