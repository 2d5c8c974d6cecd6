"""One prediction file scored against its gold file, item by item: what a format hands the reader.

In:  nothing (a container): an accounted format's ``score_file`` fills it
     (``prediction_files.format_registry``).
Out: :class:`ItemScores`, per gold item (in the order the format lists them) the numbers the
     accounting crosses, and :func:`aligned`, the same scores reordered to the accounting's
     item order.

Only ``ids`` is required. ``answer`` is the per-item answer score (1/0 for a right or wrong
label, or a continuous metric on 0..1), ``eligible`` 1/0 where the item's cited evidence
qualifies, ``evidence`` the evidence score where it is more than the eligibility (KILT's
R-precision), ``den`` the item's denominator where it is not 1 (SciFact: ``P_a + R``), ``classes``
the gold and predicted class of each item where the answers are labels, ``crossing`` what the
format's ``cross`` reads beyond these (SciFact: per abstract the label's and the rationale's
indicators). ``texts`` is what an item explorer shows of each item, by kind (:data:`TEXT_KINDS`):
the claim or question and the gold as the gold file gives them, this file's answer and the
evidence it cites (ids, KILT's page titles, cut after the ids its scorer reads). ``facts`` counts
what was read but is odd (summed over files by the reader), ``warned`` the scorer's warnings,
given again by the reader in the process that prints them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np

#: the texts a file gives of each item: the gold file's ``claim`` (or question) and ``gold``, the
#: file's own ``answer`` and ``evidence``
TEXT_KINDS = ("claim", "gold", "answer", "evidence")


@dataclass
class ItemScores:
    ids: list[str]
    answer: np.ndarray | None = None
    eligible: np.ndarray | None = None
    evidence: np.ndarray | None = None
    den: np.ndarray | None = None
    classes: tuple[list, list] | None = None  # (gold class, predicted class) per item
    crossing: list | None = None
    texts: dict[str, list[str]] = field(default_factory=dict)
    facts: dict = field(default_factory=dict)
    warned: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def aligned(scores: ItemScores, position: Mapping[str, int]) -> ItemScores:
    """``scores`` with every per-item field in the order ``position`` gives (item id -> index;
    every id of the file is a key, every index is filled: the files of one gold file hold its
    items)."""
    order = np.empty(len(scores.ids), dtype=np.int64)
    for i, item in enumerate(scores.ids):
        order[position[item]] = i

    def take(values):
        if values is None:
            return None
        if isinstance(values, np.ndarray):
            return values[order]
        return [values[i] for i in order]

    classes = None if scores.classes is None else (take(scores.classes[0]), take(scores.classes[1]))
    return replace(scores, ids=take(scores.ids), answer=take(scores.answer), eligible=take(scores.eligible),
                   evidence=take(scores.evidence), den=take(scores.den), classes=classes,
                   crossing=take(scores.crossing), texts={kind: take(v) for kind, v in scores.texts.items()})
