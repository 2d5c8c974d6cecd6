"""Verifier input serialisation: caps, window, unresolved units, sentinel, context; the window
rules also through the real import path (provider file -> import -> serialise)."""
import random

import pytest

from support.defaults import serialisation_limits

from evidence_ledger.verifier.serialise import render_unit, serialise_input
from support.provider_path import serialise_through_import

CLS, SEP = 1, 2


class WordEncoder:
    """One token per whitespace-separated word (ids from a growing vocabulary)."""

    def __init__(self):
        self.vocab = {}

    def __call__(self, text):
        return [self.vocab.setdefault(w, 10 + len(self.vocab)) for w in text.split()]


def words(n, stem="w"):
    return " ".join(f"{stem}{i}" for i in range(n))


def make_units(n, length=5, context=""):
    return {f"P_sentence_{i}": (words(length, f"u{i}x"), context) for i in range(n)}


def test_claim_longer_than_64_tokens_is_cut_to_its_first_64():
    enc = WordEncoder()
    out = serialise_input(words(100), ["P_sentence_0"], make_units(1), enc, CLS, SEP, serialisation_limits())
    assert out.claim_tokens == 64
    assert out.claim_truncated
    assert out.input_ids[1:65] == enc(words(64))
    assert out.input_ids[65] == SEP


def test_unit_longer_than_96_tokens_is_cut_to_96():
    enc = WordEncoder()
    units = {"P_sentence_0": (words(150, "long"), ""), "P_sentence_1": (words(4, "short"), "")}
    out = serialise_input("a claim", ["P_sentence_0", "P_sentence_1"], units, enc, CLS, SEP, serialisation_limits())
    assert out.used_unit_ids == ["P_sentence_0", "P_sentence_1"]
    assert out.unit_tokens == [96, 4]
    assert out.units_truncated == 1
    # [CLS] claim(2) [SEP] unit0(96) '|'(1) unit1(4) [SEP]
    assert out.total_tokens == 1 + 2 + 1 + 96 + 1 + 4 + 1


def test_at_most_8_resolved_units_in_provider_order_from_the_first_30_candidates():
    enc = WordEncoder()
    units = make_units(40, length=2)
    # unresolved ids interleaved; 12 resolved ids inside the window, more after position 30
    candidates = []
    for i in range(12):
        candidates += [f"Missing_sentence_{i}", f"P_sentence_{i}"]
    candidates += [f"Gone_cell_0_{i}" for i in range(6)]  # positions 24..29: still in the window
    candidates += ["Late_sentence_0", "P_sentence_30", "P_sentence_31"]  # positions 30..: outside
    out = serialise_input("claim", candidates, units, enc, CLS, SEP, serialisation_limits())
    assert out.used_unit_ids == [f"P_sentence_{i}" for i in range(8)]
    assert out.candidate_ids == candidates[:30]
    assert out.unresolved_ids == [f"Missing_sentence_{i}" for i in range(12)] + [f"Gone_cell_0_{i}" for i in range(6)]
    assert "Late_sentence_0" not in out.unresolved_ids
    assert not out.sentinel


def test_resolved_unit_after_position_30_never_goes_in():
    enc = WordEncoder()
    units = make_units(1)
    candidates = [f"Missing_sentence_{i}" for i in range(30)] + ["P_sentence_0"]
    out = serialise_input("claim", candidates, units, enc, CLS, SEP, serialisation_limits())
    assert out.used_unit_ids == []
    assert out.sentinel
    assert len(out.unresolved_ids) == 30


def test_all_unresolved_gives_the_sentinel_and_counts_every_unresolved_id():
    enc = WordEncoder()
    limits = serialisation_limits(sentinel="nothing found here")
    out = serialise_input("the claim", ["A_sentence_0", "B_cell_0_1_1", "C_title"], {}, enc, CLS, SEP, limits)
    assert out.sentinel
    assert out.used_unit_ids == []
    assert out.unresolved_ids == ["A_sentence_0", "B_cell_0_1_1", "C_title"]
    assert out.input_ids == [CLS, *enc("the claim"), SEP, *enc("nothing found here"), SEP]


