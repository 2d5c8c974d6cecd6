"""The ``data`` area: ``data_root`` exists and is a non-empty directory; every file the planned
jobs read (:func:`planned_data_files` in data_root, :func:`planned_input_files` outside it)
exists, is not empty, and its first record parses in its format (a JSON line with the fields
its reader needs, a CSV header with the expected columns, the SQLite table with its columns and
a first row, each ``*.jsonl`` of a wiki directory); nothing past the first record of any file
is read.

In:  a :class:`~evidence_ledger.run.checks.context.RunContext` (or its config).
Out: ``data`` :class:`~evidence_ledger.run.checks.context.Check` rows; :func:`data_bytes`, the
     planned files' size for the disk estimate.
"""
from __future__ import annotations

import csv
import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ...config.layers import config_value
from .context import FAIL, OK, Check, RunContext
from .paths import inside_data_root

FIRST_LINE_LIMIT = 64 << 20  # a first record longer than this is not read whole (64 MiB)


@dataclass(frozen=True)
class RecordFormat:
    """What the first record of a data file must be: ``jsonl`` (a JSON object line holding
    ``fields``), ``jsonl_dir`` (a directory of ``*.jsonl`` files, each so), ``sqlite`` (table
    ``table`` with ``fields`` as columns and a first row), ``csv`` (a header holding ``fields``),
    ``json_array`` (a JSON array whose first item is an object), ``lines`` (one non-comment line)."""

    kind: str
    fields: tuple[str, ...] = ()
    table: str | None = None

    def describe(self) -> str:
        what = {"jsonl": "JSON line", "jsonl_dir": "*.jsonl files, first JSON line of each",
                "sqlite": f"SQLite table {self.table}", "csv": "CSV header", "json_array": "JSON array",
                "lines": "text, one id a line"}[self.kind]
        return f"{what} with {', '.join(self.fields)}" if self.fields else what


CLAIMS_FORMAT = RecordFormat("jsonl", ("id", "claim"))
# the corpus and extra files of the built-in benchmarks (their readers: evidence_ledger.datasets)
BENCHMARK_FILE_FORMATS = {
    ("fever", "wiki"): RecordFormat("jsonl_dir", ("id", "lines")),
    ("feverous", "wiki"): RecordFormat("sqlite", ("id", "data"), table="wiki"),
    ("feverous", "reserved_ids"): RecordFormat("lines"),
    ("scifact", "corpus"): RecordFormat("jsonl", ("doc_id", "abstract")),
}
CONFLICT_RECORDS_FORMAT = RecordFormat("jsonl", ("question", "answer"))
HUMAN_JUDGEMENTS_FORMAT = RecordFormat("jsonl", ("response", "human_label"))
FEWSHOT_FORMAT = RecordFormat("jsonl", ("question", "response", "judgement"))
PROVIDER_FORMAT = RecordFormat("jsonl", ("id", "predicted_evidence"))
READER_RUN_FORMAT = RecordFormat("jsonl")
FAMILIES_FORMAT = RecordFormat("lines")


@dataclass(frozen=True)
class DataFile:
    """A file (or directory) a planned job reads: the config key naming it, its path in data_root."""

    key: str
    relpath: str
    format: RecordFormat


def _wikicontradict_csv_format() -> RecordFormat:
    from ...vocabulary import WIKICONTRADICT_CSV_COLUMNS

    return RecordFormat("csv", WIKICONTRADICT_CSV_COLUMNS)


def _plugin_format(relpath: str) -> RecordFormat | None:
    suffix = Path(relpath).suffix
    return {".jsonl": RecordFormat("jsonl"), ".db": RecordFormat("sqlite"), ".csv": RecordFormat("csv")}.get(suffix)


def planned_data_files(config: Mapping[str, Any]) -> list[DataFile]:
    """Every file under data_root that the run's jobs read, with the config key naming it
    (the same choices as the ingest, evidence, verifier, wikicontradict and diffgr stages)."""
    from ...benchmark_registry import get_benchmark, is_benchmark

    studies = config.get("studies") or {}
    data = config.get("data") or {}
    out: list[DataFile] = []
    for dataset, section in data.items():
        section = section or {}
        if "claims" in section and is_benchmark(dataset):
            for split, rel in (section.get("claims") or {}).items():
                if rel:  # null: a split a later layer leaves out of the run (config/public.yaml)
                    out.append(DataFile(f"data.{dataset}.claims.{split}", rel, CLAIMS_FORMAT))
            corpus_key = get_benchmark(dataset).corpus_key
            for key in (corpus_key, "reserved_ids"):
                rel = section.get(key)
                if not rel:
                    continue
                fmt = BENCHMARK_FILE_FORMATS.get((dataset, key)) or _plugin_format(rel) or RecordFormat("any")
                out.append(DataFile(f"data.{dataset}.{key}", rel, fmt))
    wc = data.get("wikicontradict") or {}
    if studies.get("wikicontradict") and wc:
        out.append(DataFile("data.wikicontradict.rag_qa_csv", wc["rag_qa_csv"], _wikicontradict_csv_format()))
        if wc.get("full_json"):
            out.append(DataFile("data.wikicontradict.full_json", wc["full_json"], RecordFormat("json_array")))
        if wc.get("human_judgements"):
            out.append(DataFile("data.wikicontradict.human_judgements", wc["human_judgements"],
                                HUMAN_JUDGEMENTS_FORMAT))
    if studies.get("diffgr"):
        from ...benchmark_registry import CONFLICT_QA_DATASETS

        for dataset in CONFLICT_QA_DATASETS:
            if (data.get(dataset) or {}).get("records"):
                out.append(DataFile(f"data.{dataset}.records", data[dataset]["records"], CONFLICT_RECORDS_FORMAT))
        for i, files in enumerate((config.get("diffgr") or {}).get("reader_run_files") or []):
            for run in ("hybrid", "generated", "retrieved", "closed_book"):
                out.append(DataFile(f"diffgr.reader_run_files.{i}.{run}", files[run], READER_RUN_FORMAT))
    for name, systems in (config.get("external") or {}).items():
        for system, spec in (systems or {}).items():
            verifier = (spec or {}).get("answers", "files") == "verifier"
            if not spec or (verifier and not studies.get("study1")):
                continue
            out += external_data_files(f"external.{name}.{system}", name, spec, verifier)
    return out


