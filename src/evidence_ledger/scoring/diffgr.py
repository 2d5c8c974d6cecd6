"""DiffGR with the semantics of Tan-Hexiang/RetrieveOrGenerated (``src/combine.py``, ``src/evaluation.py``).

In:  four reader outputs per (reader, generator, dataset), one record per question:
     *hybrid* (question + retrieved + generated context; carries the gold ``answer`` list and
     the two passages), *generated-only*, *retrieved-only* and *closed-book*. Each record has
     ``question`` and ``response`` (a list whose first element is the answer, or a string).
Out: the context-conflicting items (:class:`MergedItem`) split into AIG / AIR, the class of
     each hybrid answer, and per subset ``{"diffgr", "gen_ans", "ir_ans", "llm_ans",
     "others", "n"}`` (shares of the subset, DiffGR in [-1, 1]).

Construction, in the official order (``context_conflicting_dataset.pipeline``):
1. merge: every hybrid record is matched to the other files by question (a trailing ``?``
   ignored); ``gen_em``/``ir_em``/``com_em`` = SQuAD exact match against the gold list;
2. unknown filter: drop items whose generated-only or retrieved-only answer is
   "unknown"-like (contains one of :data:`UNKNOWN_KEYWORDS`, case-sensitive substring, or
   EM-matches one of :data:`UNKNOWN_ANSWERS`);
3. in-context check (``_check_answer_in_context``): keep items whose generated-only answer
   "is in" the generated passage and retrieved-only answer "is in" the retrieved passage.
   The official code passes the answer *string* where a list of answers is expected, so
   each *character* is tested as a token (see :func:`answer_in_context`); reproduced as is;
4. parametric-knowledge filter: drop items whose closed-book answer EM-matches either
   context answer;
5. AIG = generated-only right and retrieved-only wrong; AIR = the reverse (both right or both
   wrong are counted, not kept);
6. the hybrid answer is classified, in this order, IR-Ans (EM with the retrieved-only
   answer), Gen-Ans (generated-only answer), LLM-Ans (closed-book answer), else Others;
7. DiffGR = (Gen-Ans - IR-Ans) / (Gen-Ans + IR-Ans) per subset.

Where the official code crashes (an empty subset, Gen-Ans + IR-Ans = 0, filters leaving
nothing) the result here is 0.0 with a warning.

A simplified recipe of the paper's formula (raw string equality, one pooled number over all items,
0 on a zero denominator, no CC filters) differs; it is *not* implemented: docs/scoring.md
lists the differences.
"""
from __future__ import annotations

import string
import unicodedata
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import regex

from evidence_ledger.errors import InputError

from .records import read_jsonl, require

UNKNOWN_ANSWERS = (
    "unknown", "Unknown", "not provided in the passage.", "Unknown.", "unclear", "unknown.", "unclear.",
    "none", "None.", "None", "unknown.", "Unknown.",
)
UNKNOWN_KEYWORDS = (
    "does not mention", "no information provided", "no information", "not provided", "no mention of",
    "not provide", "not mention", "not enough information",
)
CLASSES = ("IR-Ans", "Gen-Ans", "LLM-Ans", "Others")

# the official code removes articles with the third-party ``regex`` module, whose word boundary
# differs from ``re``'s next to combining marks and superscript digits
_ARTICLES = regex.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD normalisation as the official ``normalize_answer``: lower-case, drop ASCII
    punctuation, drop articles (word boundaries of the ``regex`` module), collapse whitespace."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def exact_match_any(prediction: str, ground_truths: Sequence[str]) -> bool:
    """EM against a list (the official ``ems``); an empty list is an error, as officially."""
    if not ground_truths:
        raise ValueError("exact match against an empty answer list")
    return any(exact_match(prediction, gt) for gt in ground_truths)


def simple_tokenize(text: str) -> list[str]:
    """DPR ``SimpleTokenizer``, uncased: runs of letters/numbers/marks, else single non-space chars."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        cat = unicodedata.category(text[i])
        if cat[0] in "LNM":
            j = i + 1
            while j < n and unicodedata.category(text[j])[0] in "LNM":
                j += 1
            tokens.append(text[i:j].lower())
            i = j
        elif cat[0] in "ZC":
            i += 1
        else:
            tokens.append(text[i].lower())
            i += 1
    return tokens


def has_answer(answers: Iterable[str], text: str) -> bool:
    """Official ``has_answer``: some answer's token sequence occurs in the text (NFD, uncased)."""
    text_tokens = simple_tokenize(unicodedata.normalize("NFD", text))
    for answer in answers:
        answer_tokens = simple_tokenize(unicodedata.normalize("NFD", answer))
        for i in range(0, len(text_tokens) - len(answer_tokens) + 1):
            if answer_tokens == text_tokens[i:i + len(answer_tokens)]:
                return True
    return False


