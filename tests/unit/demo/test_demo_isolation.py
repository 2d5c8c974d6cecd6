"""The demo package stays apart: production code never imports it (nor the demo data generator,
``evidence_ledger.fixtures``), its rule functions follow the one calling convention, and the data
generator needs only the standard library."""
import ast
import inspect
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "src" / "evidence_ledger"
DEMO = PACKAGE / "demo"
FIXTURES = PACKAGE / "fixtures"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import statement of ``source`` (the text of module
    ``module``), relative imports resolved; ``from X import a`` yields both ``X`` and ``X.a``
    (``a`` may be a submodule)."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def file_imports(path: Path) -> list[tuple[int, str]]:
    return imported_modules(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def is_demo(module: str) -> bool:
    return any(module == pkg or module.startswith(pkg + ".") for pkg in ("evidence_ledger.demo", "evidence_ledger.fixtures"))


def test_import_resolution_sees_absolute_and_relative_demo_imports():
    source = ("import evidence_ledger.demo.stage\nfrom ..demo import tiny_models\nfrom .. import demo\n"
              "from ..generation import prompts\n")
    found = [m for _, m in imported_modules(source, "evidence_ledger.generation.probe")]
    assert [m for m in found if is_demo(m)] == ["evidence_ledger.demo.stage", "evidence_ledger.demo",
                                                "evidence_ledger.demo.tiny_models", "evidence_ledger.demo"]
    assert "evidence_ledger.generation.prompts" in found
    assert ("evidence_ledger.demo" in [m for _, m in imported_modules("from . import demo\n", "evidence_ledger", True)])


def test_production_packages_never_import_the_demo_package():
    offenders = [f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
                 for path in sorted(PACKAGE.rglob("*.py")) if DEMO not in path.parents and FIXTURES not in path.parents
                 for line, module in file_imports(path) if is_demo(module)]
    assert offenders == []


def test_demo_data_generator_uses_only_the_standard_library():
    for path in sorted(FIXTURES.glob("*.py")):
        for line, module in file_imports(path):
            top = module.split(".")[0]
            assert module.startswith("evidence_ledger.fixtures") or top in sys.stdlib_module_names or \
                module == "__future__.annotations", f"{path.name}:{line}: {module}"


def test_demo_stage_functions_are_keyword_only_rule_functions():
    stage = pytest.importorskip("evidence_ledger.demo.stage")
    functions = {name: fn for name, fn in inspect.getmembers(stage, inspect.isfunction)
                 if fn.__module__ == stage.__name__ and not name.startswith("_")}
    assert sorted(functions) == ["build_demo_models", "build_demo_reranker", "build_demo_verifier"]
    for name, fn in functions.items():
        params = inspect.signature(fn).parameters.values()
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), name
        assert "out" in inspect.signature(fn).parameters, name
