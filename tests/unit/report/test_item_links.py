"""Links into the item explorer: a comparison's key is its six naming fields joined by ``/``; a
link percent-encodes what a URL fragment cannot hold and names the component; an accounted
system's section links each component of its comparison."""
from dataclasses import replace

import pytest

from support.summary_tables import write_summary_inputs

from evidence_ledger.report.accounted import accounted_system_section
from evidence_ledger.report.item_links import estimates_items_links, items_href
from evidence_ledger.tables.items import comparison_key
from evidence_ledger.report.sources import read_source_table
from evidence_ledger.report.summary import Link, Paragraph


def test_a_comparison_key_joins_the_six_fields_in_order():
    row = {"budget": "long", "parser": "strict", "format": "codes", "system": "qwen3", "dataset": "fever",
           "study": "study2", "quantity": "E0"}
    assert comparison_key(row) == "study2/fever/qwen3/codes/strict/long"


def test_a_link_encodes_what_a_fragment_cannot_hold_and_names_the_component():
    assert items_href("study1/kilt/my system&co/official/none/full", "A1") == (
        "items.html#comparison=study1/kilt/my%20system%26co/official/none/full&component=A1")
    assert items_href("study1/fever/s/official/none/full") == "items.html#comparison=study1/fever/s/official/none/full"
    with pytest.raises(ValueError, match="unknown component 'E2'"):
        items_href("k", "E2")


def test_an_accounted_systems_section_links_each_component_of_its_comparison(tmp_path):
    paths = write_summary_inputs(tmp_path)
    estimates = read_source_table(paths["study1_estimates"])
    section = accounted_system_section("accounted1", "sys: a → b", estimates, None)
    (links,) = [b for b in section.blocks if isinstance(b, Paragraph) and b.style == "links"]
    hrefs = [f.href for f in links.fragments if isinstance(f, Link)]
    assert hrefs == [f"items.html#comparison=study1/feverous/verifier/verifier/none/full&component={c}"
                     for c in ("gain", "E0", "A1", "A0", "E1", "interaction")]


def test_estimates_without_the_gain_row_give_no_links(tmp_path):
    paths = write_summary_inputs(tmp_path)
    estimates = read_source_table(paths["study1_estimates"])
    kept = [(row, line) for row, line in zip(estimates.rows, estimates.lines) if row["quantity"] != "gain"]
    no_gain = replace(estimates, rows=tuple(r for r, _ in kept), lines=tuple(n for _, n in kept))
    assert estimates_items_links(no_gain, "study1") == () and estimates_items_links(None, "study1") == ()
