"""The preflight: every mistake that can be known before a run's first job, one line each.

``python -m evidence_ledger check --configfile ... --config ...`` (the same ``--configfile``
and ``--config`` as Snakemake, merged and typed the same way: :mod:`evidence_ledger.config.layers`)
prints one line per check and exits non-zero when any fails; the workflow runs the same checks
when it starts, every run and every dry run, before any job (workflow/rules/common.smk), and
prints only what failed or needs saying. ``plan`` shares the config handling (:func:`command_line_run`).

In:  the run's config (:class:`~evidence_ledger.config.layers.RunConfig`), the workflow's
     directory (the Snakefile's: its own config layers, schema and shipped files), the run
     directory (Snakemake's working directory, where relative paths resolve and ``results/`` is
     written) and the GPUs the run grants (``--resources gpu=N``; None: no limit, e.g. SLURM).
Out: :class:`Check` rows, one line each: ``ok``, ``FAIL`` or ``note``, the area, and the config
     key or file with what to do. Areas, in order:

* ``config``: the schema (each refused value one line: key, value, the file and line or
  ``--config`` it came from, what is expected; :func:`evidence_ledger.run.config_checks.schema_errors`),
  plugins and benchmark names, and the cross-key checks (``config_checks.config_errors``);
* ``paths``: where relative paths resolve (the run directory, never the installed package; the
  workflow's own layers' files in the workflow's directory), every ``data_root`` path inside it;
* ``data``: ``data_root`` exists and is a non-empty directory; every file the planned jobs read
  (:func:`planned_data_files` in data_root, :func:`planned_input_files` outside it) exists, is not empty, and its first record parses in its format
  (a JSON line with the fields its reader needs, a CSV header with the expected columns, the
  SQLite table with its columns and a first row, each ``*.jsonl`` of a wiki directory);
  nothing past the first record of any file is read;
* ``models``: every model the planned jobs load (:func:`planned_models`): built by a rule of
  the run, or present at its pinned revision (Hub cache or local directory) and complete
  (``model_files.model_dir_problems``: config, tokenizer, every shard its index lists, weights
  loadable by the safe rule or the conversion command named), remote code as the config says;
* ``machine``: every GPU job fits the GPUs the run grants (:mod:`evidence_ledger.models.gpu_fit`); a
  GPU is visible when the run grants GPUs to GPU jobs (no limit: a note); free disk where
  ``results/`` is written against the planner's estimate of what the run writes;
* ``plan``: the longest planned Study 2 prompt plus ``generation.max_new_tokens`` fits
  ``generation.vllm.max_model_len`` of every ``generate`` model (vLLM refuses a longer one only
  when the job sends it); so do the WikiContradict and DiffGR prompts whose inputs are already
  ingested (:mod:`evidence_ledger.run.conflict_prompts`).

A config the schema refuses stops the other areas (they read its keys); every other area runs
whatever another found, so one ``check`` names every problem at once.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..evidence.budget import budget_tokenizer_models
from .config_checks import ConfigRefused, config_errors, schema_errors, short_value
from .conflict_prompts import conflict_prompt_lines
from ..config.layers import ConfigError, RunConfig, load_schema, path_keys, repo_root, resolve_path, run_config
from ..errors import ExpectedError

OK, FAIL, NOTE = "ok", "FAIL", "note"
AREAS = ("config", "paths", "data", "models", "machine", "plan")
FIRST_LINE_LIMIT = 64 << 20  # a first record longer than this is not read whole (64 MiB)
NVIDIA_SMI_TIMEOUT_S = 60


class PreflightFailed(ExpectedError):
    """Some check failed; the message says how many (the ``FAIL`` lines say which)."""


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``status`` (``ok`` / ``FAIL`` / ``note``), ``area`` and one line of text."""

    area: str
    status: str
    text: str

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def line(self) -> str:
        return f"{self.status:<4} {self.area:<7} {' '.join(self.text.split())}"