def answer_in_context(answer: str, passage: str) -> bool:
    """The official in-context check ``has_answer(answer_string, passage)``.

    The official call passes one string where a list is expected, so every *character* of
    the answer is an "answer": the check passes when any single character's token occurs as a
    whole token of the passage, and always when the answer contains a space (a space has no
    token and the empty sequence matches). Kept because it decides membership of the official
    CC sets.
    """
    return has_answer(list(answer), passage)


def is_unknown_answer(answer: str) -> bool:
    """"Unknown"-like: contains an unknown keyword (case-sensitive) or EM-matches an unknown answer."""
    return any(k in answer for k in UNKNOWN_KEYWORDS) or exact_match_any(answer, UNKNOWN_ANSWERS)


def strip_question_mark(question: str) -> str:
    """The official ``rm_last_mark``: drop one trailing '?'."""
    return question[:-1] if question.endswith("?") else question


@dataclass(frozen=True)
class MergedItem:
    """One hybrid question merged with its generated-only / retrieved-only / closed-book answers."""

    question: str
    answers: tuple
    generated_passage: str
    retrieved_passage: str
    gen_ans: str
    ir_ans: str
    com_ans: str
    llm_ans: str

    @property
    def gen_em(self) -> bool:
        return exact_match_any(self.gen_ans, self.answers)

    @property
    def ir_em(self) -> bool:
        return exact_match_any(self.ir_ans, self.answers)


@dataclass
class ConflictSets:
    """The CC construction: AIG / AIR items and the counts at each official filter step."""

    aig: list = field(default_factory=list)
    air: list = field(default_factory=list)
    n_merged: int = 0
    n_unknown: int = 0
    n_not_in_context: int = 0
    n_parametric: int = 0
    n_both_right: int = 0
    n_both_wrong: int = 0


def build_conflict_sets(items: Sequence[MergedItem]) -> ConflictSets:
    """Apply the official filters in order and split into AIG / AIR (see module docstring)."""
    sets = ConflictSets(n_merged=len(items))
    for item in items:
        if is_unknown_answer(item.gen_ans) or is_unknown_answer(item.ir_ans):
            sets.n_unknown += 1
            continue
        if not (answer_in_context(item.gen_ans, item.generated_passage)
                and answer_in_context(item.ir_ans, item.retrieved_passage)):
            sets.n_not_in_context += 1
            continue
        if exact_match_any(item.llm_ans, [item.gen_ans]) or exact_match_any(item.llm_ans, [item.ir_ans]):
            sets.n_parametric += 1
            continue
        gen_em, ir_em = item.gen_em, item.ir_em
        if gen_em and not ir_em:
            sets.aig.append(item)
        elif ir_em and not gen_em:
            sets.air.append(item)
        elif gen_em:
            sets.n_both_right += 1
        else:
            sets.n_both_wrong += 1
    return sets


def classify_hybrid_answer(item: MergedItem) -> str:
    """IR-Ans, Gen-Ans, LLM-Ans or Others, tested in that order (ties go to the earlier class)."""
    if exact_match_any(item.com_ans, [item.ir_ans]):
        return "IR-Ans"
    if exact_match_any(item.com_ans, [item.gen_ans]):
        return "Gen-Ans"
    if exact_match_any(item.com_ans, [item.llm_ans]):
        return "LLM-Ans"
    return "Others"


def diffgr_from_shares(gen_ans: float, ir_ans: float, subset: str = "") -> float:
    """(Gen - IR) / (Gen + IR); 0.0 with a warning when Gen + IR = 0 (official: ZeroDivisionError)."""
    if gen_ans + ir_ans == 0:
        warnings.warn(f"DiffGR{' of ' + subset if subset else ''}: Gen-Ans + IR-Ans = 0, DiffGR set to 0.0 "
                      f"(the official code raises here)", stacklevel=2)
        return 0.0
    return (gen_ans - ir_ans) / (gen_ans + ir_ans)


