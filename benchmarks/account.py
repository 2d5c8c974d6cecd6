"""Benchmark of the `account` command (writes benchmarks/results/account.json and account.md).

Two targets (docs/accounting.md, "Accounting official prediction files"), each measured end to
end: ``python -m evidence_ledger account feverous ...`` in a subprocess (reading and scoring the
files, every table, both bootstraps, the summary page and ledger.json), wall time and the
subprocess's peak resident memory; and, in this process, the time of each phase.

Each case runs ``--repeat`` times (default 3); the fastest run is reported and every wall time
recorded (on a shared machine the slower ones waited for CPUs other work held); one more run
samples the memory (:func:`end_to_end`: the PSS summed over the process tree, beside the RSS sum
and the exact peak of its largest single process).

1. Study 1 size: 7,890 FEVEROUS claims (the paper's dev set), 4 runs per source, 10,000 paired
   claim draws: target <= 10 s and <= 1 GiB on 2 cores.
2. Study 2 protocol: 1,000 claims in claim families of 1-3, 6 runs per source, 50,000 draws
   resampling families and runs (``--families``, ``--resample-runs``): target <= 30 s.
3. KILT F1: ``account kilt --metric f1`` on 10,444 items (KILT's FEVER dev size), 4 runs per
   source, 10,000 paired item draws, the continuous F1 carried through: target <= 10 s and
   <= 1 GiB on 2 cores.
4. KILT at retrieval scale: ``account kilt --metric accuracy`` on the same FEVER-size gold, 4
   runs per source each ranking 1,000 pages per item (``ranked_kilt_runs``: eight 301 MB
   files), 10,000 draws: target <= 60 s and <= 2 GiB of the whole process tree (the command and
   its file-scoring workers) on 2 cores; beside it the time of a bare line-by-line
   ``json.loads`` of the eight files (:func:`bare_parse`).

The files are synthetic but shaped like real ones: KILT gold items with 1-3 short answers (1-4
words) and 1-2 provenance pages, predictions with a 1-5 word answer sharing some tokens with a
gold answer (so F1 takes many values) and 5 ranked pages (the gold pages first for 40% / 65% of
the items); FEVEROUS gold with 1-3 evidence sets of 1-4
elements (sentences and cells), predictions citing 5-12 element ids (the gold set complete for
40% / 65% of the claims), labels right 60% / 70% of the time, runs differing in their labels.

Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/account.py   (options: --quick, --out, --cases; a
subset of the cases updates those cases of an existing results file)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "benchmarks") not in sys.path:
    sys.path.insert(0, str(REPO / "benchmarks"))

from ranked_kilt_runs import write_ranked_world  # noqa: E402
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
TARGETS = {"study1_size": {"wall_s": 10.0, "peak_pss_mib": 1024.0}, "study2_protocol": {"wall_s": 30.0},
           "kilt_f1": {"wall_s": 10.0, "peak_pss_mib": 1024.0},
           "kilt_retrieval_scale": {"wall_s": 60.0, "peak_pss_mib": 2048.0}}
#: the retrieval-scale KILT runs: per source, per run (how often a gold set is ranked, how often the label is right)
RANKED_RUNS = {"base": [(0.4, 0.6)] * 4, "new": [(0.65, 0.7)] * 4}
WORDS = tuple(f"w{i}" for i in range(400))


def element(rng: np.random.Generator, page: int) -> str:
    if rng.random() < 0.5:
        return f"Page {page}_sentence_{rng.integers(0, 30)}"
    return f"Page {page}_cell_{rng.integers(0, 3)}_{rng.integers(0, 12)}_{rng.integers(0, 4)}"


def write_world(root: Path, n_claims: int, runs: int, seed: int) -> tuple[Path, dict[str, list[Path]], Path]:
    """Gold, ``runs`` prediction files per source and a families file (consecutive claims in
    families of 1-3) under ``root``."""
    rng = np.random.default_rng(seed)
    gold, sets = [{"id": "", "claim": "", "label": "", "evidence": []}], {}
    for i in range(1, n_claims + 1):
        page = int(rng.integers(0, 5 * n_claims))
        sets[i] = [[element(rng, page) for _ in range(rng.integers(1, 5))] for _ in range(rng.integers(1, 4))]
        gold.append({"id": i, "claim": f"claim {i}", "label": LABELS[i % 3],
                     "evidence": [{"content": s, "context": {}} for s in sets[i]]})
    gold_path = root / "dev.jsonl"
    gold_path.write_text("".join(json.dumps(r) + "\n" for r in gold))
    files = {}
    for source, (p_found, p_right) in (("base", (0.40, 0.60)), ("new", (0.65, 0.70))):
        found = rng.random(n_claims) < p_found
        cited = {}
        for i in range(1, n_claims + 1):
            page = int(rng.integers(0, 5 * n_claims))
            noise = [element(rng, page) for _ in range(rng.integers(4, 10))]
            cited[i] = (sets[i][0] if found[i - 1] else sets[i][0][:-1]) + noise
        files[source] = []
        for run in range(runs):
            right = rng.random(n_claims) < p_right
            lines = [json.dumps({"id": i, "predicted_label": gold[i]["label"] if right[i - 1]
                                 else LABELS[(i + 1 + run) % 3], "predicted_evidence": cited[i]})
                     for i in range(1, n_claims + 1)]
            path = root / f"{source}_run{run + 1}.jsonl"
            path.write_text("\n".join(lines) + "\n")
            files[source].append(path)
    families = root / "families.tsv"
    sizes = rng.choice([1, 1, 2, 3], size=n_claims)
    family, rows, left = 0, [], 0
    for i in range(1, n_claims + 1):
        if left == 0:
            family, left = family + 1, int(sizes[i - 1])
        rows.append(f"{i}\tF{family}\n")
        left -= 1
    families.write_text("claim_id\tfamily_id\n" + "".join(rows))
    return gold_path, files, families


def write_kilt_world(root: Path, n_items: int, runs: int, seed: int) -> tuple[Path, dict[str, list[Path]]]:
    """A KILT gold file and ``runs`` KILT prediction files per source under ``root`` (see the
    module doc)."""
    rng = np.random.default_rng(seed)
    gold, answers, pages = [], {}, {}
    for i in range(n_items):
        answers[i] = [" ".join(rng.choice(WORDS, size=rng.integers(1, 5))) for _ in range(rng.integers(1, 4))]
        pages[i] = [str(p) for p in rng.choice(1_000_000, size=rng.integers(1, 3), replace=False)]
        output = [{"answer": answers[i][0], "provenance": [{"wikipedia_id": p, "title": f"Page {p}"}
                                                          for p in pages[i]]}]
        gold.append({"id": f"q{i}", "input": f"question {i}", "output": output + [{"answer": a}
                                                                                  for a in answers[i][1:]]})
    gold_path = root / "gold-kilt.jsonl"
    gold_path.write_text("".join(json.dumps(r) + "\n" for r in gold))
    files = {}
    for source, p_found in (("base", 0.40), ("new", 0.65)):
        found = rng.random(n_items) < p_found
        cited = {i: (pages[i] if found[i] else []) + [str(p) for p in rng.choice(1_000_000, size=5)]
                 for i in range(n_items)}
        files[source] = []
        for run in range(runs):
            lines = []
            for i in range(n_items):
                words = answers[i][0].split()
                kept = [w for w in words if rng.random() < (0.8 if found[i] else 0.5)]
                answer = " ".join(kept + list(rng.choice(WORDS, size=rng.integers(0, 3))))
                provenance = [{"wikipedia_id": p} for p in cited[i][:5]]
                lines.append(json.dumps({"id": f"q{i}", "output": [{"answer": answer, "provenance": provenance}]}))
            path = root / f"{source}_run{run + 1}.jsonl"
            path.write_text("\n".join(lines) + "\n")
            files[source].append(path)
    return gold_path, files


def case_world(root: Path, case: dict) -> tuple[Path, dict[str, list[Path]], Path | None]:
    """The case's gold file, run files per source and families file (None for KILT) under ``root``."""
    if "pages" in case:
        runs = {source: shapes[:case["runs"]] for source, shapes in RANKED_RUNS.items()}
        return (*write_ranked_world(root, case["claims"], case["pages"], runs, seed=7), None)
    if case.get("benchmark") == "kilt":
        return (*write_kilt_world(root, case["claims"], case["runs"], seed=7), None)
    return write_world(root, case["claims"], case["runs"], seed=7)


def command(gold: Path, files: dict, out: Path, draws: int, extra=(), benchmark: str = "feverous") -> list[str]:
    return [sys.executable, "-m", "evidence_ledger", "account", benchmark, "--gold", str(gold),
            "--source0", *map(str, files["base"]), "--source1", *map(str, files["new"]), "--names", "base", "new",
            "--draws", str(draws), "--out", str(out), *extra]


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the command's file-scoring worker processes), through the
    children of every thread."""
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        for children in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                todo += [int(c) for c in children.read_text().split()]
            except OSError:
                pass
    return tree


def process_memory_kib(pid: int) -> dict[str, int]:
    """``Pss`` and ``Rss`` (``/proc/<pid>/smaps_rollup``) and ``VmHWM`` (``/proc/<pid>/status``,
    the peak resident memory since the process's last exec) of one process, in KiB (empty once
    it has exited)."""
    found: dict[str, int] = {}
    for name, fields in (("smaps_rollup", ("Pss:", "Rss:")), ("status", ("VmHWM:",))):
        try:
            text = Path(f"/proc/{pid}/{name}").read_text()
        except OSError:
            return {}
        for line in text.splitlines():
            if line.startswith(fields):
                found[line.split(":")[0]] = int(line.split()[1])
    return found


class TreeMemorySampler(threading.Thread):
    """Samples the memory of a running process tree every 100 ms: the peaks of its PSS and RSS
    summed over the live processes, and each process's own peak (``VmHWM``, which the kernel
    keeps, so no sample misses it; their sum bounds the tree's peak from above)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_pss, self.peak_rss = pid, 0, 0
        self.hwm: dict[int, int] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            pss = rss = 0
            for p in process_tree(self.pid):
                memory = process_memory_kib(p)
                pss, rss = pss + memory.get("Pss", 0), rss + memory.get("Rss", 0)
                self.hwm[p] = max(self.hwm.get(p, 0), memory.get("VmHWM", 0))
            self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)
            self.done.wait(0.1)

    def peaks_mib(self) -> dict:
        return {"peak_pss_mib": round(self.peak_pss / 1024, 1), "peak_rss_sum_mib": round(self.peak_rss / 1024, 1),
                "largest_process_mib": round(max(self.hwm.values(), default=0) / 1024, 1),
                "process_peaks_sum_mib": round(sum(self.hwm.values()) / 1024, 1), "processes": len(self.hwm)}