@dataclass
class RunContext:
    """A run as the preflight sees it: its config and origins, the workflow's directory, the run
    directory and the GPUs the run grants."""

    run: RunConfig
    workflow_dir: Path
    run_dir: Path
    schema: dict = field(default_factory=dict)
    gpus_granted: int | None = None

    @property
    def config(self) -> dict:
        return self.run.config

    def origin(self, key: str | Sequence[str]) -> str:
        return self.run.origin(key)

    def named(self, key: str) -> str:
        """``key = value (origin)``, how every message names a setting."""
        return f"{key} = {short_value(_get(self.config, key))} ({self.origin(key)})"

    def path(self, key: str, kind: str) -> Path | None:
        return resolve_path(self.run, key, self.run_dir, self.workflow_dir, kind)

    def data_root(self) -> Path | None:
        return self.path("data_root", "input")


def _get(config: Any, dotted: str | Sequence[str], default: Any = None) -> Any:
    node = config
    for part in (dotted.split(".") if isinstance(dotted, str) else dotted):
        if isinstance(node, list) and str(part).isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return default
    return node


# --- config ---------------------------------------------------------------------------------


def config_checks(ctx: RunContext, need_data_root: bool = True) -> list[Check]:
    """The schema, the plugins and benchmark names, and the cross-key checks."""
    from ..benchmark_registry import check_config_benchmarks, load_plugins

    layers = " + ".join(ctx.run.layers)
    errors = schema_errors(ctx.config, ctx.schema, ctx.origin)
    if errors:
        return [Check("config", FAIL, e) for e in errors]
    out = []
    try:
        load_plugins(ctx.config.get("benchmark_plugins") or [])
        check_config_benchmarks(ctx.config, ctx.schema["properties"]["data"]["properties"])
    except ValueError as err:
        return [Check("config", FAIL, f"{str(err).removeprefix('config: ')} ({ctx.origin('benchmark_plugins')})")]
    problems = config_errors(ctx.config) + generation_backend_errors(ctx.config)
    if not need_data_root:
        problems = [p for p in problems if not p.startswith("data_root is not set")]
    out += [Check("config", FAIL, with_origins(p, ctx)) for p in problems]
    if not out:
        out.append(Check("config", OK, f"schema and cross-key checks pass: {layers}"))
    return out


def generation_backend_errors(config: Mapping[str, Any]) -> list[str]:
    """Every generating model's backend is known (built in, ``generation.backend_plugins`` or an
    installed entry point); a served model names its server and the API-key variable it names is
    set in this environment, which the jobs inherit."""
    from ..generation.backends.base import backend_errors
    from ..models.gpu_fit import generation_jobs

    defined = config.get("models") or {}
    models = [m for _, m in generation_jobs(config) if m in defined]
    return list(dict.fromkeys(backend_errors(config, models, os.environ)))  # generation.backend: once, not per model


def with_origins(message: str, ctx: RunContext) -> str:
    """``message`` followed by where each config key it names was set (``[key: FILE:LINE; ...]``)."""
    import re

    keys = []
    for token in re.findall(r"\b[a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_-]+)+\b", message):
        if _get(ctx.config, token, _MISSING) is not _MISSING and token not in keys:
            keys.append(token)
    if not keys:
        return message
    return f"{message} [{'; '.join(f'{k}: {ctx.origin(k)}' for k in keys)}]"


_MISSING = object()


# --- paths ----------------------------------------------------------------------------------


def path_checks(ctx: RunContext) -> list[Check]:
    """Where relative paths resolve, and every data path inside data_root."""
    out = []
    shipped = sorted({".".join(p) for p, kind in path_keys(ctx.config, ctx.schema)
                      if kind == "input" and ctx.run.from_workflow(p) and not Path(_get(ctx.config, p)).is_absolute()})
    root = ctx.data_root()
    text = f"relative paths resolve against the run directory {ctx.run_dir}"
    if root is not None:
        text += f"; data_root -> {root}"
    if shipped:
        text += f"; the workflow's own files ({', '.join(shipped)}) against the workflow's directory {ctx.workflow_dir}"
    out.append(Check("paths", OK, text))
    if root is None:
        return out
    resolved_root = root.resolve()
    for path, kind in path_keys(ctx.config, ctx.schema):
        if kind != "data_root":
            continue
        key = ".".join(path)
        target = (resolved_root / _get(ctx.config, path)).resolve()
        if target != resolved_root and resolved_root not in target.parents:
            out.append(Check("paths", FAIL, f"{ctx.named(key)}: resolves to {target}, outside data_root "
                                            f"{resolved_root}; data paths stay inside data_root"))
    return out


