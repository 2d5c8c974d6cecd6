"""Files found inside a data directory stay inside ``data_root``."""
import json

import pytest

from support.in_memory_release import read_fever_wiki
from evidence_ledger.datasets.fever import write_fever_release
from evidence_ledger.errors import InputError

PAGE = {"id": "Page", "text": "t", "lines": "0\tA sentence.\n"}


def _data_root(tmp_path):
    root = tmp_path / "data"
    wiki = root / "fever" / "wiki-pages"
    wiki.mkdir(parents=True)
    (wiki / "wiki-001.jsonl").write_text(json.dumps(PAGE) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evil.jsonl").write_text(json.dumps(dict(PAGE, id="Evil")) + "\n")
    return root, wiki, elsewhere / "evil.jsonl"


def test_symlinked_wiki_file_resolving_outside_data_root_is_refused(tmp_path):
    root, wiki, evil = _data_root(tmp_path)
    (wiki / "wiki-999.jsonl").symlink_to(evil)
    with pytest.raises(InputError, match=r"wiki-999\.jsonl: resolves to .*evil\.jsonl, outside the data root"):
        read_fever_wiki(wiki, allowed_root=root)
    claims = root / "fever" / "dev.jsonl"
    claims.write_text(json.dumps({"id": 1, "verifiable": "NOT VERIFIABLE", "label": "NOT ENOUGH INFO",
                                  "claim": "c", "evidence": [[[1, None, None, None]]]}) + "\n")
    with pytest.raises(InputError, match="wiki-999.jsonl"):
        write_fever_release({"dev": claims}, wiki, "error", tmp_path / "units.parquet", tmp_path / "documents.parquet",
                            data_root=root)
    # without a data root the scanned directory itself is the bound
    with pytest.raises(InputError, match="outside the data root"):
        read_fever_wiki(wiki)


def test_symlink_that_stays_inside_data_root_is_read(tmp_path):
    root, wiki, _ = _data_root(tmp_path)
    (root / "shared_pages.jsonl").write_text(json.dumps(dict(PAGE, id="Other")) + "\n")
    (wiki / "wiki-002.jsonl").symlink_to(root / "shared_pages.jsonl")
    units, docs = read_fever_wiki(wiki, allowed_root=root)
    assert docs.column("doc_id").to_pylist() == ["Other", "Page"]  # doc_id order
