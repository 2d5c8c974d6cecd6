"""Small demo chat models built locally (no download): a Qwen3-style and a Llama-3.1-style LM.

In:  training examples (dataset, claim, evidence text, gold label) taken from the demo
     *train* split, and texts to train the tokenizer on.
Out: a Hugging Face model directory (``config.json``, ``generation_config.json``,
     ``model.safetensors``, tokenizer files with the chat template) loadable by both
     transformers and vLLM through the same code path as a Hub model.

Architecture: hidden size 64, 2 layers, 2 attention heads of head_dim 32 (vLLM's CPU
attention needs head_dim >= 32), 1 KV head, tied embeddings. The tokenizer is a byte-level
BPE trained on the given texts with the family's special tokens. Chat templates follow the
real models: Qwen3 renders ``<|im_start|>role\\n...<|im_end|>`` and, with
``enable_thinking=False``, the empty ``<think>\\n\\n</think>\\n\\n`` block after the
assistant header; Llama 3.1 renders ``<|begin_of_text|>``, a system header with the
knowledge-cutoff lines, ``<|start_header_id|>role<|end_header_id|>\\n\\n...<|eot_id|>``.

So that demo numbers are not degenerate, each model is trained briefly (several hundred
AdamW steps on length-bucketed batches, under a minute of CPU) to answer the project's own prompts (both formats, every
configured code mapping) with the correct answer string followed by the end-of-turn token.
The loss covers only the answer tokens. The result is a weak verifier whose outputs are
mostly valid answers, depend on the evidence text, and vary across sampled seeds.
Training is seeded and single-threaded-deterministic on CPU.

With ``generation.demo_models.conflict_tasks`` enabled, :func:`build_demo_model` also mixes in
the knowledge-conflict prompts of ``conflict_tasks`` (``extra_pairs``, ``extra_steps`` more steps):
DiffGR single-context and closed-book reader prompts, WikiContradict template prompts and
WikiContradictEval judge prompts, all rendered by the conflict stage's own prompt functions,
so that the demo's WikiContradict and DiffGR tables are not degenerate. The fact-verification
part of the mixture is unchanged. **Train/eval overlap:** the demo has no conflict items
besides the ones it evaluates, so the demo models are trained on those very items (never on
the two-context hybrid prompts, never on the human judge-agreement labels); demo conflict
numbers show that the pipeline runs end to end, not how a model behaves.
"""
from __future__ import annotations

import logging
import math
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..benchmark_registry import get_benchmark
from ..evidence.render import render_evidence, render_unit
from ..generation import prompts
from ..files.safe_files import atomic_directory
from ..models.model_files import save_tokenizer
from .stand_in_families import ARCHS, TinyArch

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class TrainingExample:
    """One verification example: the answer is derived from ``label`` per format/mapping."""

    dataset: str
    claim: str
    evidence: str
    label: str


def train_tokenizer(arch: TinyArch, texts: Iterable[str], vocab_size: int = 2048):
    """Byte-level BPE trained on ``texts``, wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(arch.special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    kwargs = dict(eos_token=arch.eos, pad_token=arch.pad)
    if arch.bos:
        kwargs["bos_token"] = arch.bos
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, model_input_names=["input_ids", "attention_mask"], **kwargs
    )
    fast.chat_template = arch.chat_template
    return fast


def build_untrained_model(arch: TinyArch, tokenizer, seed: int, max_positions: int = 4096):
    """A randomly initialised causal LM of ``arch`` (hidden 64, 2 layers, head_dim 32)."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in arch.special_tokens}
    common = dict(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        eos_token_id=ids[arch.eos],
        pad_token_id=ids[arch.pad],
        bos_token_id=ids[arch.bos] if arch.bos else None,
    )
    torch.manual_seed(seed)
    if arch.architecture == "Qwen3ForCausalLM":
        model = Qwen3ForCausalLM(Qwen3Config(**common))
    else:
        model = LlamaForCausalLM(LlamaConfig(**common))
    model.generation_config = GenerationConfig(
        eos_token_id=[ids[t] for t in arch.stop],
        pad_token_id=ids[arch.pad],
        bos_token_id=ids[arch.bos] if arch.bos else None,
    )
    return model