def inside_data_root(ctx: RunContext, relpath: str) -> Path:
    """A data path resolved inside data_root (symlinks followed)."""
    return (ctx.data_root().resolve() / relpath).resolve()


# --- data -----------------------------------------------------------------------------------


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
# an outside system's official prediction files (`account`), by benchmark
PREDICTION_FORMATS = {"fever": RecordFormat("jsonl", ("id", "predicted_label", "predicted_evidence")),
                      "feverous": RecordFormat("jsonl", ("id", "predicted_label", "predicted_evidence")),
                      "scifact": RecordFormat("jsonl", ("id", "evidence"))}
FAMILIES_FORMAT = RecordFormat("lines")


@dataclass(frozen=True)
class DataFile:
    """A file (or directory) a planned job reads: the config key naming it, its path in data_root."""

    key: str
    relpath: str
    format: RecordFormat


def _wikicontradict_csv_format() -> RecordFormat:
    from ..vocabulary import WIKICONTRADICT_CSV_COLUMNS

    return RecordFormat("csv", WIKICONTRADICT_CSV_COLUMNS)


def _plugin_format(relpath: str) -> RecordFormat | None:
    suffix = Path(relpath).suffix
    return {".jsonl": RecordFormat("jsonl"), ".db": RecordFormat("sqlite"), ".csv": RecordFormat("csv")}.get(suffix)


def planned_data_files(config: Mapping[str, Any]) -> list[DataFile]:
    """Every file under data_root that the run's jobs read, with the config key naming it
    (the same choices as the ingest, evidence, verifier, wikicontradict and diffgr stages)."""
    from ..benchmark_registry import get_benchmark, is_benchmark

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
        from ..benchmark_registry import CONFLICT_QA_DATASETS

        for dataset in CONFLICT_QA_DATASETS:
            if (data.get(dataset) or {}).get("records"):
                out.append(DataFile(f"data.{dataset}.records", data[dataset]["records"], CONFLICT_RECORDS_FORMAT))
        for i, files in enumerate((config.get("diffgr") or {}).get("reader_run_files") or []):
            for run in ("hybrid", "generated", "retrieved", "closed_book"):
                out.append(DataFile(f"diffgr.reader_run_files.{i}.{run}", files[run], READER_RUN_FORMAT))
    for benchmark, systems in (config.get("external") or {}).items():
        for system, spec in (systems or {}).items():
            verifier = (spec or {}).get("answers", "files") == "verifier"
            if not spec or (verifier and not studies.get("study1")):
                continue
            fmt = PROVIDER_FORMAT if verifier else PREDICTION_FORMATS.get(benchmark, RecordFormat("jsonl", ("id",)))
            for source, files in spec["sources"].items():
                for i, path in enumerate(files if isinstance(files, list) else []):
                    out.append(DataFile(f"external.{benchmark}.{system}.sources.{source}.{i}", path, fmt))
            if spec.get("families"):
                out.append(DataFile(f"external.{benchmark}.{system}.families", spec["families"], FAMILIES_FORMAT))
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
    if _get(ctx.config, "accounting.reference_values"):
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


# --- models ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedModel:
    """A model the run loads: its config key, a local directory (``local``, absolute) or a Hub
    id at ``revision``, the key allowing pickle weights, whether remote code is trusted, the
    rule that builds it (None: it must exist before the run), and ``convert`` (the Hub model a
    ``convert-weights`` output in ``local`` comes from)."""

    key: str
    local: Path | None
    hub_id: str | None
    revision: str | None
    allow_key: str
    allow_pickle: bool
    trust_remote_code: bool = False
    built_by: str | None = None
    convert: bool = False


