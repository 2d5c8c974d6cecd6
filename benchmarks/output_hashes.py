"""Fingerprint a pipeline run's outputs and compare two fingerprints (a code change that
must leave every output unchanged).

A change that only moves or reorganises code must not change a single output a user sees. Record the sha256 of every
Parquet, TSV, JSON and PNG file under a results directory before the change, record it
again after a fresh run, and compare:

    python benchmarks/output_hashes.py record results/ > before.json
    ... change the code, delete results/, run the demo again ...
    python benchmarks/output_hashes.py record results/ > after.json
    python benchmarks/output_hashes.py compare before.json after.json

Left out: the generation response cache (``results/cache/``: shards are named by content
and written in completion order) and the provenance table (it records the git commit and
the run's code version, which any code change changes by definition).

``compare`` prints the counts, every file that differs, is missing or is new, and exits 1
when anything differs.

Two runs made in different checkout directories differ in the absolute paths a table records
(a claim's ``source_file``). ``compare-content`` looks inside the files whose bytes differ:

    python benchmarks/output_hashes.py compare-content OLD/results NEW/results \
        --same-path /old/checkout=/new/checkout [--tsv-digits 6]

A Parquet file matches when its schema, metadata and every value are equal once the old
checkout path is replaced by the new one in its strings; a TSV matches when its header and text
cells are equal the same way and its numbers agree to ``--tsv-digits`` decimals (a report table
written with another float format); a PNG only byte for byte. It prints each file that still
differs, with the first differing column, and exits 1 if any does.
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


def _replace_path(value, old: str, new: str):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_path(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _replace_path(v, old, new) for k, v in value.items()}
    return value


def parquet_difference(before: Path, after: Path, old: str, new: str) -> str | None:
    """None when the two Parquet files hold the same table once ``old`` paths read ``new``;
    else a short description of the first difference."""
    import pyarrow.parquet as pq

    a, b = pq.read_table(before), pq.read_table(after)
    if a.schema != b.schema or a.schema.metadata != b.schema.metadata:
        return "schema or metadata"
    if a.num_rows != b.num_rows:
        return f"rows {a.num_rows} != {b.num_rows}"
    for name in a.schema.names:
        if _replace_path(a.column(name).to_pylist(), old, new) != b.column(name).to_pylist():
            return f"column {name}"
    return None


def _cell_equal(x: str, y: str, digits: int) -> bool:
    if x == y:
        return True
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        return False
    if fx != fx and fy != fy:  # NaN written as "" or "NaN"
        return True
    return abs(fx - fy) <= 0.5 * 10 ** -digits + 1e-12 * max(abs(fx), abs(fy))


def tsv_difference(before: Path, after: Path, old: str, new: str, digits: int) -> str | None:
    """None when the two TSVs have the same header and cells (paths replaced; numbers to
    ``digits`` decimals; an empty cell and ``NaN`` both mean missing); else the first difference."""
    rows_a = [line.split("\t") for line in before.read_text().replace(old, new).splitlines()]
    rows_b = [line.split("\t") for line in after.read_text().splitlines()]
    if len(rows_a) != len(rows_b):
        return f"lines {len(rows_a)} != {len(rows_b)}"
    for i, (ra, rb) in enumerate(zip(rows_a, rows_b), start=1):
        ra = ["NaN" if c == "" else c for c in ra]
        rb = ["NaN" if c == "" else c for c in rb]
        if len(ra) != len(rb) or not all(_cell_equal(x, y, digits) for x, y in zip(ra, rb)):
            return f"line {i}"
    return None


def content_differences(before_dir: Path, after_dir: Path, old: str, new: str, digits: int) -> dict[str, str]:
    """``{relative path: what differs}`` for the fingerprinted files whose bytes and content differ
    (missing or new files included)."""
    before, after = output_fingerprint(before_dir), output_fingerprint(after_dir)
    result = compare_fingerprints(before, after)
    out = {name: "missing after" for name in result["missing"]}
    out.update({name: "new after" for name in result["new"]})
    for name in result["differ"]:
        a, b = Path(before_dir) / name, Path(after_dir) / name
        if name.endswith(".parquet"):
            why = parquet_difference(a, b, old, new)
        elif name.endswith(".tsv"):
            why = tsv_difference(a, b, old, new, digits)
        else:
            why = "bytes"
        if why is not None:
            out[name] = why
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="print the fingerprint of a results directory as JSON")
    rec.add_argument("results_dir", type=Path)
    cmp_ = sub.add_parser("compare", help="compare two recorded fingerprints")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    content = sub.add_parser("compare-content", help="compare two results directories by content")
    content.add_argument("before_dir", type=Path)
    content.add_argument("after_dir", type=Path)
    content.add_argument("--same-path", default="=", help="OLD=NEW: the two checkouts' directories")
    content.add_argument("--tsv-digits", type=int, default=6, help="decimals TSV numbers must agree to")
    args = parser.parse_args(argv)
    if args.command == "compare-content":
        old, _, new = args.same_path.partition("=")
        differences = content_differences(args.before_dir, args.after_dir, old, new, args.tsv_digits)
        total = len(output_fingerprint(args.before_dir))
        print(f"{total} files before; {len(differences)} differ in content")
        for name, why in sorted(differences.items()):
            print(f"differ: {name} ({why})")
        return 1 if differences else 0
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
