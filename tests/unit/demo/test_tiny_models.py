"""Batching and encoding of the demo chat models' training (demo.tiny_models)."""
import random

from evidence_ledger.demo.tiny_models import ARCHS, encode_pairs, length_bucketed_order, train_tokenizer


def test_length_bucketed_order_groups_similar_lengths_and_uses_every_index_once():
    """One chunk (3 batches x 2): indices sorted by length are 1 (len 1), 3 (2), 4 (3), 2 (4),
    0 (5), 5 (6), so the batches are {1, 3}, {4, 2}, {0, 5} in some shuffled order."""
    lengths = [5, 1, 4, 2, 3, 6]
    batches = length_bucketed_order(lengths, batch_size=2, rng=random.Random(0), bucket_batches=3)
    assert sorted(sorted(b) for b in batches) == [[0, 5], [1, 3], [2, 4]]
    again = length_bucketed_order(lengths, batch_size=2, rng=random.Random(0), bucket_batches=3)
    assert again == batches  # deterministic for a seeded rng


def test_length_bucketed_order_sorts_only_within_chunks():
    """10 items, batch 2, chunks of 4: every index once, at most 2 per batch, and each batch's
    items come from one chunk of the shuffled order."""
    lengths = list(range(10))
    rng = random.Random(3)
    shuffled = list(range(10))
    random.Random(3).shuffle(shuffled)
    chunks = [set(shuffled[0:4]), set(shuffled[4:8]), set(shuffled[8:10])]
    batches = length_bucketed_order(lengths, batch_size=2, rng=rng, bucket_batches=2)
    assert sorted(i for b in batches for i in b) == list(range(10))
    assert all(len(b) == 2 for b in batches)
    for b in batches:
        assert any(set(b) <= c for c in chunks), b
        assert b == sorted(b, key=lambda i: lengths[i])


def test_encode_pairs_matches_per_pair_tokenisation_for_repeated_pairs():
    arch = ARCHS["qwen3"]
    tok = train_tokenizer(arch, ["the claim is supported by the evidence", "refuted claim text"], vocab_size=300)
    a = ([{"role": "user", "content": "Claim: the claim. Evidence: refuted text"}], "REFUTES")
    b = ([{"role": "user", "content": "Claim: other. Evidence: supported"}], "A")
    encoded = encode_pairs(tok, arch, [a, b, a], {"enable_thinking": False})
    eos = tok.convert_tokens_to_ids(arch.eos)
    for (messages, answer), (p_ids, a_ids) in zip([a, b, a], encoded):
        prompt = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, enable_thinking=False)
        assert p_ids == tok(prompt, add_special_tokens=False)["input_ids"]
        assert a_ids == tok(answer, add_special_tokens=False)["input_ids"] + [eos]
    assert encoded[0] == encoded[2]
