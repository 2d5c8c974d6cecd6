"""Each shared name is defined once (src/evidence_ledger/vocabulary.py) and every package uses
that one object."""
from evidence_ledger import vocabulary
from evidence_ledger.accounting import estimands, panel, patterns
from evidence_ledger.diffgr import pipeline as diffgr_pipeline, reader_setup
from evidence_ledger.generation import parsing
from evidence_ledger.evidence import controls, prefix
from evidence_ledger.scoring import feverous, indicators


def test_invalid_is_one_object_everywhere():
    assert parsing.INVALID is vocabulary.INVALID
    assert panel.INVALID is vocabulary.INVALID
    assert patterns.INVALID is vocabulary.INVALID
    assert indicators.INVALID is vocabulary.INVALID


def test_control_names_and_unit_id_formats_have_one_definition():
    assert controls.control_of is vocabulary.control_of and indicators.control_of is vocabulary.control_of
    assert feverous.split_element_id is vocabulary.split_feverous_element_id
    assert feverous.CELL_LIKE_TYPES is prefix.CELL_LIKE_KINDS is vocabulary.FEVEROUS_CELL_LIKE_TYPES
    element = vocabulary.feverous_element_id("Korean Air", "cell_1_19_0")
    assert vocabulary.split_feverous_element_id(element) == ("Korean Air", "cell", "1_19_0")
    assert vocabulary.split_fever_unit_id(vocabulary.fever_unit_id("A::B", 3)) == ("A::B", 3)
    assert vocabulary.split_scifact_unit_id(vocabulary.scifact_unit_id("17", 2)) == ("17", 2)


def test_diffgr_orders_come_from_the_vocabulary():
    assert diffgr_pipeline.ORDERS is vocabulary.DIFFGR_ORDERS
    assert reader_setup.GENERATED_FIRST == vocabulary.DIFFGR_ORDERS[1]


def test_family_sizes_derive_from_the_comparisons():
    per_panel = {f: len(estimands.family_contrasts(f)) for f in vocabulary.STUDY2_FAMILIES}
    assert per_panel == {"primary": 2, "exploratory": 10, "crossed": 7}
    assert [estimands.family_size(f, 6) for f in vocabulary.STUDY2_FAMILIES] == [12, 60, 42]


def test_parsed_format_names_alternative_mappings():
    assert vocabulary.parsed_format("codes", vocabulary.PRIMARY_MAPPING) == "codes"
    assert vocabulary.parsed_format("labels", "") == "labels"
    assert vocabulary.parsed_format("codes", "rotated") == "codes:rotated"
    assert vocabulary.is_alternative_mapping_format("codes:rotated")
