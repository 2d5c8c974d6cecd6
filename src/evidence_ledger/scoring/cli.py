"""``python -m evidence_ledger score {fever,feverous,scifact,kilt,diffgr}``: score official files.

Each sub-command prints one JSON object on stdout (fractions in [0, 1]) and exits 0; on
malformed input it prints ``error: FILE:LINE: field 'F': message`` on stderr and exits 2.
Warnings (degenerate inputs scored as 0.0) go to stderr.

  score fever    (--gold GOLD.jsonl | --self-contained-gold) --predictions PRED.jsonl [--max-evidence 5]
                 [--match positional]
  score feverous (--gold DEV.jsonl | --self-contained-gold) --predictions PRED.jsonl [--max-evidence 5]
                 [--max-evidence-cell 25] [--match positional]
  score scifact  --gold claims_dev.jsonl --predictions PRED.jsonl [--max-sentences 3]
                 [--sentence-cap fixed|leaderboard] [--missing-claims refuse|empty|skip]

Matching (FEVER, FEVEROUS): by id whenever every prediction line has an ``id``; by position
only with ``--match positional`` or when no prediction line has an id, and then a warning on
stderr and ``"matching": "position"`` in the JSON; ids are then not used, and lines whose
prediction id differs from the gold id are counted (``"id_disagreements"``).
Where gold comes from (FEVER, FEVEROUS): with ``--gold`` the gold file is the only source; a
prediction line's own ``label`` / ``evidence`` is ignored (counted as ``"own_gold_ignored"``,
warned on stderr). ``--self-contained-gold`` (instead of ``--gold``) scores every line against
its own ``label`` and ``evidence``, as the official scorers do without a gold file
(``"matching": "self"``). One of the two is required.
Every numeric option has a range (a negative count is an argparse error, exit 2).
  score kilt     --gold GOLD.jsonl --predictions PRED.jsonl [--ks 1,5,10,20] [--rank-keys wikipedia_id[,...]]
                 [--retrieval-only]
  score diffgr   --hybrid H.jsonl --generated-only G.jsonl --retrieved-only R.jsonl --closed-book C.jsonl
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import warnings

from evidence_ledger.errors import InputError

from . import diffgr, fever, feverous, kilt, scifact

EXIT_INPUT_ERROR = 2


MATCH_CHOICES = {"auto": "auto", "positional": "position"}


def count_at_least(minimum: int):
    """argparse type: an integer >= ``minimum`` (a clear error instead of Python slicing surprises)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


