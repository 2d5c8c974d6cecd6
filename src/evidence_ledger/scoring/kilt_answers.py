"""KILT answer metrics of one prediction, as facebookresearch/KILT ``kilt/eval_downstream.py`` scores it.

In:  the predicted answer (a string) and the gold outputs of one KILT record. Out: the gold
answer set and title set, KILT's answer normalisation, and the four downstream metrics of
the item (:func:`answer_metrics`): accuracy, EM, F1 and ROUGE-L, each the best over the gold
answers.

Rules (the official code's):
* gold answers: the stripped ``answer`` of every gold output whose answer is a non-empty
  string after stripping, as a set (outputs without one are not answers);
* the predicted answer is ``str(answer).strip()``; an empty one scores 0 on every metric
  (it still counts in the mean);
* accuracy: the stripped answer is one of the gold answers, character for character;
* normalisation (``eval_downstream.normalize_answer``, not ``kilt_utils``'s, which keeps
  articles and spaces): lower-case, drop ASCII punctuation, replace the words a/an/the by a
  space, collapse whitespace;
* EM: normalised strings equal; F1: token F1 of the normalised strings (bag of words,
  0 when nothing is shared); ROUGE-L: :meth:`~evidence_ledger.scoring.rouge_l.RougeHypothesis.f_against` on
  the raw (unnormalised) strings.
"""
from __future__ import annotations

import re
import string
from collections import Counter
from typing import Sequence

from .rouge_l import RougeHypothesis

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation, articles to spaces, collapse whitespace (KILT's eval_downstream)."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def gold_answers(outputs: Sequence[dict]) -> set[str]:
    """The stripped non-empty ``answer`` strings of the gold outputs."""
    answers = set()
    for output in outputs:
        answer = output.get("answer")
        if answer and answer.strip():
            answers.add(answer.strip())
    return answers


def gold_titles(outputs: Sequence[dict]) -> set[str]:
    """The stripped non-empty provenance ``title`` strings of the gold outputs."""
    titles = set()
    for output in outputs:
        for entry in output.get("provenance", ()):
            title = entry.get("title")
            if title and title.strip():
                titles.add(title.strip())
    return titles


def token_f1(prediction_tokens: Sequence[str], gold_tokens: Sequence[str]) -> float:
    """Token F1 of two normalised token lists (0 when no token is shared)."""
    shared = sum((Counter(prediction_tokens) & Counter(gold_tokens)).values())
    if shared == 0:
        return 0
    precision = 1.0 * shared / len(prediction_tokens)
    recall = 1.0 * shared / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def answer_metrics(answer: str, answers: set[str], *, with_rouge: bool = True) -> tuple[float, float, float, float]:
    """``(accuracy, em, f1, rougel)`` of the stripped predicted ``answer`` against the gold
    ``answers`` (non-empty); all 0 for an empty answer. ``with_rouge=False`` leaves ROUGE-L 0.0."""
    if not answer:
        return 0.0, 0.0, 0.0, 0.0
    accuracy = float(answer in answers)
    predicted = normalize_answer(answer)
    predicted_tokens = predicted.split()
    em = f1 = rougel = 0.0
    hypothesis = RougeHypothesis(answer) if with_rouge else None
    for gold in answers:
        normalized = normalize_answer(gold)
        em = max(em, float(predicted == normalized))
        f1 = max(f1, token_f1(predicted_tokens, normalized.split()))
        if hypothesis is not None:
            rougel = max(rougel, hypothesis.f_against(gold))
    return accuracy, em, f1, rougel