def subset_preference(items: Sequence[MergedItem], subset: str = "") -> dict:
    """``{"diffgr", "gen_ans", "ir_ans", "llm_ans", "others", "n"}`` of one subset (shares of n).

    An empty subset gives zeros with a warning (the official code returns ``{'len': 0}`` and
    then fails computing DiffGR).
    """
    n = len(items)
    if n == 0:
        warnings.warn(f"DiffGR: subset {subset or '?'} is empty; all shares and DiffGR set to 0.0", stacklevel=2)
        return {"diffgr": 0.0, "gen_ans": 0.0, "ir_ans": 0.0, "llm_ans": 0.0, "others": 0.0, "n": 0}
    counts = {c: 0 for c in CLASSES}
    for item in items:
        counts[classify_hybrid_answer(item)] += 1
    shares = {c: counts[c] / n for c in CLASSES}
    return {
        "diffgr": diffgr_from_shares(shares["Gen-Ans"], shares["IR-Ans"], subset),
        "gen_ans": shares["Gen-Ans"],
        "ir_ans": shares["IR-Ans"],
        "llm_ans": shares["LLM-Ans"],
        "others": shares["Others"],
        "n": n,
    }


def diffgr_score(items: Sequence[MergedItem]) -> dict:
    """``{"aig": {...}, "air": {...}}`` for merged items (filters + split + classification)."""
    sets = build_conflict_sets(items)
    return {"aig": subset_preference(sets.aig, "AIG"), "air": subset_preference(sets.air, "AIR")}


# --- official files ------------------------------------------------------------------


def _first(value, path, line: int, field: str) -> str:
    """A reader field that is a list (first element used, as officially) or a string."""
    if isinstance(value, list):
        if not value or not isinstance(value[0], str):
            raise InputError(path, line, field, "expected a non-empty list of strings")
        return value[0]
    if isinstance(value, str):
        return value
    raise InputError(path, line, field, f"expected a string or a list of strings, got {type(value).__name__}")


def _index_by_question(path) -> dict[str, tuple[int, dict]]:
    out: dict[str, tuple[int, dict]] = {}
    for line, rec in read_jsonl(path):
        question = require(rec, "question", path, line)
        if not isinstance(question, str) or not question:
            raise InputError(path, line, "question", "must be a non-empty string")
        key = strip_question_mark(question)
        if key in out:
            raise InputError(path, line, "question", f"question {question!r} occurs twice (first at line "
                                                     f"{out[key][0]})")
        require(rec, "response", path, line)
        out[key] = (line, rec)
    return out


def read_merged_items(hybrid_path, generated_path, retrieved_path, closed_book_path) -> list[MergedItem]:
    """Merge the four reader outputs by question, in hybrid-file order."""
    generated = _index_by_question(generated_path)
    retrieved = _index_by_question(retrieved_path)
    closed_book = _index_by_question(closed_book_path)
    hybrid = _index_by_question(hybrid_path)
    for name, index, path in (("generated-only", generated, generated_path),
                              ("retrieved-only", retrieved, retrieved_path)):
        if len(index) != len(hybrid):  # the official loader asserts equal lengths
            raise InputError(path, None, None, f"{len(index)} {name} records for {len(hybrid)} hybrid records "
                                               f"in {hybrid_path}; the files must answer the same questions")
    items = []
    for key, (line, rec) in hybrid.items():
        answers = require(rec, "answer", hybrid_path, line)
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise InputError(hybrid_path, line, "answer", "expected a non-empty list of gold answer strings")
        others = {}
        for name, index, path in (("generated-only", generated, generated_path),
                                  ("retrieved-only", retrieved, retrieved_path),
                                  ("closed-book", closed_book, closed_book_path)):
            if key not in index:
                raise InputError(hybrid_path, line, "question",
                                 f"question {rec['question']!r} has no {name} answer in {path}")
            o_line, o_rec = index[key]
            others[name] = _first(o_rec["response"], path, o_line, "response")
        items.append(MergedItem(
            question=rec["question"],
            answers=tuple(answers),
            generated_passage=_first(require(rec, "generated_passage", hybrid_path, line), hybrid_path, line,
                                     "generated_passage"),
            retrieved_passage=_first(require(rec, "retrieved_passage", hybrid_path, line), hybrid_path, line,
                                     "retrieved_passage"),
            gen_ans=others["generated-only"],
            ir_ans=others["retrieved-only"],
            com_ans=_first(rec["response"], hybrid_path, line, "response"),
            llm_ans=others["closed-book"],
        ))
    return items


def score_files(hybrid_path, generated_path, retrieved_path, closed_book_path) -> dict:
    """``{"aig": {...}, "air": {...}}`` from the four official reader-output JSONL files."""
    return diffgr_score(read_merged_items(hybrid_path, generated_path, retrieved_path, closed_book_path))
