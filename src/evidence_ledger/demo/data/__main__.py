"""``python -m evidence_ledger.demo.data [--out DIR]``: write the embedded demo data.

Default ``--out``: ``resources/demo/`` of the checkout this package lives in (the committed
files; regenerating there must leave ``git status`` clean).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from . import write_demo_data

DEFAULT_OUT = Path(__file__).resolve().parents[4] / "resources" / "demo"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evidence_ledger.demo.data",
                                 description="Write the embedded demo data of Evidence Ledger (seeded, byte-identical).")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help=f"output directory (default: {DEFAULT_OUT})")
    args = ap.parse_args(argv)
    write_demo_data(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