def answer_pairs(
    examples: Sequence[TrainingExample],
    code_mappings: Mapping[str, Mapping[str, str]],
    max_evidence_chars: int = 600,
) -> list[tuple[list[dict[str, str]], str]]:
    """(messages, answer) pairs: every example in labels format and under every code mapping.

    Benchmark families (wiki, scifact) are balanced by repeating the smaller family's
    examples in order, so the model also learns the label set of the smaller family.
    """
    by_family: dict[str, list[TrainingExample]] = {}
    for ex in examples:
        by_family.setdefault(prompts.dataset_family(ex.dataset), []).append(ex)
    target = max((len(v) for v in by_family.values()), default=0)
    balanced = []
    for fam in sorted(by_family):
        exs = by_family[fam]
        balanced += [exs[i % len(exs)] for i in range(target)]
    pairs = []
    for ex in balanced:
        evidence = ex.evidence[:max_evidence_chars]
        pairs.append((prompts.build_messages(ex.dataset, "labels", ex.claim, evidence),
                      prompts.expected_answer(ex.dataset, "labels", ex.label)))
        for mapping in code_mappings.values():
            pairs.append((prompts.build_messages(ex.dataset, "codes", ex.claim, evidence, mapping),
                          prompts.expected_answer(ex.dataset, "codes", ex.label, mapping)))
    return pairs


def encode_pairs(tokenizer, arch: TinyArch, pairs, chat_template_kwargs: Mapping | None = None,
                 ) -> list[tuple[list[int], list[int]]]:
    """(prompt ids, answer ids + end-of-turn id) per (messages, answer) pair, in input order.

    Each distinct pair is rendered and tokenised once, in one batch call per side (the
    mixture repeats pairs, and per-pair tokenizer calls were most of a build's setup time);
    the ids are those a per-pair call gives.
    """
    kwargs = dict(chat_template_kwargs or {})
    eos_id = tokenizer.convert_tokens_to_ids(arch.eos)
    index: dict[tuple[str, str], int] = {}
    keys = []
    for messages, answer in pairs:
        prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kwargs)
        keys.append(index.setdefault((prompt, answer), len(index)))
    distinct = list(index)
    prompt_ids = tokenizer([p for p, _ in distinct], add_special_tokens=False)["input_ids"] if distinct else []
    answer_ids = tokenizer([a for _, a in distinct], add_special_tokens=False)["input_ids"] if distinct else []
    encoded = [(list(p), list(a) + [eos_id]) for p, a in zip(prompt_ids, answer_ids)]
    return [encoded[k] for k in keys]


def length_bucketed_order(lengths: Sequence[int], batch_size: int, rng: random.Random,
                          bucket_batches: int = 16) -> list[list[int]]:
    """One epoch of batches over ``range(len(lengths))``: shuffled, then length-bucketed.

    The shuffled indices are cut into chunks of ``bucket_batches * batch_size``; each chunk is
    sorted by length (stable, so ties keep the shuffled order) and cut into batches, and the
    batches of the epoch are shuffled. Every index appears once; a batch pads to its longest
    sequence, so grouping similar lengths removes most padding (a few very long conflict
    prompts no longer stretch a whole batch of short ones). The last batch may be short.
    Deterministic given ``rng``'s state.
    """
    order = list(range(len(lengths)))
    rng.shuffle(order)
    chunk = max(1, bucket_batches) * batch_size
    batches = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start:start + chunk], key=lambda i: lengths[i])
        batches += [part[k:k + batch_size] for k in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


def train_answers(model, tokenizer, arch: TinyArch, pairs, steps: int, batch_size: int, lr: float, seed: int,
                  chat_template_kwargs: Mapping | None = None, fused: bool = False) -> dict:
    """Fine-tune ``model`` in place on (messages, answer) pairs; loss on answer tokens only.

    ``fused``: torch's fused AdamW (over a real tokenizer's ~150k-row embedding the optimizer
    step is most of a step's time, and fused is ~6x faster there; off for the trained-BPE
    stand-ins, whose weights stay as they were).

    Batches come from :func:`length_bucketed_order` (epochs of shuffled, length-bucketed
    batches, seeded by ``seed``). Always runs exactly ``steps`` AdamW steps: a wall-clock cap
    would make the weights, and every answer generated from them, depend on the machine's load.
    """
    import torch

    encoded = encode_pairs(tokenizer, arch, pairs, chat_template_kwargs)
    if not encoded:
        raise ValueError("no training examples for the demo model")
    lengths = [len(p) + len(a) for p, a in encoded]
    rng = random.Random(seed)
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0, **({"fused": True} if fused else {}))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    pad = tokenizer.pad_token_id
    model.train()
    queue: list[list[int]] = []
    t0 = time.perf_counter()
    losses = []
    step = 0
    for step in range(1, steps + 1):
        if not queue:
            queue = length_bucketed_order(lengths, batch_size, rng)[::-1]
        batch = [encoded[i] for i in queue.pop()]
        width = max(len(p) + len(a) for p, a in batch)
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        rows, cols, targets = [], [], []
        for i, (p, a) in enumerate(batch):
            seq = p + a
            ids[i, : len(seq)] = torch.tensor(seq)
            mask[i, : len(seq)] = 1
            for j, tok in enumerate(a):  # position len(p)+j-1 predicts answer token j
                rows.append(i)
                cols.append(len(p) + j - 1)
                targets.append(tok)
        # Logits only where the answer is predicted: the LM head over every position is
        # most of the cost of a step for a model this small.
        hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = model.lm_head(hidden[torch.tensor(rows), torch.tensor(cols)])
        loss = torch.nn.functional.cross_entropy(logits.float(), torch.tensor(targets))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        if step % 50 == 0:
            log.info("tiny %s step %d loss %.3f", arch.name, step, sum(losses[-50:]) / len(losses[-50:]))
    model.eval()
    return {"steps": step, "final_loss": sum(losses[-20:]) / len(losses[-20:]), "seconds": time.perf_counter() - t0}


