"""One home for each fact: a second hand-written copy of any of these fails here.

* defaults live in ``config/defaults.yaml`` only: the schema states none, and no library
  signature or dataclass gives a default for a key of the config section its package reads;
* the schema's enums are the vocabulary's and the benchmark registry's names;
* the official scorer caps (FEVER 5; FEVEROUS 5 + 25 cell-like; SciFact 3) are in the benchmark
  registry: the scorers, the scoring rules and the evidence's scored prefix read them there, and
  the config has one set of keys that may override them (``scoring``), so the scored prefix and
  the scoring cannot disagree;
* the conflict-QA datasets, the control names and the DiffGR context orders are spelled once;
* Study 2's factor levels are ``generation.sources`` / ``budgets`` / ``formats``, not restated
  under ``accounting``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from evidence_ledger import vocabulary
from evidence_ledger.accounting.estimates import UNRESOLVED_SCOPES
from evidence_ledger.benchmark_registry import CONFLICT_QA_DATASETS, FEVER, FEVEROUS, SCIFACT, benchmarks
from evidence_ledger.datasets.records import ON_UNRESOLVED
from evidence_ledger.generation.prompts import ROLES
from evidence_ledger.models.gpu_fit import QUANTIZATIONS
from evidence_ledger.scoring import fever, feverous, scifact
from evidence_ledger.scoring.indicators import PARSERS
from evidence_ledger.wikicontradict.prompts import PASSAGE_VERSIONS, TEMPLATES

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "evidence_ledger"
SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8"))
DEFAULTS = yaml.safe_load((REPO / "config" / "defaults.yaml").read_text(encoding="utf-8"))
RULE_FILES = sorted((REPO / "workflow" / "rules").glob("*.smk"))

# the config sections each package's code is handed values of (by the rules' params)
PACKAGE_SECTIONS = {
    "datasets": ["data"], "sampling": ["sampling", "families"], "retrieval": ["retrieval"],
    "evidence": ["evidence"], "generation": ["generation"], "verifier": ["verifier"], "scoring": ["scoring"],
    "accounting": ["accounting"], "wikicontradict": ["wikicontradict"], "diffgr": ["diffgr"], "report": ["report"],
}


def schema_node(*path: str) -> dict:
    node = SCHEMA
    for part in path:
        node = node["properties"][part] if part != "items" else node["items"]
    return node


def schema_nodes(node, path=()):
    """Every schema object (with its key path) below ``node``: the ``properties`` mapping itself is
    walked through, not yielded (a property may be named ``default``)."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, child in value.items():
                    yield from schema_nodes(child, path + (name,))
            elif isinstance(value, (dict, list)):
                yield from schema_nodes(value, path + (key,))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from schema_nodes(child, path + (str(i),))


def test_the_schema_states_no_default():
    """``validate`` would fill a schema ``default:`` in; config/defaults.yaml is the one place."""
    found = [".".join(path) for path, node in schema_nodes(SCHEMA) if "default" in node]
    assert not found, f"schema defaults (move them to config/defaults.yaml): {found}"


def config_leaves(node) -> set[str]:
    """The names of the leaf keys of a config section (nested sections walked)."""
    out: set[str] = set()
    for key, value in (node or {}).items():
        out |= config_leaves(value) if isinstance(value, dict) else {str(key)}
    return out


