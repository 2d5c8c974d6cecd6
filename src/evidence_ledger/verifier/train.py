"""Fine-tuning one verifier checkpoint (plain PyTorch loop, all parameters updated).

In:  a ``VERIFIER_INPUTS`` table of training inputs (evidence source 0, training claims),
     the base model (a Hub id + pinned revision from the local Hugging Face cache, or a
     local directory: ``verifier.base_model.local_dir``, e.g. written by ``convert-weights``,
     or the demo's :mod:`evidence_ledger.demo.tiny_verifier` build) and :class:`TrainingSettings`.
     Loading follows :mod:`evidence_ledger.models.model_files` (offline; pickle weights only with
     ``verifier.base_model.allow_pickle_weights``).
Out: a checkpoint directory holding ``model.safetensors`` + config + tokenizer,
     ``training_log.jsonl`` (one line per update: loss, learning rate),
     ``examples_seen.parquet`` (``tables.verifier.EXAMPLES_SEEN``: every example use, in
     order) and ``metadata.json`` (settings, seed, revision, library versions, counts).

Data: the training pool is the inputs whose gold label is in the trained label set (other
labels are counted in the metadata, not used). ``examples`` distinct examples are drawn
from the pool with ``numpy.random.Generator(PCG64(seed))``; the loop walks them in a seeded
permutation, re-permuting after each pass, until ``final_update`` updates of
``batch_size x grad_accumulation`` examples are done. With the paper settings (16,000
examples, 1,000 updates, 16 per update) every example is seen exactly once.
Optimiser: AdamW, linear warm-up over ``round(warmup_ratio * final_update)`` updates then
linear decay to 0 at ``final_update``, gradient clipping at ``max_grad_norm``. Precision
``auto`` = bf16 autocast on CUDA, fp32 on CPU. Same seed, same inputs, same device ->
identical weights on CPU.
"""
from __future__ import annotations

import json
import logging
import math
import platform
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa

from ..models.model_files import ModelFiles, load_kwargs, model_directory, resolve_model, save_tokenizer, tokenizer_kwargs
from ..files.safe_files import atomic_directory
from .labels import label_set_indices

log = logging.getLogger(__name__)


ALLOW_KEY = "verifier.base_model.allow_pickle_weights"


@dataclass(frozen=True)
class BaseModel:
    """Where the base weights come from: ``local_dir`` when set, else ``hub_id`` (a Hub id at
    the pinned ``revision``, resolved from the local cache, or itself a local directory).
    Pickle weights load only with ``allow_pickle_weights`` (``verifier.base_model.*`` keys)."""

    hub_id: str | None = None
    revision: str | None = None
    local_dir: str | None = None
    allow_pickle_weights: bool = False

    @property
    def location(self) -> str:
        if not (self.local_dir or self.hub_id):
            raise ValueError("verifier base model: give verifier.base_model.hub_id or .local_dir")
        return str(self.local_dir or self.hub_id)

    @property
    def location_revision(self) -> str | None:
        return None if self.local_dir else self.revision


def base_directory(base: BaseModel):
    """The local directory the base model loads from (offline)."""
    return model_directory(base.location, base.location_revision)


def base_files(base: BaseModel) -> ModelFiles:
    """The base model's directory and the weight files its load reads (pickle refused unless allowed)."""
    return resolve_model(base.location, base.location_revision, allow_pickle_weights=base.allow_pickle_weights,
                         allow_key=ALLOW_KEY)


@dataclass(frozen=True)
class TrainingSettings:
    seed: int
    final_update: int
    batch_size: int
    grad_accumulation: int
    learning_rate: float
    warmup_ratio: float
    label_set: tuple
    weight_decay: float
    max_grad_norm: float
    precision: str  # auto | bf16 | fp32
    examples: int | None = None  # None: the whole pool

    def __post_init__(self):
        if self.final_update < 1 or self.batch_size < 1 or self.grad_accumulation < 1:
            raise ValueError("final_update, batch_size and grad_accumulation must be >= 1")
        if not 0.0 <= self.warmup_ratio < 1.0:
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        if self.precision not in ("auto", "bf16", "fp32"):
            raise ValueError(f"precision must be auto, bf16 or fp32, got {self.precision!r}")

    @property
    def examples_per_update(self) -> int:
        return self.batch_size * self.grad_accumulation


