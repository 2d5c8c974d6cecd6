"""A fifth format of prediction files, registered from outside the package (config ``benchmark_plugins``,
or ``EVIDENCE_LEDGER_BENCHMARK_PLUGINS`` for the command line): a toy question-answering format.

Gold file (``gold_file`` of an ``external.toyqa.<system>`` entry): one JSON record a line,
``{"id", "question", "answer", "pages": [gold page, ...]}``. Prediction file: ``{"id", "answer",
"pages": [ranked page, ...]}``, one line per gold item. Per item: ``answer`` = token F1 of the
predicted answer against the gold answer (continuous), ``evidence`` = the share of gold pages
among the first ``top_k`` predicted pages (named ``page_recall``), ``eligible`` = all of them are
there. A cell is then the mean of ``F1_a * [all gold pages in run b's top k]``. Its own option
``--top-k`` (entry key ``top_k``), its own accounting metric (``toy_recall``). Everything about it
is in this file: nothing of ``evidence_ledger`` names it.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Mapping

import numpy as np

from evidence_ledger.accounting.metrics import register_panel_metric
from evidence_ledger.errors import InputError
from evidence_ledger.prediction_files.format_registry import AccountedFormat, register_format
from evidence_ledger.prediction_files.item_scores import ItemScores
from evidence_ledger.prediction_files.options import count_at_least

DEFAULT_TOP_K = 2


def token_f1(predicted: str, gold: str) -> float:
    p, g = predicted.lower().split(), gold.lower().split()
    common = sum((Counter(p) & Counter(g)).values())
    if not p or not g or not common:
        return float(p == g)
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def read_records(path) -> dict[str, tuple[int, dict]]:
    """id -> (line, record); a repeated id or a line without id is an InputError naming the line."""
    out: dict[str, tuple[int, dict]] = {}
    with open(path, encoding="utf-8") as handle:
        for line, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            record = json.loads(text)
            if "id" not in record:
                raise InputError(path, line, "id", "missing")
            key = str(record["id"])
            if key in out:
                raise InputError(path, line, "id", f"id {key!r} occurs twice (first at line {out[key][0]})")
            out[key] = (line, record)
    return out


class ToyQaFormat(AccountedFormat):
    name = "toyqa"
    title = "ToyQA"
    record_help = "{id, answer, pages: [page]}"
    item_word = "questions"
    panel_metric = register_panel_metric("toy_recall", multiplier=1)
    prediction_fields = ("id", "answer", "pages")
    gold_key = "gold_file"
    gold_fields = ("id", "question", "answer", "pages")
    entry_keys = ("top_k",)
    evidence_name = "page_recall"
    gold_facts = ("gold_questions",)
    score_help = "ToyQA answer F1 and page recall"
    score_description = "Prints {answer_f1, page_recall, toy_score}."

    def add_scorer_options(self, parser) -> None:
        parser.add_argument("--top-k", type=count_at_least(1), default=DEFAULT_TOP_K,
                            help="predicted pages read per question (default %(default)s)")

    def settings_from_args(self, args) -> dict:
        return {"top_k": args.top_k}

    def settings_from_entry(self, entry: Mapping, config: Mapping) -> dict:
        return {"top_k": entry.get("top_k", DEFAULT_TOP_K)}

    def entry_errors(self, key: str, entry: Mapping, config: Mapping) -> list[str]:
        top_k = entry.get("top_k", DEFAULT_TOP_K)
        return [] if isinstance(top_k, int) and top_k >= 1 else [f"{key}.top_k = {top_k!r}: a whole number >= 1"]

    def answer_name(self, settings: Mapping) -> str:
        return "answer_f1"

    def rate_rows(self, settings: Mapping) -> tuple[tuple[str, str], ...]:
        return (("answer_f1_0", "answer F1, source-0 answers"), ("answer_f1_1", "answer F1, source-1 answers"),
                ("page_recall_diff", f"gold pages in the top {settings['top_k']}, source 1 - source 0"))

    def page_layout(self, settings: Mapping) -> dict:
        return {"rates": [list(row) for row in self.rate_rows(settings)], "rates_caption": "ToyQA rates (points).",
                "answer_name": "answer_f1", "eq4_note": " c_a: the answer F1."}

    def add_score_arguments(self, parser) -> None:
        parser.add_argument("--gold", required=True)
        parser.add_argument("--predictions", required=True)
        self.add_scorer_options(parser)

    def score_files(self, args) -> dict:
        settings = self.settings_from_args(args)
        scores = self.score_file(self.read_gold(args.gold, settings), args.predictions, settings)
        return {"answer_f1": float(scores.answer.mean()), "page_recall": float(scores.evidence.mean()),
                "toy_score": float((scores.answer * scores.eligible).mean())}

    def read_gold(self, gold_path: str, settings: Mapping):
        return gold_path, read_records(gold_path)

    def score_file(self, gold, path: str, settings: Mapping) -> ItemScores:
        gold_path, items = gold
        predictions = read_records(path)
        for key, (line, _) in predictions.items():
            if key not in items:
                raise InputError(path, line, "id", f"id {key!r} is not in {gold_path}")
        answer, recall = [], []
        for key, (line, record) in items.items():
            if key not in predictions:
                raise InputError(gold_path, line, "id", f"id {key!r} has no prediction in {path}")
            p_line, predicted = predictions[key]
            if not isinstance(predicted.get("answer"), str):
                raise InputError(path, p_line, "answer", "not a string")
            answer.append(token_f1(predicted["answer"], record["answer"]))
            top = set(list(predicted.get("pages") or [])[:settings["top_k"]])
            recall.append(sum(page in top for page in record["pages"]) / len(record["pages"]))
        recall = np.array(recall, dtype=np.float64)
        return ItemScores(list(items), answer=np.array(answer, dtype=np.float64), evidence=recall,
                          eligible=(recall == 1.0).astype(np.int64), facts={"gold_questions": len(items)})


register_format(ToyQaFormat())
