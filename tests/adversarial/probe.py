"""Helpers the probes share: write a bad file, run the ``score`` command in-process, dry-run the
workflow with one setting changed.

In:  records / rows / ``--config`` overrides. Out: the file written, ``(exit code, stdout,
stderr)`` of a ``score`` call, or the finished ``snakemake -n`` process.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

from evidence_ledger.commands import score as score_command
from support.snakemake_runs import run_snakemake


def write_jsonl(path: Path, records) -> Path:
    """One JSON object (or, for a ``str``, the text as it is) per line."""
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def write_wiki_db(path: Path, rows) -> Path:
    """A FEVEROUS ``wiki(id TEXT, data TEXT)`` table with ``(id, data)`` rows; ``data`` not a str is
    JSON-encoded (a str is stored as given)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE wiki (id TEXT, data TEXT)")
    con.executemany("INSERT INTO wiki VALUES (?, ?)",
                    [(page, data if isinstance(data, str) else json.dumps(data)) for page, data in rows])
    con.commit()
    con.close()
    return path


def run_score(argv: list[str]) -> tuple[int, str, str]:
    """``python -m evidence_ledger score ARGV`` in this process: (exit code, stdout, stderr);
    an argparse refusal is exit code 2 with its usage message on stderr."""
    parser = argparse.ArgumentParser(prog="python -m evidence_ledger")
    score_command.register(parser.add_subparsers(dest="command", required=True))
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            args = parser.parse_args(["score", *argv])
            code = int(args.func(args) or 0)
        except SystemExit as exc:
            code = int(exc.code)
    return code, out.getvalue(), err.getvalue()


def dry_run(workdir: Path, *config: str) -> subprocess.CompletedProcess:
    """``snakemake -n`` of the demo config with ``--config`` overrides, in ``workdir``."""
    return run_snakemake(workdir, "-n", "--cores", "1", *(["--config", *config] if config else []), cwd=workdir)
