"""Time the demo pipeline from a clean ``results/`` and tabulate where the time went.

Runs ``snakemake --cores N`` on the embedded demo (``config/demo.yaml``) of this checkout in a fresh work
directory (``--directory``; default a new temporary directory, kept afterwards so that its
outputs can be checked, e.g. with ``EVIDENCE_LEDGER_DEMO_RUN=<dir> pytest
tests/workflow/test_demo_run.py``), then sums the per-job timing files ``logs/**/*.timing.tsv`` of that
run by rule and writes ``benchmarks/results/demo_time.json`` and ``demo_time.md``.

Per rule: jobs, wall seconds (``s``) and CPU seconds (``cpu_time``) of Snakemake's
``benchmark:`` files summed over its jobs, and the job processes' own CPU seconds
(``process CPU s``: the ``process resources:`` line :mod:`evidence_ledger.jobs.rule_log` writes
last into each job's log - user + system from interpreter start, children included; the
benchmark's ``cpu_time`` samples the process tree and misses much of a short job).
The run as a whole: wall seconds of the ``snakemake`` call, the CPU seconds of its whole
process tree (user + system of every finished child, ``RUSAGE_CHILDREN``: unlike wall time
this hardly depends on what else the machine runs), and the machine's load average before and
after (a loaded machine stretches wall times; the README quotes a run on an idle machine).

Log layout: ``logs/<stage>/<rule>/<wildcards>.timing.tsv`` (one file per job, written by the rule's
``benchmark:`` directive) or ``logs/<stage>/<rule>.timing.tsv`` (a rule without wildcards);
``--summarise DIR`` only tabulates an existing run's logs (also older runs' ``.benchmark.tsv``
files and their flat ``logs/<stage>/<rule>_<wildcards>`` layout, there keyed by file stem).

Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/demo_time.py [--cores 2] [--workdir DIR]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
from evidence_ledger.jobs.rule_log import parse_resource_usage  # noqa: E402
OUT = REPO / "benchmarks" / "results"


# Flat log names of runs before the logs/<stage>/<rule>/ layout that do not start with their rule's name.
LEGACY_NAMES = {("ingest", "nqcc"): "ingest_conflict_qa", ("ingest", "tqacc"): "ingest_conflict_qa",
                ("sampling", "sample"): "sample_claims", ("sampling", "families"): "build_families",
                ("scoring", "answers"): "score_answers", ("scoring", "evidence"): "score_evidence"}


# a job's timing file (Snakemake's benchmark: directive), and its name in runs before this one
TIMING_SUFFIXES = (".timing.tsv", ".benchmark.tsv")


def timing_stem(name: str) -> str:
    """A timing file's name without its suffix (:data:`TIMING_SUFFIXES`)."""
    return next(name[: -len(s)] for s in TIMING_SUFFIXES if name.endswith(s))


def rule_of(benchmark: Path, logs: Path, rules: tuple[str, ...] = ()) -> str:
    """The rule a timing file belongs to: ``logs/<stage>/<rule>/<job>.timing.tsv`` -> rule,
    ``logs/<stage>/<rule>.timing.tsv`` -> rule (the file stem). A flat
    ``logs/<stage>[/<dataset>]/<rule>_<wildcards>`` name of an older run maps to the longest name in
    ``rules`` it starts with (or :data:`LEGACY_NAMES`, or ``ingest_<stem>`` in ``ingest``)."""
    parts = benchmark.relative_to(logs).parts
    if len(parts) >= 3 and (not rules or parts[-2] in rules):
        return parts[-2]
    stem = timing_stem(parts[-1])
    if not rules or stem in rules:
        return stem
    matches = [r for r in rules if stem.startswith(r + "_")]
    if matches:
        return max(matches, key=len)
    stage = parts[0]
    legacy = LEGACY_NAMES.get((stage, stem.split("_")[0]))
    if legacy:
        return legacy
    if stage == "ingest" and f"ingest_{stem}" in rules:
        return f"ingest_{stem}"
    return stem


