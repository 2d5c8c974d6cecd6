"""File-level entry points of the verifier rules (Study 1).

Each function here is what the job of the rule of its name calls (keyword-only, paths and plain
values):
  serialise_verifier_inputs  CLAIMS + UNITS + provider EVIDENCE -> VERIFIER_INPUTS of one split
  train_verifier             training VERIFIER_INPUTS + base model -> one checkpoint directory
  predict_verifier           checkpoints + evaluation VERIFIER_INPUTS -> VERIFIER_ANSWERS
  study1_indicators          answers + claims + evidence + inputs -> the Study 1 indicator tables
  verifier_summary           inputs + checkpoints + answers -> summary TSV

``base`` is the one structured value: ``{hub_id, revision, local_dir, allow_pickle_weights}``
of the base model (``.train.BaseModel``: ``local_dir`` - the demo's locally built directory,
or ``verifier.base_model.local_dir`` inside data_root, e.g. a ``convert-weights`` output -
else the Hub id at a pinned revision from the local cache).
"""
from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from tqdm import tqdm

from .indicators import run_study1_indicators
from .predict import run_predict
from .serialise import SerialisationLimits, run_serialise
from .summary import write_verifier_summary
from .train import BaseModel, TrainingSettings, run_train

log = logging.getLogger(__name__)


def serialise_verifier_inputs(
    *,
    claims: str,
    units: str,
    evidence: Sequence[str],
    verifier_inputs: str,
    split: str,
    sources: Sequence[str],
    base: Mapping[str, Any],
    max_total_tokens: int,
    max_claim_tokens: int,
    max_units: int,
    max_candidates: int,
    max_unit_tokens: int,
    include_context: bool,
    context_separator: str,
    unit_separator: str,
    sentinel: str,
    repeats_take_window_slots: bool,
) -> None:
    """Serialise the claims of ``split`` against the provider EVIDENCE tables (``evidence[i]``
    is the table of ``sources[i]``), with the base model's tokenizer; write VERIFIER_INPUTS."""
    limits = SerialisationLimits(
        max_total_tokens=max_total_tokens, max_claim_tokens=max_claim_tokens, max_units=max_units,
        max_candidates=max_candidates, max_unit_tokens=max_unit_tokens, include_context=include_context,
        context_separator=context_separator, unit_separator=unit_separator, sentinel=sentinel,
        repeats_take_window_slots=repeats_take_window_slots,
    )
    run_serialise(claims, units, _evidence_by_source(sources, evidence), BaseModel(**base), limits, split,
                  verifier_inputs, progress=_progress_bar, log=logging.getLogger("serialise"))


def train_verifier(
    *,
    inputs: str,
    checkpoint_dir: str,
    checkpoint: int,
    seed: int,
    base: Mapping[str, Any],
    final_update: int,
    batch_size: int,
    grad_accumulation: int,
    learning_rate: float,
    warmup_ratio: float,
    precision: str,
    label_set: Sequence[str],
    examples: int | None,
    weight_decay: float,
    max_grad_norm: float,
) -> None:
    """Fine-tune checkpoint ``checkpoint`` (seed ``seed``) of the base model on the training inputs."""
    settings = TrainingSettings(
        seed=int(seed), label_set=tuple(label_set), final_update=final_update, batch_size=batch_size,
        grad_accumulation=grad_accumulation, learning_rate=learning_rate, warmup_ratio=warmup_ratio,
        precision=precision, examples=examples, weight_decay=weight_decay, max_grad_norm=max_grad_norm,
    )
    meta = run_train(inputs, BaseModel(**base), settings, checkpoint_dir, checkpoint=int(checkpoint),
                     progress=_progress_bar)
    log.info("checkpoint %d: %d distinct examples, %d updates, final loss %s, device %s",
             meta["checkpoint"], meta["distinct_examples"], meta["final_update"], meta["final_loss"], meta["device"])


def predict_verifier(
    *, checkpoints: Sequence[str], inputs: str, answers: str, system: str, batch_size: int, precision: str
) -> None:
    """Every checkpoint (index = position + 1) answers every evaluation input; write VERIFIER_ANSWERS."""
    n = run_predict(list(checkpoints), inputs, answers, system=system, batch_size=batch_size, precision=precision,
                    progress=_progress_bar, log=logging.getLogger("predict"))
    log.info("%d answers written", n)


def study1_indicators(
    *,
    answers: str,
    claims: str,
    evidence: Sequence[str],
    inputs: str,
    answer_indicators: str,
    evidence_indicators: str,
    relevant: str,
    unresolved: str,
    unresolved_tsv: str,
    sources: Sequence[str],
    max_evidence: int,
    max_evidence_cell: int,
) -> None:
    """Study 1 per-claim tables: ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT, unresolved flags
    and the report TSV of unresolved (window / whole list) and repeated ids per source."""
    outputs = {"answers": answer_indicators, "evidence": evidence_indicators, "relevant": relevant,
               "unresolved": unresolved, "unresolved_tsv": unresolved_tsv}
    run_study1_indicators(answers, claims, _evidence_by_source(sources, evidence), inputs, outputs,
                          max_evidence=max_evidence, max_evidence_cell=max_evidence_cell,
                          log=logging.getLogger("study1"))


def verifier_summary(*, inputs: Sequence[str], checkpoints: Sequence[str], answers: str, summary: str) -> None:
    """Verifier diagnostics (inputs, training, answer shares) as one TSV."""
    n = write_verifier_summary(list(inputs), list(checkpoints), answers, summary)
    log.info("%d summary rows", n)


def _evidence_by_source(sources: Sequence[str], evidence: Sequence[str]) -> dict[str, str]:
    sources, evidence = list(sources), list(evidence)
    if len(sources) != len(evidence):
        raise ValueError(f"{len(sources)} sources but {len(evidence)} evidence tables")
    return dict(zip(sources, evidence))


def _progress_bar(iterable, desc: str):
    return tqdm(iterable, desc=desc, mininterval=5)