def external_data_files(key: str, name: str, spec: Mapping[str, Any], verifier: bool) -> list[DataFile]:
    """The files of one ``external`` entry: its run files (a provider's evidence lists, or
    prediction files with the first-record fields its format names), its families file, and its
    gold file where its format reads one of its own (``gold_file``)."""
    from ...prediction_files.format_registry import get_format, is_format

    fmt = get_format(name) if not verifier and is_format(name) else None
    record = PROVIDER_FORMAT if verifier else RecordFormat("jsonl", fmt.prediction_fields if fmt else ("id",))
    out = [DataFile(f"{key}.sources.{source}.{i}", path, record)
           for source, files in spec["sources"].items() for i, path in enumerate(files if isinstance(files, list) else [])]
    if spec.get("families"):
        out.append(DataFile(f"{key}.families", spec["families"], FAMILIES_FORMAT))
    if fmt is not None and fmt.gold_key == "gold_file" and spec.get("gold_file"):
        out.append(DataFile(f"{key}.gold_file", spec["gold_file"], RecordFormat("jsonl", fmt.gold_fields)))
    return out


def _first_line(path: Path) -> tuple[int, str] | None:
    """(1-based line, text) of the first non-blank line of a text file, reading no further."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(iter(lambda: fh.readline(FIRST_LINE_LIMIT), b""), start=1):
            if raw.strip():
                return number, raw.decode("utf-8", errors="surrogateescape")
    return None


def _json_object_problem(path: Path, fmt: RecordFormat) -> str | None:
    first = _first_line(path)
    if first is None:
        return "holds only blank lines"
    number, text = first
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        return f"line {number}: not a JSON object ({getattr(err, 'msg', err)})"
    if not isinstance(record, dict):
        return f"line {number}: a JSON {type(record).__name__}, not an object"
    missing = [f for f in fmt.fields if f not in record]
    if missing:
        return f"line {number}: the first record lacks {', '.join(missing)} (expected {fmt.describe()})"
    return None


def _sqlite_problem(path: Path, fmt: RecordFormat) -> str | None:
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            table = fmt.table or (tables[0] if tables else None)
            if table not in tables:
                return f"no table {fmt.table!r} (tables: {', '.join(tables) or 'none'})"
            columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
            missing = [f for f in fmt.fields if f not in columns]
            if missing:
                return f"table {table} lacks column(s) {', '.join(missing)} (has {', '.join(columns)})"
            row = db.execute(f'SELECT * FROM "{table}" LIMIT 1').fetchone()
            if row is None:
                return f"table {table} has no rows"
            if "data" in fmt.fields:
                value = row[columns.index("data")]
                try:
                    json.loads(value)
                except (TypeError, ValueError):
                    return f"table {table}, row 1: column data is not JSON"
    except sqlite3.DatabaseError as err:
        return f"not a readable SQLite database ({err})"
    return None


def _csv_problem(path: Path, fmt: RecordFormat) -> str | None:
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        try:
            header = next(csv.reader(fh), None)
        except csv.Error as err:
            return f"line 1: not a CSV header ({err})"
    if not header:
        return "line 1: no CSV header"
    missing = [c for c in fmt.fields if c not in [h.strip().lstrip("\ufeff") for h in header]]
    if missing:
        return f"line 1: the CSV header lacks column(s) {', '.join(missing)}"
    return None


def _json_array_problem(path: Path) -> str | None:
    """The first item of a JSON array, read in 1 MiB chunks until it parses (at most
    :data:`FIRST_LINE_LIMIT`): a syntax error before the end of what was read is final."""
    decoder = json.JSONDecoder()
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = ""
        while True:
            chunk = fh.read(1 << 20)
            text += chunk
            body = text.lstrip()
            if body and body[0] != "[":
                return "not a JSON array (the first character is not '[')"
            item_text = body[1:].lstrip()
            try:
                item, _ = decoder.raw_decode(item_text)
            except json.JSONDecodeError as err:
                if not chunk or err.pos < len(item_text) - 1:
                    return f"the first item is not JSON ({err.msg})"
                if len(text) > FIRST_LINE_LIMIT:
                    return f"the first item is longer than {FIRST_LINE_LIMIT >> 20} MiB"
                continue
            return None if isinstance(item, dict) else "the first item of the array is not an object"


def _lines_problem(path: Path) -> str | None:
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            if line.split("#", 1)[0].strip():
                return None
    return "holds no record (only blank or comment lines); set the key to null if it names none"


def first_record_problem(path: Path, fmt: RecordFormat) -> str | None:
    """Why the first record of ``path`` does not parse as ``fmt`` (None when it does); reads
    at most that record (for a directory: of each ``*.jsonl`` in it)."""
    if fmt.kind == "jsonl_dir":
        if not path.is_dir():
            return "is not a directory (the wiki's pages directory, *.jsonl files)"
        files = sorted(path.glob("*.jsonl"))
        if not files:
            return "holds no *.jsonl file"
        for f in files:
            problem = _file_problem(f) or _json_object_problem(f, RecordFormat("jsonl", fmt.fields))
            if problem:
                return f"{f.name}: {problem}"
        return None
    problem = _file_problem(path)
    if problem:
        return problem
    if fmt.kind == "jsonl":
        return _json_object_problem(path, fmt)
    if fmt.kind == "sqlite":
        return _sqlite_problem(path, fmt)
    if fmt.kind == "csv":
        return _csv_problem(path, fmt)
    if fmt.kind == "json_array":
        return _json_array_problem(path)
    if fmt.kind == "lines":
        return _lines_problem(path)
    return None


def planned_input_files(ctx: RunContext) -> list[tuple[str, Path, RecordFormat]]:
    """Files outside data_root the planned jobs read: the judge's few-shot examples
    (WikiContradict) and the paper's reference values, each ``(key, absolute path, format)``
    resolved as config/README.md "Paths" says (the workflow's own files where its layers set them)."""
    out = []
    if (ctx.config.get("studies") or {}).get("wikicontradict"):
        out.append(("wikicontradict.judge.fewshot_file", ctx.path("wikicontradict.judge.fewshot_file", "input"),
                    FEWSHOT_FORMAT))
    if config_value(ctx.config, "accounting.reference_values"):
        out.append(("accounting.reference_values", ctx.path("accounting.reference_values", "input"),
                    RecordFormat("lines")))
    return out


def _file_problem(path: Path) -> str | None:
    if not path.exists():
        return "does not exist"
    if path.is_dir():
        return "is a directory, not a file"
    if path.stat().st_size == 0:
        return "is empty"
    if not os.access(path, os.R_OK):
        return "cannot be read (permissions)"
    return None


def data_root_problem(ctx: RunContext) -> str | None:
    root = ctx.data_root()
    if root is None:
        return None  # config_errors names the unset data_root
    if not root.exists():
        return "does not exist"
    if not root.is_dir():
        return "is not a directory"
    try:
        if not any(root.iterdir()):
            return "is an empty directory"
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    return None


def data_checks(ctx: RunContext) -> list[Check]:
    """data_root, then every planned data file: exists, not empty, first record parses."""
    out = []
    for key, path, fmt in planned_input_files(ctx):
        problem = first_record_problem(path, fmt)
        out.append(Check("data", FAIL, f"{ctx.named(key)}: {path} {problem}") if problem
                   else Check("data", OK, f"{key}: {path} ({fmt.describe()})"))
    root = ctx.data_root()
    if root is None:
        return out
    files = planned_data_files(ctx.config)
    problem = data_root_problem(ctx)
    if problem:
        return out + [Check("data", FAIL, f"{ctx.named('data_root')}: {root} {problem}; give the directory holding "
                                          f"the benchmark files (config/README.md, 'Paper data layout'); "
                                          f"{len(files)} data files not checked")]
    out.append(Check("data", OK, f"data_root {root}: a directory"))
    resolved_root = root.resolve()
    for f in files:
        path = inside_data_root(ctx, f.relpath)
        if path != resolved_root and resolved_root not in path.parents:
            continue  # outside data_root: refused under paths, not read
        problem = first_record_problem(path, f.format)
        if problem:
            out.append(Check("data", FAIL, f"{ctx.named(f.key)}: {path} {problem}"))
        else:
            out.append(Check("data", OK, f"{f.key}: {f.relpath} ({f.format.describe()})"))
    return out


def data_bytes(ctx: RunContext) -> int:
    """Bytes of the planned data files that exist (sizes only; a directory's ``*.jsonl`` summed)."""
    if ctx.data_root() is None or data_root_problem(ctx):
        return 0
    total = 0
    for f in planned_data_files(ctx.config):
        path = inside_data_root(ctx, f.relpath)
        if path.is_dir():
            total += sum(p.stat().st_size for p in path.glob("*.jsonl") if p.is_file())
        elif path.is_file():
            total += path.stat().st_size
    return total
