"""Label mapping between the MNLI classification head and the FEVEROUS labels.

The base model ``microsoft/deberta-large-mnli`` has a 3-way head whose ``config.id2label``
is ``{0: CONTRADICTION, 1: NEUTRAL, 2: ENTAILMENT}``. The verifier keeps that head and reads
it as: entailment -> SUPPORTS, contradiction -> REFUTES, neutral -> NOT ENOUGH INFO
(case-insensitive on the head's names; a head already named with FEVEROUS labels is used as
is). The *trained label set* (config ``verifier.label_set``) selects the head outputs that
are trained and predicted: loss and prediction are a softmax over those outputs only, so a
checkpoint trained on {SUPPORTS, REFUTES} never predicts NOT ENOUGH INFO.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..benchmark_registry import FEVEROUS

SUPPORTS, REFUTES, NEI = FEVEROUS.labels
FEVEROUS_LABELS = FEVEROUS.labels
MNLI_TO_FEVEROUS = {"ENTAILMENT": SUPPORTS, "CONTRADICTION": REFUTES, "NEUTRAL": NEI}
PROBABILITY_COLUMN = {SUPPORTS: "p_supports", REFUTES: "p_refutes", NEI: "p_nei"}


def head_index_by_label(id2label: Mapping) -> dict:
    """FEVEROUS label -> index of the head output, from a model config's ``id2label``.

    Raises ``ValueError`` when the head names are neither MNLI nor FEVEROUS labels or when
    two outputs map to the same label.
    """
    out = {}
    for index, name in id2label.items():
        key = str(name).upper()
        label = MNLI_TO_FEVEROUS.get(key, key if key in FEVEROUS_LABELS else None)
        if label is None:
            raise ValueError(f"classifier output {index} is named {name!r}; expected an MNLI or FEVEROUS label")
        if label in out:
            raise ValueError(f"two classifier outputs map to {label!r}: {out[label]} and {index}")
        out[label] = int(index)
    return out


def label_set_indices(id2label: Mapping, label_set: Sequence[str]) -> list:
    """Head indices of the trained labels, in ``label_set`` order."""
    by_label = head_index_by_label(id2label)
    missing = [l for l in label_set if l not in by_label]
    if missing:
        raise ValueError(f"label set {list(label_set)} names {missing}, which the head does not have")
    if len(set(label_set)) != len(label_set) or len(label_set) < 2:
        raise ValueError(f"label set {list(label_set)} must hold at least two distinct labels")
    return [by_label[l] for l in label_set]
