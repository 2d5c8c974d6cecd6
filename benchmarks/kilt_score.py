"""Benchmark of ``score kilt`` (writes benchmarks/results/kilt_score.json and kilt_score.md).

Three targets (docs/scoring.md, "KILT"), each measured end to end:
``python -m evidence_ledger score kilt --gold GOLD --predictions PRED [...]`` in a subprocess
(reading, validating, every downstream, KILT-* and retrieval number), wall and CPU time of the
fastest of ``--repeat`` runs (all recorded), one more run sampling its memory, and, in this
process, the time of ``score_kilt_items``.

1. ``fever_dev_size``: 10,444 short-answer items (KILT's FEVER dev size), answers SUPPORTS /
   REFUTES, gold with 1-3 evidence sets of 1-2 pages, predictions citing 1-5 pages: target
   <= 5 s on 2 cores.
2. ``eli5_dev_shape``: 1,507 items (ELI5's dev size) whose answers are about 130 words in
   sentences of 8-25 words, five gold answers each, so 7,535 ROUGE-L comparisons of
   130-word texts: target <= 10 s on 2 cores.
3. ``retrieval_scale``: the same FEVER-size gold, every prediction ranking 1,000 pages
   (``ranked_kilt_runs``, a 301 MB file), scored as retrieval researchers score such runs,
   ``--ks 1,100,1000 --rank-keys wikipedia_id``: targets <= 1 GiB peak memory of the whole
   process tree and a wall time within 5x that of a bare line-by-line ``json.loads`` of the
   same file (measured beside it, ``account.bare_parse``). With ``--official PATHS`` (a
   facebookresearch/KILT checkout and where its ``rouge`` and ``nltk`` are installed,
   ``os.pathsep``-separated) the official ``kilt.eval_retrieval`` (same ks and rank key) and
   ``kilt.eval_downstream`` run on the same files too: their time and memory, and how many
   of the numbers they print ``score kilt`` prints identically.

Memory (``account.end_to_end``): the peak of the PSS summed over the command's process tree,
sampled every 100 ms from /proc, beside the RSS sum and the exact peak resident memory of the
largest single process (``wait4``'s ``ru_maxrss``).

The files of cases 1 and 2 are synthetic: words drawn from a Zipf-like vocabulary of 3,000 words
(so answers share their frequent words with the references, as real answers do), seeded.

Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/kilt_score.py   (options: --quick, --repeat, --out,
--cases, --official)
"""
from __future__ import annotations

import argparse
import ast
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

from account import bare_parse, cpu_pressure, end_to_end  # noqa: E402  (the account benchmark's measurements)
from ranked_kilt_runs import write_ranked_world  # noqa: E402

REPO = HERE.parent
TARGETS = {"fever_dev_size": {"wall_s": 5.0}, "eli5_dev_shape": {"wall_s": 10.0},
           "retrieval_scale": {"peak_pss_mib": 1024.0, "wall_over_bare_parse": 5.0}}
CASES = {"fever_dev_size": {"items": 10444, "long_answers": False},
         "eli5_dev_shape": {"items": 1507, "long_answers": True, "references": 5, "words": 130},
         "retrieval_scale": {"items": 10444, "pages": 1000, "ks": "1,100,1000", "rank_keys": "wikipedia_id"}}
RANKED_RUN = {"run": [(0.6, 0.7)]}  # one run: each gold set ranked for 60% of the items, the label right 70%
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


def command(gold: Path, predictions: Path, case: dict) -> list[str]:
    """``score kilt`` on the files, with the case's ``--ks`` and ``--rank-keys`` when it names them."""
    options = [item for key in ("ks", "rank_keys") if key in case for item in (f"--{key.replace('_', '-')}", case[key])]
    return [sys.executable, "-m", "evidence_ledger", "score", "kilt", "--gold", str(gold),
            "--predictions", str(predictions), *options]


def official_commands(gold: Path, predictions: Path, case: dict) -> dict[str, list[str]]:
    """The official scripts' command lines on the files, as their READMEs run them."""
    return {"eval_retrieval": [sys.executable, "-m", "kilt.eval_retrieval", str(predictions), str(gold), "--ks",
                               case["ks"], "--rank_keys", case["rank_keys"]],
            "eval_downstream": [sys.executable, "-m", "kilt.eval_downstream", str(predictions), str(gold)]}


def printed_values(printed: str, script: str) -> dict:
    """The numbers an official script printed (``pprint`` of its result, read as a literal),
    under the sections of the ``score kilt`` JSON (``eval_retrieval``'s result is an OrderedDict)."""
    value = ast.literal_eval(printed.strip().replace("OrderedDict(", "("))
    return {"eval_retrieval": dict(value)} if script == "eval_retrieval" else value


def identical_numbers(ours: dict, official: dict) -> tuple[int, int]:
    """``(numbers the official script printed, how many of them ours prints identically)``."""
    pairs = [(ours.get(section, {}).get(key), value) for section, values in official.items()
             for key, value in values.items()]
    return len(pairs), sum(1 for mine, theirs in pairs if mine == theirs)


