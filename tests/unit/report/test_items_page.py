"""The item explorer's file: its payloads hold each comparison's items exactly as the table has
them, each distinct text once, hostile text cannot break out of its element, nothing is fetched,
the same tables give the same bytes, and tables that break their contract are refused."""
import gzip
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from support.item_tables import (HOSTILE_CLAIM, kilt_tables, page_index, page_payloads, page_scripts, payload_bytes,
                                 study2_tables, write_demo_items, write_pair)

from evidence_ledger.report import item_payloads
from evidence_ledger.report.item_payloads import ITEM_NUMBERS, escaped
from evidence_ledger.report.items_page import PAYLOAD_TYPE, template_text, write_items_page
from evidence_ledger.report.stage import items_page
from evidence_ledger.tables import read_frame, write_table
from evidence_ledger.tables.items import ITEM_COMPONENTS, ITEM_TEXTS, ITEMS


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("items")
    items, texts = write_demo_items(root)
    page = write_items_page(items=items, item_texts=texts, html_out=root / "report" / "items.html")
    return root, items, texts, page


def same_number(a, b) -> bool:
    return (a is None and math.isnan(b)) or a == b


def test_each_comparisons_payload_holds_its_items_as_the_table_has_them(demo):
    """Every number of every item (cells, shares, scores, per-run cells) reads back as the same
    float, so the page's signs, counts and sums are the table's."""
    _, items, _, page = demo
    index, payloads = page_index(page), page_payloads(page)
    table = pd.concat([read_frame(p, ITEMS) for p in items])
    assert sorted(c["key"] for c in index["comparisons"]) == sorted(table["comparison"].unique())
    for entry in index["comparisons"]:
        rows = table[table["comparison"] == entry["key"]]
        doc = payloads[entry["payload"]]
        assert doc["item_id"] == rows["item_id"].tolist() and entry["items"] == len(rows)
        for column in ITEM_NUMBERS:
            assert all(same_number(a, b) for a, b in zip(doc[column], rows[column])), column
        assert doc["run_T01"] == [list(v) for v in rows["run_T01"]]
        for component in ITEM_COMPONENTS:
            shares = np.array(doc[component], dtype=float)
            assert ((shares > 0).sum(), (shares < 0).sum(), (shares == 0).sum()) == (
                (rows[component] > 0).sum(), (rows[component] < 0).sum(), (rows[component] == 0).sum())


def test_a_text_several_comparisons_show_is_stored_once(demo):
    """A Study 2 claim's evidence (shared by both models) and a repeated answer are one entry of
    their chunk's texts; every text row of the table is in the payloads."""
    root, _, texts, page = demo
    payloads = page_payloads(page)
    chunk_texts = [t for name, doc in payloads.items() if re.fullmatch(r"p\d+t\d+", name) for t in doc["texts"]]
    study2 = read_frame(root / "study2" / "item_texts.parquet", ITEM_TEXTS)
    evidence = study2[(study2["kind"] == "evidence") & (study2["item_id"] == "f003")]["text"].tolist()
    assert len(evidence) == 4 and all(chunk_texts.count(t) == 1 for t in evidence)
    rows = sum(len(doc["rows"]["item"]) for name, doc in payloads.items() if re.fullmatch(r"p\d+t\d+", name))
    claims = sum(len(c) for name, doc in payloads.items() if re.fullmatch(r"p\d+d\d+", name) for c in doc["claims"])
    assert rows + claims == sum(pq.read_metadata(p).num_rows for p in texts)


def decoded(payload) -> dict:
    """A payload's document, read back as the page's script reads it."""
    return json.loads(gzip.decompress(payload_bytes(payload.data.decode("latin-1"))))


