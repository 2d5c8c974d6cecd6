"""Files of the toy format of ``toy_format.py``: a gold file and the runs of two sources.

``toy_world(root)`` writes ``toy_gold.jsonl`` and ``toy_<source>_<run>.jsonl`` under ``root`` and
returns their paths; the second source ranks the gold pages higher and answers more words right.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def toy_world(root: Path, n: int = 30, runs: int = 2, seed: int = 7):
    """A ToyQA gold file and ``runs`` prediction files per source (seeded)."""
    rng = np.random.default_rng(seed)
    gold = [{"id": f"q{i}", "question": f"question {i}", "answer": f"the answer number {i}",
             "pages": [f"P{i}"] + ([f"Q{i}"] if i % 3 == 0 else [])} for i in range(n)]
    gold_path = write_jsonl(root / "toy_gold.jsonl", gold)
    files = {}
    for source, (p_answer, p_page) in (("base", (0.4, 0.3)), ("new", (0.7, 0.7))):
        files[source] = []
        for run in range(runs):
            lines = []
            for record in gold:
                words = [w if rng.random() < p_answer else "wrong" for w in record["answer"].split()]
                pages = [f"N{record['id']}", *record["pages"]] if rng.random() > p_page else [*record["pages"], "N"]
                lines.append({"id": record["id"], "answer": " ".join(words), "pages": pages})
            files[source].append(write_jsonl(root / f"toy_{source}_{run}.jsonl", lines))
    return gold_path, files