def test_empty_candidate_list_gives_the_sentinel():
    enc = WordEncoder()
    out = serialise_input("claim", [], make_units(3), enc, CLS, SEP, serialisation_limits())
    assert out.sentinel and out.unresolved_ids == [] and out.unit_tokens == []


def test_total_never_exceeds_512_tokens_and_last_unit_is_cut_to_the_room_left():
    enc = WordEncoder()
    units = make_units(8, length=200)
    out = serialise_input(words(80), list(units), units, enc, CLS, SEP, serialisation_limits())
    assert out.total_tokens == 512
    # 3 special + 64 claim = 67; each full unit 96 (+1 separator after the first)
    assert out.unit_tokens[:4] == [96, 96, 96, 96]
    assert sum(out.unit_tokens) + (len(out.unit_tokens) - 1) == 512 - 67
    assert out.units_truncated == len(out.unit_tokens)


@pytest.mark.parametrize("seed", range(40))
def test_total_is_at_most_512_for_random_claims_and_units(seed):
    rng = random.Random(seed)
    enc = WordEncoder()
    units = {f"P_sentence_{i}": (words(rng.randint(0, 300)), words(rng.randint(0, 20), "c")) for i in range(40)}
    cands = [rng.choice([f"P_sentence_{rng.randint(0, 39)}", f"X_sentence_{i}"]) for i in range(rng.randint(0, 60))]
    out = serialise_input(words(rng.randint(0, 200)), cands, units, enc, CLS, SEP, serialisation_limits())
    assert out.total_tokens <= 512
    assert out.claim_tokens <= 64
    assert all(t <= 96 for t in out.unit_tokens)
    assert len(out.used_unit_ids) <= 8
    assert len(set(out.used_unit_ids)) == len(out.used_unit_ids)


def test_context_is_prepended_when_present_and_counts_towards_the_unit_cap():
    enc = WordEncoder()
    units = {"P_cell_0_1_1": ("1987", "Page : Year")}
    with_ctx = serialise_input("c", ["P_cell_0_1_1"], units, enc, CLS, SEP, serialisation_limits())
    without = serialise_input("c", ["P_cell_0_1_1"], units, enc, CLS, SEP, serialisation_limits(include_context=False))
    assert render_unit("1987", "Page : Year", serialisation_limits()) == "Page : Year : 1987"
    assert with_ctx.unit_tokens == [5]
    assert without.unit_tokens == [1]


def test_repeated_candidate_id_goes_in_once():
    enc = WordEncoder()
    units = make_units(2)
    out = serialise_input("c", ["P_sentence_0", "P_sentence_0", "P_sentence_1"], units, enc, CLS, SEP, serialisation_limits())
    assert out.used_unit_ids == ["P_sentence_0", "P_sentence_1"]
    assert out.skipped_duplicates == ["P_sentence_0"]


def test_repeats_can_be_read_as_not_taking_window_slots():
    """[P0, P0, P0, P1] with a 3-candidate window: by default the repeats fill slots 2 and 3, so
    P1 (position 4) is outside; with repeats_take_window_slots=False the window is [P0, P1]."""
    enc = WordEncoder()
    units, cands = make_units(2), ["P_sentence_0", "P_sentence_0", "P_sentence_0", "P_sentence_1"]
    slots = serialise_input("c", cands, units, enc, CLS, SEP, serialisation_limits(max_candidates=3))
    once = serialise_input("c", cands, units, enc, CLS, SEP,
                           serialisation_limits(max_candidates=3, repeats_take_window_slots=False))
    assert slots.used_unit_ids == ["P_sentence_0"] and slots.candidate_ids == cands[:3]
    assert once.used_unit_ids == ["P_sentence_0", "P_sentence_1"] and once.candidate_ids == ["P_sentence_0", "P_sentence_1"]


def test_limits_without_room_for_evidence_are_refused():
    with pytest.raises(ValueError, match="no room for evidence"):
        serialisation_limits(max_total_tokens=67, max_claim_tokens=64)


# --- The same window rules through the real import path: provider file -> import_evidence_source
# -> serialise_verifier_inputs (the provider's list reaches the serialiser as written).

def unit_texts(n, length=2):
    return {f"P_sentence_{i}": words(length, f"u{i}x") for i in range(n)}


