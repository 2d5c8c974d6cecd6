"""``ledger.json``: every headline number of a run in one machine-readable file, with its provenance.

In:  the report TSVs of a run, each named by a key and described by a :class:`LedgerSource`
     (the table's path, the rule or command that wrote it, the files that rule read, and which
     kind of table it is), the provenance rows (``section, key, value``: run, package, ran,
     model rows) and the run's settings (the resolved config of a pipeline run, the options of an
     ``account`` run).
Out: the ledger (a JSON-compatible dict, shape in ``ledger.schema.json`` beside this module),
     validated against that schema and written with sorted keys and no time stamps, so the same
     run gives the same bytes.

Each number is one row (and column) of one source table: ``study``, ``quantity``, the row's
other key columns under ``keys``, ``estimate`` and, where the table has them, ``lower`` /
``upper`` with the draw settings, the paper's ``reference*`` values, ``flags`` and ``counts``
(decision criteria, DiffGR); ``source`` names the table (a key of ``sources``) and its 1-based
file line. ``sources`` gives, per table, its path, sha256, the rule that wrote it and the
sha256 of every file that rule read. ``labels`` holds the decision labels. Missing values
(NaN) are ``null``.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import __version__
from .sources import SourceTable, read_source_table

LEDGER_VERSION = 1
SCHEMA_FILE = "ledger.schema.json"
REFERENCE_COLUMNS = ("reference", "reference_lower", "reference_upper")
INTERVAL_NUMBERS = ("tail", "n_draws", "seed", "family_size", "n_clusters")
INTERVAL_KEYS = ("family", "population", "dataset", "system", "factor", "classes")
ESTIMATE_KEYS = ("population", "dataset", "system", "parser", "factor", "format", "budget", "part")


@dataclass(frozen=True)
class LedgerSource:
    """One report table of the ledger: ``kind`` says how its rows become numbers
    (:data:`TABLE_KINDS`), ``study`` which study they belong to; ``rule`` wrote it from
    ``inputs``."""

    path: str
    kind: str
    study: str
    rule: str
    inputs: Sequence[str] = field(default_factory=tuple)


def schema() -> dict:
    """The ledger's JSON Schema (``ledger.schema.json`` of this package)."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def file_sha256(path) -> str:
    """sha256 of a file's bytes, read in blocks (memory does not grow with the file)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _number(text: str) -> float | None:
    """A cell as a JSON number (NaN and empty -> None)."""
    if text in ("", "NaN", "nan"):
        return None
    value = float(text)
    return None if math.isnan(value) else value


def _int(text: str) -> int | None:
    number = _number(text)
    return None if number is None else int(number)


def _flag(text: str) -> bool:
    return text == "True"


def _keys(row: Mapping[str, str], columns: Sequence[str]) -> dict:
    return {c: row[c] for c in columns if c in row}


def _reference(row: Mapping[str, str]) -> dict:
    """The paper's value and bounds of a row, when the paper gives any (else nothing)."""
    values = {c: _number(row[c]) for c in REFERENCE_COLUMNS if c in row}
    return values if any(v is not None for v in values.values()) else {}


def estimate_numbers(table: SourceTable, study: str) -> list[dict]:
    """ESTIMATES report rows (replicate-averaged ones): ``value`` is the estimate."""
    out = []
    for row, line in zip(table.rows, table.lines):
        if row.get("replicate", "-1") != "-1":
            continue
        out.append({"study": study, "quantity": row["quantity"], "keys": _keys(row, ESTIMATE_KEYS),
                    "estimate": _number(row["value"]), **_reference(row), "line": line})
    return out


def interval_numbers(table: SourceTable, study: str) -> list[dict]:
    """INTERVALS-style report rows (also the answer metrics): estimate with its bounds."""
    out = []
    for row, line in zip(table.rows, table.lines):
        extra = {c: (_number(row[c]) if c == "tail" else _int(row[c])) for c in INTERVAL_NUMBERS if c in row}
        out.append({"study": study, "quantity": row["quantity"], "keys": _keys(row, INTERVAL_KEYS),
                    "estimate": _number(row["estimate"]), "lower": _number(row["lower"]),
                    "upper": _number(row["upper"]), **extra, **_reference(row), "line": line})
    return out


def criteria_numbers(table: SourceTable, study: str) -> list[dict]:
    """Decision criteria: each primary contrast (effect on E0) with its interval, the criteria
    it met (``flags``) and its sign and agreeing seeds (``counts``)."""
    flags = ("magnitude_ok", "interval_ok", "seeds_ok", "local_ok", "within_bound")
    counts = ("direction", "seeds_agreeing", "n_seeds")
    return [{"study": study, "quantity": "E0", "keys": _keys(row, ("dataset", "system", "factor")),
             "estimate": _number(row["estimate"]), "lower": _number(row["lower"]), "upper": _number(row["upper"]),
             "flags": {f: _flag(row[f]) for f in flags}, "counts": {c: _int(row[c]) for c in counts}, "line": line}
            for row, line in zip(table.rows, table.lines)]


def column_numbers(keys: Sequence[str], columns: Sequence[str], counts: Sequence[str] = (),
                   intervals: Mapping[str, tuple[str, str]] = {}, flags: Mapping[str, str] = {}):
    """Rows whose numbers are columns (rate tables): one number per row and column of
    ``columns``, ``quantity`` = the column; ``intervals`` maps a column to its bound columns
    and ``flags`` a column to the flag column saying whether it is defined."""
    def numbers(table: SourceTable, study: str) -> list[dict]:
        out = []
        for row, line in zip(table.rows, table.lines):
            for column in columns:
                number = {"study": study, "quantity": column, "keys": _keys(row, keys),
                          "estimate": _number(row[column]), "counts": {c: _int(row[c]) for c in counts if c in row},
                          "line": line}
                if column in intervals:
                    lo, hi = intervals[column]
                    number.update(lower=_number(row[lo]), upper=_number(row[hi]))
                    if "level" in row:
                        number["level"] = _number(row["level"])
                if column in flags:
                    number["flags"] = {flags[column]: _flag(row[flags[column]])}
                out.append(number)
        return out
    return numbers