def add_gold_source(parser: argparse.ArgumentParser, gold_help: str) -> None:
    """``--gold FILE`` or ``--self-contained-gold``: exactly one (argparse error, exit 2, otherwise)."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gold", help=f"{gold_help}: the only source of gold labels and evidence; prediction "
                                       f"lines' own label/evidence are ignored and counted (own_gold_ignored)")
    source.add_argument("--self-contained-gold", action="store_true",
                        help="no gold file: score every prediction line against its own label and evidence "
                             "(the official scorers' behaviour without a gold file)")


def add_scorer_options(parser: argparse.ArgumentParser, benchmark: str) -> None:
    """The official scorer's options of ``benchmark`` (``fever``, ``feverous``, ``scifact``):
    evidence items or sentences scored, line pairing, SciFact's sentence cap (shared by the
    ``score`` and ``account`` commands)."""
    if benchmark == "fever":
        parser.add_argument("--max-evidence", type=count_at_least(0), default=fever.MAX_EVIDENCE,
                            help="predicted evidence items scored, >= 0 (default %(default)s)")
    elif benchmark == "feverous":
        parser.add_argument("--max-evidence", type=count_at_least(0), default=feverous.MAX_EVIDENCE,
                            help="non-cell items scored, >= 0 (default %(default)s)")
        parser.add_argument("--max-evidence-cell", type=count_at_least(0), default=feverous.MAX_EVIDENCE_CELL,
                            help="cell / item / table_caption / header_cell items scored, >= 0 (default %(default)s)")
    if benchmark in ("fever", "feverous"):
        parser.add_argument("--match", choices=sorted(MATCH_CHOICES), default="auto",
                            help="pair predictions with gold claims by id (auto) or by line position")
    if benchmark == "scifact":
        parser.add_argument("--max-sentences", type=count_at_least(1), default=scifact.MAX_ABSTRACT_SENTS,
                            help="rationale sentences per abstract for abstract-level scoring, >= 1 "
                                 "(default %(default)s)")
        parser.add_argument("--sentence-cap", choices=scifact.SENTENCE_CAPS, default="fixed",
                            help="fixed: the first --max-sentences (repo evaluator); leaderboard: max(--max-sentences, "
                                 "shortest gold rationale) per abstract (scifact-evaluator eval.py)")


def comma_list(item_type, what: str):
    """argparse type: a comma-separated list of distinct ``item_type`` values (``what`` names one)."""
    def parse(text: str) -> list:
        items = [piece.strip() for piece in text.split(",")]
        values = []
        for piece in items:
            value = item_type(piece)
            if value in values:
                raise argparse.ArgumentTypeError(f"{what} {piece!r} given twice")
            values.append(value)
        return values
    parse.__name__ = f"comma-separated {what}s"
    return parse


def positive_k(text: str) -> int:
    """One cut-off of ``--ks``: an integer >= 1 (KILT's get_rank asserts k > 0)."""
    return count_at_least(1)(text)


def rank_key_name(text: str) -> str:
    """One name of ``--rank-keys``: a non-empty provenance field name."""
    if not text:
        raise argparse.ArgumentTypeError("a rank key name is empty")
    return text


def _run_kilt(args) -> dict:
    return kilt.score_kilt_files(args.gold, args.predictions, ks=args.ks, rank_keys=args.rank_keys,
                                 retrieval_only=args.retrieval_only)


def _run_fever(args) -> dict:
    return fever.score_files(args.gold, args.predictions, args.max_evidence, match=MATCH_CHOICES[args.match],
                             self_contained_gold=args.self_contained_gold).as_dict()


def _run_feverous(args) -> dict:
    return feverous.score_files(args.gold, args.predictions, args.max_evidence, args.max_evidence_cell,
                                match=MATCH_CHOICES[args.match],
                                self_contained_gold=args.self_contained_gold).as_dict()


def _run_scifact(args) -> dict:
    return scifact.score_files(args.gold, args.predictions, args.max_sentences, args.sentence_cap,
                               missing=args.missing_claims)


def _run_diffgr(args) -> dict:
    return diffgr.score_files(args.hybrid, args.generated_only, args.retrieved_only, args.closed_book)


def run_score(args) -> int:
    """Run the selected scorer, print its JSON result; exit code 2 on malformed input."""
    with warnings_as_lines():
        try:
            result = args.score_func(args)
        except InputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INPUT_ERROR
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INPUT_ERROR
    print(json.dumps(result, sort_keys=False))
    return 0


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr)


