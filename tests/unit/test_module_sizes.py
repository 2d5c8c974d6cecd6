"""No module of ``src/evidence_ledger`` is over :data:`MAX_LINES` lines (the ``demo`` package, the
embedded demo's stand-in models, aside): a longer one holds more than one concern and is split
into a module per concern (``run/checks/`` is the model).
"""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "evidence_ledger"
MAX_LINES = 500
EXEMPT_PACKAGES = ("demo",)


def long_modules(package: Path = PACKAGE) -> dict[str, int]:
    """``{module path under the package: lines}`` of every module over MAX_LINES lines, exempt packages aside."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.split("/", 1)[0] in EXEMPT_PACKAGES:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            out[rel] = lines
    return out


def test_no_module_is_over_500_lines():
    assert long_modules() == {}


def test_a_module_of_501_lines_is_found_and_one_of_500_is_not(tmp_path):
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "room" / "fits.py").write_text("x = 1\n" * 500)
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "stand_in.py").write_text("x = 1\n" * 900)
    assert long_modules(tmp_path) == {"room/long.py": 501}