def official_runs(gold: Path, predictions: Path, case: dict, paths: str, ours: dict, root: Path) -> dict:
    """Each official script on the files (``paths`` before PYTHONPATH): time, memory and the
    numbers it printed that ``ours`` (the ``score kilt`` JSON) prints identically."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [paths, os.environ.get("PYTHONPATH")]))}
    runs = {}
    for script, argv in official_commands(gold, predictions, case).items():
        printed = root / f"{script}.txt"
        measured = end_to_end(argv, sample_memory=True, stdout=printed, env=env)
        numbers, identical = identical_numbers(ours, printed_values(printed.read_text(), script))
        runs[script] = dict(measured, numbers=numbers, identical=identical)
    return runs


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
        lines.append(f"| {name} | {case['items']:,} | {case['rouge_comparisons']:,} | {e['wall_s']} "
                     f"({', '.join(map(str, e['wall_s_all']))}) | {e['cpu_s']} | {case['score_kilt_items_s']} | "
                     f"{target_text(name, case)} |")
    ranked = {name: case for name, case in result["cases"].items() if "bare_parse" in case}
    if ranked:
        lines += ["", "Retrieval scale, beside a bare `json.loads` of the same file and the official scripts "
                      "(memory: the peak PSS summed over the process tree, sampled every 100 ms; in parentheses the "
                      "peak RSS sum, the sum of each process's own peak, `VmHWM`, which no sample misses, and the "
                      "largest process's peak):", "",
                  "| case | run | file MB | wall s | CPU s | peak MiB: tree PSS (RSS sum; process peaks summed; largest "
                  "process) | official numbers printed identically |", "|---|---|---|---|---|---|---|"]
        for name, case in ranked.items():
            timed = {key: case["end_to_end"][key] for key in ("wall_s", "cpu_s")}  # the fastest run's times
            runs = {"score kilt": dict(case["memory"], **timed),
                    "bare json.loads": case["bare_parse"], **case.get("official", {})}
            for run, m in runs.items():
                same = f"{m['identical']} of {m['numbers']}" if "numbers" in m else ""
                lines.append(f"| {name} | {run} | {case['file_mb']} | {m['wall_s']} | {m['cpu_s']} | "
                             f"{memory_text(m)} | {same} |")
    return "\n".join(lines) + "\n"


def memory_text(m: dict) -> str:
    return f"{m['peak_pss_mib']} ({m['peak_rss_sum_mib']}; {m['process_peaks_sum_mib']}; {m['largest_process_mib']})"


def target_text(name: str, case: dict) -> str:
    target = ", ".join(f"{k} <= {v:g}" for k, v in TARGETS[name].items())
    ratio = f"; wall / bare parse {case['wall_over_bare_parse']}" if "wall_over_bare_parse" in case else ""
    return f"{target} ({'met' if case['met'] else 'missed'}{ratio})"


def run_case(name: str, case: dict, root: Path, args) -> dict:
    """Build the case's files under ``root`` and measure it (see the module doc)."""
    items = 60 if args.quick else case["items"]
    if "pages" in case:
        gold, files = write_ranked_world(root, items, case["pages"], RANKED_RUN, seed=11)
        predictions = files["run"][0]
    else:
        shape = {k: case[k] for k in ("references", "words") if k in case}
        gold, predictions = write_world(root, items, case["long_answers"], seed=11, **shape)
    argv = command(gold, predictions, case)
    tries = [end_to_end(argv) for _ in range(args.repeat)]
    measured = {"items": items, "rouge_comparisons": rouge_comparisons(gold),
                "end_to_end": dict(min(tries, key=lambda t: t["wall_s"]), wall_s_all=[t["wall_s"] for t in tries])}
    if "pages" in case:
        printed = root / "score.json"
        measured["memory"] = end_to_end(argv, sample_memory=True, stdout=printed)
        measured["bare_parse"] = bare_parse([predictions])
        measured["file_mb"] = round(predictions.stat().st_size / 1e6, 1)
        measured["wall_over_bare_parse"] = round(measured["end_to_end"]["wall_s"] / measured["bare_parse"]["wall_s"], 2)
        measured["peak_pss_mib"] = measured["memory"]["peak_pss_mib"]
        if args.official:
            measured["official"] = official_runs(gold, predictions, case, args.official, json.loads(printed.read_text()),
                                                 root)
    measured["score_kilt_items_s"] = in_process_seconds(gold, predictions)
    flat = {**measured["end_to_end"], **measured}
    measured["met"] = all(flat[k] <= v for k, v in TARGETS[name].items())
    return measured


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "kilt_score.json"))
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run; not the targets; writes nothing)")
    ap.add_argument("--repeat", type=int, default=3, help="end-to-end runs per case; the fastest is reported")
    ap.add_argument("--cases", nargs="+", choices=tuple(CASES), default=tuple(CASES),
                    help="the cases to run (default: all); the others keep their results in --out")
    ap.add_argument("--official", default="",
                    help="paths (os.pathsep-separated) holding facebookresearch/KILT's kilt package and its rouge and "
                         "nltk: also run the official scripts on the retrieval-scale files")
    args = ap.parse_args(argv)
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "load_average_before": os.getloadavg()[0], "cpu_pressure_before": cpu_pressure(), "cases": {}}
    earlier = Path(args.out)
    if set(args.cases) != set(CASES) and earlier.is_file() and not args.quick:
        result["cases"] = {name: case for name, case in json.loads(earlier.read_text())["cases"].items()
                           if name not in args.cases}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.cases:
            root = Path(tmp) / name
            root.mkdir()
            result["cases"][name] = run_case(name, CASES[name], root, args)
            print(name, json.dumps(result["cases"][name]), flush=True)
    result["cases"] = {name: result["cases"][name] for name in CASES if name in result["cases"]}
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
