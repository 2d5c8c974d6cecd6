"""The catalogue of every Parquet table the pipeline writes, for docs and checks.

In:  nothing (imports every module of ``evidence_ledger.tables``).
Out: ``all_schemas()`` -> TableSchema list sorted by name; ``render_markdown()`` -> the text
of docs/SCHEMAS.md (regenerate with ``python -m evidence_ledger.tables.catalog > docs/SCHEMAS.md``).
"""
from __future__ import annotations

import importlib
import pkgutil

from . import TableSchema, describe


def all_schemas() -> list[TableSchema]:
    """Every TableSchema defined at module level in the tables package; names must be unique."""
    package = importlib.import_module("evidence_ledger.tables")
    found: dict[str, tuple[str, TableSchema]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name == "catalog":
            continue
        module = importlib.import_module(f"evidence_ledger.tables.{info.name}")
        for attr in sorted(vars(module)):
            value = getattr(module, attr)
            if isinstance(value, TableSchema):
                if value.name in found and found[value.name][1] is not value:
                    raise ValueError(
                        f"table name {value.name!r} defined twice: {found[value.name][0]} and {info.name}.{attr}"
                    )
                found[value.name] = (f"{info.name}.{attr}", value)
    return [found[name][1] for name in sorted(found)]


def render_markdown() -> str:
    header = (
        "# Parquet table schemas\n\n"
        "Generated from `src/evidence_ledger/tables/` by "
        "`python -m evidence_ledger.tables.catalog > docs/SCHEMAS.md`; a test fails when this file is stale.\n"
        "Every file carries its table name and schema version in the Parquet key-value metadata "
        "(`evidence_ledger.table`, `evidence_ledger.version`); readers refuse a mismatch.\n\n"
    )
    return header + "\n".join(describe(schema) for schema in all_schemas())


if __name__ == "__main__":
    print(render_markdown(), end="")
