"""The repository stands on its own: its files cite the papers (README, "The papers") and its
own docs, never a document outside the checkout or a tracker item a reader cannot open; the
test files any file cites and the ``evidence_ledger`` names the docs cite exist.

In: the tracked files (``git ls-files``) and ``docs/*.md``. Out: pass, or the file and line of
each reference that points outside the repository or at nothing.
"""
import importlib
import re
import subprocess
from pathlib import Path

import pytest

from evidence_ledger.generation.backends.base import ENTRY_POINT_GROUP
from evidence_ledger.tables import METADATA_NAME, METADATA_VERSION

REPO = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve().relative_to(REPO).as_posix()

# a sibling directory of the checkout, a specification file, a summary card or an issue number;
# the words are assembled from pieces so that this file does not itself cite what it looks for
REQUIREMENTS_WORD, SIBLING, CARD = "SP" + "EC", r"\.\." + "/sha" + "red", "seed" + " card"
OUTSIDE = re.compile(rf"{SIBLING}|{REQUIREMENTS_WORD}\.md|\b{REQUIREMENTS_WORD} (?:section )?\d|{CARD}|\bseed" + r"s/|"
                     r"\bissues? #?\d+|\bissue-\d+|\bitem \d+ of issue", re.I)


def tracked_files() -> list[str]:
    proc = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    return [name for name in proc.stdout.splitlines() if name != THIS and (REPO / name).is_file()]


def outside_references(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of every line citing something outside the repository."""
    return [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]


def test_the_pattern_finds_what_it_is_for():
    sample = "\n".join(["see .." + "/sha" + "red/x", "fine", "Iss" + "ue 17 item 7: x", REQUIREMENTS_WORD + " 5 labels",
                         "iss" + "ue-15"])
    assert [i for i, _ in outside_references(sample)] == [1, 3, 4, 5]
    assert not outside_references("SamplingSpec(seed=3)\nan issue with 2 files\nthe seed mean")


def test_no_tracked_file_cites_a_document_outside_the_repository():
    found = []
    for name in tracked_files():
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{i}: {line}" for i, line in outside_references(text)]
    assert not found, "\n".join(found)


DOCS = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md", REPO / "config" / "README.md"]
TEST_PATH = re.compile(r"(?<![\w/.])tests/[\w/]+\.py\b")
DOTTED = re.compile(r"\bevidence_ledger(?:\.\w+)+")
# Parquet key-value metadata keys (docs/SCHEMAS.md) and the backends' entry-point group
# (docs/backends.md), not Python names
METADATA_KEYS = {METADATA_NAME.decode(), METADATA_VERSION.decode(), ENTRY_POINT_GROUP}


def resolves(dotted: str) -> bool:
    """Whether ``evidence_ledger.a.b.c`` is a module, or an attribute chain of the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def cited_paths_missing(pattern: re.Pattern) -> list[str]:
    """``file: path`` for each path matching ``pattern`` that a tracked text file cites and the
    repository lacks."""
    missing = []
    for name in tracked_files():
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        missing += [f"{name}: {p}" for p in sorted(set(pattern.findall(text))) if not (REPO / p).is_file()]
    return missing


def test_every_test_file_a_tracked_file_cites_exists():
    """docs/*.md, docstrings and comments: a cited ``tests/...py`` path is a file of the repository."""
    missing = cited_paths_missing(TEST_PATH)
    assert not missing, "\n".join(missing)


SOURCE_PATH = re.compile(r"(?<![\w/.])src/evidence_ledger/[\w/]+\.(?:py|json)\b")


def test_every_source_file_a_tracked_file_cites_exists():
    """A cited ``src/evidence_ledger/...py`` path is a file of the package (modules move; citations follow)."""
    missing = cited_paths_missing(SOURCE_PATH)
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_evidence_ledger_name_a_doc_cites_exists(doc):
    missing = sorted({name for name in DOTTED.findall(doc.read_text()) if name not in METADATA_KEYS and not resolves(name)})
    assert not missing, f"{doc.name} cites names that do not exist {missing}"


def test_the_accounting_doc_lists_every_accounting_stage_function():
    from evidence_ledger.accounting import stage

    functions = [name for name, fn in vars(stage).items() if callable(fn) and not name.startswith("_")
                 and getattr(fn, "__module__", "") == stage.__name__]
    text = (REPO / "docs" / "accounting.md").read_text()
    assert [name for name in functions if f"`{name}`" not in text] == []
