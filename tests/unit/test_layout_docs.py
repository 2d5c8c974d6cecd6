"""The structural sentences of docs/LAYOUT.md and docs/CONTRACTS.md hold for the code.

In:  the two docs, the package's folders and modules, the rule files and the test folders.
Out: a failure naming the sentence's claim and what contradicts it: a room or module the rooms
     table names that does not exist (or a room it leaves out), a stage without its functions
     file included first, an unregistered target hook, a rule without its log, timing, threads
     or memory and runtime, directives out of the stated order, a traced key missing from a file
     the trace names, a test folder or test module that mirrors nothing, an output path of the
     contracts' table that no path provider of its stage writes under.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "evidence_ledger"
RULES = REPO / "workflow" / "rules"
LAYOUT = (REPO / "docs" / "LAYOUT.md").read_text(encoding="utf-8")
CONTRACTS = (REPO / "docs" / "CONTRACTS.md").read_text(encoding="utf-8")


def cells(line: str) -> list[str]:
    """The cells of a Markdown table line (a ``|`` inside backticks stays in its cell)."""
    out, cell, code = [], "", False
    for char in line.strip()[1:-1]:
        if char == "`":
            code = not code
        if char == "|" and not code:
            out.append(cell.strip())
            cell = ""
        else:
            cell += char
    return out + [cell.strip()]


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of the first Markdown table after ``heading``, as lists of cells."""
    body, started = [], False
    for line in text[text.index(heading):].splitlines():
        if line.startswith("|"):
            started = True
            body.append(cells(line))
        elif started:
            break
    assert body, heading
    return body[2:]


def outside_parentheses(text: str) -> str:
    while True:
        stripped = re.sub(r"\([^()]*\)", "", text)
        if stripped == text:
            return stripped
        text = stripped