def build_demo_model(
    out_dir: str | Path,
    arch_name: str,
    examples: Sequence[TrainingExample],
    tokenizer_texts: Iterable[str],
    code_mappings: Mapping[str, Mapping[str, str]],
    chat_template_kwargs: Mapping | None = None,
    steps: int = 300,
    batch_size: int = 8,
    lr: float = 3e-3,
    seed: int = 0,
    vocab_size: int = 2048,
    extra_pairs: Sequence[tuple[list[dict[str, str]], str]] = (),
    extra_steps: int = 0,
    tokenizer_dir: str | Path | None = None,
) -> dict:
    """Train the tokenizer, build and briefly train the model, save it to ``out_dir``.

    With ``tokenizer_dir`` (a real model's tokenizer, :mod:`.real_tokenizers`) no tokenizer is
    trained: the model is built over that tokenizer's vocabulary and chat template, which are
    saved with it (``vocab_size`` is then unused).

    ``extra_pairs`` (e.g. the knowledge-conflict tasks of ``conflict_tasks``) are mixed into the
    fact-verification pairs and ``extra_steps`` are added to ``steps``: the extra pairs are
    repeated (in order) so that their share of the mixture is about
    ``extra_steps / (steps + extra_steps)``, which keeps the verification pairs' exposure at
    about ``steps`` steps.
    """
    import torch

    arch = ARCHS[arch_name]
    torch.set_num_threads(1)
    pairs = answer_pairs(examples, code_mappings)
    n_verification = len(pairs)
    extra = list(extra_pairs)
    if extra and extra_steps > 0:
        reps = max(1, math.ceil(extra_steps / steps * n_verification / len(extra)))
        pairs = pairs + extra * reps
    # The tokenizer sees the corpus text and the project's prompts (so prompts tokenise compactly);
    # extra (conflict) prompts enter once per distinct text.
    template_texts = [m[0]["content"] + " " + a for m, a in pairs[:n_verification][:2000]]
    seen: set[str] = set()
    for m, a in extra:
        if m[0]["content"] not in seen:
            seen.add(m[0]["content"])
            template_texts.append(m[0]["content"] + " " + a)
    if tokenizer_dir is None:
        tokenizer = train_tokenizer(arch, list(tokenizer_texts) + template_texts, vocab_size)
    else:
        from ..models.tokenizer_folder import tokenizer_json_sha256
        from .real_tokenizers import load_real_tokenizer

        tokenizer, arch = load_real_tokenizer(arch, tokenizer_dir)
    model = build_untrained_model(arch, tokenizer, seed)
    total_steps = steps + (extra_steps if extra else 0)
    stats = train_answers(model, tokenizer, arch, pairs, total_steps, batch_size, lr, seed,
                          chat_template_kwargs, fused=tokenizer_dir is not None)
    with atomic_directory(out_dir) as building:  # a later job never sees half a model directory
        model.save_pretrained(building, safe_serialization=True)
        save_tokenizer(tokenizer, building)
        if tokenizer_dir is not None:  # the real file itself, so its sha256 names the real vocabulary
            shutil.copyfile(Path(tokenizer_dir) / "tokenizer.json", Path(building) / "tokenizer.json")
    stats.update(arch=arch_name, n_examples=len(examples), n_pairs=len(pairs), n_verification_pairs=n_verification,
                 n_extra_pairs=len(extra), vocab_size=len(tokenizer),
                 tokenizer=None if tokenizer_dir is None else {"dir": str(tokenizer_dir),
                                                               "sha256": tokenizer_json_sha256(tokenizer_dir)})
    return stats