TABLE_KINDS = {
    "estimates": estimate_numbers,
    "intervals": interval_numbers,
    "criteria": criteria_numbers,
    "wikicontradict_rates": column_numbers(("model", "template", "conflict_type"),
                                           ("correct_rate", "partial_rate", "incorrect_rate", "unparseable_rate"),
                                           counts=("n", "n_parsed")),
    "wikicontradict_detection": column_numbers(("model", "conflict_type"), ("detection_rate",),
                                               counts=("n", "n_unparseable")),
    "diffgr": column_numbers(("model", "dataset", "order", "subset"), ("diffgr", "gen_ans", "ir_ans", "llm_ans",
                                                                        "others"),
                             counts=("n", "n_draws", "n_undefined"), intervals={"diffgr": ("ci_low", "ci_high")},
                             flags={"diffgr": "diffgr_defined"}),
}
LABEL_KIND = "label"


def label_entries(table: SourceTable, study: str) -> list[dict]:
    """The decision label row(s): label, reason, the qualifying factor / direction / datasets
    and the paper's label."""
    return [{"study": study, "label": row["label"], "reason": row.get("reason", ""),
             "keys": _keys(row, ("factor", "direction", "datasets")), "reference_label": row.get("reference_label", ""),
             "line": line} for row, line in zip(table.rows, table.lines)]


def provenance_parts(rows: Sequence[tuple[str, str, str]]) -> tuple[dict, dict, list]:
    """``(run, packages, models)`` from provenance rows: the ``run`` rows, the ``package``
    versions, and per model slot what ran (``ran``) with the configured model fields
    (``model`` rows: ``<slot>.hub_id``, ``.revision``, ...)."""
    run = {k: v for s, k, v in rows if s == "run"}
    packages = {k: v for s, k, v in rows if s == "package"}
    models: dict[str, dict] = {}
    for s, k, v in rows:
        if s == "ran":
            models.setdefault(k, {"slot": k})["ran"] = v
    for s, k, v in rows:
        if s == "model":
            slot, _, name = k.rpartition(".")
            models.setdefault(slot, {"slot": slot})[name] = v
    return run, packages, [models[k] for k in sorted(models)]


def read_provenance_rows(path) -> list[tuple[str, str, str]]:
    table = read_source_table(path)
    return [(r["section"], r["key"], r["value"]) for r in table.rows]


def build_ledger(*, kind: str, sources: Mapping[str, LedgerSource], provenance: Sequence[tuple[str, str, str]],
                 settings: Mapping[str, Any], base_dir=".", inputs_dir=None,
                 matching: Mapping[str, int] | None = None) -> dict:
    """The ledger of a run (see the module doc). ``kind``: ``pipeline`` or ``account``; table
    paths are read relative to ``base_dir``, input paths relative to ``inputs_dir`` (default
    ``base_dir``), and both are recorded as given. ``matching``: how an account run's prediction
    lines were paired with the gold lines when some were paired by position (files so paired,
    ``id_disagreements``, ``own_gold_ignored``), recorded as ``matching``."""
    base = Path(base_dir)
    inputs_base = Path(inputs_dir) if inputs_dir is not None else base
    run, packages, models = provenance_parts(provenance)
    numbers, labels, described = [], [], {}
    for key in sorted(sources):
        spec = sources[key]
        path = base / spec.path
        table = read_source_table(path)
        described[key] = {"table": spec.path, "sha256": file_sha256(path), "rule": spec.rule,
                          "study": spec.study, "inputs": [{"path": str(p), "sha256": file_sha256(inputs_base / p)}
                                                          for p in spec.inputs]}
        if spec.kind == LABEL_KIND:
            entries, target = label_entries(table, spec.study), labels
        elif spec.kind in TABLE_KINDS:
            entries, target = TABLE_KINDS[spec.kind](table, spec.study), numbers
        else:
            raise ValueError(f"ledger source {key!r}: unknown table kind {spec.kind!r}; expected one of "
                             f"{sorted(TABLE_KINDS) + [LABEL_KIND]}")
        for entry in entries:
            entry["source"] = {"table": key, "line": entry.pop("line")}
        target += entries
    ledger = {
        "ledger_version": LEDGER_VERSION, "kind": kind,
        "package": {"name": "evidence-ledger", "version": __version__},
        "run": run, "packages": packages, "models": models, "settings": _json_safe(settings),
        "sources": described, "numbers": numbers, "labels": labels,
    }
    if matching:
        ledger["matching"] = {str(k): int(v) for k, v in matching.items()}
    validate_ledger(ledger)
    return ledger


def _json_safe(value):
    """Settings as JSON values (tuples as lists, non-finite floats as None, other objects as text)."""
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def validate_ledger(ledger: Mapping) -> None:
    """Raise ``jsonschema.ValidationError`` when ``ledger`` does not follow the schema."""
    import jsonschema

    jsonschema.validate(ledger, schema())


def write_ledger(ledger: Mapping, path) -> None:
    """The ledger as JSON: sorted keys, two-space indent, a final newline."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(ledger, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