def literal_defaults(path: Path):
    """``(name, line, source)`` of every parameter default and dataclass-style field default of
    a module that is a literal asking for something (a number, a string, True, a non-empty list);
    None, False and empty values ask for nothing, and a default that names a constant (the
    registry's, the vocabulary's) is derived, not a copy."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        pairs = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs += list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
            pairs = [(arg.arg, default) for arg, default in pairs]
        elif isinstance(node, ast.ClassDef):
            pairs = [(st.target.id, st.value) for st in node.body
                     if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None]
        for name, default in pairs:
            try:
                value = ast.literal_eval(default)
            except ValueError:
                continue
            if value is not None and value is not False and value not in ("", (), []):
                yield name, default.lineno, ast.unparse(default)


def test_no_library_default_repeats_a_config_default():
    """A function or dataclass of a stage package that takes a value of its config sections takes
    it without a default: the value comes from config/defaults.yaml through the rule's params (a
    copy here could silently differ, as a reranker batch size of 128 beside the config's 64 did)."""
    found = []
    for package, sections in PACKAGE_SECTIONS.items():
        keys = set().union(*(config_leaves(DEFAULTS.get(section)) for section in sections))
        for path in sorted((PACKAGE / package).rglob("*.py")):
            found += [f"{path.relative_to(REPO)}:{line} {name}={source}" for name, line, source in literal_defaults(path)
                      if name in keys]
    assert not found, "defaults that restate config/defaults.yaml:\n" + "\n".join(found)


@pytest.mark.parametrize("path, names", [
    (("gpu_jobs",), ("gpu", "cpu")),
    (("data", "fever", "on_unresolved"), ON_UNRESOLVED),
    (("evidence", "controls", "items"), vocabulary.CONTROLS),
    (("generation", "controls", "sources", "items"), vocabulary.CONTROLS),
    (("generation", "controls", "design"), vocabulary.CONTROL_DESIGNS),
    (("generation", "code_mappings", "primary", "A"), ROLES),
    (("scoring", "parsers", "items"), PARSERS),
    (("accounting", "study1", "unresolved_scope"), UNRESOLVED_SCOPES),
    (("wikicontradict", "templates", "items"), tuple(TEMPLATES)),
    (("wikicontradict", "passage_version"), PASSAGE_VERSIONS),
    (("diffgr", "datasets", "items"), CONFLICT_QA_DATASETS),
    (("diffgr", "context_orders", "items"), vocabulary.DIFFGR_ORDERS),
], ids=lambda v: ".".join(v) if isinstance(v[0], str) and len(v) and v[0] in SCHEMA["properties"] else None)
def test_a_schema_enum_is_the_vocabulary(path, names):
    assert tuple(v for v in schema_node(*path)["enum"]) == tuple(names)


def test_every_schema_enum_of_a_named_vocabulary_is_checked():
    """The conflict-QA datasets and the controls appear in no enum but the checked ones."""
    checked = {tuple(CONFLICT_QA_DATASETS), tuple(vocabulary.CONTROLS), tuple(vocabulary.DIFFGR_ORDERS)}
    for path, node in schema_nodes(SCHEMA):
        if "enum" in node and set(node["enum"]) & {CONFLICT_QA_DATASETS[0], vocabulary.CONTROLS[1],
                                                     vocabulary.DIFFGR_ORDERS[1]}:
            assert tuple(node["enum"]) in checked, path
    quantization = schema_node("models")["additionalProperties"]["properties"]["quantization"]["enum"]
    assert tuple(quantization) == QUANTIZATIONS + (None,)


def test_the_scorer_caps_are_the_registry_entries():
    assert (fever.MAX_EVIDENCE, feverous.MAX_EVIDENCE, feverous.MAX_EVIDENCE_CELL, scifact.MAX_ABSTRACT_SENTS) == (
        FEVER.scorer_caps["max_evidence"], FEVEROUS.scorer_caps["max_evidence"],
        FEVEROUS.scorer_caps["max_evidence_cell"], SCIFACT.scorer_caps["max_sentences"])
    for module in ("fever", "feverous", "scifact"):
        for name, line, source in literal_defaults(PACKAGE / "scoring" / f"{module}.py"):
            assert not name.startswith("max_"), f"scoring/{module}.py:{line} {name}={source}"
        assigned = [node for node in ast.walk(ast.parse((PACKAGE / "scoring" / f"{module}.py").read_text()))
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and any(isinstance(t, ast.Name) and t.id.startswith("MAX_") for t in node.targets)]
        assert not assigned, f"scoring/{module}.py restates a cap at line {assigned[0].lineno}"


