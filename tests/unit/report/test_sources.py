"""Report TSVs read as text for the summary page, and how a cell is shown."""
import pytest

from evidence_ledger.errors import InputError
from evidence_ledger.report.sources import display_text, find_row, read_source_table, value


def test_points_are_rounded_to_two_decimals_without_negative_zero():
    assert display_text("9.614", "points") == "9.61"
    assert display_text("10.4251", "points") == "10.43"
    assert display_text("-0.004", "points") == "0.00"
    assert display_text("-18.25", "points") == "-18.25"


def test_rates_counts_numbers_flags_and_missing_values():
    assert display_text("0.5714285714", "rate") == "0.571"
    assert display_text("7", "count") == "7"
    assert display_text("-1", "count") == "-1"
    assert display_text("41.77169843", "number") == "41.77"
    assert display_text("True", "flag") == "yes" and display_text("False", "flag") == "no"
    assert display_text("NaN", "points") == "–" and display_text("", "text") == "–"
    assert display_text("5.1", "text") == "5.1"


def test_table_keeps_exact_text_and_file_lines(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("quantity\tvalue\nT00\t49.75\nT11\tNaN\n")
    table = read_source_table(path)
    assert table.columns == ("quantity", "value")
    assert table.lines == (2, 3)
    row = find_row(table, quantity="T11")
    v = value(table, row, "value", "points")
    assert (v.line, v.text, v.display) == (3, "NaN", "–")


def test_ragged_row_names_file_and_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("quantity\tvalue\nT00\t49.75\nT11\n")
    with pytest.raises(InputError, match=r"bad.tsv:3: 1 fields, header has 2"):
        read_source_table(path)


def test_two_matching_rows_are_an_error_not_a_silent_pick(tmp_path):
    path = tmp_path / "dup.tsv"
    path.write_text("quantity\tvalue\nT00\t1\nT00\t2\n")
    with pytest.raises(InputError, match=r"dup.tsv:3: more than one row matches"):
        find_row(read_source_table(path), quantity="T00")


def test_missing_column_is_named(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("quantity\tvalue\nT00\t1\n")
    with pytest.raises(InputError, match=r"t.tsv:1: field 'lower': column missing"):
        value(read_source_table(path), 0, "lower", "points")
