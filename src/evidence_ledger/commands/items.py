"""``python -m evidence_ledger items DIR``: the items that carry a component most.

  items DIR --component {gain,E0,A1,A0,E1,interaction} [--top 20] [--pattern PATTERN]
        [--gold LABEL] [--comparison KEY] [--evidence]

DIR holds an accounting's ``items.parquet`` and, where present, ``item_texts.parquet``
(``tables.items``): an ``account --out`` directory, ``results/accounting/study1``,
``results/accounting/study2``, ``results/account/<system>``. For one comparison the command
prints the component (the mean of the items' shares), how many items raise, lower and leave it,
then the ``--top`` items with the largest share in absolute value (sign shown), each with its
gold, pattern, per-source answer score and eligibility, its claim or question and each
source's answers run by run (``--evidence``: also each source's evidence). ``--pattern`` keeps
the items whose pattern (T00 T01 T10 T11; ``1`` scores in every run, ``0`` in none, ``~`` in
some or partly) matches, ``.`` standing for any character: ``01..`` are the items that better
evidence turned from wrong to right with the source-0 answers.

A table of several comparisons (Study 2's cell sets) needs ``--comparison KEY``; without it the
command lists the comparisons, each with the component and its counts, and prints no items.
A DIR without ``items.parquet``, an unknown component or comparison, or a malformed pattern is
one ``error:`` line (exit 2).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ExpectedError, did_you_mean
from ..prediction_files.options import count_at_least
from ..report.item_listing import (ITEM_TEXTS_FILE, ITEMS_FILE, PATTERN_QUERY, SIGN_GROUPS, comparison_items,
                                   comparison_keys, item_texts, sign_counts, texts_file, top_items)
from ..report.study1_rows import STUDY1_COMPONENTS
from ..tables import SchemaMismatch
from ..tables.items import ITEM_COMPONENTS

INDENT = "    "


def share_text(value: float) -> str:
    """A share in points with its sign (``+12.50``, ``-0.0012``, ``0.00``)."""
    if value == 0:
        return "0.00"
    text = f"{abs(value):.2g}" if abs(value) < 0.01 else f"{abs(value):.2f}"
    return ("+" if value > 0 else "-") + text


def score_text(value: float) -> str:
    return "-" if value != value else f"{value:.2f}"


def counts_line(items, component: str) -> str:
    """The component and how many items raise, lower and leave it (with their summed shares)."""
    n = len(items)
    counts = sign_counts(items[component])
    mean = items[component].mean()
    parts = []
    for group, word in zip(SIGN_GROUPS, ("raise", "lower", "leave")):
        if group == "leaves":
            parts.append(f"{counts[group]:,} {word} it")
            continue
        chosen = items[component][(items[component] > 0) if group == "raises" else (items[component] < 0)]
        parts.append(f"{counts[group]:,} {word} it ({share_text(chosen.sum() / n)})")
    if counts["undefined"]:
        parts.append(f"{counts['undefined']:,} have no value")
    return f"{component} = {share_text(mean)} points over {n:,} items: " + ", ".join(parts)


def answers_lines(texts: list[dict], source: str) -> list[str]:
    answers = [t for t in texts if t["kind"] == "answer" and t["source"] == source]
    return [f"{INDENT * 2}replicate {t['replicate']}: " + t["text"].replace("\n", " / ") for t in answers]


def evidence_lines(texts: list[dict], source: str) -> list[str]:
    lines = []
    for t in (t for t in texts if t["kind"] == "evidence" and t["source"] == source):
        where = ", ".join(x for x in (t["budget"] and f"budget {t['budget']}",
                                      t["replicate"] >= 0 and f"replicate {t['replicate']}") if x)
        lines.append(f"{INDENT * 2}evidence{f' ({where})' if where else ''}:")
        lines += [INDENT * 3 + line for line in t["text"].splitlines() or [""]]
    return lines


def item_block(rank: int, row, component: str, texts: list[dict] | None, evidence: bool) -> str:
    """One listed item: its share, ids, gold, pattern, scores, claim and answers."""
    lines = [f"{rank:>3}. {component} {share_text(row[component])}  {row['item_id']}  gold {row['gold']}  "
             f"pattern {row['pattern']}  runs {row['runs']}"]
    if texts is None:
        return "\n".join(lines)
    claims = [t["text"] for t in texts if t["kind"] == "claim"]
    lines += [f"{INDENT}claim: {c}" for c in claims] or [f"{INDENT}claim: (none in the texts)"]
    for a, source in enumerate((row["source0"], row["source1"])):
        lines.append(f"{INDENT}{source}: answer score {score_text(row[f'answer_{a}'])}, eligible "
                     f"{score_text(row[f'eligible_{a}'])}")
        lines += answers_lines(texts, source)
        if evidence:
            lines += evidence_lines(texts, source)
    return "\n".join(lines)


def comparison_listing(directory: Path, key: str, args) -> str:
    """The header, the counts and the top items of comparison ``key``."""
    items = comparison_items(directory / ITEMS_FILE, key)
    first = items.iloc[0]
    meaning = dict(STUDY1_COMPONENTS)[args.component]
    lines = [f"{key}: {first['source0']} -> {first['source1']}", f"{args.component} ({meaning}):",
             INDENT + counts_line(items, args.component)]
    chosen = top_items(items, args.component, args.top, args.pattern, args.gold)
    where = "".join(f", {name} {value}" for name, value in (("pattern", args.pattern), ("gold", args.gold)) if value)
    lines.append(f"the {len(chosen)} item(s) with the largest |{args.component}|{where}:")
    texts_path = texts_file(directory)
    texts = item_texts(texts_path, first, chosen["item_id"]) if texts_path else None
    if texts_path is None:
        lines.append(f"(no {ITEM_TEXTS_FILE} in {directory}: ids and numbers only)")
    for rank, (_, row) in enumerate(chosen.iterrows(), start=1):
        lines += ["", item_block(rank, row, args.component,
                                 None if texts is None else texts.get(row["item_id"], []), args.evidence)]
    return "\n".join(lines)


def comparisons_overview(directory: Path, keys: list[str], component: str) -> str:
    lines = [f"{directory / ITEMS_FILE} holds {len(keys)} comparisons; choose one with --comparison KEY:"]
    for key in keys:
        lines.append(f"{INDENT}{key}: {counts_line(comparison_items(directory / ITEMS_FILE, key), component)}")
    return "\n".join(lines)


def checked_arguments(args) -> Path:
    """DIR, once its ``items.parquet`` exists and the component and pattern are known."""
    directory = Path(args.dir)
    if not (directory / ITEMS_FILE).is_file():
        raise ExpectedError(f"{directory}: no {ITEMS_FILE} here; give a directory an accounting wrote (an account "
                            "--out directory, results/accounting/study1, results/account/<system>)")
    if args.component not in ITEM_COMPONENTS:
        raise ExpectedError(f"--component {args.component}: not a component{did_you_mean(args.component, ITEM_COMPONENTS)}"
                            f"; the components: {', '.join(ITEM_COMPONENTS)}")
    if args.pattern is not None and not PATTERN_QUERY.fullmatch(args.pattern):
        raise ExpectedError(f"--pattern {args.pattern}: four characters of 0, 1, ~ or . (any), one per cell T00 T01 "
                            "T10 T11")
    return directory


def run_items(args) -> int:
    directory = checked_arguments(args)
    try:
        keys = comparison_keys(directory / ITEMS_FILE)
        if args.comparison is not None and args.comparison not in keys:
            raise ExpectedError(f"--comparison {args.comparison}: not in {directory / ITEMS_FILE}"
                                f"{did_you_mean(args.comparison, keys)}; its comparisons: {', '.join(keys)}")
        if not keys:
            print(f"{directory / ITEMS_FILE} holds no items")
        elif args.comparison is None and len(keys) > 1:
            print(comparisons_overview(directory, keys, args.component))
        else:
            print(comparison_listing(directory, args.comparison or keys[0], args))
    except SchemaMismatch as err:  # a table of another kind or version: the user's to fix
        raise ExpectedError(str(err)) from err
    return 0


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``items`` command to a ``add_subparsers()`` object."""
    p = subparsers.add_parser(
        "items", help="the items that carry a component most (an accounting's items.parquet)",
        description="Print the items of one comparison with the largest share of a component, with their claim "
                    "and each source's answers.")
    p.add_argument("dir", metavar="DIR", help="a directory holding items.parquet (and item_texts.parquet): an account "
                                             "--out directory, results/accounting/study1, ...")
    p.add_argument("--component", required=True, help=f"one of {', '.join(ITEM_COMPONENTS)}")
    p.add_argument("--top", type=count_at_least(1), default=20, help="items printed (default 20)")
    p.add_argument("--pattern", default=None, help="only items of this pattern (T00 T01 T10 T11: 0, 1, ~, and . for "
                                                   "any), e.g. 01.. (better evidence turned a wrong answer right)")
    p.add_argument("--gold", default=None, help="only items of this gold label (or gold answers, as the table has them)")
    p.add_argument("--comparison", default=None, metavar="KEY",
                   help="the comparison (study/dataset/system/format/parser/budget), where the table holds several")
    p.add_argument("--evidence", action="store_true", help="also print each source's evidence text")
    p.set_defaults(func=run_items)
    return p
