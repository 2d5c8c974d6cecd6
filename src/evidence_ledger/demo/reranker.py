"""The demo's reranker: a tiny XLM-R cross-encoder built locally and trained briefly.

In:  training claims with their gold unit ids, their candidate pools and the unit passages.
Out: a directory loadable by ``FlagReranker`` / ``AutoModelForSequenceClassification``
     (``config.json``, ``model.safetensors``, tokenizer files), standing in for
     ``BAAI/bge-reranker-base`` in the demo through the same loading code.

Recipe (see ENVIRONMENT.md): XLM-RoBERTa sequence classifier with ``num_labels=1`` and
``max_position_embeddings=514``; a Unigram tokenizer trained on the training claims and
passages with ``<s>``=0, ``<pad>``=1, ``</s>``=2, ``<unk>``=3, ``<mask>``=4 and the RoBERTa
pair template ``<s> A </s></s> B </s>``. Training: for each step a batch of claims, each
with one gold passage (positive) and ``negatives`` pool passages that are not gold, softmax
cross-entropy over each group's logits (the listwise loss FlagEmbedding's reranker
fine-tuning uses), AdamW. Everything is seeded; on CPU with one thread a rebuild gives
identical weights.
"""
from __future__ import annotations

import json
import logging
import random

from ..files.safe_files import atomic_directory

log = logging.getLogger(__name__)

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def _canonical_unigram(tok):
    """The trained Unigram in a canonical form, so identical runs give identical token ids.

    The trainer's parallel EM leaves last-bit differences and orders equal scores (and the
    fallback characters it appends with scores 1e-4 apart) arbitrarily. Non-special pieces
    are sorted by score, cut into clusters of scores less than 1e-3 apart, and within a
    cluster the pieces are sorted by their text and given the cluster's scores (rounded to
    1e-6) in descending order.
    """
    import json

    from tokenizers import Tokenizer

    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    head, rest = vocab[: len(SPECIALS)], sorted(vocab[len(SPECIALS):], key=lambda x: -x[1])
    clusters: list[list] = []
    for piece, score in rest:
        if clusters and clusters[-1][-1][1] - score < 1e-3:
            clusters[-1].append([piece, score])
        else:
            clusters.append([[piece, score]])
    canon = []
    for cl in clusters:
        scores = [round(sc, 6) for _, sc in cl]
        canon += [[p, sc] for p, sc in zip(sorted(p for p, _ in cl), scores)]
    data["model"]["vocab"] = head + canon
    return Tokenizer.from_str(json.dumps(data))


