"""Context-conflict merge evaluation (Tan et al., 2024): reader prompts, length control, DiffGR.

In:  NQ-CC / TQA-CC records (``tables.conflict_inputs.CONFLICT_QA_RECORDS``: question, gold
     answers, generated passages, retrieved passages) and reader answers.
Out: reader prompts for the four reader runs (hybrid in both context orders, generated-only,
     retrieved-only, closed-book); per-question length statistics; per-question CC rows and
     DiffGR per subset with bootstrap intervals over questions.

How the original code (RetrieveOrGenerated) does it, and what is followed here:
* Among several generated passages of a question, the one whose word count is closest to
  the retrieved passage's is used (first one on a tie; ``find_gen_ctx_length_similar_to_ret_cxt.py``).
  The original counts spaCy tokens that are neither space nor punctuation; spaCy is not a
  dependency here, so :func:`count_words` counts maximal runs of letters/digits (a decimal
  number such as ``3.5`` or ``1,000`` is one word). Contractions split as in spaCy
  (``don't`` -> 2); abbreviations with inner periods (``U.S.``) count 2 where spaCy counts 1.
* The reader prompt is ``prompt`` with ``{background}`` = the passages, each prefixed by a
  newline and with its own newlines replaced by spaces (the original ``rmreturn``), and
  ``{query}`` = the question; the closed-book run uses ``closed_book_prompt`` (``{query}`` only).
  The hybrid run's context order is a factor of the evaluation: ``random`` (the official,
  primary run: ``read.py --merge_order random`` after ``random.seed(4)``; each question's
  arrangement is read from its recorded ``ctxs``, else replayed over the complete released
  file, see :func:`.reader_setup.random_arrangements`),
  ``generated_first`` and ``retrieved_first`` (the official fixed orders, reported beside
  it). Each hybrid row records the arrangement the reader saw (``context_order``).
* The reader's messages: an optional system message (``diffgr.reader_system_message``; for
  Llama- and Qwen-family models the official Llama reader's ``':%d,'`` format instruction)
  followed by the user prompt.
* Scoring uses the raw responses (``raw_response``): the official in-context check and the
  exact matches run on the response as generated, normalisation happening inside the scorer.
  (A stripped answer changes the in-context check: `` Canberra`` passes it, ``Canberra``
  need not.)
* Length control: per question, ``length_rel_diff = |words(gen) - words(ret)| / words(ret)``
  (0 when both are empty, infinity when only the retrieved passage is empty); a pair is
  *within* the threshold when ``length_rel_diff <= threshold`` (default 0.03).
* The CC sets, the hybrid-answer classes and DiffGR come from ``evidence_ledger.scoring.diffgr``
  (the official rules); this module only arranges the reader runs and resamples questions.
"""
from __future__ import annotations

import math
import re
from typing import Iterable, Sequence

import numpy as np

from ..generation.chat_rows import greedy_sampling, provenance_columns, request_columns
from ..resampling.bootstrap import bootstrap_draws, percentile_interval
from ..scoring.diffgr import MergedItem, build_conflict_sets, classify_hybrid_answer, subset_preference
from ..vocabulary import DIFFGR_GENERATED_FIRST as GENERATED_FIRST
from ..vocabulary import DIFFGR_ORDERS as ORDERS
from ..vocabulary import DIFFGR_RANDOM as RANDOM
from ..vocabulary import DIFFGR_RETRIEVED_FIRST as RETRIEVED_FIRST
from .reader_setup import random_arrangements

RUNS = ("hybrid", "generated", "retrieved", "closed_book")
#: the columns that name one reader request in a message (a prompt too long for the model's context)
REQUEST_ITEM = ("question_id", "run", "order")
_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*")


def count_words(text: str) -> int:
    """Number of words: maximal runs of letters/digits; ``3.5`` and ``1,000`` count once."""
    return len(_WORD.findall(text or ""))


def select_generated_passage(generated: Sequence[str], retrieved: str) -> int:
    """Index of the generated passage whose word count is closest to the retrieved passage's.

    Ties go to the earliest passage (the original's strict ``<``). Raises ``ValueError`` on
    an empty list.
    """
    if not generated:
        raise ValueError("no generated passage to choose from")
    target = count_words(retrieved)
    deltas = [abs(count_words(g) - target) for g in generated]
    return int(min(range(len(deltas)), key=lambda i: (deltas[i], i)))


def length_ratio(gen_words: int, ret_words: int) -> float:
    """``gen / ret`` word-length ratio; ``inf`` when only ``ret`` is 0, NaN when both are 0."""
    if ret_words == 0:
        return math.nan if gen_words == 0 else math.inf
    return gen_words / ret_words


