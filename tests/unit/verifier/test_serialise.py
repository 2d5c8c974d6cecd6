"""Verifier input serialisation: caps, window, unresolved units, sentinel, context."""
import random

import pytest

from evidence_ledger.verifier.serialise import SerialisationLimits, render_unit, serialise_input

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
    out = serialise_input(words(100), ["P_sentence_0"], make_units(1), enc, CLS, SEP)
    assert out.claim_tokens == 64
    assert out.claim_truncated
    assert out.input_ids[1:65] == enc(words(64))
    assert out.input_ids[65] == SEP


def test_unit_longer_than_96_tokens_is_cut_to_96():
    enc = WordEncoder()
    units = {"P_sentence_0": (words(150, "long"), ""), "P_sentence_1": (words(4, "short"), "")}
    out = serialise_input("a claim", ["P_sentence_0", "P_sentence_1"], units, enc, CLS, SEP)
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
    out = serialise_input("claim", candidates, units, enc, CLS, SEP)
    assert out.used_unit_ids == [f"P_sentence_{i}" for i in range(8)]
    assert out.candidate_ids == candidates[:30]
    assert out.unresolved_ids == [f"Missing_sentence_{i}" for i in range(12)] + [f"Gone_cell_0_{i}" for i in range(6)]
    assert "Late_sentence_0" not in out.unresolved_ids
    assert not out.sentinel


def test_resolved_unit_after_position_30_never_goes_in():
    enc = WordEncoder()
    units = make_units(1)
    candidates = [f"Missing_sentence_{i}" for i in range(30)] + ["P_sentence_0"]
    out = serialise_input("claim", candidates, units, enc, CLS, SEP)
    assert out.used_unit_ids == []
    assert out.sentinel
    assert len(out.unresolved_ids) == 30


def test_all_unresolved_gives_the_sentinel_and_counts_every_unresolved_id():
    enc = WordEncoder()
    limits = SerialisationLimits(sentinel="nothing found here")
    out = serialise_input("the claim", ["A_sentence_0", "B_cell_0_1_1", "C_title"], {}, enc, CLS, SEP, limits)
    assert out.sentinel
    assert out.used_unit_ids == []
    assert out.unresolved_ids == ["A_sentence_0", "B_cell_0_1_1", "C_title"]
    assert out.input_ids == [CLS, *enc("the claim"), SEP, *enc("nothing found here"), SEP]


def test_empty_candidate_list_gives_the_sentinel():
    enc = WordEncoder()
    out = serialise_input("claim", [], make_units(3), enc, CLS, SEP)
    assert out.sentinel and out.unresolved_ids == [] and out.unit_tokens == []


def test_total_never_exceeds_512_tokens_and_last_unit_is_cut_to_the_room_left():
    enc = WordEncoder()
    units = make_units(8, length=200)
    out = serialise_input(words(80), list(units), units, enc, CLS, SEP)
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
    out = serialise_input(words(rng.randint(0, 200)), cands, units, enc, CLS, SEP)
    assert out.total_tokens <= 512
    assert out.claim_tokens <= 64
    assert all(t <= 96 for t in out.unit_tokens)
    assert len(out.used_unit_ids) <= 8
    assert len(set(out.used_unit_ids)) == len(out.used_unit_ids)


def test_context_is_prepended_when_present_and_counts_towards_the_unit_cap():
    enc = WordEncoder()
    units = {"P_cell_0_1_1": ("1987", "Page : Year")}
    with_ctx = serialise_input("c", ["P_cell_0_1_1"], units, enc, CLS, SEP)
    without = serialise_input("c", ["P_cell_0_1_1"], units, enc, CLS, SEP, SerialisationLimits(include_context=False))
    assert render_unit("1987", "Page : Year", SerialisationLimits()) == "Page : Year : 1987"
    assert with_ctx.unit_tokens == [5]
    assert without.unit_tokens == [1]


def test_repeated_candidate_id_goes_in_once():
    enc = WordEncoder()
    units = make_units(2)
    out = serialise_input("c", ["P_sentence_0", "P_sentence_0", "P_sentence_1"], units, enc, CLS, SEP)
    assert out.used_unit_ids == ["P_sentence_0", "P_sentence_1"]
    assert out.skipped_duplicates == ["P_sentence_0"]


def test_limits_without_room_for_evidence_are_refused():
    with pytest.raises(ValueError, match="no room for evidence"):
        SerialisationLimits(max_total_tokens=67, max_claim_tokens=64)