def planned_models(ctx: RunContext) -> list[PlannedModel]:
    """Every model the run's jobs load: generation models and budget tokenizers (Study 2), the
    conflict stages' readers and judge, the reranker, the verifier's base (Study 1)."""
    config = ctx.config
    studies = config.get("studies") or {}
    models = config.get("models") or {}
    names: list[str] = []
    if studies.get("study2"):
        names += list((config.get("generation") or {}).get("models") or [])
        names += budget_tokenizer_models(config)
    if studies.get("wikicontradict"):
        wc = config.get("wikicontradict") or {}
        names += list(wc.get("models") or []) + [wc.get("judge", {}).get("model")]
    if studies.get("diffgr"):
        names += list((config.get("diffgr") or {}).get("models") or [])
    builds = {m.get("local_dir"): f"build_demo_models (models.{n}.build)" for n, m in models.items()
              if (m or {}).get("build") and m.get("local_dir")}
    out = []
    for name in dict.fromkeys(n for n in names if n in models):
        spec = models[name]
        local = spec.get("local_dir")
        out.append(PlannedModel(f"models.{name}", ctx.path(f"models.{name}.local_dir", "run") if local else None,
                                spec.get("hub_id"), spec.get("revision"), f"models.{name}.allow_pickle_weights",
                                bool(spec.get("allow_pickle_weights")), bool(spec.get("trust_remote_code")),
                                builds.get(local)))
    retrieval = config.get("retrieval") or {}
    reranker = retrieval.get("reranker") or {}
    if reranker and retrieval.get("datasets"):
        local = reranker.get("local_dir")
        out.append(PlannedModel("retrieval.reranker", ctx.path("retrieval.reranker.local_dir", "run") if local else None,
                                reranker.get("hub_id"), reranker.get("revision"),
                                "retrieval.reranker.allow_pickle_weights", bool(reranker.get("allow_pickle_weights")),
                                built_by="build_demo_reranker (retrieval.reranker.build)" if reranker.get("build")
                                else None))
    verifier = config.get("verifier") or {}
    if studies.get("study1") and verifier:
        base = verifier.get("base_model") or {}
        if verifier.get("demo_model"):
            out.append(PlannedModel("verifier.base_model", None, base.get("hub_id"), base.get("revision"),
                                    "verifier.base_model.allow_pickle_weights", False,
                                    built_by="build_demo_verifier (verifier.demo_model)"))
        else:
            usable_root = ctx.data_root() is not None and data_root_problem(ctx) is None
            local = inside_data_root(ctx, base["local_dir"]) if base.get("local_dir") and usable_root else None
            out.append(PlannedModel("verifier.base_model", local, base.get("hub_id"), base.get("revision"),
                                    "verifier.base_model.allow_pickle_weights", bool(base.get("allow_pickle_weights")),
                                    convert=bool(base.get("local_dir"))))
    return out


def _convert_command(model: PlannedModel) -> str:
    return (f"python -m evidence_ledger convert-weights {model.hub_id} --revision {model.revision} "
            f"--out {model.local}")


def model_check(ctx: RunContext, model: PlannedModel) -> Check:
    """Whether one planned model can be loaded as the run will load it."""
    from ..models.model_files import ModelNotCached, hub_snapshot_dir, model_dir_problems

    key = model.key
    where = ctx.origin(f"{key}.local_dir" if model.local else f"{key}.revision")
    if model.built_by:
        return Check("models", OK, f"{key}: built by rule {model.built_by} before any job loads it")
    if model.local is None and model.convert:
        return Check("models", NOTE, f"{key}.local_dir ({where}): in data_root, not checked until data_root is "
                                     f"set to an existing directory")
    if model.local is not None:
        label = f"{key}.local_dir -> {model.local} ({where})"
        directory = model.local
        if not directory.exists():
            fix = (f"convert the pickle-only base model once: {_convert_command(model)}" if model.convert
                   else "place the model there, or set the key to null to load the Hub id at its revision")
            return Check("models", FAIL, f"{label}: does not exist; {fix}")
    else:
        label = f"{key}: {model.hub_id}@{model.revision} ({where})"
        try:
            directory = hub_snapshot_dir(model.hub_id, model.revision)
        except ModelNotCached as err:
            return Check("models", FAIL, f"{key} ({where}): {err}")
    problems = model_dir_problems(directory, allow_pickle=model.allow_pickle, allow_key=model.allow_key,
                                  trust_remote_code=model.trust_remote_code,
                                  trust_key=f"{key}.trust_remote_code" if key.startswith("models.") else None)
    if problems:
        fix = ""
        if model.convert:
            fix = f"; convert it again: {_convert_command(model)}"
        elif any("weights are pickle" in p for p in problems):
            source = str(model.local) if model.local else f"{model.hub_id} --revision {model.revision}"
            fix = (f"; or convert them once: python -m evidence_ledger convert-weights {source} --out DIR, and "
                   f"set {key}.local_dir to DIR")
        return Check("models", FAIL, f"{label}: {'; '.join(problems)}{fix}")
    return Check("models", OK, f"{label}: config, tokenizer and weights complete")


def model_checks(ctx: RunContext) -> list[Check]:
    out = []
    for model in planned_models(ctx):
        try:
            out.append(model_check(ctx, model))
        except ModuleNotFoundError as err:  # a Hub model, where huggingface_hub is not installed
            out.append(not_here("models", err))
    return out


# --- machine --------------------------------------------------------------------------------


def visible_gpus() -> tuple[int, str]:
    """(GPUs this process can use, how that was found): ``CUDA_VISIBLE_DEVICES`` and
    ``nvidia-smi -L``; no torch import."""
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
    if hidden is not None and hidden.strip() in ("", "-1"):
        return 0, f"CUDA_VISIBLE_DEVICES={hidden!r} hides every GPU"
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return 0, "no nvidia-smi on PATH"
    try:
        proc = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=NVIDIA_SMI_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        return 0, f"nvidia-smi -L failed ({err})"
    n = sum(1 for line in proc.stdout.splitlines() if line.startswith("GPU "))
    if hidden:
        n = min(n, len([d for d in hidden.split(",") if d.strip()]))
    return n, f"nvidia-smi lists {n}"


def gpu_job_rules(ctx: RunContext) -> list[str]:
    """The GPU rules the run plans (rule x model kinds of gpu_fit's table)."""
    from ..models.gpu_fit import gpu_fit_rows

    return list(dict.fromkeys(r["rule"] for r in gpu_fit_rows(ctx.config, ctx.run_dir)))


def machine_checks(ctx: RunContext, corpus_bytes: int | None = None,
                   planned: tuple[list[dict], list[str]] | None = None,
                   gpus: tuple[int, str] | None = None) -> list[Check]:
    """GPU fit, a GPU present for GPU jobs, free disk for results/."""
    from ..models.gpu_fit import checks_gpu_fit, config_device_memory_gb, gpu_fit_errors

    out = []
    memory = config_device_memory_gb(ctx.config)
    if checks_gpu_fit(ctx.config):
        errors = gpu_fit_errors(ctx.config, ctx.gpus_granted, memory, ctx.run_dir)
        out += [Check("machine", FAIL, f"GPU fit: {e}") for e in errors]
        if not errors:
            out.append(Check("machine", OK, f"GPU fit: every GPU job fits one GPU of {memory:g} GB (device_memory_gb)"
                             + ("" if ctx.gpus_granted is None else f" and the {ctx.gpus_granted} the run grants")))
        rules = gpu_job_rules(ctx)
        n, how = gpus if gpus is not None else visible_gpus()
        if n == 0 and rules and ctx.gpus_granted:
            out.append(Check("machine", FAIL, f"the run grants {ctx.gpus_granted} GPU(s) (--resources gpu="
                                              f"{ctx.gpus_granted}) to its GPU jobs ({', '.join(rules)}) but none is "
                                              f"visible here ({how}); run on the GPU machine, submit through SLURM "
                                              f"(--profile workflow/profiles/slurm), or ask for CPU: --config gpu_jobs=cpu"))
        elif n == 0 and rules:
            out.append(Check("machine", NOTE, f"no GPU visible here ({how}): the GPU jobs ({', '.join(rules)}) must "
                                              f"run where the executor places them (SLURM: the GPU partition)"))
        elif rules:
            out.append(Check("machine", OK, f"GPUs visible here: {n} ({how})"))
    else:
        out.append(Check("machine", OK, "GPU: none asked for (gpu_jobs: cpu or generation.backend: transformers)"))
    out += gpu_pool_checks(ctx)
    out.append(disk_check(ctx, corpus_bytes, planned))
    return out


def gpu_pool_checks(ctx: RunContext) -> list[Check]:
    """The devices a workstation run pins its GPU jobs to (:mod:`evidence_ledger.run.gpu_slots`): no
    more granted (``--resources gpu``) than ``CUDA_VISIBLE_DEVICES`` lists, where it is set."""
    from .gpu_slots import GpuPoolError, device_pool

    try:
        pool = device_pool(os.environ.get("CUDA_VISIBLE_DEVICES"), ctx.gpus_granted)
    except GpuPoolError as err:
        return [Check("machine", FAIL, str(err))]
    if pool is None:
        return []
    return [Check("machine", OK, f"GPU jobs pinned to devices {','.join(pool)}, one job per device slot")]


