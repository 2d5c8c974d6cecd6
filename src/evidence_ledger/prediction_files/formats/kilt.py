"""KILT prediction files (``account kilt``, ``score kilt``, ``external.kilt``).

In:  a KILT gold file (``<task>-dev-kilt.jsonl``: ``{id, input, output: [{answer, provenance}]}``),
     prediction files in KILT's format (``{id, output: [{answer, provenance: [{wikipedia_id,
     ...}]}]}``, exactly one output) and the downstream metric (``accuracy``, ``em``, ``f1``,
     ``rougel``), named, or implied by the KILT task (:data:`KILT_TASK_METRICS`).
Out: the registered :class:`KiltFormat`: per gold item the answer metric (``answer``; F1 and
     ROUGE-L continuous), the R-precision of the provenance ranked by ``wikipedia_id``
     (``evidence``) and its eligibility ``[R-precision = 1]`` (``eligible``), so
     ``T_ab = 100 * mean_k answer_a * eligible_b`` is the official ``KILT-<metric>`` of a file
     holding run ``a``'s answers and run ``b``'s provenance (KILT: a Benchmark for Knowledge
     Intensive Language Tasks, Petroni et al., 2021; ``eval_downstream.py``). Its cells'
     accounting metric is ``kilt`` (``accounting.metrics``: numerators in float64, ``T = 100 C / N``).

Every file is scored by ``scoring.kilt`` (the ``score kilt`` command's code), the gold file read
once per process. Bad input (a missing or repeated id, a prediction without exactly one output,
an output without an answer, a gold item without an answer) is an ``InputError`` naming the file
and line (``scoring.kilt_files``); what the official code skips or accepts silently is counted in
the facts (the gold file's own, :data:`GOLD_FACTS`, once) and warned.
"""
from __future__ import annotations

import argparse
import warnings
from typing import Mapping

from ...accounting.metrics import register_panel_metric
from ...errors import ExpectedError
from ...scoring import kilt
from ..format_registry import AccountedFormat, register_format
from ..item_scores import ItemScores
from ..options import comma_list, count_at_least

#: the KILT datasets as its files name them, with the downstream metric the KILT paper reports for
#: each (Table 3): accuracy for fact checking, entity linking and slot filling, exact match for
#: open-domain QA, ROUGE-L for ELI5, F1 for Wizard of Wikipedia
KILT_TASK_METRICS = {
    "fever": "accuracy", "aidayago2": "accuracy", "wned": "accuracy", "cweb": "accuracy", "trex": "accuracy",
    "structured_zeroshot": "accuracy", "nq": "em", "hotpotqa": "em", "triviaqa": "em", "eli5": "rougel",
    "wow": "f1",
}
#: how the downstream metrics are written on the page and in the terminal (KILT's own output keys
#: are ``accuracy``, ``em``, ``f1``, ``rougel``)
METRIC_TITLES = {"accuracy": "accuracy", "em": "EM", "f1": "F1", "rougel": "ROUGE-L"}
#: counted facts of the gold file (the same in every run's scoring): counted once, not per file
GOLD_FACTS = ("gold_provenance_missing_rank_key", "rougel_empty_references", "gold_outputs_without_answer",
              "gold_outputs_without_provenance")
#: the accounting metric of KILT's cells: ``T = 100 * sum(score * eligible) / N``, continuous numerators
PANEL_METRIC = register_panel_metric("kilt", multiplier=1)
#: the provenance pages an item explorer shows of a prediction (KILT-* read the first R)
SHOWN_PROVENANCE = 5


def metric_title(metric: str) -> str:
    return METRIC_TITLES.get(metric, metric)


def check_kilt_metric(metric: str) -> str:
    if metric not in kilt.KILT_METRICS:
        raise ExpectedError(f"KILT metric {metric!r}: one of {list(kilt.KILT_METRICS)}")
    return metric


def kilt_metric_of(task: str | None, metric: str | None, *, task_key: str = "--task",
                   metric_key: str = "--metric") -> str:
    """The downstream metric: ``metric`` when given, else the KILT paper's metric of ``task``
    (:data:`KILT_TASK_METRICS`); neither is an error saying to give one."""
    if metric:
        return check_kilt_metric(metric)
    if task:
        if task not in KILT_TASK_METRICS:
            raise ExpectedError(f"{task_key} {task!r}: one of {list(KILT_TASK_METRICS)}")
        return KILT_TASK_METRICS[task]
    raise ExpectedError(f"KILT needs its downstream metric: give {metric_key} ({', '.join(kilt.KILT_METRICS)}) or "
                        f"{task_key} (the KILT dataset, e.g. nq; its metric as the KILT paper reports it)")