def length_rel_diff(gen_words: int, ret_words: int) -> float:
    """``|gen - ret| / ret``; 0.0 when both are 0, ``inf`` when only ``ret`` is 0."""
    if ret_words == 0:
        return 0.0 if gen_words == 0 else math.inf
    return abs(gen_words - ret_words) / ret_words


def format_background(passages: Sequence[str]) -> str:
    """The original reader's background: each passage as ``"\\n" + passage`` with its own
    line breaks (``\\n\\n`` then ``\\n``) replaced by a space and outer whitespace stripped."""
    out = ""
    for p in passages:
        out += "\n" + p.replace("\n\n", " ").replace("\n", " ").strip()
    return out


def render_reader_prompt(prompt: str, closed_book_prompt: str, question: str,
                         passages: Sequence[str]) -> str:
    """The reader's user prompt: ``closed_book_prompt`` when there is no passage."""
    if not passages:
        return closed_book_prompt.format(query=question)
    return prompt.format(query=question, background=format_background(passages))


def run_passages(run: str, order: str, generated: str, retrieved: str) -> list[str]:
    """Passages of one reader run, in order. ``order`` (a fixed arrangement, ``generated_first``
    or ``retrieved_first``) matters only for ``hybrid``."""
    if run == "hybrid":
        if order == GENERATED_FIRST:
            return [generated, retrieved]
        if order == RETRIEVED_FIRST:
            return [retrieved, generated]
        raise ValueError(f"unknown context order {order!r}; use one of {ORDERS}")
    if run == "generated":
        return [generated]
    if run == "retrieved":
        return [retrieved]
    if run == "closed_book":
        return []
    raise ValueError(f"unknown reader run {run!r}; use one of {RUNS}")


def plan_reader_prompts(records: Iterable[dict], prompt: str, closed_book_prompt: str,
                        context_orders: Sequence[str], *,
                        shuffle_seed: int | None = None) -> tuple[list[dict], list[dict]]:
    """Reader prompts for every question and run, plus per-question length statistics.

    ``records`` are CONFLICT_QA_RECORDS rows (``question_id``, ``question``, ``answers``,
    ``generated_passages``, ``retrieved_passages``); the first retrieved passage is used (the
    original's ``ctxs_num 1``) and the generated passage closest to it in length.
    Order ``random`` arranges each question's two passages as the official random merge
    did: from the record's ``ctxs``, else replayed from ``random.Random(shuffle_seed)`` over
    the complete released file (config ``diffgr.random_order_seed``, required when ``context_orders``
    holds ``random``; :func:`.reader_setup.random_arrangements`, which refuses a file that is
    neither).
    Returns ``(prompts, lengths)``: prompt rows ``(question_id, run, order, context_order,
    prompt)`` with ``order == context_order == ""`` for the single-context and closed-book
    runs (``context_order`` = the arrangement the hybrid reader saw); length rows
    ``(question_id, generated_index, gen_words, ret_words, length_ratio, length_rel_diff)``.
    A record without a generated or retrieved passage raises ``ValueError`` naming it.
    """
    for o in context_orders:
        if o not in ORDERS:
            raise ValueError(f"unknown context order {o!r}; use one of {ORDERS}")
    if RANDOM in context_orders and shuffle_seed is None:
        raise ValueError("context order 'random' needs shuffle_seed (config diffgr.random_order_seed)")
    records = list(records)
    shuffled = random_arrangements(records, shuffle_seed) if RANDOM in context_orders else []
    prompts, lengths = [], []
    for k, rec in enumerate(records):
        qid = rec["question_id"]
        gens, rets = list(rec["generated_passages"]), list(rec["retrieved_passages"])
        if not gens or not rets:
            raise ValueError(f"question {qid}: needs at least one generated and one retrieved passage "
                             f"(has {len(gens)} generated, {len(rets)} retrieved)")
        retrieved = rets[0]
        gi = select_generated_passage(gens, retrieved)
        generated = gens[gi]
        gw, rw = count_words(generated), count_words(retrieved)
        lengths.append({"question_id": qid, "generated_index": gi, "gen_words": gw, "ret_words": rw,
                        "length_ratio": length_ratio(gw, rw), "length_rel_diff": length_rel_diff(gw, rw)})
        plan = [("hybrid", o) for o in context_orders] + [("generated", ""), ("retrieved", ""), ("closed_book", "")]
        for run, order in plan:
            arrangement = shuffled[k] if order == RANDOM else order
            passages = run_passages(run, arrangement, generated, retrieved)
            prompts.append({"question_id": qid, "run": run, "order": order, "context_order": arrangement,
                            "prompt": render_reader_prompt(prompt, closed_book_prompt, rec["question"], passages)})
    return prompts, lengths


