"""The pipeline's item tables as they are written: an item table written in parts is the table
written whole (the same rows, the same row groups); a claim's texts of one key are joined in
order, SciFact's headed by their abstract; Study 2's tables, written dataset by dataset, are the
tables of every dataset written at once (ITEM_TEXTS grouped by dataset and item, ITEMS in panel
order)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from evidence_ledger.accounting import items as item_tables
from evidence_ledger.accounting.items import ItemTableWriter, write_item_tables
from evidence_ledger.accounting.pipeline_items import (headed, joined_texts, study2_dataset_item_tables,
                                                       write_study2_item_tables)
from evidence_ledger.accounting.inputs import by_dataset, by_dataset_and_model
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.items import ITEM_TEXTS, ITEMS
from support.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location("items_tables_benchmark", REPO_ROOT / "benchmarks" / "items_tables.py")
items_tables_benchmark = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(items_tables_benchmark)


def text_frame(n: int) -> pd.DataFrame:
    return pd.DataFrame({"dataset": "fever", "item_id": [f"c{k:02d}" for k in range(n)], "kind": "claim",
                         "system": "", "format": "", "source": "", "budget": "", "replicate": np.int64(-1),
                         "text": [f"claim {k}" for k in range(n)]})


def row_groups(path) -> list[int]:
    metadata = pq.ParquetFile(path).metadata
    return [metadata.row_group(g).num_rows for g in range(metadata.num_row_groups)]


def test_an_item_table_written_in_parts_is_the_table_written_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(item_tables, "ITEM_ROW_GROUP", 5)
    whole = text_frame(23)
    with ItemTableWriter(tmp_path / "whole.parquet", ITEM_TEXTS) as writer:
        writer.append(whole)
    with ItemTableWriter(tmp_path / "parts.parquet", ITEM_TEXTS) as writer:
        for start, stop in ((0, 0), (0, 3), (3, 10), (10, 11), (11, 23)):
            writer.append(whole.iloc[start:stop])
    assert row_groups(tmp_path / "whole.parquet") == row_groups(tmp_path / "parts.parquet") == [5, 5, 5, 5, 3]
    assert (tmp_path / "whole.parquet").read_bytes() == (tmp_path / "parts.parquet").read_bytes()
    assert read_frame(tmp_path / "parts.parquet", ITEM_TEXTS)["item_id"].tolist() == whole["item_id"].tolist()


def test_an_item_table_with_no_rows_is_written_with_its_schema(tmp_path):
    with ItemTableWriter(tmp_path / "empty.parquet", ITEM_TEXTS) as writer:
        writer.append(text_frame(0))
    assert row_groups(tmp_path / "empty.parquet") == [] and read_frame(tmp_path / "empty.parquet", ITEM_TEXTS).empty


def test_adjacent_rows_with_equal_keys_are_joined_in_order_each_headed_by_its_abstract():
    rows = pd.DataFrame({"claim_id": ["1", "1", "2", "2", "1"], "source": ["bm25", "bm25", "bm25", "bge", "bm25"],
                         "doc_id": ["10", "11", "", "", "12"]})
    texts = headed(rows["doc_id"], pd.Series(["first", "second", "plain", "other", "again"]))
    assert texts.to_pylist() == ["[10] first", "[11] second", "plain", "other", "[12] again"]
    joined = joined_texts(rows, texts, ["claim_id", "source"], "\n\n")
    assert joined.to_dict("list") == {"claim_id": ["1", "2", "2", "1"], "source": ["bm25", "bm25", "bge", "bm25"],
                                      "text": ["[10] first\n\n[11] second", "plain", "other", "[12] again"]}
    assert joined_texts(rows.iloc[:0], texts.slice(0, 0), ["claim_id"], "\n").empty


def test_study2_tables_written_dataset_by_dataset_are_the_tables_written_at_once(tmp_path):
    inputs = items_tables_benchmark.write_study2(tmp_path / "inputs", claims=9, seed=4)
    datasets = ["scifact", "fever", "feverous"]  # not in sorted order: ITEM_TEXTS is grouped by sorted dataset
    order = [items_tables_benchmark.DATASETS.index(d) for d in datasets]
    models = inputs["models"]
    inputs.update(datasets=datasets, **{name: [inputs[name][i] for i in order]
                                        for name in ("evidence", "relevant", "families", "samples", "evidence_texts")},
                  **{name: [inputs[name][i * len(models) + m] for i in order for m in range(len(models))]
                     for name in ("answers", "parsed")})
    write_study2_item_tables(**inputs, items_out=tmp_path / "items.parquet", texts_out=tmp_path / "texts.parquet")

    design = {k: inputs[k] for k in ("models", "sources", "budgets", "formats", "parser", "seed_replicates")}
    per_model = {name: by_dataset_and_model(inputs[name], datasets, models) for name in ("answers", "parsed")}
    per_dataset = {name: by_dataset(inputs[name], datasets)
                   for name in ("evidence", "relevant", "families", "samples", "evidence_texts")}
    parts = [study2_dataset_item_tables(d, {name: paths[d] for name, paths in {**per_model, **per_dataset}.items()},
                                        **design) for d in datasets]
    write_item_tables(pd.concat([p[0] for p in parts], ignore_index=True),
                      pd.concat([p[1] for p in parts], ignore_index=True), tmp_path / "items_whole.parquet",
                      tmp_path / "texts_whole.parquet")
    assert (tmp_path / "texts.parquet").read_bytes() == (tmp_path / "texts_whole.parquet").read_bytes()
    assert (tmp_path / "items.parquet").read_bytes() == (tmp_path / "items_whole.parquet").read_bytes()

    items = read_frame(tmp_path / "items.parquet", ITEMS)
    assert list(dict.fromkeys(items["dataset"])) == datasets and len(items) == 3 * 2 * 2 * 2 * 9
    texts = read_frame(tmp_path / "texts.parquet", ITEM_TEXTS)
    assert list(dict.fromkeys(texts["dataset"])) == sorted(datasets)
    first = texts.groupby(["dataset", "item_id"], sort=False)["kind"].first()
    assert (first == "claim").all() and len(first) == 3 * 9
    scifact = texts[(texts["dataset"] == "scifact") & (texts["kind"] == "evidence")]["text"]
    assert (scifact.str.count(r"(?m)^\[\d+\] ") == 3).all()  # a claim's 3 abstracts, each headed by its id
