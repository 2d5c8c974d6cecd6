"""Two small budget tokenizers for the evidence tests, built with ``tokenizers`` and saved so that
they load through ``AutoTokenizer.from_pretrained`` like the generation models' tokenizers.

``words``: one token per whitespace-separated chunk. ``pieces``: one token per word and one per
punctuation run (``tokenizers``' Whitespace pre-tokenizer), so the two disagree exactly on
punctuation: "a, b." is 2 tokens under ``words`` and 4 under ``pieces``.
"""
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from evidence_ledger.evidence.budget import load_tokenizer


def _build(pre_tokenizer, path):
    tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizer
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]")
    fast.save_pretrained(path)
    return load_tokenizer(str(path))


def budget_tokenizers(tmp_path):
    return {"words": _build(pre_tokenizers.WhitespaceSplit(), tmp_path / "words"),
            "pieces": _build(pre_tokenizers.Whitespace(), tmp_path / "pieces")}
