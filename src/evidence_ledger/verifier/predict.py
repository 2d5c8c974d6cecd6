"""Prediction with fixed checkpoint weights: serialised inputs -> labels + probabilities.

In:  checkpoint directories written by :func:`.train.train_checkpoint` and a
     ``VERIFIER_INPUTS`` table (every evaluation claim under every evidence source).
Out: rows of ``tables.verifier.VERIFIER_ANSWERS``, one per (checkpoint, source, claim), in
     checkpoint, then input-table order.

The label set is the one the checkpoint was trained on (its ``metadata.json``), so
prediction is the argmax of a softmax over those head outputs (ties: the first label in the
label set). Probabilities of labels outside the set are 0.0. Checkpoints load offline and
only as safetensors (:mod:`evidence_ledger.models.model_files`). The model runs in eval mode
under ``torch.inference_mode``; precision ``auto`` = bf16 autocast on CUDA, fp32 on CPU.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..models.model_files import check_model_tree, load_kwargs, read_model_json, resolve_model, tokenizer_kwargs
from .labels import FEVEROUS_LABELS, PROBABILITY_COLUMN, label_set_indices
from .train import autocast_context, pad_batch


def read_checkpoint_metadata(ckpt_dir) -> dict:
    """``metadata.json`` of a checkpoint directory, once the directory passes the model-directory
    check (no link out of it: ``model_files.check_model_tree``)."""
    check_model_tree(ckpt_dir)
    path = Path(ckpt_dir) / "metadata.json"
    if not path.exists():
        raise FileNotFoundError(f"{ckpt_dir}: no metadata.json; not a checkpoint written by train_verifier")
    return read_model_json(path)


def predict_checkpoint(ckpt_dir, inputs: pa.Table, *, checkpoint: int, system: str, batch_size: int,
                       precision: str, device: str | None = None, progress=None) -> list:
    """Answer every row of ``inputs`` with one checkpoint; returns VERIFIER_ANSWERS rows."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    files = resolve_model(str(ckpt_dir), allow_pickle_weights=False, allow_key=None)  # written as safetensors
    meta = read_checkpoint_metadata(files.directory)
    label_set = tuple(meta["label_set"])
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    tokenizer = AutoTokenizer.from_pretrained(str(files.directory), **tokenizer_kwargs())
    model = AutoModelForSequenceClassification.from_pretrained(str(files.directory), **load_kwargs(files)).to(dev)
    model.eval()
    head = torch.as_tensor(label_set_indices(model.config.id2label, label_set), device=dev)
    sequences = inputs["input_ids"].to_pylist()
    meta_rows = inputs.select(["dataset", "source", "claim_id"]).to_pylist()
    starts = range(0, len(sequences), batch_size)
    if progress is not None:
        starts = progress(starts, desc=f"predict ckpt{checkpoint}")
    rows = []
    with torch.inference_mode():
        for start in starts:
            ids, mask = pad_batch(sequences[start: start + batch_size], tokenizer.pad_token_id)
            with autocast_context(dev, precision):
                logits = model(input_ids=ids.to(dev), attention_mask=mask.to(dev)).logits
            probs = torch.softmax(logits.double().index_select(1, head), dim=-1).cpu()
            best = probs.argmax(dim=-1).tolist()
            for k, (p, b) in enumerate(zip(probs.tolist(), best)):
                row = dict(meta_rows[start + k])
                row.update({"system": system, "checkpoint": checkpoint, "predicted_label": label_set[b]})
                row.update({PROBABILITY_COLUMN[l]: 0.0 for l in FEVEROUS_LABELS})
                row.update({PROBABILITY_COLUMN[l]: float(v) for l, v in zip(label_set, p)})
                rows.append(row)
    return rows


def run_predict(ckpt_dirs, inputs_path, out_path, *, system: str, batch_size: int, precision: str,
                progress=None, log=None) -> int:
    """Rule adapter: every checkpoint (index = 1-based position in ``ckpt_dirs``) answers every
    evaluation input; writes VERIFIER_ANSWERS; returns the row count."""
    from .. import tables
    from ..tables.verifier import VERIFIER_ANSWERS, VERIFIER_INPUTS

    inputs = tables.read_table(inputs_path, VERIFIER_INPUTS)
    rows = []
    for k, ckpt in enumerate(ckpt_dirs, start=1):
        meta = read_checkpoint_metadata(ckpt)
        if meta.get("checkpoint") != k:
            raise ValueError(f"{ckpt}: metadata says checkpoint {meta.get('checkpoint')}, expected {k}")
        part = predict_checkpoint(ckpt, inputs, checkpoint=k, system=system, batch_size=batch_size,
                                  precision=precision, progress=progress)
        if log:
            n = len(part)
            log.info("checkpoint %d: %d answers, label counts %s", k, n,
                     {l: sum(r["predicted_label"] == l for r in part) for l in FEVEROUS_LABELS})
        rows.extend(part)
    tables.write_table(VERIFIER_ANSWERS.from_rows(rows), out_path, VERIFIER_ANSWERS)
    return len(rows)