def length_summary(rel_diffs: Sequence[float], threshold: float) -> dict:
    """``n_pairs``, ``n_within`` (``rel_diff <= threshold``), ``share_within``, median and mean
    of the relative difference (finite values only for the mean; NaN when empty)."""
    arr = np.asarray(list(rel_diffs), dtype=float)
    n = int(arr.size)
    within = int((arr <= threshold).sum())
    finite = arr[np.isfinite(arr)]
    return {"n_pairs": n, "n_within": within, "share_within": within / n if n else math.nan,
            "median_rel_diff": float(np.median(arr)) if n else math.nan,
            "mean_rel_diff": float(finite.mean()) if finite.size else math.nan}


def diffgr_from_counts(gen_ans, ir_ans):
    """``(gen - ir) / (gen + ir)`` elementwise on counts; NaN where both are 0.

    (The point estimate in the report comes from the scoring module, which returns 0.0 with
    a warning on a zero denominator; for bootstrap draws a NaN is dropped and counted.)
    """
    gen = np.asarray(gen_ans, dtype=float)
    ir = np.asarray(ir_ans, dtype=float)
    den = gen + ir
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (gen - ir) / np.where(den > 0, den, 1.0), np.nan)


# ----------------------------------------------------------------------------- end to end
def reader_request_rows(records: Sequence[dict], model: str, dataset: str, prompt: str, closed_book_prompt: str,
                        context_orders: Sequence[str], max_new_tokens: int, seed: int, threshold: float,
                        system_message: str = "", *,
                        shuffle_seed: int | None = None) -> tuple[list[dict], list[dict]]:
    """Request rows (DIFFGR_READER_ANSWERS columns up to ``request_id``) and DIFFGR_LENGTHS rows.

    ``system_message`` ('' = none) precedes every user prompt; ``shuffle_seed`` seeds the
    ``random`` order's arrangements (required with that order, see :func:`plan_reader_prompts`)."""
    sampling = greedy_sampling(max_new_tokens, seed)
    prompts, lengths = plan_reader_prompts(records, prompt, closed_book_prompt, context_orders,
                                           shuffle_seed=shuffle_seed)
    rows = [{"model": model, "dataset": dataset, "question_id": p["question_id"], "run": p["run"],
             "order": p["order"], "context_order": p["context_order"],
             **request_columns(p["prompt"], sampling, system_message)} for p in prompts]
    length_rows = [{"dataset": dataset, **ln, "within_threshold": bool(ln["length_rel_diff"] <= threshold)}
                   for ln in lengths]
    return rows, length_rows


def reader_answer_rows(request_rows: Sequence[dict], generations: Sequence) -> list[dict]:
    """DIFFGR_READER_ANSWERS rows: request + verbatim response, ``answer`` = stripped response
    (for display; the scorer reads ``raw_response``)."""
    if len(request_rows) != len(generations):
        raise ValueError(f"{len(request_rows)} requests but {len(generations)} generations")
    return [{**r, "raw_response": g.text, "answer": g.text.strip(), **provenance_columns(g)}
            for r, g in zip(request_rows, generations)]


def merged_items(answer_rows: Sequence[dict], records: Sequence[dict], length_rows: Sequence[dict],
                 order: str) -> list[tuple[str, "object"]]:
    """``(question_id, scoring.diffgr.MergedItem)`` per question for one hybrid context order.

    The passages are the ones the readers saw (first retrieved, chosen generated); the
    answers are the raw responses (the official check runs on the response as generated).
    A question missing any of its four reader answers raises ``ValueError`` naming it.
    """
    answers: dict[tuple[str, str], str] = {}
    for a in answer_rows:
        if a["run"] == "hybrid" and a["order"] != order:
            continue
        answers[(a["question_id"], a["run"])] = a["raw_response"]
    chosen = {ln["question_id"]: ln["generated_index"] for ln in length_rows}
    out = []
    for rec in records:
        qid = rec["question_id"]
        missing = [run for run in RUNS if (qid, run) not in answers]
        if missing:
            raise ValueError(f"question {qid}: no reader answer for runs {missing} (order {order})")
        out.append((qid, MergedItem(
            question=rec["question"], answers=tuple(rec["answers"]),
            generated_passage=rec["generated_passages"][chosen[qid]],
            retrieved_passage=rec["retrieved_passages"][0],
            gen_ans=answers[(qid, "generated")], ir_ans=answers[(qid, "retrieved")],
            com_ans=answers[(qid, "hybrid")], llm_ans=answers[(qid, "closed_book")],
        )))
    return out


_STAGE_COUNTERS = (("n_unknown", "unknown"), ("n_not_in_context", "not_in_context"),
                   ("n_parametric", "parametric"), ("n_both_right", "both_right"), ("n_both_wrong", "both_wrong"))