def through_import(tmp_path, lists, units, **limits):
    claims = {cid: ("SUPPORTS", [["P_sentence_0"]]) for cid in lists}
    return serialise_through_import(tmp_path, {"provider_x": lists}, claims, units, **limits)


def test_window_through_import_counts_unresolved_ids_and_takes_8_units_from_the_first_30(tmp_path):
    """The list of test_at_most_8_resolved_units_in_provider_order_from_the_first_30_candidates,
    written to a provider file: 12 unresolved / resolved pairs (positions 1-24), 6 unresolved
    cells (25-30), then Late_sentence_0, P_sentence_30, P_sentence_31 (31-33). Window = positions
    1-30: 18 unresolved ids in it (12 + 6), resolved P_sentence_0..11 of which the first 8 go in.
    The whole list has 19 unresolved ids (+ Late_sentence_0)."""
    candidates = []
    for i in range(12):
        candidates += [f"Missing_sentence_{i}", f"P_sentence_{i}"]
    candidates += [f"Gone_cell_0_{i}" for i in range(6)]
    candidates += ["Late_sentence_0", "P_sentence_30", "P_sentence_31"]
    run = through_import(tmp_path, {"1": candidates}, unit_texts(40))
    row = run["inputs"][("provider_x", "1")]
    assert row["candidate_ids"] == candidates[:30]
    assert row["used_unit_ids"] == [f"P_sentence_{i}" for i in range(8)]
    assert row["unresolved_ids"] == [f"Missing_sentence_{i}" for i in range(12)] + [f"Gone_cell_0_{i}" for i in range(6)]
    assert row["provider_unresolved"] == 19 and not row["sentinel"]
    assert run["summaries"]["provider_x"]["unresolved_ids"] == 19


def test_resolved_unit_after_30_unresolved_ids_never_goes_in_through_import(tmp_path):
    """30 unresolved ids fill the window; the resolved P_sentence_0 at position 31 is outside:
    sentinel input, 30 unresolved ids in the window."""
    candidates = [f"Missing_sentence_{i}" for i in range(30)] + ["P_sentence_0"]
    row = through_import(tmp_path, {"1": candidates}, unit_texts(1))["inputs"][("provider_x", "1")]
    assert row["used_unit_ids"] == [] and row["sentinel"]
    assert len(row["unresolved_ids"]) == 30 and row["provider_unresolved"] == 30


def test_all_unresolved_through_import_gives_the_sentinel_and_counts_every_id(tmp_path):
    """Three ids, none in the units table: sentinel input, all three listed as unresolved."""
    row = through_import(tmp_path, {"1": ["A_sentence_0", "B_cell_0_1_1", "C_title"]},
                         unit_texts(1))["inputs"][("provider_x", "1")]
    assert row["sentinel"] and row["used_unit_ids"] == []
    assert row["unresolved_ids"] == ["A_sentence_0", "B_cell_0_1_1", "C_title"]


def test_repeated_id_through_import_takes_a_window_slot_and_goes_in_once(tmp_path):
    """[P0, P0, P1] with a 2-candidate window: the repeat takes slot 2, so P1 (position 3) is
    outside the window; P0 goes in once."""
    row = through_import(tmp_path, {"1": ["P_sentence_0", "P_sentence_0", "P_sentence_1"]}, unit_texts(2),
                         max_candidates=2)["inputs"][("provider_x", "1")]
    assert row["candidate_ids"] == ["P_sentence_0", "P_sentence_0"]
    assert row["used_unit_ids"] == ["P_sentence_0"]


def test_claim_without_a_submission_line_gets_the_sentinel_through_import(tmp_path):
    """Claim 2 has no line in the provider file: an empty list, so the sentinel input."""
    run = serialise_through_import(tmp_path, {"provider_x": {"1": ["P_sentence_0"]}},
                                   {"1": ("SUPPORTS", []), "2": ("REFUTES", [])}, unit_texts(1))
    assert run["inputs"][("provider_x", "2")]["sentinel"]
    assert run["inputs"][("provider_x", "2")]["candidate_ids"] == []
    assert run["inputs"][("provider_x", "1")]["used_unit_ids"] == ["P_sentence_0"]
