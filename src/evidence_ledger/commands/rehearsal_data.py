"""``python -m evidence_ledger rehearsal-data --out DIR [--demo DIR] [--force]``: the paper's data layout from the demo.

In:  ``--out`` (new or empty, or any directory with ``--force``) and the demo data to read.
Out: the tree ``datasets.rehearsal_data.write_rehearsal_data`` writes (every file the paper
     configuration reads, at its official release name), and one line per file: its record count.
"""
from __future__ import annotations

from pathlib import Path

from ..datasets.rehearsal_data import DEFAULT_DEMO, write_rehearsal_data


def register(subparsers) -> None:
    p = subparsers.add_parser("rehearsal-data", help="write a small data tree in the paper's file layout",
                              description="Write a small data tree in the paper's file layout (every file the "
                                          "paper configuration reads below data_root), from the embedded demo.")
    p.add_argument("--out", required=True, type=Path, help="directory to write (must be empty or new)")
    p.add_argument("--demo", type=Path, default=DEFAULT_DEMO, help=f"demo data to read (default: {DEFAULT_DEMO})")
    p.add_argument("--force", action="store_true", help="write into a non-empty DIR (overwrites the tree's files only)")
    p.set_defaults(func=run)


def run(args) -> int:
    counts = write_rehearsal_data(args.out, args.demo, args.force)
    for rel, n in sorted(counts.items()):
        print(f"{n:6d}  {rel}")
    return 0