def packages() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_the_rooms_table_names_every_room_and_only_modules_that_exist():
    named_rooms: set[str] = set()
    for room, _what, modules in table_rows(LAYOUT, "## The rooms of"):
        names = re.findall(r"`(\w+)`", outside_parentheses(modules))
        folder = re.fullmatch(r"`(\w+)/`", room)
        if folder:
            named_rooms.add(folder.group(1))
            missing = [n for n in names if not (PACKAGE / folder.group(1) / f"{n}.py").is_file()]
            assert not missing, f"{room}: no module {missing}"
        elif room == "top level":
            assert {f"{n}.py" for n in names} == {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py"}
        else:
            assert set(names) <= packages(), f"{room}: {set(names) - packages()} are not packages"
            named_rooms |= set(names)
    assert named_rooms == packages(), f"rooms the table leaves out: {packages() - named_rooms}"


def stage_files() -> list[Path]:
    return [p for p in sorted(RULES.glob("*.smk")) if p.stem != "common" and not p.stem.endswith("_functions")]


@pytest.mark.parametrize("smk", stage_files(), ids=lambda p: p.stem)
def test_a_stage_includes_its_functions_file_on_its_first_line(smk):
    first = next(line for line in smk.read_text().splitlines() if line.strip() and not line.startswith("#"))
    assert first == f'include: "{smk.stem}_functions.smk"'


def test_every_functions_file_belongs_to_a_stage_or_is_the_conflict_stages_shared_one():
    stems = {p.stem for p in stage_files()}
    orphans = [p.name for p in RULES.glob("*_functions.smk") if p.stem[: -len("_functions")] not in stems]
    assert orphans == ["conflict_functions.smk"]


def test_every_stage_registers_its_target_hook():
    text = "\n".join(p.read_text() for p in RULES.glob("*.smk"))
    hooks = set(re.findall(r"^def (\w+)_final_outputs\(", text, re.M))
    registered = set(re.findall(r'^FINAL_OUTPUTS\["(\w+)"\] = (\w+)_final_outputs$', text, re.M))
    assert {stage for stage, fn in registered if stage == fn} == hooks


DIRECTIVE_ORDER = ("input", "output", "log", "benchmark", "params", "threads", "priority", "resources", "conda",
                   "script")


def rule_blocks():
    """``(file, rule, block text)`` of every rule (named or made in the ingest loop)."""
    for smk in stage_files():
        parts = re.split(r"^(\s*)rule\b\s*(\w*):", smk.read_text(), flags=re.M)
        for i in range(1, len(parts), 3):
            yield smk.name, parts[i + 1] or "loop", parts[i + 2]


def test_every_rule_has_its_log_timing_threads_and_resources_in_the_stated_order():
    problems = []
    for smk, rule, block in rule_blocks():
        found = re.findall(r"^\s+(\w+):", block, re.M)
        directives = [d for d in found if d in DIRECTIVE_ORDER]
        if directives != sorted(directives, key=DIRECTIVE_ORDER.index):
            problems.append(f"{smk} {rule}: directives in order {directives}")
        for needed in ("log", "benchmark", "threads", "resources", "script"):
            if needed not in directives:
                problems.append(f"{smk} {rule}: no {needed}:")
        resources = block[block.find("resources:"):]
        if "mem_mb=" not in resources or "runtime=" not in resources:
            problems.append(f"{smk} {rule}: resources without mem_mb and runtime")
    assert not problems, "\n".join(problems)


def test_no_stage_function_reads_the_snakemake_config():
    users = [str(p.relative_to(REPO)) for p in [*PACKAGE.rglob("*.py"), *(REPO / "scripts").glob("*.py")]
             if "snakemake.config" in p.read_text(encoding="utf-8")]
    assert not users


def traces() -> list[tuple[str, list[str]]]:
    rows = table_rows(LAYOUT, "## Tracing a config key")
    return [(re.search(r"`([\w.<>]+)`", key).group(1), re.findall(r"`([\w/]+\.(?:smk|py))`", files))
            for key, files in rows]


@pytest.mark.parametrize("key, files", traces(), ids=[k for k, _ in traces()])
def test_a_traced_key_keeps_its_name_in_every_file_of_its_route(key, files):
    word = key.rsplit(".", 1)[-1]
    assert 2 <= len(files) <= 5, "a key's route from its rule to the code it reaches opens at most 5 files"
    for name in files:
        text = (REPO / name).read_text(encoding="utf-8")
        assert re.search(rf"\b{word}\b", text), f"{name} does not use {word!r}"
    assert re.search(rf"^\s+{word}=", (REPO / files[0]).read_text(), re.M), f"{files[0]} passes no {word}= param"
    defaults = (REPO / "config" / "defaults.yaml").read_text()
    assert re.search(rf"^\s*{word}:|\b{word}:", defaults), f"{word} is not a key of config/defaults.yaml"


def test_the_test_folders_mirror_the_packages():
    unit = REPO / "tests" / "unit"
    folders = {p.name for p in unit.iterdir() if (p / "__init__.py").is_file()}
    assert folders <= packages(), f"test folders without a package: {folders - packages()}"
    unmatched = []
    for test in sorted(unit.glob("*/test_*.py")):
        module = PACKAGE / test.parent.name / f"{test.stem[len('test_'):]}.py"
        if not module.is_file():
            continue
        dotted = f"evidence_ledger.{test.parent.name}.{module.stem}"
        imported = {node.module for node in ast.walk(ast.parse(test.read_text())) if isinstance(node, ast.ImportFrom)}
        imported |= {f"{node.module}.{a.name}" for node in ast.walk(ast.parse(test.read_text()))
                     if isinstance(node, ast.ImportFrom) and node.module for a in node.names}
        if dotted not in imported:
            unmatched.append(f"{test.relative_to(REPO)} does not import {dotted}")
    assert not unmatched, "\n".join(unmatched)


def provider_directories() -> dict[str, set[str]]:
    """``{stage: {first folder under results/ of each of its paths}}`` of common.smk's providers."""
    text = (RULES / "common.smk").read_text()
    return {stage: {path.split("/")[0] for path in re.findall(r'": "([^"]+)"', body)}
            for _, stage, body in re.findall(r'^(\w+) = path_provider\("(\w+)", \{\n(.*?)\n\}\)', text, re.S | re.M)}


def test_the_contracts_output_paths_are_where_each_stages_provider_writes():
    directories = provider_directories()
    rows = table_rows(CONTRACTS, "## Output paths")
    assert [stage for stage, _ in rows] == list(directories), "one row per path provider, in their order"
    for stage, outputs in rows:
        folders = {p.split("/")[1] for p in re.findall(r"`(results/[^`]+)`", outputs)}
        assert folders <= directories[stage], f"{stage}: {folders - directories[stage]} is not where it writes"