def disk_check(ctx: RunContext, corpus_bytes: int | None, planned: tuple[list[dict], list[str]] | None) -> Check:
    from ..generation import planner

    results = ctx.run_dir / "results"
    probe = results
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    rows, uncounted = planned if planned is not None else ([], [])
    verifier_params = _verifier_params(ctx)
    need = planner.written_bytes_estimate(ctx.config, rows, corpus_bytes or 0, verifier_params)
    text = (f"disk: {_gb(free)} free at {probe} for results/; the run writes at most about {_gb(need)} "
            f"(planner estimate: corpus tables and index, prompts and answers, verifier checkpoints)")
    if uncounted:
        text += f"; not counted in it: {'; '.join(uncounted)}"
    if free < need:
        return Check("machine", FAIL, text + "; free space or run in a directory (--directory) on a larger disk")
    return Check("machine", OK, text)


def _verifier_params(ctx: RunContext) -> int | None:
    from ..models.gpu_fit import model_facts

    verifier = ctx.config.get("verifier") or {}
    if not (ctx.config.get("studies") or {}).get("study1") or verifier.get("demo_model"):
        return None
    return model_facts((verifier.get("base_model") or {}).get("hub_id"), None, ctx.run_dir).params


def _gb(n: float) -> str:
    return f"{n / 1e9:,.1f} GB"


# --- plan -----------------------------------------------------------------------------------


def planned_rows(ctx: RunContext) -> tuple[list[dict], list[str]]:
    """The planner's config-basis rows (no prefix-cache replay), for the disk estimate, and why
    a model x dataset could not be counted (:class:`~evidence_ledger.generation.planner.PlannerError`:
    e.g. a population known only after ingest), said in the disk line."""
    from ..generation import planner

    config = ctx.config
    if not (config.get("studies") or {}).get("study2"):
        return [], []
    gen = config["generation"]
    rows, uncounted = [], []
    for model in gen["models"]:
        for dataset in gen["datasets"]:
            try:
                rows += planner.plan_from_config(config, dataset, model, ctx.run_dir, ctx.data_root(), reuse=False)
            except planner.PlannerError as err:
                uncounted.append(str(err).removeprefix("planner: "))
    return rows, list(dict.fromkeys(uncounted))


def plan_checks(ctx: RunContext) -> list[Check]:
    """The longest planned Study 2 prompt + output tokens against each generate model's max_model_len."""
    from ..generation import planner
    from ..generation.prompt_fit import context_limit

    config = ctx.config
    gen = config.get("generation") or {}
    if not (config.get("studies") or {}).get("study2") or gen.get("backend") != "vllm":
        return []
    longest = planner.longest_prompt_tokens(config) + int(gen["max_new_tokens"])
    out = []
    for model in gen["models"]:
        limit, key = context_limit((gen.get("vllm") or {}).get("max_model_len"), model, config["models"][model],
                                   ctx.run_dir)
        if not limit:
            continue
        bound = (f"the longest planned prompt ({planner.longest_prompt_tokens(config):,} tokens: "
                 f"generation.planner.prompt_tokens_overhead + the largest evidence budget) + "
                 f"generation.max_new_tokens {gen['max_new_tokens']} = {longest:,} tokens")
        if longest > int(limit):
            out.append(Check("plan", FAIL, f"generate, models.{model}: {bound} exceed {key} = {int(limit):,} "
                                           f"({ctx.origin('generation.vllm.max_model_len')}); vLLM would refuse those "
                                           f"prompts only when the job sends them: raise {key} or lower evidence.budgets"))
        else:
            out.append(Check("plan", OK, f"generate, models.{model}: {bound} fit {key} = {int(limit):,}"))
    return out


# --- the whole preflight --------------------------------------------------------------------


def not_here(area: str, err: ModuleNotFoundError) -> Check:
    """What an environment without one of the packages (the SLURM submit host's .venv-slurm has
    neither pyarrow nor huggingface_hub) could not check, said, not skipped silently."""
    return Check(area, NOTE, f"not checked in this environment ({sys.executable}), which has no {err.name}: "
                             f"`python -m evidence_ledger check` with the same arguments in the jobs' environment "
                             f"checks it")


