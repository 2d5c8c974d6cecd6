"""Versioned Parquet table schemas and the only reader/writer the pipeline uses.

Every intermediate of the pipeline is a Parquet file whose schema is declared once,
as a :class:`TableSchema`, in one of the stage modules of this package
(``tables.ingest``, ``tables.evidence``, ...). ``write_table`` stamps the table name and
schema version into the Parquet key-value metadata; ``read_table`` refuses a file whose
name, version or columns do not match, naming the file and the offending column.

In:  a ``pyarrow.Table`` / ``pandas.DataFrame`` / list of row dicts and a ``TableSchema``.
Out: a Parquet file (zstd, deterministic row order as given) or a validated ``pyarrow.Table``.
     Large tables: ``TableWriter`` writes batch by batch (statistics on); ``read_filtered``
     reads only the row groups that may hold the wanted values.

A file that is not readable Parquet (truncated by a full disk, overwritten, damaged) is a
:class:`DamagedTable`, an expected error whose one line names the file and the rule(s) that
write its table (``TableSchema.written_by``), so the fix (delete it, run the workflow again) is
in the message rather than in an Arrow traceback.
"""
from __future__ import annotations

import bisect
import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import ExpectedError

METADATA_NAME = b"evidence_ledger.table"
METADATA_VERSION = b"evidence_ledger.version"


class SchemaMismatch(ValueError):
    """A Parquet file does not carry the table/version/columns its reader expects."""


class DamagedTable(ExpectedError, SchemaMismatch):
    """A file that should hold a table is not readable Parquet (truncated, damaged, not Parquet);
    ``reason`` is what Arrow said, ``path`` the file."""

    def __init__(self, message: str, path, reason: str):
        super().__init__(message)
        self.path = Path(path)
        self.reason = reason


@dataclass(frozen=True)
class TableSchema:
    """A named, versioned Arrow schema. Bump ``version`` on any breaking change."""

    name: str
    version: int
    schema: pa.Schema
    doc: str = ""
    # the workflow rules that write this table (``ingest_<dataset>``: the one of each benchmark),
    # named when a file of it cannot be read
    written_by: tuple[str, ...] = ()

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


def remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete the hidden ``.{name}.tmp<pid>`` files a killed atomic write of ``path`` left behind,
    and any link by such a name (which a write would otherwise follow);
    returns those removed. One job writes a given path at a time, so any other temporary of that
    path belongs to a dead process."""
    removed = []
    for stale in sorted(path.parent.glob(f".{glob.escape(path.name)}.tmp*")):
        if stale.is_file() or stale.is_symlink():
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
    remove_stale_temporaries(path)
    try:
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


class TableWriter:
    """Write a table in batches with ``pyarrow.parquet.ParquetWriter``, atomically.

    For tables too large to hold at once (the ingest UNITS / DOCUMENTS of a wiki): each
    :meth:`write_columns` call validates one batch of columns against ``schema`` and appends
    it; ``row_group_size`` rows per row group and column statistics on, so readers can skip
    row groups by their min/max (:func:`read_filtered`). Used as a context manager: the file
    appears at ``path`` (tmp file + rename) only when the block ends without an exception;
    otherwise the temporary is removed and nothing is left behind.
    """

    def __init__(self, path: str | os.PathLike, schema: TableSchema, row_group_size: int = 32768):
        self.path = Path(path)
        self.schema = schema
        self.row_group_size = row_group_size
        self.rows = 0
        meta = dict(schema.schema.metadata or {})
        meta[METADATA_NAME] = schema.name.encode()
        meta[METADATA_VERSION] = str(schema.version).encode()
        self._arrow_schema = schema.schema.with_metadata(meta)
        self._tmp = self.path.with_name(f".{self.path.name}.tmp{os.getpid()}")
        self._writer = None

    def __enter__(self) -> "TableWriter":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.path)
        self._writer = pq.ParquetWriter(self._tmp, self._arrow_schema, compression="zstd", write_statistics=True)
        return self

    def write_columns(self, columns: Mapping[str, list]) -> None:
        """Append one batch given as ``{column: list of values}`` (every schema column, equal lengths)."""
        missing = [c for c in self.schema.columns if c not in columns]
        extra = [c for c in columns if c not in self.schema.columns]
        if missing or extra:
            raise SchemaMismatch(f"table {self.schema.name}: batch lacks columns {missing} / has unknown {extra}")
        batch = pa.table({c: pa.array(columns[c], type=self.schema.schema.field(c).type) for c in self.schema.columns},
                         schema=self._arrow_schema)
        if batch.num_rows:
            self._writer.write_table(batch, row_group_size=self.row_group_size)
            self.rows += batch.num_rows

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self._writer.close()
        finally:
            if exc_type is None:
                os.replace(self._tmp, self.path)
            else:
                self._tmp.unlink(missing_ok=True)


def writers_text(schema: TableSchema) -> str:
    """``rule a``, ``rule a or b``, ``rules a, b or c``: the rules that write ``schema``."""
    rules = list(schema.written_by)
    if not rules:
        return "the rule that wrote it"
    listed = rules[0] if len(rules) == 1 else ", ".join(rules[:-1]) + " or " + rules[-1]
    return f"rule{'s' if len(rules) > 1 else ''} {listed}"


def damaged_table(path, schema: TableSchema, err: BaseException) -> DamagedTable:
    """The :class:`DamagedTable` for ``path`` that Arrow could not read (``err``)."""
    reason = next((line.strip() for line in str(err).splitlines() if line.strip()), type(err).__name__)[:200]
    return DamagedTable(f"{path}: not a readable Parquet file ({reason}): truncated or damaged. It holds table "
                        f"{schema.name}, written by {writers_text(schema)}: delete the file and run the workflow "
                        f"again to have it written anew", path, reason)


def read_parquet(path: Path, schema: TableSchema, read):
    """``read(path)`` (an Arrow read of ``path``), with a file Arrow cannot read as Parquet
    raised as :func:`damaged_table`; a missing file stays ``FileNotFoundError``."""
    try:
        return read(path)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError) as err:  # ArrowInvalid: bad footer; OSError: bad pages
        raise damaged_table(path, schema, err) from err


def check_table_file(path: str | os.PathLike, schema: TableSchema) -> pa.Schema:
    """The Parquet schema of ``path`` once checked to be ``schema`` (name, version, column types);
    a file that is not readable Parquet raises :class:`DamagedTable`."""
    path = Path(path)
    file_schema = read_parquet(path, schema, pq.read_schema)
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
    return file_schema


def read_table(path: str | os.PathLike, schema: TableSchema, columns: list[str] | None = None) -> pa.Table:
    """Read a Parquet file and check it is ``schema`` (name, version, column types)."""
    check_table_file(path, schema)
    return read_parquet(Path(path), schema, lambda p: pq.read_table(p, columns=columns))


def row_groups_for(metadata: pq.FileMetaData, column: str, sorted_values: list[str]) -> list[int]:
    """Row groups of a Parquet file that may hold a row whose ``column`` is one of
    ``sorted_values`` (sorted ascending): those whose min/max statistics bracket at least one
    value, plus every row group without statistics for the column."""
    index = metadata.schema.names.index(column)
    out = []
    for g in range(metadata.num_row_groups):
        stats = metadata.row_group(g).column(index).statistics
        if stats is None or not stats.has_min_max:
            out.append(g)
            continue
        lo = bisect.bisect_left(sorted_values, stats.min)
        if lo < len(sorted_values) and sorted_values[lo] <= stats.max:
            out.append(g)
    return out


def read_filtered(path: str | os.PathLike, schema: TableSchema, column: str, values: Iterable[str],
                  columns: list[str] | None = None) -> pa.Table:
    """The rows of table ``schema`` at ``path`` whose ``column`` is in ``values``, file order.

    Only the row groups whose column statistics may hold a wanted value are read (see
    :func:`row_groups_for`), so memory follows the rows wanted, not the table; the result
    equals a full :func:`read_table` filtered with ``is_in``. ``columns``: those returned
    (default all); ``column`` is read for the filter either way.
    """
    check_table_file(path, schema)
    wanted = sorted(set(values))
    value_set = pa.array(wanted, type=schema.schema.field(column).type)
    out_columns = list(columns) if columns is not None else schema.columns
    read_columns = out_columns if column in out_columns else out_columns + [column]
    parquet = read_parquet(Path(path), schema, pq.ParquetFile)
    pieces = []
    for g in row_groups_for(parquet.metadata, column, wanted) if wanted else []:
        group = read_parquet(Path(path), schema, lambda _: parquet.read_row_group(g, columns=read_columns))
        pieces.append(group.filter(pc.is_in(group[column], value_set=value_set)).select(out_columns))
    if not pieces:
        return parquet.schema_arrow.empty_table().select(out_columns)
    return pa.concat_tables(pieces)


def read_frame(path, schema: TableSchema, columns: list[str] | None = None):
    """``read_table`` as a pandas DataFrame."""
    return read_table(path, schema, columns).to_pandas()


def describe(schema: TableSchema) -> str:
    """Markdown description of a schema, used to generate docs/SCHEMAS.md."""
    writers = ", ".join(f"`{rule}`" for rule in schema.written_by)
    lines = [f"### `{schema.name}` (v{schema.version})", "", schema.doc.strip(), "", f"Written by: {writers}.", "",
             "| column | type |", "|---|---|"]
    lines += [f"| `{f.name}` | `{f.type}` |" for f in schema.schema]
    return "\n".join(lines) + "\n"
