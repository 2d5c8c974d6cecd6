"""``python -m evidence_ledger score {<format>...,diffgr}``: score official files, print JSON.

One sub-command per accounted format (``prediction_files.format_registry``: FEVER, FEVEROUS,
SciFact, KILT and any plugin format; each format module holds its arguments and its scorer
call), and ``score diffgr`` (DiffGR's four reader files, ``scoring.diffgr``). Each prints one
JSON object on stdout (fractions in [0, 1]) and exits 0; on malformed input it prints
``error: FILE:LINE: field 'F': message`` on stderr and exits 2. Warnings (degenerate inputs
scored as 0.0) go to stderr, one line each.

  score fever    (--gold GOLD.jsonl | --self-contained-gold) --predictions PRED.jsonl [--max-evidence 5]
                 [--match positional]
  score feverous (--gold DEV.jsonl | --self-contained-gold) --predictions PRED.jsonl [--max-evidence 5]
                 [--max-evidence-cell 25] [--match positional]
  score scifact  --gold claims_dev.jsonl --predictions PRED.jsonl [--max-sentences 3]
                 [--sentence-cap fixed|leaderboard] [--missing-claims refuse|empty|skip]
  score kilt     --gold GOLD.jsonl --predictions PRED.jsonl [--ks 1,5,10,20] [--rank-keys wikipedia_id[,...]]
                 [--retrieval-only]
  score diffgr   --hybrid H.jsonl --generated-only G.jsonl --retrieved-only R.jsonl --closed-book C.jsonl

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
"""
from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from ..prediction_files.format_registry import format_names, get_format
from ..scoring import diffgr
from .warning_lines import warnings_as_lines

EXIT_INPUT_ERROR = 2


def _run_diffgr(args) -> dict:
    return diffgr.score_files(args.hybrid, args.generated_only, args.retrieved_only, args.closed_book)


def _run_format(args) -> dict:
    return get_format(args.benchmark).score_files(args)


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


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``score`` command (one scorer per format, and DiffGR's) to a ``add_subparsers()`` object."""
    score = subparsers.add_parser(
        "score", help="score official submission files (prints JSON)",
        description="Score official submission files with the official semantics; prints one JSON object.")
    sub = score.add_subparsers(dest="benchmark", required=True)
    for name in format_names():
        fmt = get_format(name)
        p = sub.add_parser(name, help=fmt.score_help, description=fmt.score_description)
        fmt.add_score_arguments(p)
        p.set_defaults(func=run_score, score_func=_run_format)

    p = sub.add_parser("diffgr", help="DiffGR per context-conflicting subset (RetrieveOrGenerated semantics)",
                       description="Prints {aig: {diffgr, gen_ans, ir_ans, llm_ans, others, n}, air: {...}} "
                                   "from four reader-output JSONL files matched by question.")
    p.add_argument("--hybrid", required=True, help="answers given both contexts (carries answer + passages)")
    p.add_argument("--generated-only", required=True, help="answers given the generated context only")
    p.add_argument("--retrieved-only", required=True, help="answers given the retrieved context only")
    p.add_argument("--closed-book", required=True, help="answers given no context")
    p.set_defaults(func=run_score, score_func=_run_diffgr)
    return score