def end_to_end(argv: list[str], sample_memory: bool = False, stdout: Path | None = None,
               env: dict | None = None) -> dict:
    """Wall time and CPU time of one command in a fresh subprocess, its workers included
    (``os.wait4``: the child's own rusage and that of the descendants it waited for). With
    ``sample_memory`` also its memory (:class:`TreeMemorySampler`; reading the tree's page maps
    costs CPU of its own, so timed runs do not sample). ``wait4``'s ``ru_maxrss`` is not used:
    a child started by ``vfork`` inherits its parent's high-water mark. ``stdout``: a file that
    keeps what the command printed; ``env``: its environment."""
    with tempfile.TemporaryFile("w+") as err, open(stdout or os.devnull, "w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=err, text=True, env=env)
        sampler = TreeMemorySampler(proc.pid) if sample_memory else None
        if sampler:
            sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.done.set()
            sampler.join()
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv)} failed: {err.read()[-2000:]}")
    measured = {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}
    return {**measured, **sampler.peaks_mib()} if sampler else measured


#: the bare reading the KILT cases are set beside: every line of the files through ``json.loads``, nothing kept
BARE_PARSE = "import json, sys\nfor path in sys.argv[1:]:\n    for line in open(path, encoding='utf-8'):\n" \
             "        json.loads(line)\n"