def train_unigram_tokenizer(texts: list[str], vocab_size: int):
    """A ``PreTrainedTokenizerFast`` with a Unigram model trained on ``texts``."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, unk_token="<unk>",
                                      show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    tok = _canonical_unigram(tok)
    for i, s in enumerate(SPECIALS):
        assert tok.token_to_id(s) == i, (s, tok.token_to_id(s))
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
        model_input_names=["input_ids", "attention_mask"], model_max_length=512)


def _init_token_matching(model, scale: float) -> None:
    """Start every attention layer's query and key projections at ``scale`` x identity.

    With random, nearly orthogonal token embeddings this makes a token attend to identical
    tokens from the start, a lexical-matching prior that lets a model this small learn to
    rank within a few hundred steps (from a plain random init it barely beats chance).
    """
    import torch

    with torch.no_grad():
        for layer in model.roberta.encoder.layer:
            for proj in (layer.attention.self.query, layer.attention.self.key):
                proj.weight.copy_(scale * torch.eye(proj.weight.shape[0]))
                proj.bias.zero_()


def training_groups(examples: list[dict], negatives: int, seed: int) -> list[tuple[str, str, list[str]]]:
    """(claim, positive passage, negative passages) groups.

    ``examples``: dicts with ``claim``, ``positives`` (gold passages), ``same_doc`` (non-gold
    passages of the gold documents) and ``candidates`` (other non-gold pool passages). One
    group per (claim, positive); half of the negatives (rounded up) are drawn from
    ``same_doc`` and the rest from ``candidates`` (each without replacement, seeded, topping
    up from the other list when one runs short). Same-document negatives share the entity
    with the positive, so the model must learn which sentence answers the claim rather than
    which entity it names (the latter memorises the training entities and does not carry
    over to new claims). A claim without positives or negatives gives no group.
    """
    rng = random.Random(seed)
    groups = []
    for ex in examples:
        same = list(ex.get("same_doc", []))
        other = list(ex.get("candidates", []))
        if not same and not other:
            continue
        for pos in ex["positives"]:
            want_same = min(len(same), (negatives + 1) // 2)
            want_other = min(len(other), negatives - want_same)
            want_same = min(len(same), negatives - want_other)
            negs = rng.sample(same, want_same) + rng.sample(other, want_other)
            groups.append((ex["claim"], pos, negs))
    return groups


def pseudo_query_groups(passages: list[tuple[str, str, str]], n: int, negatives: int, seed: int,
                        keep: float = 0.6) -> list[tuple[str, str, list[str]]]:
    """Self-supervised (claim-like query, passage, negatives) groups from corpus passages.

    ``passages``: (doc id, title, passage text). For ``n`` passages drawn with a seeded RNG,
    the query is the title (half of the time) followed by a random ``keep`` share of the
    passage's words in their order; negatives are half other passages of the same document
    and half passages of other documents. Off by default (``n = 0``).
    """
    rng = random.Random(seed)
    by_doc: dict[str, list[int]] = {}
    for i, (doc, _, _) in enumerate(passages):
        by_doc.setdefault(doc, []).append(i)
    groups = []
    if len({p[0] for p in passages}) < 2:
        return groups
    for _ in range(n):
        i = rng.randrange(len(passages))
        doc, title, text = passages[i]
        words = text.split()
        if not words:
            continue
        k = max(1, round(keep * len(words)))
        picked = sorted(rng.sample(range(len(words)), k))
        query = " ".join(([title] if title and rng.random() < 0.5 else []) + [words[j] for j in picked])
        same = [j for j in by_doc[doc] if j != i]
        hard = rng.sample(same, min(len(same), negatives // 2))
        negs = [passages[j][2] for j in hard]
        while len(negs) < negatives:
            j = rng.randrange(len(passages))
            if passages[j][0] != doc:
                negs.append(passages[j][2])
        groups.append((query, text, negs))
    return groups


def build_tiny_reranker(examples: list[dict], out_dir, *, corpus_passages=(), pseudo_queries: int = 0, vocab_size: int = 2000, hidden_size: int = 64,
                        layers: int = 2, heads: int = 2, steps: int = 300, batch_claims: int = 8,
                        negatives: int = 7, lr: float = 1e-3, max_length: int = 128, seed: int = 0, match_scale: float = 4.0,
                        log_every: int = 50) -> dict:
    """Build, train and save the tiny cross-encoder; return a summary (losses, sizes)."""
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification

    torch.manual_seed(seed)
    groups = training_groups(examples, negatives, seed)
    groups += pseudo_query_groups(list(corpus_passages), pseudo_queries, negatives, seed)
    if not groups:
        raise ValueError("no training groups: the training claims have no gold passage with a pool")
    texts = sorted({g[0] for g in groups} | {g[1] for g in groups} | {n for g in groups for n in g[2]})
    tokenizer = train_unigram_tokenizer(texts, vocab_size)
    config = XLMRobertaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden_size, num_hidden_layers=layers,
        num_attention_heads=heads, intermediate_size=4 * hidden_size, max_position_embeddings=514,
        type_vocab_size=1, num_labels=1, pad_token_id=1, bos_token_id=0, eos_token_id=2)
    model = XLMRobertaForSequenceClassification(config)
    _init_token_matching(model, match_scale)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = random.Random(seed + 1)
    order: list[int] = []
    losses = []
    for step in range(steps):
        if len(order) < batch_claims:
            more = list(range(len(groups)))
            rng.shuffle(more)
            order.extend(more)
        batch = [groups[order.pop()] for _ in range(batch_claims)]
        queries, passages, sizes = [], [], []
        for claim, pos, negs in batch:
            for p in [pos, *negs]:
                queries.append(claim)
                passages.append(p)
            sizes.append(1 + len(negs))
        enc = tokenizer(queries, passages, truncation="only_second", max_length=max_length,
                        padding=True, return_tensors="pt")
        logits = model(**enc).logits.view(-1)
        loss = 0.0
        at = 0
        for n in sizes:
            loss = loss + torch.nn.functional.cross_entropy(logits[at:at + n].unsqueeze(0),
                                                            torch.zeros(1, dtype=torch.long))
            at += n
        loss = loss / len(sizes)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        if log_every and (step + 1) % log_every == 0:
            log.info("step %d loss %.4f", step + 1, sum(losses[-log_every:]) / log_every)
    model.eval()
    summary = {"groups": len(groups), "pseudo_queries": pseudo_queries, "steps": steps, "vocab_size": len(tokenizer),
               "first_loss": losses[0] if losses else None,
               "last_loss_mean": sum(losses[-50:]) / len(losses[-50:]) if losses else None,
               "seed": seed}
    with atomic_directory(out_dir) as building:  # a later job never sees half a model directory
        model.save_pretrained(building, safe_serialization=True)
        tokenizer.save_pretrained(building)
        (building / "training_summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary
