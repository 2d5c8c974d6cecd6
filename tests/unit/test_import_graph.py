"""No import cycles between the rooms of ``evidence_ledger`` (docs/LAYOUT.md).

In:  the source files under ``src/evidence_ledger/``, read with ``ast`` (nothing is imported),
     every ``import`` / ``from ... import`` statement, at module level or inside a function.
Out: the graph whose nodes are the subpackages (``evidence_ledger.<package>``, everything below
     it counted as the package) and the top-level modules (the ground floor, one node each);
     the test fails on any cycle in it and names the modules and lines that make it.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "src" / "evidence_ledger"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["evidence_ledger", *parts])


def node_of(module: str) -> str | None:
    """The graph node a module belongs to: its subpackage, or itself on the ground floor."""
    parts = module.split(".")
    if parts[0] != "evidence_ledger" or len(parts) < 2:
        return None
    if (PACKAGE_DIR / parts[1]).is_dir():
        return parts[1]
    if (PACKAGE_DIR / f"{parts[1]}.py").is_file():
        return parts[1]
    return None


def imported_modules(path: Path) -> list[tuple[str, int]]:
    """Every module (and ``module.name``) an import statement of ``path`` names, with its line."""
    own = module_name(path)
    base = own if path.name == "__init__.py" else own.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), base)


def imports_in(text: str, base: str) -> list[tuple[str, int]]:
    """Imports of source ``text`` whose relative imports resolve against package ``base``."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                module = ".".join(parts + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((module, node.lineno))
            found += [(f"{module}.{alias.name}", node.lineno) for alias in node.names]
    return found


def import_graph() -> dict[str, dict[str, set[str]]]:
    """``{node: {imported node: {"module:line", ...}}}`` for imports that cross nodes."""
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        source = node_of(module_name(path))
        for module, line in imported_modules(path):
            target = node_of(module)
            if source and target and target != source:
                graph[source][target].add(f"{module_name(path)}:{line}")
    return graph


def strongly_connected(graph) -> list[set[str]]:
    """Tarjan's strongly connected components with more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_function_level_and_relative_imports():
    text = "import evidence_ledger.jsonl\ndef f():\n    from ..generation import prompts\n"
    found = {module for module, _ in imports_in(text, "evidence_ledger.scoring")}
    assert {"evidence_ledger.jsonl", "evidence_ledger.generation", "evidence_ledger.generation.prompts"} <= found
    assert node_of("evidence_ledger.generation.prompts") == "generation"
    assert node_of("evidence_ledger.jsonl") == "jsonl"


def test_no_import_cycles_between_packages():
    graph = import_graph()
    cycles = strongly_connected(graph)
    detail = [
        "; ".join(f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})" for a in sorted(c) for b in sorted(c)
                  if b in graph.get(a, {}))
        for c in cycles
    ]
    assert not cycles, "import cycles between packages:\n" + "\n".join(detail)


def test_a_cycle_is_found_and_a_chain_is_not():
    assert strongly_connected({"a": {"b": []}, "b": {"c": []}, "c": {"a": []}}) == [{"a", "b", "c"}]
    assert strongly_connected({"a": {"b": []}, "b": {"c": []}}) == []