def continuous_rates(metric: str) -> tuple[tuple[str, str], ...]:
    """The rate rows of a KILT accounting with downstream ``metric`` (``accounting.answer_scores``'
    quantities): the answer metric, the R-precision and R-precision 1 per source, and Eq. 4."""
    title = metric_title(metric)
    return (
        (f"{metric}_0", f"KILT answer metric {title}, source-0 answers"),
        (f"{metric}_1", f"KILT answer metric {title}, source-1 answers"),
        (f"{metric}_diff", f"{title}, source 1 - source 0"),
        ("rprec_0", "mean R-precision of the source-0 provenance"),
        ("rprec_1", "mean R-precision of the source-1 provenance"),
        ("rprec_diff", "R-precision, source 1 - source 0"),
        ("eligibility_0", "items whose source-0 provenance has R-precision 1"),
        ("eligibility_1", "items whose source-1 provenance has R-precision 1"),
        ("eligibility_diff", "R-precision 1, source 1 - source 0"),
        ("eq4_covariance_0", "Eq. 4 covariance term of E0: cov(c_0, dE), c = answer metric"),
        ("eq4_covariance_1", "Eq. 4 covariance term of E1: cov(c_1, dE), c = answer metric"),
    )


def kilt_metric_errors(key: str, entry: Mapping) -> list[str]:
    """An ``external.kilt.<system>`` entry names its downstream metric: ``task`` (a KILT dataset,
    the KILT paper's metric) or ``metric``, one of them."""
    task, metric = entry.get("task"), entry.get("metric")
    metrics = sorted(set(KILT_TASK_METRICS.values()))
    if task and metric:
        return [f"{key}: give task or metric, not both (task {task!r} already implies "
                f"{KILT_TASK_METRICS.get(task, '?')!r})"]
    if not task and not metric:
        return [f"{key}: give task (a KILT dataset: {', '.join(KILT_TASK_METRICS)}) or metric ({', '.join(metrics)}): "
                f"the downstream metric crossed with R-precision 1"]
    if task and task not in KILT_TASK_METRICS:
        return [f"{key}.task = {task!r} is not a KILT dataset ({', '.join(KILT_TASK_METRICS)})"]
    if metric and metric not in metrics:
        return [f"{key}.metric = {metric!r} is not a KILT downstream metric ({', '.join(metrics)})"]
    return []


def warn_if_prediction_file(gold_path: str, items) -> None:
    """A gold file none of whose items (``scoring.kilt_files.read_kilt_gold``) has an ``input`` is
    most likely a prediction file given as the gold (KILT's gold files give every item its input):
    scored as given, and said."""
    if items and not any("input" in item["record"] for item in items):
        warnings.warn(f"{gold_path}: none of its {len(items)} items has an 'input', which every KILT gold item "
                      f"has: is it a prediction file given as --gold? (scored as the gold file)", stacklevel=2)


def provenance_text(output: Mapping, shown: int = SHOWN_PROVENANCE) -> str:
    """A KILT output's provenance as text: the first ``shown`` pages (title, else wikipedia_id), and
    how many more it ranks."""
    provenance = [p for p in output.get("provenance") or [] if isinstance(p, dict)]
    pages = [str(p.get("title") or p.get("wikipedia_id", "?")) for p in provenance[:shown]]
    return "; ".join(pages) + (f" (+{len(provenance) - shown} more)" if len(provenance) > shown else "")


class OutputTexts:
    """Collects, per gold position, a scored output's answer and its provenance as text (the
    ``on_output`` of ``scoring.kilt.score_kilt_items``: read in the scoring's own pass)."""

    def __init__(self, size: int):
        self.answers = [""] * size
        self.evidence = [""] * size

    def __call__(self, position: int, output: Mapping) -> None:
        self.answers[position] = str(output.get("answer", ""))
        self.evidence[position] = provenance_text(output)


def gold_texts(items) -> dict[str, list[str]]:
    """The question (``input``) and the gold answers (joined by `` | ``) of each gold item."""
    return {"claim": [str(item["record"].get("input", "")) for item in items],
            "gold": [" | ".join(str(o["answer"]) for o in item["record"]["output"]
                                if isinstance(o.get("answer"), str) and o["answer"].strip()) for item in items]}


def rank_key_name(text: str) -> str:
    """One name of ``--rank-keys``: a non-empty provenance field name."""
    if not text:
        raise argparse.ArgumentTypeError("a rank key name is empty")
    return text


