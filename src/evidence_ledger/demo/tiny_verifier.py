"""Tiny DeBERTa-v2 sequence classifier for the embedded demo, built locally (no download).

In:  a list of training texts (demo claims and evidence-unit texts) and a
     :class:`TinyVerifierSpec` (sizes, vocabulary size, seed).
Out: a directory loadable by ``AutoTokenizer`` / ``AutoModelForSequenceClassification``
     (``model.safetensors``, ``config.json``, ``tokenizer.json`` ...), i.e. the same loading
     code path as the real ``microsoft/deberta-large-mnli`` base model.

The classifier head has three outputs named like the MNLI head of the real model
(``0: CONTRADICTION, 1: NEUTRAL, 2: ENTAILMENT``) so that the label mapping of
:mod:`evidence_ledger.verifier.labels` applies unchanged. Weights are random (seeded); the
demo fine-tuning (``train_verifier``) is what makes it learn the demo task.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..files.safe_files import atomic_directory

MNLI_ID2LABEL = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@dataclass(frozen=True)
class TinyVerifierSpec:
    """Sizes of the demo model. ``num_attention_heads`` must divide ``hidden_size``."""

    hidden_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 2
    intermediate_size: int = 128
    vocab_size: int = 2000
    max_position_embeddings: int = 512
    seed: int = 0


def wordpiece_vocab(texts: Iterable[str], vocab_size: int, normalize, pre_tokenize) -> dict[str, int]:
    """A WordPiece vocabulary chosen deterministically: the special tokens, every character
    seen (as itself and as a ``##`` continuation), then whole words by frequency (ties broken
    by the word itself) until ``vocab_size``.

    The ``tokenizers`` WordPiece trainer breaks frequency ties differently from process to
    process, so the demo model (and every number downstream of it) would change between
    runs; a vocabulary counted here does not.
    """
    counts: dict[str, int] = {}
    for text in texts:
        for word, _ in pre_tokenize(normalize(text)):
            counts[word] = counts.get(word, 0) + 1
    chars = sorted({ch for word in counts for ch in word})
    vocab: dict[str, int] = {}
    for token in [*SPECIAL_TOKENS, *chars, *(f"##{ch}" for ch in chars)]:
        vocab.setdefault(token, len(vocab))
    for word, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(vocab) >= vocab_size:
            break
        vocab.setdefault(word, len(vocab))
    return vocab


def train_wordpiece_tokenizer(texts: Iterable[str], vocab_size: int):
    """A lower-casing WordPiece tokenizer with the BERT-style pair template.

    Single: ``[CLS] A [SEP]``; pair: ``[CLS] A [SEP] B [SEP]`` (type ids 0 / 1).
    The vocabulary is counted deterministically (``wordpiece_vocab``): same texts, same
    tokenizer, in every process.
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    normalizer = normalizers.BertNormalizer(lowercase=True)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    vocab = wordpiece_vocab(texts, vocab_size, normalizer.normalize_str, pre_tokenizer.pre_tokenize_str)
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.WordPiece()
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    return tok


def build_tiny_verifier(texts: Iterable[str], out_dir: str | Path, spec: TinyVerifierSpec = TinyVerifierSpec()) -> Path:
    """Train the tokenizer on ``texts``, build a seeded random-init classifier, save both.

    Returns ``out_dir``. Raises ``ValueError`` when ``texts`` is empty.
    """
    import torch
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification, PreTrainedTokenizerFast

    texts = [t for t in texts if t] + [" | ", " : "]  # the serialiser's separators get their own tokens
    if not texts:
        raise ValueError("build_tiny_verifier: no training text for the tokenizer")
    out_dir = Path(out_dir)
    raw = train_wordpiece_tokenizer(texts, spec.vocab_size)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
        model_max_length=spec.max_position_embeddings,
        model_input_names=["input_ids", "attention_mask"],
    )
    config = DebertaV2Config(
        vocab_size=raw.get_vocab_size(),
        hidden_size=spec.hidden_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        intermediate_size=spec.intermediate_size,
        max_position_embeddings=spec.max_position_embeddings,
        type_vocab_size=0,
        relative_attention=True,
        position_buckets=64,
        pos_att_type=["p2c", "c2p"],
        pad_token_id=tokenizer.pad_token_id,
        num_labels=3,
        id2label=dict(MNLI_ID2LABEL),
        label2id={v: k for k, v in MNLI_ID2LABEL.items()},
    )
    torch.manual_seed(spec.seed)
    model = DebertaV2ForSequenceClassification(config)
    with atomic_directory(out_dir) as building:  # a later job never sees half a model directory
        model.save_pretrained(building, safe_serialization=True)
        tokenizer.save_pretrained(building)
    return out_dir