def test_each_item_finds_its_texts_in_the_chunk_its_dataset_names(tmp_path):
    """With small chunks a dataset's texts span several payloads; the dataset payload's chunk of
    each item holds every text row of that item."""
    rng = np.random.default_rng(3)
    _, texts_path = write_pair(tmp_path / "study2", *study2_tables(rng, n_items=12))
    chunks, datasets = {}, []
    for entry, payload in item_payloads.text_payloads(texts_path, "x", chunk_bytes=2_000):
        if "chunks" in entry:
            datasets.append((entry, decoded(payload)))
        else:
            chunks[payload.name] = decoded(payload)
    (entry, document), = datasets
    assert len(entry["chunks"]) > 3 and sorted(entry["chunks"]) == sorted(chunks)
    table = read_frame(texts_path, ITEM_TEXTS)
    for position, (item, chunk) in enumerate(zip(document["item_id"], document["chunk"])):
        doc = chunks[entry["chunks"][chunk]]
        shown = sorted(doc["texts"][t] for i, t in zip(doc["rows"]["item"], doc["rows"]["text"]) if i == position)
        expected = table[(table["item_id"] == item) & (table["kind"] != "claim")]["text"].tolist()
        assert shown == sorted(expected)
        assert document["claims"][position] == table[(table["item_id"] == item) & (table["kind"] == "claim")][
            "text"].tolist()


def test_rows_in_any_order_give_the_same_items_and_texts(tmp_path):
    """A table whose rows are not grouped by comparison and item is read whole before its
    groups complete; what the page holds is the same."""
    rng = np.random.default_rng(5)
    items, texts = kilt_tables(rng)
    ordered = write_pair(tmp_path / "ordered", items, texts)
    shuffled = write_pair(tmp_path / "shuffled", [items[i] for i in rng.permutation(len(items))],
                          [texts[i] for i in rng.permutation(len(texts))])
    pages = [write_items_page(items=[i], item_texts=[t], html_out=tmp_path / f"{n}.html")
             for n, (i, t) in (("a", ordered), ("b", shuffled))]
    a, b = (page_payloads(p) for p in pages)
    key = lambda doc: sorted(zip(doc["item_id"], doc["E0"]))  # noqa: E731
    assert key(a["p0c0"]) == key(b["p0c0"])
    texts_of = lambda docs: sorted(  # noqa: E731
        t for name, doc in docs.items() if name.startswith("p0t") for t in doc["texts"])
    assert texts_of(a) == texts_of(b)


def test_hostile_text_stays_text(tmp_path):
    """A claim and a system name holding ``</script>``, quotes and ampersands: the page has one
    script element per payload plus the index and the script, the raw bytes never hold them,
    and both read back unchanged."""
    rng = np.random.default_rng(1)
    items, texts = kilt_tables(rng, n_items=4)
    hostile_system = 'sys</script><script>alert("x")</script>&amp;'
    for row in items:
        row["system"] = hostile_system
        row["comparison"] = row["comparison"].replace("mysystem", hostile_system)
    texts[0]["text"] = HOSTILE_CLAIM
    pair = write_pair(tmp_path, items, texts)
    page = write_items_page(items=[pair[0]], item_texts=[pair[1]], html_out=tmp_path / "items.html",
                            title='Items of "sys" </title><b>')
    raw = page.read_bytes()
    assert HOSTILE_CLAIM.encode() not in raw and hostile_system.encode() not in raw
    assert b"</title><b>" not in raw
    scripts = page_scripts(page)
    assert len(scripts) == len(page_payloads(page)) + 2
    assert page_index(page)["comparisons"][0]["system"] == hostile_system
    assert page_payloads(page)["p0d0"]["claims"][0] == [HOSTILE_CLAIM]


def test_payload_escaping_leaves_no_byte_the_html_parser_would_change():
    data = bytes(range(256)) * 3 + b"=<\r\x00"
    out = escaped(data)
    assert not set(out) & {0x00, 0x0D, 0x3C}
    assert payload_bytes(out.decode("latin-1")) == data


def test_the_page_fetches_nothing_and_its_script_is_plain_ascii(demo):
    """No element names a URL to load (src, link, import, fetch); the script holds no
    ``</script`` and no character outside ASCII (the page is windows-1252)."""
    page = demo[3]
    text = page.read_bytes().decode("latin-1")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|https?://", text)
    script = template_text("items.js")
    assert script.isascii() and "</script" not in script.lower() and "fetch(" not in script
    assert '<meta charset="windows-1252">' in text[:300]
    assert all(attrs.get("type") in (PAYLOAD_TYPE, "application/json", None) for attrs, _ in page_scripts(page))