def test_the_config_can_only_override_the_caps_once_and_the_scored_prefix_follows():
    assert "scored_prefix" not in schema_node("evidence")["properties"]
    assert all(DEFAULTS["scoring"][key] is None for key in ("max_evidence", "max_evidence_cell",
                                                              "max_abstract_sentences"))
    assert [b.scored_prefix(DEFAULTS["scoring"]) for b in (FEVER, FEVEROUS, SCIFACT)] == [(5, None), (5, 25), (3, None)]
    override = {**DEFAULTS["scoring"], "max_evidence": 7, "max_abstract_sentences": 2}
    for bench in (FEVER, FEVEROUS, SCIFACT):
        caps = bench.caps(override)
        non_cell, cell = bench.scored_prefix(override)
        assert non_cell == (caps["max_evidence"] if "max_evidence" in bench.scorer_caps else caps["max_sentences"])
        assert cell == caps["max_evidence_cell"] if "max_evidence_cell" in bench.scorer_caps else cell is None
    rules = "\n".join(path.read_text() for path in RULE_FILES)
    assert 'config["scoring"]["max_' not in rules and "scored_prefix\"]" not in rules


def string_constants(path: Path) -> set[str]:
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


SPELLED_ONCE = {
    # name: the one module that spells it
    "swap": "vocabulary.py", "reversed": "vocabulary.py", "generated_first": "vocabulary.py",
    "retrieved_first": "vocabulary.py", "nqcc": "benchmark_registry.py", "tqacc": "benchmark_registry.py",
}


@pytest.mark.parametrize("name", sorted(SPELLED_ONCE))
def test_a_control_order_or_conflict_dataset_is_spelled_in_one_module(name):
    """Code names the control, DiffGR order or conflict-QA dataset through the constant (rule
    files and library modules alike); a string elsewhere is a second copy."""
    home = PACKAGE / SPELLED_ONCE[name]
    found = [str(p.relative_to(REPO)) for p in sorted(PACKAGE.rglob("*.py"))
             if p != home and "fixtures" not in p.parts and name in string_constants(p)]
    found += [str(p.relative_to(REPO)) for p in RULE_FILES if f'"{name}"' in p.read_text() or f"{name}|" in p.read_text()]
    assert not found, f"{name!r} spelled outside {home.name}: {found}"


def test_study2_factor_levels_are_the_generation_lists():
    assert not {"sources", "budgets", "formats"} & set(schema_node("accounting", "study2")["properties"])
    assert not {"sources", "budgets", "formats"} & set(DEFAULTS["accounting"]["study2"])


def test_every_registered_benchmark_states_its_scorer_caps():
    assert all(b.scorer_caps for b in benchmarks())


def test_every_results_and_log_path_is_spelled_once_in_the_stage_path_providers():
    """common.smk holds one path provider per stage (PyPSA-Eur's ``resources()`` pattern) and the
    one log provider (``log_file`` / ``timing_file``); no other rule file spells a path under
    ``results/`` or ``logs/``, and no two provider entries name the same file."""
    common = REPO / "workflow" / "rules" / "common.smk"
    literal = re.compile(r"""(?<![`\w/])f?["'](?:results|logs)/""")
    found = [f"{p.name}:{i}" for p in RULE_FILES if p != common
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if literal.search(line) and not line.lstrip().startswith("#")]
    assert not found, f"paths spelled outside the providers: {found}"
    text = common.read_text()
    providers = re.findall(r'^(\w+) = path_provider\("(\w+)", \{\n(.*?)\n\}\)', text, re.S | re.M)
    stages = [stage for _, stage, _ in providers]
    assert len(stages) == len(set(stages)) and {f"{s}.smk" for s in stages} <= {p.name for p in RULE_FILES}
    templates = [t for _, _, body in providers for t in re.findall(r'": "([^"]+)"', body)]
    assert len(templates) == len(set(templates)), "two provider entries name one file"