@contextlib.contextmanager
def warnings_as_lines():
    """Every warning given inside as one ``warning: MESSAGE`` line on stderr, none left out as a
    repeat (the ``score`` and ``account`` commands)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _warning_to_stderr
        yield


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``score`` command (with its five scorers) to a ``add_subparsers()`` object."""
    score = subparsers.add_parser(
        "score", help="score official submission files (prints JSON)",
        description="Score official submission files with the official semantics; prints one JSON object.")
    sub = score.add_subparsers(dest="benchmark", required=True)

    p = sub.add_parser("fever", help="FEVER score (sheffieldnlp/fever-scorer semantics)",
                       description="Prints {strict_score, label_accuracy, precision, recall, f1}. Predictions "
                                   "are matched to gold by id; by position (the official blind mode) only with "
                                   "--match positional or when no prediction has an id. Gold comes from --gold "
                                   "only, or, asked for with --self-contained-gold, from each line's own label "
                                   "and evidence.")
    add_gold_source(p, "gold JSONL (id, label, evidence groups)")
    p.add_argument("--predictions", required=True, help="JSONL with predicted_label, predicted_evidence")
    add_scorer_options(p, "fever")
    p.set_defaults(func=run_score, score_func=_run_fever)

    p = sub.add_parser("feverous", help="FEVEROUS score (Raldir/FEVEROUS semantics)",
                       description="Prints {strict_score, label_accuracy, precision, recall, f1}. Gold is the "
                                   "official dev/train JSONL (header line allowed); predicted_evidence items "
                                   "are id strings or [page, type, position] triples.")
    add_gold_source(p, "official dev/train JSONL")
    p.add_argument("--predictions", required=True)
    add_scorer_options(p, "feverous")
    p.set_defaults(func=run_score, score_func=_run_feverous)

    p = sub.add_parser("scifact", help="SciFact abstract/sentence P/R/F1 (allenai/scifact semantics)",
                       description="Prints {abstract_label_only, abstract_rationalized, sentence_selection, "
                                   "sentence_label}, each {precision, recall, f1}. Gold claims without a "
                                   "prediction are refused unless --missing-claims says how to score them.")
    p.add_argument("--gold", required=True, help="claims_*.jsonl")
    p.add_argument("--predictions", required=True, help="JSONL {id, evidence: {doc_id: {sentences, label}}}")
    add_scorer_options(p, "scifact")
    p.add_argument("--missing-claims", choices=scifact.MISSING_CLAIMS, default="refuse",
                   help="gold claims without a prediction line: refuse (default, as the leaderboard), empty "
                        "(predicting nothing: they count in recall) or skip (left out of recall, as the repo "
                        "evaluator's compute_metrics); the JSON then carries missing_claims {count, scored_as}")
    p.set_defaults(func=run_score, score_func=_run_scifact)

    p = sub.add_parser("kilt", help="KILT downstream, KILT-* and retrieval scores (facebookresearch/KILT semantics)",
                       description="Prints {kilt: {KILT-accuracy, KILT-em, KILT-f1, KILT-rougel}, downstream: "
                                   "{accuracy, em, f1, rougel}, retrieval: {Rprec, recall@5}} as kilt/eval_downstream.py "
                                   "computes them, and counts; with --ks or --rank-keys also eval_retrieval: what "
                                   "kilt/eval_retrieval.py computes (Rprec, precision@k, recall@k, success_rate@k, "
                                   "answer_in_context@k, answer_and_ent_in_context@k, entity_in_context@k, "
                                   "entity_in_input). Predictions are matched to gold items by id.")
    p.add_argument("--gold", required=True, help="KILT gold JSONL (id, input, output: [{answer, provenance}])")
    p.add_argument("--predictions", required=True, help="KILT prediction JSONL (id, output: exactly one "
                                                       "{answer, provenance})")
    p.add_argument("--ks", type=comma_list(positive_k, "cut-off"), default=None,
                   help=f"cut-offs of eval_retrieval, integers >= 1 (default when --rank-keys is given: "
                        f"{','.join(map(str, kilt.RETRIEVAL_KS))})")
    p.add_argument("--rank-keys", type=comma_list(rank_key_name, "rank key"), default=None,
                   help=f"provenance fields that identify a retrieved unit in eval_retrieval (default when --ks is "
                        f"given: {','.join(kilt.KILT_RANK_KEYS)}; KILT-* always use wikipedia_id)")
    p.add_argument("--retrieval-only", action="store_true",
                   help="only eval_retrieval, as kilt/eval_retrieval.py scores it: answers are not needed; the "
                        "scored output of a prediction is its one output with provenance")
    p.set_defaults(func=run_score, score_func=_run_kilt)

    p = sub.add_parser("diffgr", help="DiffGR per context-conflicting subset (RetrieveOrGenerated semantics)",
                       description="Prints {aig: {diffgr, gen_ans, ir_ans, llm_ans, others, n}, air: {...}} "
                                   "from four reader-output JSONL files matched by question.")
    p.add_argument("--hybrid", required=True, help="answers given both contexts (carries answer + passages)")
    p.add_argument("--generated-only", required=True, help="answers given the generated context only")
    p.add_argument("--retrieved-only", required=True, help="answers given the retrieved context only")
    p.add_argument("--closed-book", required=True, help="answers given no context")
    p.set_defaults(func=run_score, score_func=_run_diffgr)
    return score


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m evidence_ledger.scoring.cli score ...``)."""
    parser = argparse.ArgumentParser(prog="python -m evidence_ledger")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
