"""Fingerprint a pipeline run's outputs and compare two fingerprints (the restructure invariant).

A restructure must not change a single output a user sees. Record the sha256 of every
Parquet, TSV, JSON and PNG file under a results directory before the change, record it
again after a fresh run, and compare:

    python benchmarks/output_hashes.py record results/ > before.json
    ... change the code, delete results/, run the demo again ...
    python benchmarks/output_hashes.py record results/ > after.json
    python benchmarks/output_hashes.py compare before.json after.json

Left out: the generation response cache (``results/cache/``: shards are named by content
and written in completion order) and the provenance table (it records the git commit and
the run's code version, which a restructure changes by definition).

``compare`` prints the counts, every file that differs, is missing or is new, and exits 1
when anything differs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

FINGERPRINTED_SUFFIXES = (".parquet", ".tsv", ".json", ".png")
EXCLUDED_PREFIXES = ("cache/",)
EXCLUDED_NAMES = ("provenance.parquet", "provenance.tsv", "provenance.json")


def is_fingerprinted(relative: str) -> bool:
    """True for an output file the invariant covers (see the module docstring)."""
    if not relative.endswith(FINGERPRINTED_SUFFIXES):
        return False
    if relative.startswith(EXCLUDED_PREFIXES):
        return False
    return Path(relative).name not in EXCLUDED_NAMES


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def output_fingerprint(results_dir: Path) -> dict[str, str]:
    """``{path relative to results_dir: sha256}`` of every fingerprinted file, sorted by path.

    Files inside Parquet dataset directories (e.g. an index directory) are included like any
    other file.
    """
    results_dir = Path(results_dir)
    out = {}
    for path in sorted(p for p in results_dir.rglob("*") if p.is_file()):
        relative = path.relative_to(results_dir).as_posix()
        if is_fingerprinted(relative):
            out[relative] = file_sha256(path)
    return out


def compare_fingerprints(before: dict[str, str], after: dict[str, str]) -> dict[str, list[str]]:
    """Files that are identical, differ, are missing after, or are new after."""
    return {
        "identical": sorted(k for k in before if after.get(k) == before[k]),
        "differ": sorted(k for k in before if k in after and after[k] != before[k]),
        "missing": sorted(k for k in before if k not in after),
        "new": sorted(k for k in after if k not in before),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="print the fingerprint of a results directory as JSON")
    rec.add_argument("results_dir", type=Path)
    cmp_ = sub.add_parser("compare", help="compare two recorded fingerprints")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "record":
        json.dump(output_fingerprint(args.results_dir), sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    before = json.loads(args.before.read_text())
    after = json.loads(args.after.read_text())
    result = compare_fingerprints(before, after)
    print(f"before: {len(before)} files, after: {len(after)} files, identical: {len(result['identical'])}")
    for kind in ("differ", "missing", "new"):
        for name in result[kind]:
            print(f"{kind}: {name}")
    return 0 if not (result["differ"] or result["missing"] or result["new"]) else 1


if __name__ == "__main__":
    sys.exit(main())
