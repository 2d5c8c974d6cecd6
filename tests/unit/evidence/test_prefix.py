"""Scored prefix caps per benchmark."""
from evidence_ledger.evidence.prefix import scored_prefix


def test_fever_prefix_is_the_first_five_sentences():
    ids = [f"P::{i}" for i in range(8)]
    assert scored_prefix(ids, ["sentence"] * 8, non_cell=5) == ids[:5]


def test_feverous_caps_sentences_and_cell_like_units_separately():
    ids, kinds = [], []
    for i in range(30):  # interleave: sentence, cell, header_cell, item, table_caption, ...
        for kind in ("sentence", "cell", "header_cell", "item", "table_caption"):
            ids.append(f"P_{kind}_{i}")
            kinds.append(kind)
    got = scored_prefix(ids, kinds, non_cell=5, cell=25)
    assert [u for u in got if "_sentence_" in u] == [f"P_sentence_{i}" for i in range(5)]
    cells = [u for u in got if "_sentence_" not in u]
    assert len(cells) == 25 and cells[:4] == ["P_cell_0", "P_header_cell_0", "P_item_0", "P_table_caption_0"]
    assert got == [u for u in ids if u in set(got)]  # visible order kept


def test_feverous_title_and_section_count_as_non_cell():
    got = scored_prefix(["T_title", "T_section_0", "T_sentence_0", "T_cell_0_0_0"],
                        ["title", "section", "sentence", "cell"], non_cell=2, cell=25)
    assert got == ["T_title", "T_section_0", "T_cell_0_0_0"]


def test_scifact_prefix_is_three_sentences_of_the_abstract():
    ids = [f"11:{i}" for i in (4, 0, 7, 2)]
    assert scored_prefix(ids, ["sentence"] * 4, non_cell=3) == ["11:4", "11:0", "11:7"]


def test_fewer_units_than_the_cap_are_all_scored():
    assert scored_prefix(["a"], ["sentence"], non_cell=5, cell=25) == ["a"]
    assert scored_prefix([], [], non_cell=5) == []