def read_benchmark(path: Path) -> tuple[float, float]:
    """(wall ``s``, ``cpu_time``) of a Snakemake benchmark TSV (first data row); a missing or
    empty ``cpu_time`` counts as 0."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows:
        raise ValueError(f"{path}: benchmark file has no data row")
    row = rows[0]
    try:
        wall = float(row["s"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{path}: line 2, field 's': {exc}") from None
    cpu = row.get("cpu_time") or "0"
    return wall, float(cpu)


def job_process_cpu(benchmark: Path) -> float:
    """CPU seconds the job of ``benchmark`` reported in its log (the sibling ``<job>.log``):
    the last ``process resources:`` line's ``cpu_s``; 0 when the log or the line is missing
    (a job that is not a rule script, or a run from before the line existed)."""
    log = benchmark.with_name(timing_stem(benchmark.name) + ".log")
    if not log.exists():
        return 0.0
    usage = None
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        usage = parse_resource_usage(line) or usage
    return usage["cpu_s"] if usage else 0.0


def per_rule_table(logs: Path, rules: tuple[str, ...] = ()) -> list[dict]:
    """One row per rule (``rule``, ``jobs``, ``wall_s``, ``cpu_s``, ``process_cpu_s``) summed
    over the benchmark files under ``logs`` and their jobs' logs (``rules``: see
    :func:`rule_of`), sorted by wall seconds (largest first, then rule name)."""
    totals: dict[str, list] = {}
    for path in sorted(p for suffix in TIMING_SUFFIXES for p in logs.rglob("*" + suffix)):
        wall, cpu = read_benchmark(path)
        row = totals.setdefault(rule_of(path, logs, rules), [0, 0.0, 0.0, 0.0])
        row[0] += 1
        row[1] += wall
        row[2] += cpu
        row[3] += job_process_cpu(path)
    rows = [{"rule": r, "jobs": n, "wall_s": round(w, 2), "cpu_s": round(c, 2), "process_cpu_s": round(p, 2)}
            for r, (n, w, c, p) in totals.items()]
    return sorted(rows, key=lambda r: (-r["wall_s"], r["rule"]))


def markdown_table(rows: list[dict]) -> str:
    """The per-rule rows as a Markdown table with a total line."""
    lines = ["| rule | jobs | wall s | CPU s | process CPU s |", "|---|---|---|---|---|"]
    lines += [f"| {r['rule']} | {r['jobs']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r.get('process_cpu_s', 0):.1f} |"
              for r in rows]
    lines.append(f"| all ({sum(r['jobs'] for r in rows)} jobs) | | {sum(r['wall_s'] for r in rows):.1f} | "
                 f"{sum(r['cpu_s'] for r in rows):.1f} | {sum(r.get('process_cpu_s', 0) for r in rows):.1f} |")
    return "\n".join(lines) + "\n"


def list_rules(snakemake: list[str]) -> tuple[str, ...]:
    """Rule names of this checkout's workflow (``snakemake --list-rules``)."""
    proc = subprocess.run(snakemake + ["--list-rules", "--snakefile", str(REPO / "Snakefile")], cwd=REPO,
                          capture_output=True, text=True)
    return tuple(line.strip() for line in proc.stdout.splitlines() if line.strip().isidentifier())


def git_commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    return proc.stdout.strip() + ("+dirty" if dirty else "")


def run_demo(workdir: Path, cores: int, snakemake: list[str]) -> dict:
    """Run the demo pipeline in ``workdir`` (which must hold no ``results/``); return the timing."""
    if (workdir / "results").exists():
        raise SystemExit(f"{workdir}/results exists: the demo is timed from a clean results/ directory")
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(var, "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    cmd = snakemake + ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
                       "--configfile", str(REPO / "config" / "demo.yaml"), "--cores", str(cores)]
    load_before = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(workdir / "demo_time.snakemake.log", "w") as log:
        proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"snakemake failed (exit {proc.returncode}); see {workdir}/demo_time.snakemake.log")
    return {
        "command": " ".join(cmd),
        "wall_s": round(wall, 1),
        "cpu_s_process_tree": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--workdir", type=Path, help="fresh work directory (default: a new temporary one)")
    parser.add_argument("--summarise", type=Path, metavar="DIR",
                        help="only tabulate the logs of an existing run in DIR (no run)")
    parser.add_argument("--out", type=Path, default=OUT / "demo_time.json")
    parser.add_argument("--note", default="", help="free text stored with the result (e.g. the machine's state)")
    args = parser.parse_args(argv)
    snakemake = [str(Path(sys.executable).with_name("snakemake"))]
    if not Path(snakemake[0]).exists():
        snakemake = [sys.executable, "-m", "snakemake"]
    result = {"checkout": git_commit(), "note": args.note,
              "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                          "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "")}}
    if args.summarise:
        workdir = args.summarise.resolve()
    else:
        workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="demo_time_"))).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        result["run"] = run_demo(workdir, args.cores, snakemake)
        result["run"]["cores"] = args.cores
    result["workdir"] = str(workdir)
    rows = per_rule_table(workdir / "logs", list_rules(snakemake))
    result["rules"] = rows
    result["jobs"] = sum(r["jobs"] for r in rows)
    result["sum_wall_s"] = round(sum(r["wall_s"] for r in rows), 1)
    result["sum_cpu_s"] = round(sum(r["cpu_s"] for r in rows), 1)
    result["sum_process_cpu_s"] = round(sum(r["process_cpu_s"] for r in rows), 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    header = f"Demo pipeline, checkout {result['checkout']}, work directory {workdir}\n\n"
    if "run" in result:
        r = result["run"]
        header += (f"snakemake --cores {r['cores']}: {r['wall_s']} s wall, {r['cpu_s_process_tree']} CPU s "
                   f"(process tree); load average before {r['load_average_before']}, after "
                   f"{r['load_average_after']}\n\n")
    if args.note:
        header += args.note + "\n\n"
    args.out.with_suffix(".md").write_text(header + markdown_table(rows))
    print(header + markdown_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
