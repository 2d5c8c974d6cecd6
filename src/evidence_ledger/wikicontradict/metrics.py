"""WikiContradict metrics: judged rates, conflict detection (5.2) and judge agreement.

In:  pandas frames of judged responses (one row per model x instance x template with
     ``conflict_type`` in {explicit, implicit} and ``judge_label`` in ``judge.LABELS`` or
     ``unparseable``); for agreement, judge labels and human labels for the same items.
Out: tidy frames, one row per group, with counts and rates (rates are fractions in [0, 1]).

Rules:
* Rates divide by **all** judged responses of the group (``n``), unparseable included, so
  ``correct + partial + incorrect + unparseable`` rates sum to 1 and an unparseable judge
  never inflates a rate. ``n_parsed`` is reported beside them.
* Every (model, template) gets three rows: ``explicit``, ``implicit`` and ``all``.
* ``n_excluded`` (rates table): instances the template is not run on (same-passage
  instances for 2, 3 and the passage-1-twice controls; ``wikicontradict.excluded_counts``).
* Conflict detection: the 5.2 detection rate on real conflicts and, beside it, the
  false-detection rate of 5.2-control on the consistent context (``n_yes / n`` each,
  unparseable in the denominator), with the consistent context's kind
  (``modified_passages`` / ``passage1_twice``).
* Judge agreement treats *correct* as the positive class, read two ways: with the
  unparseable judge outputs kept as "not correct" predictions (``precision`` / ``recall`` /
  ``f1``; shown in their own confusion column) and with them excluded (``*_parsed``, over
  ``n_parsed`` items), with the count of each. Precision / recall / F1 are NaN when their
  denominator is zero.

Human-label file (JSON Lines, one object per line; ``load_human_labels``):
``question_ID`` (int or str, a WikiContradict question id, as in the release), ``template``
(str, a template id), ``model`` (str, the model that wrote the response), ``response``
(str, may be empty), ``human_label`` (one of ``correct``, ``partially correct``,
``incorrect``), and optionally ``item_id`` (str, unique; default ``line{N}`` from the
1-based line number).
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..scoring.records import read_jsonl
from .judge import LABELS, UNPARSEABLE

CONFLICT_TYPES = ("explicit", "implicit")
_COUNT_COLUMNS = {"correct": "n_correct", "partially correct": "n_partial", "incorrect": "n_incorrect",
                  UNPARSEABLE: "n_unparseable"}
HUMAN_LABEL_FIELDS = ("item_id", "instance_id", "template", "model", "response", "human_label")


def _label_counts(labels: pd.Series) -> dict:
    unknown = set(labels) - set(_COUNT_COLUMNS)
    if unknown:
        raise ValueError(f"unknown judge labels {sorted(unknown)}; expected {list(_COUNT_COLUMNS)}")
    n = int(len(labels))
    out = {"n": n}
    for label, col in _COUNT_COLUMNS.items():
        out[col] = int((labels == label).sum())
    out["n_parsed"] = n - out["n_unparseable"]
    for label, col in _COUNT_COLUMNS.items():
        rate_col = col.replace("n_", "") + "_rate"
        out[rate_col] = out[col] / n if n else math.nan
    return out


def judged_rates(judged: pd.DataFrame, template_order: list[str] | None = None,
                 excluded: pd.DataFrame | None = None) -> pd.DataFrame:
    """Correct / partial / incorrect / unparseable counts and rates per model x template x type.

    ``judged`` needs columns ``model``, ``template``, ``conflict_type``, ``judge_label``.
    ``excluded`` (``template``, ``conflict_type``, ``n_excluded``) adds the ``n_excluded``
    column (0 where a template has no row). Output rows are sorted by model, template
    (``template_order`` if given, else as strings) and conflict type (explicit, implicit, all).
    """
    bad = set(judged["conflict_type"]) - set(CONFLICT_TYPES)
    if bad:
        raise ValueError(f"unknown conflict types {sorted(bad)}; expected {list(CONFLICT_TYPES)}")
    rows = []
    for (model, template), grp in judged.groupby(["model", "template"], sort=True):
        for ctype in (*CONFLICT_TYPES, "all"):
            sub = grp if ctype == "all" else grp[grp["conflict_type"] == ctype]
            rows.append({"model": model, "template": template, "conflict_type": ctype,
                         **_label_counts(sub["judge_label"])})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    if excluded is not None:
        lookup = {(r.template, r.conflict_type): int(r.n_excluded) for r in excluded.itertuples()}
        out.insert(3, "n_excluded", [lookup.get((t, c), 0) for t, c in zip(out["template"], out["conflict_type"])])
    order = {t: i for i, t in enumerate(template_order or sorted(out["template"].unique()))}
    out["_t"] = out["template"].map(order)
    out["_c"] = out["conflict_type"].map({"explicit": 0, "implicit": 1, "all": 2})
    return out.sort_values(["model", "_t", "_c"], kind="stable").drop(columns=["_t", "_c"]).reset_index(drop=True)


DETECTION_COLUMNS = ["model", "conflict_type", "n", "n_yes", "n_no", "n_unparseable", "detection_rate",
                     "consistent_context", "n_control", "n_control_yes", "n_control_no", "n_control_unparseable",
                     "false_detection_rate"]


def detection_with_control(judged: pd.DataFrame, consistent_context: str) -> pd.DataFrame:
    """Per model x conflict type (and ``all``): the 5.2 detection rate on real conflicts and,
    beside it, the false-detection rate of ``5.2-control`` on the consistent context.

    ``judged`` needs ``model``, ``template``, ``conflict_type``, ``detection``; rows of other
    templates are ignored. ``consistent_context`` labels the control's context (e.g.
    ``passage1_twice``). A model without 5.2 (or without 5.2-control) rows gets zero counts
    and NaN rates for it. Columns :data:`DETECTION_COLUMNS`.
    """
    rows = []
    for model in sorted(set(judged.loc[judged["template"].isin(["5.2", "5.2-control"]), "model"])):
        conflict = judged[(judged["model"] == model) & (judged["template"] == "5.2")]
        control = judged[(judged["model"] == model) & (judged["template"] == "5.2-control")]
        det = {r["conflict_type"]: r for r in _detection_rows(conflict)}
        ctl = {r["conflict_type"]: r for r in _detection_rows(control)}
        for ctype in (*CONFLICT_TYPES, "all"):
            d, c = det[ctype], ctl[ctype]
            rows.append({"model": model, "conflict_type": ctype, "n": d["n"], "n_yes": d["n_yes"], "n_no": d["n_no"],
                         "n_unparseable": d["n_unparseable"], "detection_rate": d["detection_rate"],
                         "consistent_context": consistent_context, "n_control": c["n"],
                         "n_control_yes": c["n_yes"], "n_control_no": c["n_no"],
                         "n_control_unparseable": c["n_unparseable"], "false_detection_rate": c["detection_rate"]})
    return pd.DataFrame(rows, columns=DETECTION_COLUMNS)


def _detection_rows(detections: pd.DataFrame) -> list[dict]:
    """``n``, ``n_yes``, ``n_no``, ``n_unparseable``, ``detection_rate`` per conflict type + all."""
    bad = set(detections["detection"]) - {"yes", "no", UNPARSEABLE}
    if bad:
        raise ValueError(f"unknown detection values {sorted(bad)}")
    rows = []
    for ctype in (*CONFLICT_TYPES, "all"):
        sub = detections if ctype == "all" else detections[detections["conflict_type"] == ctype]
        n = int(len(sub))
        n_yes = int((sub["detection"] == "yes").sum())
        n_no = int((sub["detection"] == "no").sum())
        rows.append({"conflict_type": ctype, "n": n, "n_yes": n_yes, "n_no": n_no, "n_unparseable": n - n_yes - n_no,
                     "detection_rate": n_yes / n if n else math.nan})
    return rows


def load_human_labels(path: str | Path) -> pd.DataFrame:
    """Read the human-label JSONL (schema in the module docstring), validating every line.

    Returns columns :data:`HUMAN_LABEL_FIELDS` (``instance_id`` = ``question_ID`` as a string)
    in file order. Raises ``InputError`` (file, line, field) for bad JSON, a missing or
    mistyped field, a label outside ``judge.LABELS`` or a repeated ``item_id``.
    """
    path = Path(path)
    rows, seen = [], {}
    for lineno, rec in read_jsonl(path):
        qid = rec.get("question_ID")
        if isinstance(qid, bool) or not isinstance(qid, (int, str)) or str(qid) == "":
            raise InputError(path, lineno, "question_ID", "missing or not an integer/string")
        row = {"item_id": rec.get("item_id", f"line{lineno}"), "instance_id": str(qid)}
        for key in ("template", "model", "response", "human_label"):
            val = rec.get(key)
            if not isinstance(val, str) or (key != "response" and not val):
                raise InputError(path, lineno, key, "missing or not a string")
            row[key] = val
        if not isinstance(row["item_id"], str) or not row["item_id"]:
            raise InputError(path, lineno, "item_id", "not a non-empty string")
        if row["human_label"] not in LABELS:
            raise InputError(path, lineno, "human_label", f"{row['human_label']!r} is not one of {list(LABELS)}")
        if row["item_id"] in seen:
            raise InputError(path, lineno, "item_id", f"duplicate of line {seen[row['item_id']]}")
        seen[row["item_id"]] = lineno
        rows.append(row)
    if not rows:
        raise InputError(path, None, None, "no human labels in file")
    return pd.DataFrame(rows, columns=list(HUMAN_LABEL_FIELDS))


def judge_agreement(pairs: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    """Agreement of judge labels with human labels on the same items.

    ``pairs`` needs ``human_label`` (in LABELS) and ``judge_label`` (in LABELS or unparseable).
    Returns (summary, confusion): summary has ``n``, ``n_unparseable``, ``tp``, ``fp``, ``fn``,
    ``precision``, ``recall``, ``f1`` of the class *correct* with unparseable judgements kept
    (as "not correct"), ``accuracy`` (three-way agreement over all n), and the same
    precision / recall / F1 with the unparseable judgements excluded (``n_parsed``,
    ``tp_parsed``, ``fp_parsed``, ``fn_parsed``, ``precision_parsed``, ``recall_parsed``,
    ``f1_parsed``); confusion has one row per human label and one column per judge label
    (``unparseable`` last), with counts.
    """
    human, judge = pairs["human_label"], pairs["judge_label"]
    if set(human) - set(LABELS):
        raise ValueError(f"unknown human labels {sorted(set(human) - set(LABELS))}")
    if set(judge) - set(_COUNT_COLUMNS):
        raise ValueError(f"unknown judge labels {sorted(set(judge) - set(_COUNT_COLUMNS))}")
    n = int(len(pairs))
    kept = _correct_class_scores(human, judge)
    parsed = judge != UNPARSEABLE
    excl = _correct_class_scores(human[parsed], judge[parsed])
    summary = {"n": n, "n_unparseable": int((~parsed).sum()), **kept,
               "accuracy": float((human == judge).sum()) / n if n else math.nan,
               "n_parsed": int(parsed.sum()), **{f"{k}_parsed": v for k, v in excl.items()}}
    judge_cols = [*LABELS, UNPARSEABLE]
    confusion = pd.DataFrame(
        [[int(((human == h) & (judge == j)).sum()) for j in judge_cols] for h in LABELS],
        index=pd.Index(list(LABELS), name="human_label"), columns=judge_cols,
    ).reset_index()
    return summary, confusion


def _correct_class_scores(human: pd.Series, judge: pd.Series) -> dict:
    """``tp``, ``fp``, ``fn``, ``precision``, ``recall``, ``f1`` of the class *correct*."""
    tp = int(((human == "correct") & (judge == "correct")).sum())
    fp = int(((human != "correct") & (judge == "correct")).sum())
    fn = int(((human == "correct") & (judge != "correct")).sum())
    precision = tp / (tp + fp) if tp + fp else math.nan
    recall = tp / (tp + fn) if tp + fn else math.nan
    if math.isnan(precision) or math.isnan(recall) or precision + recall == 0:
        f1 = math.nan if (math.isnan(precision) or math.isnan(recall)) else 0.0
    else:
        f1 = 2 * precision * recall / (precision + recall)
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}


def judge_agreement_tables(human_judged: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judge agreement with the human labels on all items and per template (sorted): one summary
    row per subset (``judge_model``, ``subset`` + :func:`judge_agreement` summary) and the
    confusion tables stacked with a leading ``subset`` column."""
    rows, confusions = [], []
    groups = [("all", "all", human_judged)]
    groups += [(f"template={t}", "template", g) for t, g in human_judged.groupby("template", sort=True)]
    for name, kind, grp in groups:
        summary, confusion = judge_agreement(grp)
        rows.append({"judge_model": grp["judge_model"].iloc[0] if len(grp) else "", "subset": name, **summary})
        confusion.insert(0, "subset", name)
        confusions.append(confusion)
    return pd.DataFrame(rows), pd.concat(confusions, ignore_index=True)