def load_tokenizer(base: BaseModel):
    """The base model's tokenizer, from its local directory (offline, no remote code)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(base_directory(base)), **tokenizer_kwargs())


def load_base(base: BaseModel):
    """``(tokenizer, model)`` from the base model's local directory; offline, never runs remote
    code; pickle weights only when ``allow_pickle_weights`` (see :func:`base_files`)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    files = base_files(base)
    tokenizer = AutoTokenizer.from_pretrained(str(files.directory), **tokenizer_kwargs())
    model = AutoModelForSequenceClassification.from_pretrained(str(files.directory), **load_kwargs(files))
    return tokenizer, model


def select_examples(pool_ids: Sequence[str], n_examples: int | None, seed: int) -> list:
    """Indices into ``pool_ids`` of the distinct examples a checkpoint trains on.

    ``None`` takes the whole pool (in a seeded order); more than the pool raises ``ValueError``.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    n = len(pool_ids) if n_examples is None else n_examples
    if n > len(pool_ids):
        raise ValueError(f"{n} training examples requested, but only {len(pool_ids)} training inputs have a "
                         f"label in the trained label set")
    if n < 1:
        raise ValueError("no training examples: the pool is empty")
    return [int(i) for i in rng.permutation(len(pool_ids))[:n]]


def example_schedule(n_selected: int, n_uses: int, seed: int) -> list:
    """Order in which the selected examples are used: positions ``0..n_selected-1``, one seeded
    permutation per pass (a pass's RNG stream is independent of the selection's)."""
    rng = np.random.Generator(np.random.PCG64([seed, 1]))
    order = []
    while len(order) < n_uses:
        order.extend(int(i) for i in rng.permutation(n_selected))
    return order[:n_uses]


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int):
    """``(input_ids, attention_mask)`` LongTensors, right-padded to the longest sequence."""
    import torch

    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.as_tensor(list(seq), dtype=torch.long)
        mask[row, : len(seq)] = 1
    return ids, mask


def autocast_context(device, precision: str):
    """bf16 autocast on CUDA for ``auto``/``bf16``; bf16 on CPU only when asked; else no-op."""
    import contextlib

    import torch

    if precision == "bf16" or (precision == "auto" and device.type == "cuda"):
        return torch.autocast(device_type=device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def library_versions() -> dict:
    import tokenizers
    import torch
    import transformers

    from .. import __version__ as el_version

    return {"python": platform.python_version(), "torch": torch.__version__,
            "transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
            "numpy": np.__version__, "pyarrow": pa.__version__, "evidence_ledger": el_version}


def train_checkpoint(inputs: pa.Table, base: BaseModel, settings: TrainingSettings, out_dir, *,
                     checkpoint: int, device: str | None = None, progress=None) -> dict:
    """Fine-tune one checkpoint and save it to ``out_dir``; returns the metadata dict.

    ``inputs`` is a VERIFIER_INPUTS table (one source). The input order of ``inputs`` is the
    pool order; example selection and data order depend only on ``settings.seed``.
    """
    import torch
    from transformers import get_linear_schedule_with_warmup

    from .. import tables
    from ..tables.verifier import EXAMPLES_SEEN

    out_dir = Path(out_dir)
    sources = set(inputs["source"].to_pylist())
    if len(sources) != 1:
        raise ValueError(f"training inputs must come from one evidence source, got {sorted(sources)}")
    labels = inputs["gold_label"].to_pylist()
    in_source = inputs["in_source"].to_pylist()
    if inputs.num_rows and not any(in_source):
        raise ValueError(f"none of the {inputs.num_rows} training inputs has a row in evidence source "
                         f"{sorted(sources)[0]!r}: the provider table must cover the training claims "
                         f"(evidence.provider_split must include the train split)")
    in_set = [i for i, l in enumerate(labels) if l in settings.label_set]
    excluded = {l: labels.count(l) for l in sorted(set(labels)) if l not in settings.label_set}
    claim_ids = inputs["claim_id"].to_pylist()
    input_ids = inputs["input_ids"].to_pylist()
    pool_ids = [claim_ids[i] for i in in_set]
    chosen = [in_set[i] for i in select_examples(pool_ids, settings.examples, settings.seed)]
    n_uses = settings.final_update * settings.examples_per_update
    schedule = [chosen[p] for p in example_schedule(len(chosen), n_uses, settings.seed)]

    torch.manual_seed(settings.seed)
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    tokenizer, model = load_base(base)
    model.to(dev)
    model.train()
    head = label_set_indices(model.config.id2label, settings.label_set)
    head_t = torch.as_tensor(head, device=dev)
    target_of = {l: k for k, l in enumerate(settings.label_set)}

    decay = [p for n, p in model.named_parameters() if not any(s in n for s in ("bias", "LayerNorm", "layernorm"))]
    no_decay = [p for n, p in model.named_parameters() if any(s in n for s in ("bias", "LayerNorm", "layernorm"))]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": settings.weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=settings.learning_rate)
    warmup = int(round(settings.warmup_ratio * settings.final_update))
    scheduler = get_linear_schedule_with_warmup(optimizer, warmup, settings.final_update)
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_total = sum(p.numel() for p in model.parameters())

    seen_rows, log_lines = [], []
    updates = range(1, settings.final_update + 1)
    if progress is not None:
        updates = progress(updates, desc=f"train ckpt{checkpoint}")
    cursor = 0
    for update in updates:
        optimizer.zero_grad(set_to_none=True)
        total_loss = 0.0
        for micro in range(settings.grad_accumulation):
            batch = schedule[cursor: cursor + settings.batch_size]
            cursor += settings.batch_size
            ids, mask = pad_batch([input_ids[i] for i in batch], tokenizer.pad_token_id)
            target = torch.as_tensor([target_of[labels[i]] for i in batch], device=dev)
            with autocast_context(dev, settings.precision):
                logits = model(input_ids=ids.to(dev), attention_mask=mask.to(dev)).logits
            loss = torch.nn.functional.cross_entropy(logits.float().index_select(1, head_t), target)
            (loss / settings.grad_accumulation).backward()
            total_loss += float(loss.detach()) / settings.grad_accumulation
            for pos, i in enumerate(batch):
                seen_rows.append({"update": update, "micro_batch": micro, "position": pos,
                                  "claim_id": claim_ids[i], "label": labels[i]})
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
        lr = scheduler.get_last_lr()[0]
        optimizer.step()
        scheduler.step()
        if not math.isfinite(total_loss):
            raise FloatingPointError(f"checkpoint {checkpoint}: loss is {total_loss} at update {update}")
        log_lines.append(json.dumps({"update": update, "loss": round(total_loss, 6), "lr": lr,
                                     "grad_norm": round(float(grad_norm), 6)}))
        if update == 1 or update % 50 == 0 or update == settings.final_update:
            log.info("ckpt%d update %d/%d loss %.4f lr %.3g", checkpoint, update, settings.final_update, total_loss, lr)

    metadata = {
        "checkpoint": checkpoint,
        "seed": settings.seed,
        "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(settings).items()},
        "base_model": asdict(base),
        "final_update": settings.final_update,
        "examples_per_update": settings.examples_per_update,
        "distinct_examples": len(chosen),
        "example_uses": n_uses,
        "pool_size": len(pool_ids),
        "inputs_not_in_source": int(sum(1 for v in in_source if not v)),
        "excluded_by_label": excluded,
        "label_set": list(settings.label_set),
        "head_indices": head,
        "parameters_total": n_total,
        "parameters_updated": n_trainable,
        "device": dev.type,
        "final_loss": json.loads(log_lines[-1])["loss"],
        "training_source": sources.pop(),
        "libraries": library_versions(),
    }
    with atomic_directory(out_dir) as building:  # predict_verifier never sees half a checkpoint
        model.save_pretrained(building, safe_serialization=True)
        save_tokenizer(tokenizer, building)
        (building / "training_log.jsonl").write_text("\n".join(log_lines) + "\n")
        tables.write_table(EXAMPLES_SEEN.from_rows(seen_rows), building / "examples_seen.parquet", EXAMPLES_SEEN)
        (building / "metadata.json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    return metadata


def run_train(inputs_path, base: BaseModel, settings: TrainingSettings, out_dir, *, checkpoint: int,
              progress=None) -> dict:
    """Rule adapter: read the training VERIFIER_INPUTS and train one checkpoint into ``out_dir``."""
    from .. import tables
    from ..tables.verifier import VERIFIER_INPUTS

    inputs = tables.read_table(inputs_path, VERIFIER_INPUTS)
    return train_checkpoint(inputs, base, settings, out_dir, checkpoint=checkpoint, progress=progress)
