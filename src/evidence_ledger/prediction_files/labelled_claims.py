"""Prediction files that give each claim a label and the evidence cited for it (FEVER, FEVEROUS).

In:  a scorer module of ``evidence_ledger.scoring`` with ``read_gold`` and ``scored_lines`` (the
     official strict score claim by claim) and its evidence caps.
Out: :class:`LabelledClaimsFormat`, the part of such a format that does not depend on which
     benchmark it is: per claim ``answer`` = the label is right, ``eligible`` = the cited
     evidence holds a complete gold group (the NEI exemption of FEVER lives in the scorer's
     eligibility), the gold and predicted labels as classes, so ``strict_ab = answer_a *
     eligible_b`` claim by claim; the scorer's caps and line pairing as options of ``score`` and
     ``account``; how the lines were paired (:data:`MATCHING_FACTS`), reported when some file was
     paired by position, as ``score`` reports it.

A format module subclasses it with its scorer module, its caps (:attr:`LabelledClaimsFormat.caps`:
``(setting, flag, help)`` in the scorer's positional order) and its titles.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..benchmark_registry import get_benchmark
from ..errors import InputError
from ..report.study1_rows import STUDY1_RATES
from .format_registry import AccountedFormat
from .item_scores import ItemScores
from .options import MATCH_CHOICES, count_at_least

#: how a file's lines were paired with the gold lines (the ``score`` command's ``matching``,
#: ``id_disagreements`` and ``own_gold_ignored``), summed over the files
MATCHING_FACTS = ("files_matched_by_position", "id_disagreements", "own_gold_ignored")
MATCHING_ROWS = {"files_matched_by_position": "prediction files paired with the gold lines by position",
                 "id_disagreements": "lines paired by position whose prediction id is not the gold id"}
#: the terminal table's rows after the cells and components
LABEL_RATE_ROWS = (
    ("accuracy_0", "label accuracy, source-0 answers"), ("accuracy_1", "label accuracy, source-1 answers"),
    ("accuracy_diff", "label accuracy, source 1 - source 0"), ("macro_f1_diff", "macro-F1, source 1 - source 0"),
    ("eligibility_0", "claims whose source-0 evidence is eligible"),
    ("eligibility_1", "claims whose source-1 evidence is eligible"),
    ("eligibility_diff", "eligibility, source 1 - source 0"),
    ("eq4_covariance_0", "Eq. 4 covariance term of E0: cov(c_0, dE)"),
    ("eq4_covariance_1", "Eq. 4 covariance term of E1: cov(c_1, dE)"),
)


def cited_text(items, shown: int) -> str:
    """A prediction's cited evidence as text: its first ``shown`` items (FEVER ``[page, line]`` as
    ``page:line``, FEVEROUS ids or ``[page, type, position]`` triples as written), and how many more."""
    items = list(items) if isinstance(items, list) else []
    def one(item) -> str:
        return ":".join(map(str, item)) if isinstance(item, list) else str(item)
    text = "; ".join(one(item) for item in items[:shown])
    return text + (f" (+{len(items) - shown} more)" if len(items) > shown else "")


def check_unique_gold_ids(claim_ids, gold_lines, gold_path: str) -> None:
    """Claim ids are the resampling units: a gold file repeating one is refused (by position the
    scorers pair lines without looking at ids)."""
    first: dict[str, int] = {}
    for claim_id, line in zip(claim_ids, gold_lines):
        if claim_id in first:
            raise InputError(gold_path, line, "id", f"claim id {claim_id!r} occurs twice (lines {first[claim_id]} "
                                                    f"and {line})")
        first[claim_id] = line


class LabelledClaimsFormat(AccountedFormat):
    """A format of ``{id, predicted_label, predicted_evidence}`` lines scored by a strict scorer."""

    #: the scorer module (``read_gold``, ``scored_lines``, ``score_files``)
    scorer = None
    #: the scorer's evidence caps: ``(setting, flag, help)``, in its positional order
    caps: tuple[tuple[str, str, str], ...] = ()
    #: ``score <name>``'s help for its gold file
    gold_help: str = ""
    panel_metric = "strict"
    prediction_fields = ("id", "predicted_label", "predicted_evidence")
    gold_key = "gold_split"
    renamed_keys = {"gold": "gold_split"}

    def add_scorer_options(self, parser) -> None:
        for setting, flag, text in self.caps:
            parser.add_argument(flag, type=count_at_least(0), default=get_benchmark(self.name).scorer_caps[setting],
                                help=f"{text}, >= 0 (default %(default)s)")
        parser.add_argument("--match", choices=sorted(MATCH_CHOICES), default="auto",
                            help="pair predictions with gold claims by id (auto) or by line position")

    def settings_from_args(self, args) -> dict:
        return {**{setting: getattr(args, setting) for setting, _, _ in self.caps}, "match": MATCH_CHOICES[args.match]}

    def settings_from_entry(self, entry: Mapping, config: Mapping) -> dict:
        caps = get_benchmark(self.name).caps(config.get("scoring"))
        return {**{setting: caps[setting] for setting, _, _ in self.caps}, "match": MATCH_CHOICES["auto"]}

    def cap_values(self, settings: Mapping) -> tuple:
        return tuple(settings[setting] for setting, _, _ in self.caps)

    # --- score <name> ---------------------------------------------------------------------------
    def add_score_arguments(self, parser) -> None:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--gold", help=f"{self.gold_help}: the only source of gold labels and evidence; "
                                           f"prediction lines' own label/evidence are ignored and counted "
                                           f"(own_gold_ignored)")
        source.add_argument("--self-contained-gold", action="store_true",
                            help="no gold file: score every prediction line against its own label and evidence "
                                 "(the official scorers' behaviour without a gold file)")
        parser.add_argument("--predictions", required=True, help="JSONL with predicted_label, predicted_evidence")
        self.add_scorer_options(parser)

    def score_files(self, args) -> dict:
        settings = self.settings_from_args(args)
        return self.scorer.score_files(args.gold, args.predictions, *self.cap_values(settings), match=settings["match"],
                                       self_contained_gold=args.self_contained_gold).as_dict()

    # --- titles ---------------------------------------------------------------------------------
    def rate_rows(self, settings: Mapping) -> tuple[tuple[str, str], ...]:
        return LABEL_RATE_ROWS

    def page_layout(self, settings: Mapping) -> dict:
        return {"rates": [list(row) for row in STUDY1_RATES],
                "rates_caption": "Accuracy and macro-F1 of each source's answers (over the gold label set), and the "
                                 "claims whose cited evidence is eligible (points).",
                "answer_name": self.answer_name(settings), "eq4_note": ""}

    def matching(self, facts: Mapping) -> dict[str, int]:
        """The counts of :data:`MATCHING_FACTS` when some file was paired with the gold lines by
        position (else empty), as ``score`` reports ``id_disagreements`` only for positional pairing."""
        if int(facts.get("files_matched_by_position", 0)) == 0:
            return {}
        return {item: int(facts[item]) for item in MATCHING_FACTS if item in facts}

    def matching_rows(self) -> Mapping[str, str]:
        return MATCHING_ROWS

    # --- reading --------------------------------------------------------------------------------
    def read_gold(self, gold_path: str, settings: Mapping):
        return gold_path, self.scorer.read_gold(gold_path), {}

    def score_file(self, gold, path: str, settings: Mapping) -> ItemScores:
        gold_path, records, parsed = gold
        submission, lines = self.scorer.scored_lines(gold_path, path, *self.cap_values(settings),
                                                     match=settings["match"], gold=records, parsed_gold=parsed)
        claim_ids = [x.claim_id for x in lines]
        check_unique_gold_ids(claim_ids, [x.gold_line for x in lines], gold_path)
        shown = sum(self.cap_values(settings))
        gold_records = [g_rec for (_, _, g_rec), _ in submission.pairs]
        predictions = [p_rec for _, (_, p_rec) in submission.pairs]
        return ItemScores(
            claim_ids, answer=np.array([x.score.label_correct for x in lines], dtype=np.int64),
            eligible=np.array([x.score.evidence_eligible for x in lines], dtype=np.int64),
            classes=([x.gold_label.upper() for x in lines], [x.predicted_label.upper() for x in lines]),
            texts={"claim": [str(rec.get("claim", "")) for rec in gold_records],
                   "answer": [x.predicted_label for x in lines],
                   "evidence": [cited_text(rec.get("predicted_evidence"), shown) for rec in predictions]},
            facts={"files_matched_by_position": int(submission.mode == "position"),
                   "id_disagreements": submission.id_disagreements, "own_gold_ignored": submission.own_gold_ignored})

