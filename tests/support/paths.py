"""Where the tests find the repository, their fixtures and the real benchmark files.

``shared_file(...)`` returns a file under ``$EVIDENCE_LEDGER_SHARED_DATA`` (default: a ``shared/data``
directory beside the checkout, where the official release files are kept when available)
or skips the calling test, naming the missing file.
"""
import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"
SHARED_DATA = Path(os.environ.get("EVIDENCE_LEDGER_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def shared_file(*parts: str) -> Path:
    """A file of the real data directory, or skip the test saying which file is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real benchmark file {path} not present (tests use {SHARED_DATA} when available)")
    return path