def test_the_same_tables_give_the_same_bytes(demo):
    """(The page names its tables relative to itself, so a page in the same directory.)"""
    _, items, texts, page = demo
    again = write_items_page(items=items, item_texts=texts, html_out=page.with_name("again.html"))
    assert again.read_bytes() == page.read_bytes()


def test_the_rule_function_writes_the_page(demo):
    _, items, texts, page = demo
    items_page(item_tables=[str(p) for p in items], item_text_tables=[str(p) for p in texts],
               html_out=str(page.with_name("rule.html")))
    assert page.with_name("rule.html").read_bytes() == page.read_bytes()


def test_lists_of_different_lengths_are_refused(demo, tmp_path):
    _, items, texts, _ = demo
    with pytest.raises(ValueError, match="3 ITEMS tables but 2 ITEM_TEXTS tables"):
        write_items_page(items=items, item_texts=texts[:2], html_out=tmp_path / "items.html")
    assert not (tmp_path / "items.html").exists()


def test_a_comparison_in_two_tables_is_refused(demo, tmp_path):
    _, items, texts, _ = demo
    with pytest.raises(ValueError, match="comparison 'study1/kilt/mysystem/official/none/full' is in both"):
        write_items_page(items=[items[2], items[2]], item_texts=[texts[2], texts[2]],
                         html_out=tmp_path / "items.html")


def test_an_item_listed_twice_is_refused(tmp_path):
    items, texts = kilt_tables(np.random.default_rng(2), n_items=3)
    pair = write_pair(tmp_path, items + items[:1], texts)
    with pytest.raises(ValueError, match=r"comparison 'study1/kilt/mysystem/official/none/full': item 'q000' is listed"):
        write_items_page(items=[pair[0]], item_texts=[pair[1]], html_out=tmp_path / "items.html")


def test_per_run_cells_of_another_length_than_runs_are_refused(tmp_path):
    items, texts = kilt_tables(np.random.default_rng(2), n_items=3)
    items[1]["run_T10"] = items[1]["run_T10"][:1]
    pair = write_pair(tmp_path, items, texts)
    with pytest.raises(ValueError, match="item 'q001' has 1 values in run_T10 but runs 2"):
        write_items_page(items=[pair[0]], item_texts=[pair[1]], html_out=tmp_path / "items.html")


def test_a_text_of_an_unknown_kind_is_refused(tmp_path):
    items, texts = kilt_tables(np.random.default_rng(2), n_items=3)
    texts[2]["kind"] = "rationale"
    pair = write_pair(tmp_path, items, texts)
    with pytest.raises(ValueError, match=r"item_texts.parquet: kind 'rationale' is not one of claim, evidence, answer"):
        write_items_page(items=[pair[0]], item_texts=[pair[1]], html_out=tmp_path / "items.html")


def test_a_table_of_another_schema_is_refused(demo, tmp_path):
    _, items, texts, _ = demo
    wrong = write_table(read_frame(texts[0], ITEM_TEXTS), tmp_path / "texts.parquet", ITEM_TEXTS)
    with pytest.raises(ValueError, match="holds table 'accounting_item_texts', expected 'accounting_items'"):
        write_items_page(items=[wrong], item_texts=[texts[0]], html_out=tmp_path / "items.html")


def test_a_comparison_without_text_rows_still_shows_its_items(tmp_path):
    items, _ = kilt_tables(np.random.default_rng(4), n_items=5)
    pair = write_pair(tmp_path, items, [])
    page = write_items_page(items=[pair[0]], item_texts=[pair[1]], html_out=Path(tmp_path / "items.html"))
    index = page_index(page)
    assert index["parts"][0]["datasets"] == {} and index["comparisons"][0]["items"] == 5
