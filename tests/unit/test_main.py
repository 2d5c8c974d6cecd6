"""The command line's common behaviour: --version, no abbreviated flags, expected errors as one line."""
from __future__ import annotations

import subprocess
import sys

import pytest

from evidence_ledger import __version__
from evidence_ledger.__main__ import main


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"evidence-ledger {__version__}"


def test_abbreviated_flag_is_refused_not_expanded(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["convert-weights", "some/model", "--ou", "x"])
    assert exit_info.value.code == 2
    assert "the following arguments are required: --out" in capsys.readouterr().err


def test_expected_error_is_one_line_without_traceback(tmp_path):
    missing = tmp_path / "no-such-model"
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "convert-weights", str(missing),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no-such-model" in lines[0]


def test_debug_flag_shows_the_traceback_of_an_expected_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "--debug", "convert-weights",
                           str(tmp_path / "no-such-model"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "Traceback" in proc.stderr