def run_checks(ctx: RunContext) -> list[Check]:
    """Every check of the run, in area order (module docstring)."""
    if schema_errors(ctx.config, ctx.schema, ctx.origin):
        return config_checks(ctx) + [Check("config", NOTE, "the other checks run once the config above is valid")]
    checks = config_checks(ctx)
    cross_key_failed = any(c.failed for c in checks)
    checks += path_checks(ctx)
    checks += data_checks(ctx)
    checks += model_checks(ctx)
    try:
        planned = ([], []) if cross_key_failed else planned_rows(ctx)
    except ModuleNotFoundError as err:
        planned = ([], [not_here("plan", err).text])
    checks += machine_checks(ctx, data_bytes(ctx), planned)
    if not cross_key_failed:
        try:
            checks += plan_checks(ctx)
            checks += [Check("plan", status, text) for status, text in conflict_prompt_lines(ctx.config, ctx.run_dir)]
        except ModuleNotFoundError as err:
            checks.append(not_here("plan", err))
    return checks


def command_line_run(configfiles: Sequence[str], entries: Sequence[str], directory: str | Path = ".",
                     snakefile: str | Path | None = None, gpus_granted: int | None = None) -> RunContext:
    """A run from a command line like Snakemake's: the workflow of ``snakefile`` (default
    ``DIRECTORY/Snakefile`` or ``./Snakefile``, else this package's checkout), the config
    files (relative to the current directory, as Snakemake reads them) and ``--config``
    entries, run directory ``directory``."""
    workflow_dir = _workflow_dir(snakefile, directory)
    schema = load_schema(workflow_dir)
    run = run_config(workflow_dir, list(configfiles), list(entries), schema=schema)
    return RunContext(run, workflow_dir, Path(directory).absolute(), schema, gpus_granted)


def _workflow_dir(snakefile, directory) -> Path:
    if snakefile is not None:
        path = Path(snakefile)
        if not path.is_file():
            raise ConfigError(f"--snakefile {snakefile}: no such file")
        return path.absolute().parent
    for candidate in (Path(directory) / "Snakefile", Path("Snakefile")):
        if candidate.is_file() and (candidate.parent / "config" / "defaults.yaml").is_file():
            return candidate.absolute().parent
    return repo_root()


def refusal(checks: Iterable[Check]) -> str | None:
    """The one-line summary of failed checks (None when none failed)."""
    checks = list(checks)
    failed = sum(c.failed for c in checks)
    if not failed:
        return None
    return (f"preflight: {failed} of {len(checks)} checks failed (the FAIL lines above); nothing has run. "
            f"`python -m evidence_ledger check` with the same --configfile/--config lists every check")


# packages some checks need that a Snakemake-only environment (.venv-slurm) lacks
CHECK_PACKAGES = ("pyarrow", "huggingface_hub")


def missing_packages() -> list[str]:
    import importlib.util

    return [name for name in CHECK_PACKAGES if importlib.util.find_spec(name) is None]


