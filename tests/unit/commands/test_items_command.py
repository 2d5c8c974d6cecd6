"""The items command: ``python -m evidence_ledger items DIR --component C`` prints the items with the
largest share of a component (sign shown) with their claim and answers; a table of several
comparisons needs ``--comparison``; bad arguments are one ``error:`` line."""
import re

import numpy as np
import pandas as pd
import pytest

from support.item_tables import HOSTILE_CLAIM, write_demo_items, write_pair, kilt_tables

from evidence_ledger.__main__ import main
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.items import ITEMS


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("items_command")
    write_demo_items(root)
    return root


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["items", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def listed(out: str) -> list[tuple[str, float]]:
    """(item id, share) of each listed item, in order."""
    return [(m.group(2), float(m.group(1))) for m in re.finditer(r"^ *\d+\. \w+ ([+-]?[\d.e-]+)  (\S+)", out, re.M)]


def test_the_top_items_are_the_largest_shares_in_absolute_value_with_their_sign(tables, capsys):
    code, out, err = run(capsys, tables / "study1", "--component", "E0", "--top", "5")
    assert code == 0 and err == ""
    frame = read_frame(tables / "study1" / "items.parquet", ITEMS)
    expected = frame.assign(size=frame["E0"].abs()).sort_values(["size", "item_id"], ascending=[False, True]).head(5)
    assert listed(out) == list(zip(expected["item_id"], expected["E0"].round(2)))
    counts = f"{(frame['E0'] > 0).sum()} raise it"
    assert counts in out and f"{(frame['E0'] < 0).sum()} lower it" in out and f"{(frame['E0'] == 0).sum()} leave it" in out


def test_each_item_shows_its_claim_and_each_sources_answers_run_by_run(tables, capsys):
    _, out, _ = run(capsys, tables / "study1", "--component", "gain", "--top", "40")
    block = out[out.index("  fv007  "):].split("\n\n")[0]
    assert f"claim: {HOSTILE_CLAIM}" in block
    assert re.findall(r"^ {4}(\w+): answer score", block, re.M) == ["retrieval_bm25", "provider"]
    assert len(re.findall(r"^ {8}replicate \d: ", block, re.M)) == 8
    assert "evidence" not in block


def test_evidence_is_printed_when_asked(tables, capsys):
    _, out, _ = run(capsys, tables / "study1", "--component", "gain", "--top", "40", "--evidence")
    block = out[out.index("  fv007  "):].split("\n\n")[0]
    assert "        evidence (budget full):" in block and "            [provider on fv007]" in block


def test_a_pattern_with_any_characters_and_a_gold_label_filter_the_items(tables, capsys):
    frame = read_frame(tables / "study1" / "items.parquet", ITEMS)
    mask = frame["pattern"].str.match(r"0.1.") & (frame["gold"] == "SUPPORTS")
    _, out, _ = run(capsys, tables / "study1", "--component", "E0", "--pattern", "0.1.", "--gold", "SUPPORTS",
                    "--top", "100")
    assert sorted(i for i, _ in listed(out)) == sorted(frame[mask & frame["E0"].notna()]["item_id"])
    assert "pattern 0.1., gold SUPPORTS" in out


def test_several_comparisons_are_listed_until_one_is_chosen(tables, capsys):
    code, out, _ = run(capsys, tables / "study2", "--component", "E0")
    assert code == 0 and "holds 4 comparisons; choose one with --comparison KEY" in out and listed(out) == []
    frame = read_frame(tables / "study2" / "items.parquet", ITEMS)
    for key, rows in frame.groupby("comparison"):
        assert f"{key}: E0 = " in out and f"{(rows['E0'] > 0).sum()} raise it" in out
    key = "study2/fever/llama/codes/strict/short"
    _, out, _ = run(capsys, tables / "study2", "--component", "E0", "--comparison", key, "--top", "3")
    assert out.startswith(f"{key}: bm25 -> bge") and len(listed(out)) == 3
    assert all(i in set(frame[frame["comparison"] == key]["item_id"]) for i, _ in listed(out))


def test_a_directory_without_texts_prints_ids_and_numbers(tmp_path, capsys):
    items, _ = kilt_tables(np.random.default_rng(1), n_items=4)
    items_path, texts_path = write_pair(tmp_path, items, [])
    texts_path.unlink()
    code, out, _ = run(capsys, tmp_path, "--component", "A0")
    assert code == 0 and f"(no item_texts.parquet in {tmp_path}: ids and numbers only)" in out
    assert len(listed(out)) == int(pd.Series([r["A0"] for r in items]).notna().sum())


@pytest.mark.parametrize("argv, message", [
    (["--component", "interacton"], "error: --component interacton: not a component (did you mean 'interaction'?); "
                                    "the components: gain, E0, A1, A0, E1, interaction"),
    (["--component", "E0", "--pattern", "01"], "error: --pattern 01: four characters of 0, 1, ~ or . (any), one per "
                                               "cell T00 T01 T10 T11"),
    (["--component", "E0", "--comparison", "study2/fever/qwen/codes/strict/short"],
     "error: --comparison study2/fever/qwen/codes/strict/short: not in {root}/study2/items.parquet (did you mean "
     "'study2/fever/qwen3/codes/strict/short'?)"),
])
def test_a_bad_argument_is_one_error_line(tables, capsys, argv, message):
    code, out, err = run(capsys, tables / "study2", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(message.format(root=tables))


def test_a_directory_without_items_is_one_error_line(tmp_path, capsys):
    code, _, err = run(capsys, tmp_path, "--component", "E0")
    assert code == 2 and err.strip() == (f"error: {tmp_path}: no items.parquet here; give a directory an accounting "
                                         "wrote (an account --out directory, results/accounting/study1, "
                                         "results/account/<system>)")


def test_a_table_of_another_kind_is_one_error_line(tables, tmp_path, capsys):
    (tmp_path / "items.parquet").write_bytes((tables / "study1" / "item_texts.parquet").read_bytes())
    code, _, err = run(capsys, tmp_path, "--component", "E0")
    assert code == 2 and err.strip().endswith("holds table 'accounting_item_texts', expected 'accounting_items'")
