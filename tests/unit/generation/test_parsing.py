"""The strict and lenient answer parsers on tables of tricky responses."""
import pytest

from evidence_ledger.generation.parsing import INVALID, parse_lenient, parse_strict

WIKI = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
SCI = ["SUPPORT", "CONTRADICT", "NOINFO"]
WIKI_CODES = {"A": "SUPPORTS", "B": "REFUTES", "C": "NOT ENOUGH INFO"}
ROTATED = {"A": "REFUTES", "B": "NOT ENOUGH INFO", "C": "SUPPORTS"}

# response, strict, lenient  (codes, primary mapping)
CODES_TABLE = [
    ("A", "SUPPORTS", "SUPPORTS"),
    ("  B\n", "REFUTES", "REFUTES"),
    ("C", "NOT ENOUGH INFO", "NOT ENOUGH INFO"),
    ("a", INVALID, "SUPPORTS"),
    ("(A)", INVALID, "SUPPORTS"),
    ("[C]", INVALID, "NOT ENOUGH INFO"),
    ("**B**", INVALID, "REFUTES"),
    ("B.", INVALID, "REFUTES"),
    ("B)", INVALID, "REFUTES"),
    ("Answer: B", INVALID, "REFUTES"),
    ("The answer is C.", INVALID, "NOT ENOUGH INFO"),
    ("A. The evidence supports the claim.", INVALID, "SUPPORTS"),
    ("A = SUPPORTS", INVALID, "SUPPORTS"),
    ("<think>\n\n</think>\n\nB", INVALID, "REFUTES"),
    ("A = REFUTES", INVALID, INVALID),  # letter and label disagree
    ("A or B", INVALID, INVALID),
    ("A, because C is wrong", INVALID, INVALID),
    ("A claim about films", INVALID, INVALID),  # could be the article
    ("AB", INVALID, INVALID),
    ("D", INVALID, INVALID),
    ("", INVALID, INVALID),
    ("SUPPORTS", INVALID, INVALID),  # a label is not a code
]

LABELS_TABLE = [
    ("SUPPORTS", "SUPPORTS", "SUPPORTS"),
    ("NOT ENOUGH INFO\n", "NOT ENOUGH INFO", "NOT ENOUGH INFO"),
    ("supports", INVALID, "SUPPORTS"),
    ("Refutes.", INVALID, "REFUTES"),
    ("not_enough_info", INVALID, "NOT ENOUGH INFO"),
    ('"REFUTES"', INVALID, "REFUTES"),
    ("Answer: REFUTES", INVALID, "REFUTES"),
    ("SUPPORTS because the evidence says so", INVALID, "SUPPORTS"),
    ("REFUTES. It does not support the claim", INVALID, "REFUTES"),
    ("SUPPORTS, not REFUTES", INVALID, INVALID),
    ("SUPPORTED", INVALID, INVALID),
    ("Not enough information", INVALID, INVALID),
    ("NOT ENOUGH INFO.", INVALID, "NOT ENOUGH INFO"),
    ("A", INVALID, INVALID),
    ("The claim is true", INVALID, INVALID),
]

SCIFACT_TABLE = [
    ("CONTRADICT", "CONTRADICT", "CONTRADICT"),
    ("NOINFO", "NOINFO", "NOINFO"),
    ("noinfo.", INVALID, "NOINFO"),
    ("SUPPORTS", INVALID, INVALID),  # FEVER label is not a SciFact label
    ("SUPPORT but CONTRADICT", INVALID, INVALID),
]


@pytest.mark.parametrize("text,strict,lenient", CODES_TABLE)
def test_code_responses_parse_as_tabled(text, strict, lenient):
    assert parse_strict(text, "codes", WIKI, WIKI_CODES) == strict
    assert parse_lenient(text, "codes", WIKI, WIKI_CODES) == lenient


@pytest.mark.parametrize("text,strict,lenient", LABELS_TABLE)
def test_label_responses_parse_as_tabled(text, strict, lenient):
    assert parse_strict(text, "labels", WIKI) == strict
    assert parse_lenient(text, "labels", WIKI) == lenient


@pytest.mark.parametrize("text,strict,lenient", SCIFACT_TABLE)
def test_scifact_label_responses_parse_as_tabled(text, strict, lenient):
    assert parse_strict(text, "labels", SCI) == strict
    assert parse_lenient(text, "labels", SCI) == lenient


def test_codes_follow_the_alternative_mapping():
    assert parse_strict("A", "codes", WIKI, ROTATED) == "REFUTES"
    assert parse_lenient("(c)", "codes", WIKI, ROTATED) == "SUPPORTS"
    # the label named next to the letter must agree with *this* mapping
    assert parse_lenient("C = SUPPORTS", "codes", WIKI, ROTATED) == "SUPPORTS"
    assert parse_lenient("A = SUPPORTS", "codes", WIKI, ROTATED) == INVALID


def test_lenient_accepts_everything_strict_accepts():
    for text, strict, _ in CODES_TABLE:
        if strict != INVALID:
            assert parse_lenient(text, "codes", WIKI, WIKI_CODES) == strict
    for text, strict, _ in LABELS_TABLE:
        if strict != INVALID:
            assert parse_lenient(text, "labels", WIKI) == strict


def test_codes_format_without_mapping_is_an_error():
    with pytest.raises(ValueError, match="mapping"):
        parse_strict("A", "codes", WIKI)