def demo_training_examples(dataset: str, claims: Sequence[Mapping], units: Sequence[Mapping],
                           max_units: int = 6, distractors: int = 3, seed: int = 0) -> list[TrainingExample]:
    """Training examples from a *train* split (CLAIMS rows) and the corpus units (UNITS rows).

    Evidence is rendered like the evidence stage renders it (``evidence.render``: one
    ``[context] text`` line per unit). Each example shows the claim's first gold evidence
    group that resolves (at most ``max_units`` units) mixed, at seeded random positions, with
    up to ``distractors`` units drawn from the rest of the corpus - retrieved evidence also
    mixes relevant and irrelevant units, so the model must find the relevant line.
    FEVER-style NOT ENOUGH INFO claims without annotated evidence show distractors only
    (unrelated evidence is exactly when the answer is NOT ENOUGH INFO). SciFact gives one
    example per gold abstract (its rationale sentences in abstract order, label SUPPORT /
    CONTRADICT) and one NOINFO example per claim from a cited non-gold abstract, else the
    next claim's gold abstract. Claims whose evidence resolves to no unit are skipped.
    """
    rng = random.Random(f"{seed}:{dataset}")
    line_of = {u["unit_id"]: render_unit(u["text"], u.get("context", "")) for u in units}
    all_lines = [line_of[k] for k in sorted(line_of)]
    doc_units: dict[str, list[tuple[int, str]]] = {}
    for u in units:
        doc_units.setdefault(str(u["doc_id"]), []).append((int(u["position"]), line_of[u["unit_id"]]))
    ordered = sorted(claims, key=lambda c: (len(str(c["claim_id"])), str(c["claim_id"])))

    def gold_lines(groups) -> list[str]:
        for g in groups or []:
            lines = [line_of[i] for i in g if i in line_of][:max_units]
            if lines:
                return lines
        return []

    def with_distractors(lines: list[str]) -> str:
        k = rng.randint(0 if lines else 1, distractors) if all_lines else 0
        out = list(lines)
        for extra in rng.sample(all_lines, min(k, len(all_lines))):
            if extra not in out:
                out.insert(rng.randint(0, len(out)), extra)
        return render_evidence(out)

    def doc_text(doc_id: str, sentence_ids=None) -> str:
        sents = sorted(doc_units.get(str(doc_id), []))
        if sentence_ids:
            wanted = set(sentence_ids)
            picked = [t for p, t in sents if f"{doc_id}:{p}" in wanted]
            if picked:
                return render_evidence(picked[:max_units])
        return render_evidence([t for _, t in sents[:max_units]])

    out: list[TrainingExample] = []
    if get_benchmark(dataset).per_document:  # claim x abstract units: one example per abstract
        for k, c in enumerate(ordered):
            gold_docs = [str(g["doc_id"]) for g in c.get("gold_abstracts") or []]
            for g in c.get("gold_abstracts") or []:
                doc = str(g["doc_id"])
                ids = [i for grp in c.get("evidence_groups") or [] for i in grp if i.startswith(f"{doc}:")]
                text = doc_text(doc, ids)
                if text:
                    out.append(TrainingExample(dataset, c["claim"], text, g["label"]))
            others = [str(d) for d in c.get("cited_doc_ids") or [] if str(d) not in gold_docs and str(d) in doc_units]
            if not others:
                nxt = ordered[(k + 1) % len(ordered)]
                others = [str(g["doc_id"]) for g in nxt.get("gold_abstracts") or [] if str(g["doc_id"]) not in gold_docs]
            if others and doc_text(others[0]):
                out.append(TrainingExample(dataset, c["claim"], doc_text(others[0]), "NOINFO"))
        return out
    for c in ordered:
        lines = gold_lines(c.get("evidence_groups"))
        if not lines and c["label"] != "NOT ENOUGH INFO":
            continue
        out.append(TrainingExample(dataset, c["claim"], with_distractors(lines), c["label"]))
    return out
