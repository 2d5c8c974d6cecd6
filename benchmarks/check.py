"""Benchmark: ``python -m evidence_ledger check`` over a data tree the size of the real FEVER wiki.

In:  ``--work DIR`` (default ``/tmp/evidence_ledger_check``): a data tree in the paper's layout
     (``rehearsal-data``) whose ``fever/wiki-pages/`` is replaced by a synthetic FEVER wiki of
     ``--pages`` pages (default 5,416,537, the real wiki's count) in the release's format and file
     split (``synthetic_wiki.write_fever_release``: 50,000 pages a file, so 109 files, ~5 GB).
     The tree is generated once and kept (``--fresh`` regenerates it): the generator takes
     minutes, the check is what is timed.
Out: ``--out`` (default ``benchmarks/results/check.json``): the tree (pages, wiki files, bytes)
     and per repeat the check's wall time, its CPU time (user + system of the child process,
     ``os.wait4``) and peak RSS, the number of checks and their outcome; the machine.

The check runs the paper configuration with the rehearsal layer (``--configfile
config/paper.yaml config/rehearsal.yaml --config data_root=DIR``), so every check passes and
runs to the end: it reads the first record of each of the 109 wiki files and of every other
data file, and stats the rest. Target (docs/scale.md): at most 10 s on 2 cores.

    PYTHONPATH=src python benchmarks/check.py [--pages 5416537] [--work DIR] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
REAL_FEVER_PAGES = 5_416_537
TARGET_S = 10.0


def build_tree(work: Path, pages: int, fresh: bool) -> dict:
    """The data tree under ``work/data`` (kept between runs; ``done.json`` marks a whole one)."""
    sys.path.insert(0, str(HERE))
    from synthetic_wiki import write_fever_release

    from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data

    data, marker = work / "data", work / "done.json"
    if marker.exists() and not fresh and json.loads(marker.read_text())["pages"] == pages:
        return json.loads(marker.read_text())
    if data.exists():
        shutil.rmtree(data)
    write_rehearsal_data(data)
    shutil.rmtree(data / "fever" / "wiki-pages")
    started = time.time()
    release = write_fever_release(data / "fever", pages, n_claims=100)
    wiki = sorted((data / "fever" / "wiki-pages").glob("*.jsonl"))
    info = {"pages": release["pages"], "units": release["units"], "wiki_files": len(wiki),
            "wiki_bytes": sum(p.stat().st_size for p in wiki), "generate_s": round(time.time() - started, 1)}
    marker.write_text(json.dumps(info))
    return info


def run_check(data: Path) -> dict:
    """One ``check`` in a child process: wall time, CPU (user + system), peak RSS, its lines."""
    cmd = [sys.executable, "-m", "evidence_ledger", "check", "--configfile", str(REPO / "config" / "paper.yaml"),
           str(REPO / "config" / "rehearsal.yaml"), "--config", f"data_root={data}"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    out, err = proc.stdout.read(), proc.stderr.read()
    lines = out.splitlines()
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "exit": os.waitstatus_to_exitcode(status),
            "checks": sum(1 for line in lines if line[:4] in ("ok  ", "FAIL", "note")),
            "failed": [line for line in lines if line.startswith("FAIL")], "stderr": err.strip()[-500:],
            "wiki_line": next((line for line in lines if "data.fever.wiki" in line), "")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=REAL_FEVER_PAGES)
    parser.add_argument("--work", type=Path, default=Path("/tmp/evidence_ledger_check"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="regenerate the tree")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "check.json")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    tree = build_tree(args.work, args.pages, args.fresh)
    runs = [run_check(args.work / "data") for _ in range(args.repeats)]
    load = os.getloadavg()
    result = {"tree": tree, "runs": runs, "target_s": TARGET_S,
              "max_wall_s": max(r["wall_s"] for r in runs), "max_cpu_s": max(r["cpu_s"] for r in runs),
              "machine": {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count(), "load_avg_after": [round(x, 2) for x in load]}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("tree", "max_wall_s", "max_cpu_s")}, indent=1))
    return 0 if all(r["exit"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
