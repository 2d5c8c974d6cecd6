"""Every function, class and method of ``src/evidence_ledger`` is called by the code that runs:
``src/``, ``workflow/`` (rules, their ``.smk`` functions, the report templates), ``scripts/``,
``benchmarks/`` or the ``Snakefile``. Code that only its own tests call is removed with those
tests, or called again.

A name counts as called where it appears as a name or attribute in that code (a definition
itself does not count), in a Jinja template of the report, or as a string naming it the way a
registry does (``"module:name"``, ``"package.module.name"`` or the bare name, e.g.
``SHARED_FUNCTIONS`` and the benchmark readers). Names are matched, not resolved: a function
shares the fate of every other definition with its name, so the check finds what no code names
at all. :data:`ENTRY_POINTS` lists, each with its reason, what only code outside this
repository calls.

Run it as a script to list what it finds: ``python tests/unit/test_every_function_is_called.py``.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import Counter
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "evidence_ledger"
CODE_DIRS = ("src", "workflow", "scripts", "benchmarks")
TEMPLATE_DIR = PACKAGE / "report" / "templates"
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a string naming a definition the way a registry does: "pkg.module:name", "pkg.module.name", "name"
REGISTRY_STRING = re.compile(r"^(?:[\w.]*[.:])?([A-Za-z_]\w*)$")

ENTRY_POINTS = {
    # a benchmark plugin's prompt module calls it to register its templates (README, "Adding a
    # benchmark"; tests/support/toy_benchmark is such a plugin)
    "generation/prompts.py:register_templates",
}


def definitions(package: Path = PACKAGE) -> list[tuple[str, str]]:
    """``(module path under the package, qualified name)`` of every module-level function and
    class and every method (dunder methods aside: Python calls them)."""
    out = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append((rel, node.name))
            if isinstance(node, ast.ClassDef):
                out += [(rel, f"{node.name}.{sub.name}") for sub in node.body
                        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and not sub.name.startswith("__")]
    return out


def _not_references(tree: ast.AST) -> set[int]:
    """ids of the string constants of ``tree`` that name nothing to call: docstrings (prose) and
    ``__all__`` (a module exporting a name does not call it)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return out


def python_uses(text: str) -> Counter:
    """Names and attributes a Python file uses, and the names its registry strings give."""
    tree = ast.parse(text)
    prose = _not_references(tree)
    uses: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            uses[node.id] += 1
        elif isinstance(node, ast.Attribute):
            uses[node.attr] += 1
        elif isinstance(node, ast.alias):
            uses[node.name.rsplit(".", 1)[-1]] += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            match = REGISTRY_STRING.match(node.value.strip())
            if match:
                uses[match.group(1)] += 1
    return uses


def rule_file_uses(text: str) -> Counter:
    """Names a Snakemake file uses (its Python tokens; strings and f-strings by their words; a
    ``def``/``class``/``rule`` name is a definition, not a use)."""
    uses: Counter = Counter()
    previous = None
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and previous not in ("def", "class"):
            uses[token.string] += 1
        elif token.type == tokenize.STRING:
            uses.update(WORD.findall(token.string))
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = token.string
    return uses


@lru_cache(maxsize=None)
def code_uses(root: Path = ROOT) -> Counter:
    """Every use of a name in the code of the checkout at ``root``."""
    uses: Counter = Counter()
    files = [root / "Snakefile"] + [p for d in CODE_DIRS for p in sorted((root / d).rglob("*")) if p.is_file()]
    for path in files:
        if path.suffix == ".py":
            uses += python_uses(path.read_text(encoding="utf-8"))
        elif path.suffix == ".smk" or path.name == "Snakefile":
            uses += rule_file_uses(path.read_text(encoding="utf-8"))
    for template in sorted((root / TEMPLATE_DIR.relative_to(ROOT)).rglob("*")):
        if template.is_file():
            for expression in re.findall(r"\{[{%](.*?)[%}]\}", template.read_text(encoding="utf-8"), re.S):
                uses.update(WORD.findall(expression))
    return uses


def uncalled(root: Path = ROOT, entry_points=frozenset(ENTRY_POINTS)) -> list[str]:
    """``module:name`` of each definition of ``root``'s package that its code never names."""
    uses = code_uses(root)
    return [f"{module}:{name}" for module, name in definitions(root / PACKAGE.relative_to(ROOT))
            if not uses[name.rsplit(".", 1)[-1]] and f"{module}:{name}" not in entry_points]


def test_every_function_class_and_method_is_called_by_the_code_that_runs():
    assert uncalled() == [], "called by nothing but tests (remove them with their tests, or call them)"


def test_each_listed_entry_point_is_defined_and_called_by_no_code_here():
    """An entry of ENTRY_POINTS that code here calls, or that no longer exists, is stale."""
    defined = {f"{module}:{name}" for module, name in definitions()}
    uses = code_uses()
    assert sorted(ENTRY_POINTS - defined) == []
    assert [e for e in sorted(ENTRY_POINTS) if uses[e.rsplit(":", 1)[1].rsplit(".", 1)[-1]]] == []


def test_a_function_only_a_test_calls_is_found(tmp_path):
    """The scan finds a definition no code names, and not one that a rule file or a registry string names."""
    package = tmp_path / "src" / "evidence_ledger"
    package.mkdir(parents=True)
    (package / "lib.py").write_text('"""Uses helper_b."""\ndef helper_a():\n    pass\n\n\ndef helper_b():\n    pass\n\n\n'
                                    'def helper_c():\n    pass\n\n\nREADERS = {"x": "evidence_ledger.lib:helper_c"}\n')
    (tmp_path / "workflow").mkdir()
    (tmp_path / "workflow" / "r.smk").write_text("rule r:\n    params:\n        n=helper_b(),\n")
    (tmp_path / "Snakefile").write_text("")
    assert uncalled(tmp_path, frozenset()) == ["lib.py:helper_a"]


if __name__ == "__main__":
    print("\n".join(uncalled()) or "every definition is called")
