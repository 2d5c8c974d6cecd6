"""Synthetic KILT files at retrieval scale, for the `score kilt` and `account kilt` benchmarks.

In:  a folder, the number of gold items, the ranked pages per item, and per run how often
     the gold pages are ranked and how often the label is right; a seed.
Out: a KILT gold file shaped like KILT's FEVER dev set (``{"id", "input", "output": [{"answer":
     SUPPORTS | REFUTES, "provenance": [{"wikipedia_id", "title"}]}]}``, 1-3 evidence sets of 1-2
     pages) and KILT prediction files shaped like a retriever's run scored the way Pyserini's
     KILT reproduction scores it (``--ks 1,100,1000``): every item ranks ``pages`` pages
     (``{"wikipedia_id": "<id>"}``, ids drawn from KILT's 5.9 million knowledge-source pages),
     each gold evidence set ranked with probability ``p_found`` at ranks drawn from a heavy
     tail (many near the top, some deep), and one answer. 10,444 items x 1,000 pages make a
     301 MB file. Lines are formatted directly (a page id is digits), for speed.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

KNOWLEDGE_SOURCE_PAGES = 5_903_530  # pages of KILT's Wikipedia snapshot (kilt_knowledgesource.json)
LABELS = ("SUPPORTS", "REFUTES")


def write_ranked_gold(path: Path, items: int, rng: np.random.Generator) -> list[list[list[str]]]:
    """Write the gold file; per item its evidence sets (page ids)."""
    evidence, lines = [], []
    for i in range(items):
        sets = [[str(p) for p in rng.integers(0, KNOWLEDGE_SOURCE_PAGES, size=int(rng.integers(1, 3)))]
                for _ in range(int(rng.integers(1, 4)))]
        outputs = [{"answer": LABELS[i % 2], "provenance": [{"wikipedia_id": p, "title": f"Page {p}"} for p in s]}
                   for s in sets]
        lines.append(json.dumps({"id": i, "input": f"claim {i}", "output": outputs}))
        evidence.append(sets)
    path.write_text("\n".join(lines) + "\n")
    return evidence


def ranked_pages(rng: np.random.Generator, sets: list[list[str]], pages: int, p_found: float) -> list[str]:
    """``pages`` page ids, random, with each gold set's pages placed at heavy-tailed ranks with
    probability ``p_found``."""
    ranked = list(map(str, rng.integers(0, KNOWLEDGE_SOURCE_PAGES, size=pages).tolist()))
    for e_set in sets:
        if rng.random() < p_found:
            for page in e_set:
                ranked[min(pages, int(rng.zipf(1.3))) - 1] = page
    return ranked


def write_ranked_run(path: Path, evidence: list[list[list[str]]], rng: np.random.Generator, pages: int,
                     p_found: float, p_right: float) -> None:
    """One prediction file: per gold item (in gold order) its ranked pages and a label right
    with probability ``p_right``."""
    with path.open("w") as handle:
        for i, sets in enumerate(evidence):
            answer = LABELS[i % 2] if rng.random() < p_right else LABELS[1 - i % 2]
            provenance = ", ".join('{"wikipedia_id": "%s"}' % page for page in ranked_pages(rng, sets, pages, p_found))
            handle.write('{"id": %d, "output": [{"answer": "%s", "provenance": [%s]}]}\n' % (i, answer, provenance))


def write_ranked_world(root: Path, items: int, pages: int, runs: dict[str, list[tuple[float, float]]],
                       seed: int) -> tuple[Path, dict[str, list[Path]]]:
    """The gold file and, per source of ``runs``, one prediction file per ``(p_found, p_right)``
    under ``root``."""
    rng = np.random.default_rng(seed)
    gold = root / "gold-kilt.jsonl"
    evidence = write_ranked_gold(gold, items, rng)
    files: dict[str, list[Path]] = {}
    for source, shapes in runs.items():
        files[source] = []
        for run, (p_found, p_right) in enumerate(shapes):
            path = root / f"{source}_run{run + 1}.jsonl"
            write_ranked_run(path, evidence, rng, pages, p_found, p_right)
            files[source].append(path)
    return gold, files