class KiltFormat(AccountedFormat):
    name = "kilt"
    title = "KILT"
    record_help = "{id, output: [{answer, provenance: [{wikipedia_id}]}]}"
    item_word = "items"
    panel_metric = PANEL_METRIC
    prediction_fields = ("id", "output")
    gold_key = "gold_file"
    gold_fields = ("id", "input", "output")
    entry_keys = ("task", "metric")
    renamed_keys = {"gold": "gold_file"}
    gold_facts = GOLD_FACTS
    evidence_name = "rprec"
    score_help = "KILT downstream, KILT-* and retrieval scores (facebookresearch/KILT semantics)"
    score_description = ("Prints {kilt: {KILT-accuracy, KILT-em, KILT-f1, KILT-rougel}, downstream: {accuracy, em, "
                         "f1, rougel}, retrieval: {Rprec, recall@5}} as kilt/eval_downstream.py computes them, and "
                         "counts; with --ks or --rank-keys also eval_retrieval: what kilt/eval_retrieval.py computes "
                         "(Rprec, precision@k, recall@k, success_rate@k, answer_in_context@k, "
                         "answer_and_ent_in_context@k, entity_in_context@k, entity_in_input). Predictions are "
                         "matched to gold items by id.")

    def add_account_options(self, parser) -> None:
        """``--metric`` or ``--task``: the downstream metric crossed with R-precision 1."""
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--metric", choices=kilt.KILT_METRICS, default=None,
                           help="the downstream metric of the answers (KILT-<metric>)")
        paper = "; ".join(f"{task}: {metric}" for task, metric in KILT_TASK_METRICS.items())
        which.add_argument("--task", choices=tuple(KILT_TASK_METRICS), default=None,
                           help=f"the KILT dataset, scored by its metric as the KILT paper reports it ({paper})")

    def settings_from_args(self, args) -> dict:
        return {"task": args.task, "metric": kilt_metric_of(args.task, args.metric)}

    def settings_from_entry(self, entry: Mapping, config: Mapping) -> dict:
        return {"task": entry.get("task"), "metric": entry.get("metric") or KILT_TASK_METRICS[entry["task"]]}

    def entry_errors(self, key: str, entry: Mapping, config: Mapping) -> list[str]:
        return kilt_metric_errors(key, entry)

    def add_score_arguments(self, parser) -> None:
        parser.add_argument("--gold", required=True, help="KILT gold JSONL (id, input, output: [{answer, provenance}])")
        parser.add_argument("--predictions", required=True, help="KILT prediction JSONL (id, output: exactly one "
                                                                 "{answer, provenance})")
        parser.add_argument("--ks", type=comma_list(count_at_least(1), "cut-off"), default=None,
                            help=f"cut-offs of eval_retrieval, integers >= 1 (default when --rank-keys is given: "
                                 f"{','.join(map(str, kilt.RETRIEVAL_KS))})")
        parser.add_argument("--rank-keys", type=comma_list(rank_key_name, "rank key"), default=None,
                            help=f"provenance fields that identify a retrieved unit in eval_retrieval (default when "
                                 f"--ks is given: {','.join(kilt.KILT_RANK_KEYS)}; KILT-* always use wikipedia_id)")
        parser.add_argument("--retrieval-only", action="store_true",
                            help="only eval_retrieval, as kilt/eval_retrieval.py scores it: answers are not needed; "
                                 "the scored output of a prediction is its one output with provenance")

    def score_files(self, args) -> dict:
        warn_if_prediction_file(args.gold, kilt.read_kilt_gold(args.gold, require_answer=not args.retrieval_only))
        return kilt.score_kilt_files(args.gold, args.predictions, ks=args.ks, rank_keys=args.rank_keys,
                                     retrieval_only=args.retrieval_only)

    def title_of(self, settings: Mapping) -> str:
        task = f"{settings['task']}, " if settings.get("task") else ""
        return f"KILT ({task}KILT-{settings['metric']})"

    def intro_note(self, settings: Mapping) -> str:
        metric = settings["metric"]
        return f" (KILT-{metric}: the answer's {metric_title(metric)} where the provenance has R-precision 1)."

    def recorded_settings(self, settings: Mapping) -> dict:
        return {"metric": settings["metric"], "rank_keys": ",".join(kilt.KILT_RANK_KEYS)}

    def answer_name(self, settings: Mapping) -> str:
        return settings["metric"]

    def rate_rows(self, settings: Mapping) -> tuple[tuple[str, str], ...]:
        return continuous_rates(settings["metric"])

    def page_layout(self, settings: Mapping) -> dict:
        metric = settings["metric"]
        title = metric_title(metric)
        return {"rates": [list(row) for row in continuous_rates(metric)[:9]],
                "rates_caption": f"KILT's downstream {title} of each source's answers, the R-precision of each "
                                 f"source's provenance (ranked by wikipedia_id) and the items it ranks perfectly "
                                 f"(R-precision 1: the items where KILT-{metric} can award a point); points.",
                "answer_name": metric,
                "eq4_note": f" c_a: the {title} of the source-a answer (continuous where the metric is); ΔE: the "
                            f"change in R-precision 1."}

    def check_gold(self, gold_path: str, settings: Mapping) -> None:
        warn_if_prediction_file(gold_path, kilt.read_kilt_gold(gold_path))

    def read_gold(self, gold_path: str, settings: Mapping):
        return gold_path, kilt.read_kilt_gold(gold_path)

    def score_file(self, gold, path: str, settings: Mapping) -> ItemScores:
        gold_path, items = gold
        metric = check_kilt_metric(settings["metric"])
        outputs = OutputTexts(len(items))
        scores = kilt.score_kilt_items(gold_path, path, rank_keys=kilt.KILT_RANK_KEYS, gold=items, metrics=(metric,),
                                       on_output=outputs)
        texts = {**gold_texts(items), "answer": outputs.answers, "evidence": outputs.evidence}
        return ItemScores(list(scores.ids), answer=scores.metric(metric), eligible=(scores.rprec == 1.0).astype("int64"),
                          evidence=scores.rprec, texts=texts, facts={k: int(v) for k, v in scores.facts.items()})


register_format(KiltFormat())