def cc_stage(item) -> str:
    """Where the official CC construction (``scoring.diffgr.build_conflict_sets``) puts one item."""
    sets = build_conflict_sets([item])
    if sets.aig:
        return "AIG"
    if sets.air:
        return "AIR"
    for counter, stage in _STAGE_COUNTERS:
        if getattr(sets, counter):
            return stage
    raise AssertionError("build_conflict_sets placed the item nowhere")  # pragma: no cover


def cc_item_rows(model: str, dataset: str, order: str, items: Sequence[tuple[str, object]],
                 removed: set[str] = frozenset()) -> list[dict]:
    """DIFFGR_CC_ITEMS rows; questions in ``removed`` (length restriction) get ``length_removed``."""
    rows = []
    for qid, item in items:
        stage = "length_removed" if qid in removed else cc_stage(item)
        rows.append({"model": model, "dataset": dataset, "order": order, "question_id": qid, "stage": stage,
                     "hybrid_class": classify_hybrid_answer(item) if stage in ("AIG", "AIR") else "",
                     "gen_ans": item.gen_ans, "ir_ans": item.ir_ans, "llm_ans": item.llm_ans,
                     "com_ans": item.com_ans})
    return rows


def bootstrap_diffgr(gen: Sequence[int], ir: Sequence[int], draws: int, seed: int, level: float) -> dict:
    """Percentile bootstrap interval of DiffGR over questions.

    ``gen`` / ``ir`` are per-question 0/1 indicators (hybrid answer classified Gen-Ans /
    IR-Ans) of one subset. Questions are resampled with replacement ``draws`` times
    (seeded PCG64 via ``evidence_ledger.resampling.bootstrap``); a draw with Gen + IR = 0 has no DiffGR
    and is dropped and counted (``n_undefined``). Empty input -> NaN interval.
    """
    n = len(gen)
    if n == 0 or draws <= 0:
        return {"ci_low": math.nan, "ci_high": math.nan, "n_draws": int(max(draws, 0)), "n_undefined": 0}
    counts = np.column_stack([np.asarray(gen, dtype=np.int64), np.asarray(ir, dtype=np.int64)])[:, None, :]
    values = bootstrap_draws(counts, lambda tot: diffgr_from_counts(tot[:, 0, 0], tot[:, 0, 1])[:, None],
                             draws=int(draws), seed=int(seed), resample_seeds=False)[:, 0]
    ok = values[~np.isnan(values)]
    if ok.size == 0:
        return {"ci_low": math.nan, "ci_high": math.nan, "n_draws": int(draws), "n_undefined": int(draws)}
    lo, hi = percentile_interval(ok[:, None], (1.0 - level) / 2.0)
    return {"ci_low": float(lo[0]), "ci_high": float(hi[0]), "n_draws": int(draws),
            "n_undefined": int(draws - ok.size)}


SUBSETS = (("AIG", "aig"), ("AIR", "air"))


def diffgr_summary_rows(model: str, dataset: str, order: str, items: Sequence[tuple[str, object]],
                        removed: set[str], draws: int, seed: int, level: float) -> list[dict]:
    """One row per subset (AIG, AIR): shares, DiffGR (scoring module), neither rate, interval,
    and the CC-construction counts (the same for both subset rows)."""
    kept = [item for qid, item in items if qid not in removed]
    sets = build_conflict_sets(kept)
    counts = {"n_questions": len(items), "n_length_removed": len(items) - len(kept), "n_merged": sets.n_merged,
              "n_unknown": sets.n_unknown, "n_not_in_context": sets.n_not_in_context,
              "n_parametric": sets.n_parametric, "n_both_right": sets.n_both_right,
              "n_both_wrong": sets.n_both_wrong}
    rows = []
    for name, attr in SUBSETS:
        subset_items = getattr(sets, attr)
        pref = subset_preference(subset_items, name)
        classes = [classify_hybrid_answer(i) for i in subset_items]
        boot = bootstrap_diffgr([c == "Gen-Ans" for c in classes], [c == "IR-Ans" for c in classes],
                                draws, seed, level)
        rows.append({"model": model, "dataset": dataset, "order": order, "subset": name, "n": pref["n"],
                     "gen_ans": pref["gen_ans"], "ir_ans": pref["ir_ans"], "llm_ans": pref["llm_ans"],
                     "others": pref["others"], "neither_rate": pref["llm_ans"] + pref["others"],
                     "diffgr": pref["diffgr"], "diffgr_defined": bool(pref["gen_ans"] + pref["ir_ans"] > 0),
                     **boot, "level": level, **counts})
    return rows
