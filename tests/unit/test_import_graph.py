"""The rooms of ``evidence_ledger``, its modules and the imports between them (docs/LAYOUT.md, "The import graph").

In:  the source files under ``src/evidence_ledger/``, read with ``ast`` (nothing is imported),
     every ``import`` / ``from ... import`` statement, at module level or inside a function.
Out: two graphs: the rooms' (nodes: the subpackages, everything below one counted as the
     package, and the top-level modules) and the modules' (nodes: every module; ``from package
     import name`` is an edge to the submodule ``name`` where there is one, else to the package).
     The tests fail on any cycle in either (naming the modules and lines that make it; two
     modules of one room importing each other are a cycle too, even through a function-level
     import), on a top-level module other than the shared words, on a library package that
     imports the workflow's plumbing, and when docs/LAYOUT.md states other counts than the
     graphs have.

Print the counts and the edges (what docs/LAYOUT.md states):

    .venv/bin/python tests/unit/test_import_graph.py
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


# The package's top level holds only the words every room shares (docs/LAYOUT.md).
TOP_LEVEL_MODULES = {"__init__", "__main__", "errors", "vocabulary", "benchmark_registry"}
# The workflow's plumbing: what runs a rule's job and a run, and the command line (docs/LAYOUT.md);
# no library room imports it.
PLUMBING = {"run", "jobs", "commands"}
LAYOUT = PACKAGE_DIR.parents[1] / "docs" / "LAYOUT.md"


def node_of(module: str) -> str | None:
    """The graph node a module belongs to: its subpackage, or itself at the top level."""
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


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its ``__init__``)."""
    return {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def imported_module(name: str, known) -> str | None:
    """The module an imported dotted name refers to: itself, else the longest known prefix
    (``package.function`` is the package, ``package.submodule`` the submodule)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def module_graph() -> dict[str, dict[str, set[str]]]:
    """``{module: {imported module: {"module:line", ...}}}`` over every module of the package."""
    known = modules()
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for name, path in known.items():
        for imported, line in imported_modules(path):
            target = imported_module(imported, known)
            if target and target != name:
                graph[name][target].add(f"{name}:{line}")
    return graph


def rooms() -> set[str]:
    """Every node: each subpackage and each top-level module but ``__init__``."""
    return {path.name for path in PACKAGE_DIR.iterdir() if (path / "__init__.py").is_file()} | {
        path.stem for path in PACKAGE_DIR.glob("*.py") if path.stem != "__init__"}


def graph_counts(graph) -> dict[str, int]:
    """``{"nodes", "edges", "cycles"}`` of the graph: every room (:func:`rooms`, importing or not),
    each importing pair of rooms once, and the strongly connected components of more than one room."""
    return {"nodes": len(rooms()), "edges": sum(len(targets) for targets in graph.values()),
            "cycles": len(strongly_connected(graph))}


def test_the_walk_sees_function_level_and_relative_imports():
    text = "import evidence_ledger.files.jsonl\ndef f():\n    from ..generation import prompts\n"
    found = {module for module, _ in imports_in(text, "evidence_ledger.scoring")}
    assert {"evidence_ledger.files.jsonl", "evidence_ledger.generation", "evidence_ledger.generation.prompts"} <= found
    assert node_of("evidence_ledger.generation.prompts") == "generation"
    assert node_of("evidence_ledger.files.jsonl") == "files"
    assert node_of("evidence_ledger.errors") == "errors"


def test_no_import_cycles_between_packages():
    graph = import_graph()
    cycles = strongly_connected(graph)
    detail = [
        "; ".join(f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})" for a in sorted(c) for b in sorted(c)
                  if b in graph.get(a, {}))
        for c in cycles
    ]
    assert not cycles, "import cycles between packages:\n" + "\n".join(detail)


def test_no_import_cycles_between_modules():
    """Not even inside one room, not even through an import inside a function."""
    graph = module_graph()
    cycles = strongly_connected(graph)
    detail = ["; ".join(f"{a} -> {b} ({', '.join(sorted(graph[a][b]))})" for a in sorted(c) for b in sorted(c)
                        if b in graph.get(a, {})) for c in cycles]
    assert not cycles, "import cycles between modules:\n" + "\n".join(detail)


def test_a_module_cycle_inside_one_room_is_found():
    known = {"evidence_ledger.pkg.a": None, "evidence_ledger.pkg.b": None, "evidence_ledger.pkg": None}
    assert imported_module("evidence_ledger.pkg.a.Runs", known) == "evidence_ledger.pkg.a"
    assert imported_module("evidence_ledger.pkg.helper", known) == "evidence_ledger.pkg"
    graph = {"evidence_ledger.pkg.a": {"evidence_ledger.pkg.b": set()},
             "evidence_ledger.pkg.b": {"evidence_ledger.pkg.a": set()}}
    assert strongly_connected(graph) == [{"evidence_ledger.pkg.a", "evidence_ledger.pkg.b"}]


def test_a_cycle_is_found_and_a_chain_is_not():
    assert strongly_connected({"a": {"b": []}, "b": {"c": []}, "c": {"a": []}}) == [{"a", "b", "c"}]
    assert strongly_connected({"a": {"b": []}, "b": {"c": []}}) == []


def test_the_package_top_holds_only_the_shared_words():
    top = {path.stem for path in PACKAGE_DIR.glob("*.py")}
    assert top == TOP_LEVEL_MODULES, f"move {sorted(top - TOP_LEVEL_MODULES)} into the package it serves"


def test_no_library_package_imports_the_plumbing():
    """The stage packages and the ground floor never import ``run`` or ``jobs`` (which import them)."""
    graph = import_graph()
    found = [f"{source} -> {target} ({', '.join(sorted(graph[source][target]))})"
             for source in sorted(graph) if source not in PLUMBING | {"__main__"}
             for target in sorted(graph[source]) if target in PLUMBING]
    assert not found, "\n".join(found)


def module_counts(graph) -> dict[str, int]:
    """``{"modules", "imports", "cycles"}`` of the module graph."""
    return {"modules": len(modules()), "imports": sum(len(targets) for targets in graph.values()),
            "cycles": len(strongly_connected(graph))}


def stated_counts() -> str:
    counts, module = graph_counts(import_graph()), module_counts(module_graph())
    return (f"{counts['nodes']} nodes, {counts['edges']} edges, {counts['cycles']} cycles; "
            f"{module['modules']} modules, {module['imports']} imports between them, {module['cycles']} cycles")


def test_the_layout_doc_states_the_graph_counts():
    stated = stated_counts()
    text = " ".join(LAYOUT.read_text(encoding="utf-8").split())
    assert stated in text, f"docs/LAYOUT.md should say '{stated}' (run: python {Path(__file__).relative_to(LAYOUT.parents[1])})"


if __name__ == "__main__":
    GRAPH = import_graph()
    print(stated_counts())
    for SOURCE in sorted(GRAPH):
        print(f"  {SOURCE} -> {', '.join(sorted(GRAPH[SOURCE]))}")
