"""Versioned Parquet table schemas and the only reader/writer the pipeline uses.

Every intermediate of the pipeline is a Parquet file whose schema is declared once,
as a :class:`TableSchema`, in one of the stage modules of this package
(``tables.ingest``, ``tables.evidence``, ...). ``write_table`` stamps the table name and
schema version into the Parquet key-value metadata; ``read_table`` refuses a file whose
name, version or columns do not match, naming the file and the offending column.

In:  a ``pyarrow.Table`` / ``pandas.DataFrame`` / list of row dicts and a ``TableSchema``.
Out: a Parquet file (zstd, deterministic row order as given) or a validated ``pyarrow.Table``.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

METADATA_NAME = b"evidence_ledger.table"
METADATA_VERSION = b"evidence_ledger.version"


class SchemaMismatch(ValueError):
    """A Parquet file does not carry the table/version/columns its reader expects."""


@dataclass(frozen=True)
class TableSchema:
    """A named, versioned Arrow schema. Bump ``version`` on any breaking change."""

    name: str
    version: int
    schema: pa.Schema
    doc: str = ""

    @property
    def columns(self) -> list[str]:
        return list(self.schema.names)

    def empty(self) -> pa.Table:
        return self.schema.empty_table()

    def from_rows(self, rows: Iterable[Mapping]) -> pa.Table:
        """Build a table from row dicts; missing keys raise, extra keys raise."""
        rows = list(rows)
        for i, row in enumerate(rows):
            extra = set(row) - set(self.columns)
            if extra:
                raise SchemaMismatch(f"table {self.name}: row {i} has unknown columns {sorted(extra)}")
            missing = set(self.columns) - set(row)
            if missing:
                raise SchemaMismatch(f"table {self.name}: row {i} lacks columns {sorted(missing)}")
        return pa.Table.from_pylist(rows, schema=self.schema)

    def conform(self, table) -> pa.Table:
        """Cast a DataFrame or Table to this schema (column order and types)."""
        if not isinstance(table, pa.Table):
            table = pa.Table.from_pandas(table, preserve_index=False)
        missing = [c for c in self.columns if c not in table.column_names]
        if missing:
            raise SchemaMismatch(f"table {self.name}: missing columns {missing}")
        extra = [c for c in table.column_names if c not in self.columns]
        if extra:
            raise SchemaMismatch(f"table {self.name}: unknown columns {extra}")
        table = table.select(self.columns)
        try:
            return table.cast(self.schema)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
            raise SchemaMismatch(f"table {self.name}: cannot cast to schema v{self.version}: {exc}") from exc


def remove_stale_temporaries(path: Path, keep: Path | None = None) -> list[Path]:
    """Delete the hidden ``.{name}.tmp<pid>`` files a killed atomic write of ``path`` left behind
    (all but ``keep``); returns those removed. One job writes a given path at a time, so any
    other temporary of that path belongs to a dead process."""
    removed = []
    for stale in sorted(path.parent.glob(f".{glob.escape(path.name)}.tmp*")):
        if stale != keep and stale.is_file():
            stale.unlink(missing_ok=True)
            removed.append(stale)
    return removed


def write_table(table, path: str | os.PathLike, schema: TableSchema) -> Path:
    """Validate ``table`` against ``schema`` and write it atomically (tmp file + rename).

    Temporaries left by an earlier, killed write of the same path are removed first."""
    table = schema.conform(table)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_NAME] = schema.name.encode()
    meta[METADATA_VERSION] = str(schema.version).encode()
    table = table.replace_schema_metadata(meta)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    remove_stale_temporaries(path, keep=tmp)
    pq.write_table(table, tmp, compression="zstd", write_statistics=False)
    os.replace(tmp, path)
    return path


def read_table(path: str | os.PathLike, schema: TableSchema, columns: list[str] | None = None) -> pa.Table:
    """Read a Parquet file and check it is ``schema`` (name, version, column types)."""
    path = Path(path)
    file_schema = pq.read_schema(path)
    meta = file_schema.metadata or {}
    name = meta.get(METADATA_NAME, b"").decode()
    version = meta.get(METADATA_VERSION, b"").decode()
    if name != schema.name:
        raise SchemaMismatch(f"{path}: holds table {name!r}, expected {schema.name!r}")
    if version != str(schema.version):
        raise SchemaMismatch(
            f"{path}: table {schema.name} has schema version {version}, this code reads version "
            f"{schema.version}; re-run the stage that wrote it"
        )
    for field in schema.schema:
        if field.name not in file_schema.names:
            raise SchemaMismatch(f"{path}: table {schema.name} lacks column {field.name!r}")
        if not file_schema.field(field.name).type.equals(field.type):
            raise SchemaMismatch(
                f"{path}: column {field.name!r} has type {file_schema.field(field.name).type}, "
                f"expected {field.type}"
            )
    return pq.read_table(path, columns=columns)


def read_frame(path, schema: TableSchema, columns: list[str] | None = None):
    """``read_table`` as a pandas DataFrame."""
    return read_table(path, schema, columns).to_pandas()


def describe(schema: TableSchema) -> str:
    """Markdown description of a schema, used to generate docs/SCHEMAS.md."""
    lines = [f"### `{schema.name}` (v{schema.version})", "", schema.doc.strip(), "", "| column | type |", "|---|---|"]
    lines += [f"| `{f.name}` | `{f.type}` |" for f in schema.schema]
    return "\n".join(lines) + "\n"