def delegated_preflight(job_python: Path, snakefile: Path | str, configfiles: Sequence, config_args: Sequence[str],
                        gpus_granted: int | None, stream) -> None:
    """The workflow's start in an environment without :data:`CHECK_PACKAGES` (the SLURM submit
    host's): ``check`` with the run's arguments, run by the jobs' interpreter ``job_python``
    (which has them), its non-``ok`` lines relayed; its failure ends the run."""
    cmd = [str(job_python), "-m", "evidence_ledger", "check", "--snakefile", str(snakefile), "--directory",
           str(Path.cwd())]
    if configfiles:
        cmd += ["--configfile", *[str(f) for f in configfiles]]
    if config_args:
        cmd += ["--config", *[str(a) for a in config_args]]
    if gpus_granted is not None:
        cmd += ["--resources", f"gpu={gpus_granted}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if not line.startswith(OK) or line.startswith("check:"):
            print(line, file=stream, flush=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise SystemExit(f"{last} (preflight run by {job_python}: this environment has no "
                         f"{', '.join(missing_packages())})")


def workflow_preflight(run: RunConfig, workflow_dir: Path | str, gpus_granted: int | None, stream=None, *,
                       job_python: Path | None = None, command_line: tuple | None = None) -> None:
    """The workflow's start (workflow/rules/common.smk): the checks of this run; their ``FAIL``
    and ``note`` lines (or one line saying all passed) on ``stream`` (stderr); a failure ends
    the Snakemake process before any job with :class:`SystemExit`, one line saying why. Where
    this environment lacks :data:`CHECK_PACKAGES` and the jobs' interpreter ``job_python`` exists,
    the checks run there (:func:`delegated_preflight`, ``command_line`` = the Snakefile, the
    ``--configfile`` files and the ``--config`` entries)."""
    stream = stream if stream is not None else sys.stderr
    if missing_packages() and job_python is not None and Path(job_python).exists() and command_line is not None:
        return delegated_preflight(Path(job_python), *command_line, gpus_granted, stream)
    workflow_dir = Path(workflow_dir)
    ctx = RunContext(run, workflow_dir, Path.cwd(), load_schema(workflow_dir), gpus_granted)
    checks = run_checks(ctx)
    for c in checks:
        if c.status != OK:
            print(c.line(), file=stream, flush=True)
    summary = refusal(checks)
    if summary:
        raise SystemExit(f"error: {summary}")
    print(f"preflight: {len(checks)} checks passed (python -m evidence_ledger check lists them)", file=stream,
          flush=True)


# --- the command ----------------------------------------------------------------------------


def granted_gpus(resources: Sequence[str], profile: str | None) -> int | None:
    """GPUs granted by ``--resources gpu=N`` (wins) or the profile's ``resources:``; None: no limit."""
    import yaml

    values = list(resources or [])
    if profile and not values:
        path = Path(profile) / "config.yaml"
        if not path.is_file():
            raise ConfigError(f"--profile {profile}: no {path}")
        res = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("resources") or {}
        values = [f"{k}={v}" for k, v in res.items()] if isinstance(res, Mapping) else list(res)
    for item in values:
        name, sep, value = str(item).partition("=")
        if name.strip() == "gpu":
            try:
                return int(value)
            except ValueError:
                raise ConfigError(f"--resources {item!r}: expected gpu=N with N a whole number") from None
    return None


def run(args: argparse.Namespace) -> int:
    ctx = command_line_run(args.configfile, args.config, args.directory, args.snakefile,
                           granted_gpus(args.resources, args.profile))
    checks = run_checks(ctx)
    for c in checks:
        print(c.line(), flush=True)
    summary = refusal(checks)
    if summary:
        failed = sum(c.failed for c in checks)
        raise PreflightFailed(f"check: {failed} of {len(checks)} checks failed (the FAIL lines); nothing has run")
    print(f"check: all {len(checks)} checks passed; the run can start")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="check a run's config, data, models and machine before it starts",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(p)
    p.add_argument("--resources", nargs="+", default=[], metavar="NAME=N",
                   help="resources the run grants, as for snakemake (gpu=N: the GPUs GPU jobs may use)")
    p.add_argument("--profile", default=None, help="a Snakemake profile directory; its resources: (gpu) are read")
    p.set_defaults(func=run)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """``--configfile``, ``--config``, ``--directory`` and ``--snakefile``, as Snakemake takes them."""
    p.add_argument("--configfile", "--configfiles", nargs="+", default=[], metavar="FILE",
                   help="config layers over config/defaults.yaml, as given to snakemake (none: the embedded demo)")
    p.add_argument("--config", nargs="+", default=[], metavar="KEY=VALUE",
                   help="config values, as given to snakemake --config (typed as YAML: n=100, x=null, "
                        "'a={b: {c: 1}}')")
    p.add_argument("--directory", "-d", default=".",
                   help="the run directory (snakemake --directory): relative paths and results/ (default: .)")
    p.add_argument("--snakefile", "-s", default=None,
                   help="the workflow's Snakefile (default: ./Snakefile, else this package's checkout)")


def check_config_or_refuse(ctx: RunContext, need_data_root: bool = True) -> None:
    """Raise :class:`ConfigRefused` with one line per config problem (``plan`` and ``call``)."""
    failed = [c.text for c in config_checks(ctx, need_data_root) if c.failed]
    if failed:
        raise ConfigRefused("config: " + ("\n  " if len(failed) > 1 else "") + "\n  ".join(failed))