def bare_parse(paths: list[Path]) -> dict:
    """:func:`end_to_end` of a bare line-by-line ``json.loads`` of ``paths`` (one process, memory sampled)."""
    return end_to_end([sys.executable, "-c", BARE_PARSE, *map(str, paths)], sample_memory=True)


def phases(gold: Path, files: dict, draws: int, families: Path | None, resample_runs: bool,
           benchmark: str = "feverous", metric: str = "") -> dict:
    """Seconds of each phase in this process: reading and scoring the files, the estimates and
    both bootstraps (one call), writing the directory (tables, page, ledger)."""
    import warnings

    from evidence_ledger.prediction_files.format_registry import get_format
    from evidence_ledger.prediction_files.runs import read_runs
    from evidence_ledger.prediction_files.tables import DrawSettings, account_runs, read_families
    from evidence_ledger.prediction_files.write import write_account_dir

    fmt = get_format(benchmark)
    settings = fmt.settings_from_entry({"metric": metric} if metric else {}, {"scoring": {}})
    timing = {}
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = read_runs(fmt, gold, files["base"], files["new"], settings)
    timing["read_and_score_s"] = round(time.perf_counter() - t, 2)
    fam = read_families(families, benchmark, runs.units) if families else None
    t = time.perf_counter()
    accounted = account_runs(runs, system="s", sources=("base", "new"), families=fam,
                             settings=DrawSettings(draws, 20261099, 0.05, 1, 128, resample_runs))
    timing["estimates_and_bootstraps_s"] = round(time.perf_counter() - t, 2)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        write_account_dir(accounted, Path(tmp) / "out", title="s", intro="", caption="",
                          inputs=[("gold", str(gold))], settings={"draws": draws}, layout=fmt.page_layout(settings))
        timing["write_s"] = round(time.perf_counter() - t, 2)
    timing["clusters"] = int(accounted.intervals["n_clusters"].iat[0])
    return timing


def cpu_pressure() -> float | None:
    """The share of the last 60 s in which some runnable task waited for a CPU (Linux PSI,
    ``/proc/pressure/cpu`` ``some avg60``, percent); None where the kernel has no PSI. Near 0 on an
    idle machine: above that, other work shared the cores and wall times are longer than the
    command's own."""
    try:
        text = Path("/proc/pressure/cpu").read_text()
    except OSError:
        return None
    return float(text.split("avg60=")[1].split()[0])


