"""SciFact prediction files (``account scifact``, ``score scifact``, ``external.scifact``).

In:  the SciFact claims file (``claims_dev.jsonl``: ``{id, claim, evidence: {doc_id:
     [{sentences, label}]}}``) and prediction files ``{id, evidence: {doc_id: {sentences,
     label}}}`` (allenai/scifact's submission format); every gold claim needs a line.
Out: the registered :class:`ScifactFormat`. The score is the abstract-level label+rationale F1
     (``scoring.scifact``): ``T_ab = 100 * 2 C_ab / (P_a + R)``, with ``C_ab`` the abstracts run
     ``a`` predicts whose label is right and for which run ``b`` cites a complete gold rationale
     among its first ``max_sentences`` sentences (``leaderboard``: at least the shortest gold
     rationale's), ``P_a`` the abstracts run ``a`` predicts and ``R`` the gold abstracts. Per
     claim a file gives its ``P + R`` (``den``) and, per predicted abstract, the label's and the
     rationale's indicators, which :meth:`ScifactFormat.cross` sums over the answers' abstracts.
     SciFact's answers are abstracts, not one label a claim, so it has no per-claim answer score.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ...benchmark_registry import get_benchmark
from ...files.jsonl import read_jsonl
from ...scoring import scifact
from ..format_registry import AccountedFormat, register_format
from ..item_scores import ItemScores
from ..options import count_at_least


def sentence_cap(abstracts, doc: str, settings: Mapping) -> int:
    """Predicted sentences that count for abstract ``doc``: ``max_sentences``, or with the
    leaderboard cap ``max(max_sentences, shortest gold rationale)`` (``scoring.scifact``)."""
    if settings["sentence_cap"] == "leaderboard" and doc in abstracts:
        return scifact.leaderboard_cap(abstracts[doc], settings["max_sentences"])
    return settings["max_sentences"]


def abstract_indicators(abstracts, predicted: Mapping, settings: Mapping) -> dict[str, tuple[bool, bool]]:
    """Per predicted abstract: (its label is right, it cites a complete gold rationale)."""
    return {doc: (scifact.abstract_label_correct(abstracts, doc, pred.label),
                  scifact.abstract_eligible(abstracts, doc, pred.sentences, sentence_cap(abstracts, doc, settings)))
            for doc, pred in predicted.items()}



class ScifactFormat(AccountedFormat):
    name = "scifact"
    title = "SciFact"
    record_help = "{id, evidence: {doc_id: {sentences, label}}}"
    panel_metric = "f1"
    prediction_fields = ("id", "evidence")
    gold_key = "gold_split"
    renamed_keys = {"gold": "gold_split"}
    score_help = "SciFact abstract/sentence P/R/F1 (allenai/scifact semantics)"
    score_description = ("Prints {abstract_label_only, abstract_rationalized, sentence_selection, sentence_label}, "
                         "each {precision, recall, f1}. Gold claims without a prediction are refused unless "
                         "--missing-claims says how to score them.")

    def add_scorer_options(self, parser) -> None:
        parser.add_argument("--max-sentences", type=count_at_least(1), default=scifact.MAX_ABSTRACT_SENTS,
                            help="rationale sentences per abstract for abstract-level scoring, >= 1 "
                                 "(default %(default)s)")
        parser.add_argument("--sentence-cap", choices=scifact.SENTENCE_CAPS, default="fixed",
                            help="fixed: the first --max-sentences (repo evaluator); leaderboard: max(--max-sentences, "
                                 "shortest gold rationale) per abstract (scifact-evaluator eval.py)")

    def settings_from_args(self, args) -> dict:
        return {"max_sentences": args.max_sentences, "sentence_cap": args.sentence_cap}

    def settings_from_entry(self, entry: Mapping, config: Mapping) -> dict:
        caps = get_benchmark(self.name).caps(config.get("scoring"))
        return {"max_sentences": caps["max_sentences"], "sentence_cap": "fixed"}

    def add_score_arguments(self, parser) -> None:
        parser.add_argument("--gold", required=True, help="claims_*.jsonl")
        parser.add_argument("--predictions", required=True, help="JSONL {id, evidence: {doc_id: {sentences, label}}}")
        self.add_scorer_options(parser)
        parser.add_argument("--missing-claims", choices=scifact.MISSING_CLAIMS, default="refuse",
                            help="gold claims without a prediction line: refuse (default, as the leaderboard), empty "
                                 "(predicting nothing: they count in recall) or skip (left out of recall, as the repo "
                                 "evaluator's compute_metrics); the JSON then carries missing_claims {count, "
                                 "scored_as}")

    def score_files(self, args) -> dict:
        return scifact.score_files(args.gold, args.predictions, args.max_sentences, args.sentence_cap,
                                   missing=args.missing_claims)

    def read_gold(self, gold_path: str, settings: Mapping):
        return gold_path, {str(rec.get("id")): str(rec.get("claim", "")) for _, rec in read_jsonl(gold_path)}

    def score_file(self, gold, path: str, settings: Mapping) -> ItemScores:
        gold_path, claim_texts = gold
        claims, predictions, _ = scifact.read_submission(gold_path, path, "refuse")
        ids = list(claims)
        crossing = [abstract_indicators(claims[c], predictions.get(c, {}), settings) for c in ids]
        den = np.array([len(crossing[k]) + len(claims[c]) for k, c in enumerate(ids)], dtype=np.int64)
        texts = {"claim": [claim_texts.get(c, "") for c in ids],
                 "gold": ["; ".join(f"{doc}: {g.label}" for doc, g in claims[c].items()) or "no gold abstract"
                          for c in ids],
                 "answer": ["; ".join(f"{doc}: {p.label}" for doc, p in predictions.get(c, {}).items()) for c in ids],
                 "evidence": ["; ".join(f"{doc}: sentences {list(p.sentences)}" for doc, p in predictions.get(c, {}).items())
                              for c in ids]}
        return ItemScores(ids, den=den, crossing=crossing, texts=texts)

    def cross(self, answers: ItemScores, evidence: ItemScores) -> np.ndarray:
        """Per claim ``C_ab``: the abstracts the answers predict with the right label for which the
        evidence run cites a complete gold rationale."""
        return np.array([sum(bool(correct) and cited.get(doc, (False, False))[1]
                             for doc, (correct, _) in predicted.items())
                         for predicted, cited in zip(answers.crossing, evidence.crossing)], dtype=np.int64)


register_format(ScifactFormat())
