"""Benchmark of ``score kilt`` (writes benchmarks/results/kilt_score.json and kilt_score.md).

Two targets (docs/scoring.md, "KILT"), each measured end to end:
``python -m evidence_ledger score kilt --gold GOLD --predictions PRED`` in a subprocess (reading,
validating, every downstream, KILT-* and retrieval number), wall time of the fastest of
``--repeat`` runs (all recorded) and, in this process, the time of ``score_kilt_items``.

1. ``fever_dev_size``: 10,444 short-answer items (KILT's FEVER dev size), answers SUPPORTS /
   REFUTES, gold with 1-3 evidence sets of 1-2 pages, predictions citing 1-5 pages: target
   <= 5 s on 2 cores.
2. ``eli5_dev_shape``: 1,507 items (ELI5's dev size) whose answers are about 130 words in
   sentences of 8-25 words, five gold answers each, so 7,535 ROUGE-L comparisons of
   130-word texts: target <= 10 s on 2 cores.

The files are synthetic: words drawn from a Zipf-like vocabulary of 3,000 words (so answers
share their frequent words with the references, as real answers do), seeded.

Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/kilt_score.py   (options: --quick, --repeat, --out)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

from account import cpu_pressure, end_to_end  # noqa: E402  (the end-to-end timing of the account benchmark)

REPO = HERE.parent
TARGETS = {"fever_dev_size": {"wall_s": 5.0}, "eli5_dev_shape": {"wall_s": 10.0}}
CASES = {"fever_dev_size": {"items": 10444, "long_answers": False},
         "eli5_dev_shape": {"items": 1507, "long_answers": True, "references": 5, "words": 130}}
VOCABULARY = 3000


def long_answer(rng: np.random.Generator, words: int) -> str:
    """About ``words`` Zipf-drawn words in sentences of 8-25 words, each ended by " ."."""
    ranks = np.minimum(rng.zipf(1.3, size=words), VOCABULARY)
    tokens = [f"w{r}" for r in ranks]
    sentences, start = [], 0
    while start < len(tokens):
        end = start + int(rng.integers(8, 26))
        sentences.append(" ".join(tokens[start:end]) + " .")
        start = end
    return " ".join(sentences)


def pages(rng: np.random.Generator, n: int, n_items: int) -> list[dict]:
    return [{"wikipedia_id": str(int(rng.integers(0, 5 * n_items))), "title": f"Page {int(rng.integers(0, 99))}"}
            for _ in range(n)]


def write_world(root: Path, items: int, long_answers: bool, seed: int, references: int = 5,
                words: int = 130) -> tuple[Path, Path]:
    """A KILT gold file and one prediction file under ``root`` (see the module doc)."""
    rng = np.random.default_rng(seed)
    gold, predictions = [], []
    for i in range(items):
        if long_answers:
            outputs = [{"answer": long_answer(rng, words)} for _ in range(references)]
            outputs[0]["provenance"] = pages(rng, int(rng.integers(1, 4)), items)
            answer = long_answer(rng, words)
        else:
            label = ("SUPPORTS", "REFUTES")[i % 2]
            outputs = [{"answer": label, "provenance": pages(rng, int(rng.integers(1, 3)), items)}
                       for _ in range(int(rng.integers(1, 4)))]
            answer = label if rng.random() < 0.7 else ("REFUTES", "SUPPORTS")[i % 2]
        cited = pages(rng, int(rng.integers(1, 6)), items)
        if rng.random() < 0.5:
            cited[0] = dict(outputs[0]["provenance"][0])
        gold.append({"id": i, "input": f"question {i}", "output": outputs})
        predictions.append({"id": str(i), "output": [{"answer": answer, "provenance": cited}]})
    gold_path, predictions_path = root / "gold.jsonl", root / "predictions.jsonl"
    gold_path.write_text("".join(json.dumps(r) + "\n" for r in gold))
    predictions_path.write_text("".join(json.dumps(r) + "\n" for r in predictions))
    return gold_path, predictions_path


def command(gold: Path, predictions: Path) -> list[str]:
    return [sys.executable, "-m", "evidence_ledger", "score", "kilt", "--gold", str(gold),
            "--predictions", str(predictions)]


def rouge_comparisons(gold: Path) -> int:
    """ROUGE-L comparisons KILT makes: one per (item, distinct gold answer)."""
    from evidence_ledger.scoring.kilt_answers import gold_answers
    from evidence_ledger.scoring.kilt_files import read_kilt_gold

    return sum(len(gold_answers(item["record"]["output"])) for item in read_kilt_gold(gold))


def in_process_seconds(gold: Path, predictions: Path) -> float:
    """Seconds of ``score_kilt_items`` (reading both files and every per-item score) in this process."""
    from evidence_ledger.scoring.kilt import score_kilt_items

    start = time.perf_counter()
    score_kilt_items(gold, predictions)
    return round(time.perf_counter() - start, 2)


def markdown(result: dict) -> str:
    lines = ["# `score kilt` benchmark", "",
             f"Machine: {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
             f"{result['machine']['platform']}; load average {result['load_average_before']:.2f} before, "
             f"{result['load_average_after']:.2f} after; CPU pressure (PSI some avg60) "
             f"{result.get('cpu_pressure_before')}% before, {result.get('cpu_pressure_after')}% after "
             f"(0 on an idle machine).", "",
             "| case | items | ROUGE-L comparisons | wall s (fastest; all) | CPU s | score_kilt_items s | target |",
             "|---|---|---|---|---|---|---|"]
    for name, case in result["cases"].items():
        e = case["end_to_end"]
        target = ", ".join(f"{k} <= {v:g}" for k, v in TARGETS[name].items())
        lines.append(f"| {name} | {case['items']:,} | {case['rouge_comparisons']:,} | {e['wall_s']} "
                     f"({', '.join(map(str, e['wall_s_all']))}) | {e['cpu_s']} | {case['score_kilt_items_s']} | "
                     f"{target} ({'met' if case['met'] else 'missed'}) |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "kilt_score.json"))
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run; not the targets; writes nothing)")
    ap.add_argument("--repeat", type=int, default=3, help="end-to-end runs per case; the fastest is reported")
    args = ap.parse_args(argv)
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "load_average_before": os.getloadavg()[0], "cpu_pressure_before": cpu_pressure(), "cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            items = 60 if args.quick else case["items"]
            root = Path(tmp) / name
            root.mkdir()
            shape = {k: case[k] for k in ("references", "words") if k in case}
            gold, predictions = write_world(root, items, case["long_answers"], seed=11, **shape)
            tries = [end_to_end(command(gold, predictions)) for _ in range(args.repeat)]
            e2e = dict(min(tries, key=lambda t: t["wall_s"]), wall_s_all=[t["wall_s"] for t in tries])
            comparisons = rouge_comparisons(gold)
            met = all(e2e[k] <= v for k, v in TARGETS[name].items())
            result["cases"][name] = {"items": items, "rouge_comparisons": comparisons, "end_to_end": e2e,
                                     "score_kilt_items_s": in_process_seconds(gold, predictions), "met": met}
            print(name, json.dumps(result["cases"][name]), flush=True)
    result.update(load_average_after=os.getloadavg()[0], cpu_pressure_after=cpu_pressure())
    if not args.quick:
        write_results(result, Path(args.out))
    return result


def write_results(result: dict, out: Path) -> None:
    """``out`` (JSON) and the same name with ``.md`` (the table)."""
    out.write_text(json.dumps(result, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(result))


if __name__ == "__main__":
    main()
