"""``python -m evidence_ledger convert-weights SOURCE --out DIR``: a pickle-only model to safetensors, offline.

In:  a local model directory or a cached Hub id (+ ``--revision``), ``--out`` and optionally
     ``--state-dict-entry`` (the one entry of a training checkpoint to convert).
Out: the directory ``models.convert_weights.convert_weights`` writes, and its ``conversion.json``
     record printed as JSON. What is refused, and why, is that module's docstring.
"""
from __future__ import annotations

import argparse
import json

from ..models import convert_weights as conversion


def register(subparsers) -> None:
    parser = subparsers.add_parser("convert-weights", help="convert a pickle-only model to safetensors (offline)",
                                   description=conversion.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="local model directory, or Hub id (resolved from the local cache)")
    parser.add_argument("--revision", default=None, help="Hub revision (commit sha) of a Hub id")
    parser.add_argument("--out", required=True,
                        help="new (or empty) directory to write model.safetensors, config, tokenizer to")
    parser.add_argument("--state-dict-entry", default=None, metavar="NAME",
                        help="convert only this top-level entry of a training checkpoint (a dictionary of tensors)")
    parser.set_defaults(func=run)


def run(args) -> int:
    record = conversion.convert_weights(args.source, args.out, args.revision, args.state_dict_entry)
    print(json.dumps(record, indent=2, sort_keys=True))
    return 0