def markdown(result: dict) -> str:
    lines = ["# `account` benchmark", "",
             f"Machine: {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
             f"{result['machine']['platform']}; OMP_NUM_THREADS={result['machine']['omp_num_threads']}; load "
             f"average {result['load_average_before']:.2f} before, {result['load_average_after']:.2f} after; CPU "
             f"pressure (PSI some avg60) {result.get('cpu_pressure_before')}% before, "
             f"{result.get('cpu_pressure_after')}% after (0 on an idle machine).", "",
             "| case | claims | runs / source | clusters | draws | wall s (fastest; all) | CPU s | peak PSS MiB (RSS sum) "
             "| target |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, case in result["cases"].items():
        e = case["end_to_end"]
        target = ", ".join(f"{k} <= {v:g}" for k, v in TARGETS[name].items())
        lines.append(f"| {name} | {case['claims']:,} | {case['runs']} | {case['phases']['clusters']:,} | "
                     f"{case['draws']:,} | {e['wall_s']} ({', '.join(map(str, e.get('wall_s_all', [e['wall_s']])))}) | "
                     f"{e['cpu_s']} | {e['peak_pss_mib']} ({e['peak_rss_sum_mib']}) | {target} "
                     f"({'met' if case['met'] else 'missed'}) |")
    ranked = {name: case for name, case in result["cases"].items() if "bare_parse" in case}
    if ranked:
        lines += ["", "Beside a bare line-by-line `json.loads` of the same run files (one process), and each process's "
                      "own peak (`VmHWM`, which no sample misses): their sum over the command's processes, and the "
                      "largest:", "",
                  "| case | run files MB | bare json.loads wall s | its CPU s | command wall / bare | process peaks "
                  "summed MiB (processes) | largest process MiB |", "|---|---|---|---|---|---|---|"]
        for name, case in ranked.items():
            bare, e = case["bare_parse"], case["end_to_end"]
            lines.append(f"| {name} | {case['files_mb']:,} | {bare['wall_s']} | {bare['cpu_s']} | "
                         f"{e['wall_s'] / bare['wall_s']:.2f} | {e['process_peaks_sum_mib']} ({e['processes']}) | "
                         f"{e['largest_process_mib']} |")
    lines += ["", "Phases (in process, seconds):", "", "| case | read and score | estimates + bootstraps | write |",
              "|---|---|---|---|"]
    for name, case in result["cases"].items():
        p = case["phases"]
        lines.append(f"| {name} | {p['read_and_score_s']} | {p['estimates_and_bootstraps_s']} | {p['write_s']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "account.json"))
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run; not the targets)")
    ap.add_argument("--cases", nargs="+", choices=tuple(TARGETS), default=tuple(TARGETS),
                    help="the cases to run (default: all); the others keep their results in --out")
    ap.add_argument("--repeat", type=int, default=3,
                    help="end-to-end runs per case; the fastest is reported (the others ran beside other work "
                         "on a shared machine), all are recorded (default %(default)s)")
    args = ap.parse_args(argv)
    cases = {"study1_size": {"claims": 7890, "runs": 4, "draws": 10000, "families": False, "resample_runs": False},
             "study2_protocol": {"claims": 1000, "runs": 6, "draws": 50000, "families": True, "resample_runs": True},
             "kilt_f1": {"claims": 10444, "runs": 4, "draws": 10000, "families": False, "resample_runs": False,
                         "benchmark": "kilt", "metric": "f1"},
             "kilt_retrieval_scale": {"claims": 10444, "runs": 4, "draws": 10000, "families": False,
                                      "resample_runs": False, "benchmark": "kilt", "metric": "accuracy", "pages": 1000}}
    cases = {name: case for name, case in cases.items() if name in args.cases}
    if args.quick:
        for case in cases.values():
            case.update(claims=200, draws=500)
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "load_average_before": os.getloadavg()[0], "cpu_pressure_before": cpu_pressure(), "cases": {}}
    earlier = Path(args.out)
    if set(cases) != set(TARGETS) and earlier.is_file() and not args.quick:
        result["cases"] = {name: case for name, case in json.loads(earlier.read_text())["cases"].items()
                           if name not in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in cases.items():
            root = Path(tmp) / name
            root.mkdir()
            benchmark, metric = case.get("benchmark", "feverous"), case.get("metric", "")
            gold, files, families = case_world(root, case)
            extra = (["--families", str(families)] if case["families"] else []) + (
                ["--resample-runs"] if case["resample_runs"] else []) + (["--metric", metric] if metric else [])
            tries = [end_to_end(command(gold, files, root / f"out{i}", case["draws"], extra, benchmark))
                     for i in range(args.repeat)]
            memory = end_to_end(command(gold, files, root / "out_memory", case["draws"], extra, benchmark),
                                sample_memory=True)
            e2e = dict(min(tries, key=lambda t: t["wall_s"]), wall_s_all=[t["wall_s"] for t in tries],
                       **{key: value for key, value in memory.items() if key not in ("wall_s", "cpu_s")})
            timing = phases(gold, files, case["draws"], families if case["families"] else None, case["resample_runs"],
                            benchmark, metric)
            met = all(e2e[k] <= v for k, v in TARGETS[name].items())
            result["cases"][name] = dict(case, end_to_end=e2e, phases=timing, met=met)
            if "pages" in case:
                paths = files["base"] + files["new"]
                result["cases"][name].update(bare_parse=bare_parse(paths),
                                             files_mb=round(sum(p.stat().st_size for p in paths) / 1e6, 1))
            print(name, json.dumps(result["cases"][name]), flush=True)
    result["load_average_after"] = os.getloadavg()[0]
    result["cpu_pressure_after"] = cpu_pressure()
    if not args.quick:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
        Path(args.out).with_suffix(".md").write_text(markdown(result))
    return result


if __name__ == "__main__":
    main()
