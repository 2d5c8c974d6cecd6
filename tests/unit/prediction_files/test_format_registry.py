"""The formats ``account`` reads are entries of one registry: the built-ins are one module each, a
fifth format registered from outside the package is accounted by the command like the built-ins,
and no code outside a format's own module compares a format's name."""
from __future__ import annotations

import ast
import json
import re
import sys
import warnings
from pathlib import Path

import pytest

from evidence_ledger import benchmark_registry
from evidence_ledger.__main__ import main
from evidence_ledger.prediction_files import format_registry
from evidence_ledger.prediction_files.format_registry import AccountedFormat, format_names, get_format, register_format
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.accounting import CLUSTER_SCORES, COVERAGE, ESTIMATES
from support.paths import REPO_ROOT
from support.toy_format_world import toy_world, write_jsonl

SUPPORT = REPO_ROOT / "tests" / "support"
PACKAGE = REPO_ROOT / "src" / "evidence_ledger"


@pytest.fixture
def toy_registered(monkeypatch):
    """The toy format plugin (``tests/support/toy_format.py``) named as the command line names
    plugins; the registries and the environment restored afterwards."""
    monkeypatch.setattr(format_registry, "_REGISTRY", dict(format_registry._REGISTRY))
    monkeypatch.setattr(benchmark_registry, "_LOADED_PLUGINS", set())
    monkeypatch.setenv(benchmark_registry.PLUGINS_ENV, "toy_format")
    monkeypatch.syspath_prepend(str(SUPPORT))
    monkeypatch.delitem(sys.modules, "toy_format", raising=False)
    yield get_format("toyqa")
    sys.modules.pop("toy_format", None)


def recombined(answers: Path, pages: Path, out: Path) -> Path:
    cited = {r["id"]: r["pages"] for r in map(json.loads, pages.read_text().splitlines())}
    return write_jsonl(out, [dict(r, pages=cited[r["id"]]) for r in map(json.loads, answers.read_text().splitlines())])


def test_the_built_in_formats_are_one_module_each_under_formats():
    assert set(format_names()) >= {"fever", "feverous", "kilt", "scifact"}
    for name in ("fever", "feverous", "kilt", "scifact"):
        fmt = get_format(name)
        assert type(fmt).__module__ == f"evidence_ledger.prediction_files.formats.{name}"
        assert isinstance(fmt, AccountedFormat) and fmt.title and fmt.record_help
    with pytest.raises(ValueError, match="no accounted format 'toyqa'"):
        get_format("toyqa")


def test_a_format_with_a_bad_fact_or_a_taken_name_is_refused():
    class Bad(AccountedFormat):
        name, title = "Bad Name", "Bad"

    with pytest.raises(ValueError, match="lower-case letters"):
        register_format(Bad())

    class Clash(AccountedFormat):
        name, title = "kilt", "Another KILT"

    with pytest.raises(ValueError, match="already registered"):
        register_format(Clash())


def test_a_plugin_format_is_a_sub_command_of_account_and_score_and_its_cells_are_its_own_scores(toy_registered,
                                                                                                   tmp_path, capsys):
    gold, files = toy_world(tmp_path)
    assert "toyqa" in format_names()
    out = tmp_path / "out"
    argv = ["account", "toyqa", "--gold", str(gold), "--source0", *map(str, files["base"]), "--source1",
            *map(str, files["new"]), "--names", "base", "new", "--system", "toy", "--draws", "200",
            "--top-k", "2", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "toy on ToyQA: base → new; 30 questions, 2 run(s) per source" in printed
    assert any(line.startswith("page_recall_diff ") and "[" in line for line in printed.splitlines())
    est = read_frame(out / "estimates.parquet", ESTIMATES)
    assert set(est["dataset"]) == {"toyqa"}
    assert read_frame(out / "counts.parquet", CLUSTER_SCORES)["metric"].eq("toy_recall").all()
    coverage = read_frame(out / "coverage.parquet", COVERAGE).set_index("item")["count"]
    assert coverage["gold_questions"] == 30  # a fact of the gold file, counted once over the 4 files
    for run in (1, 2):
        for a, answers in enumerate((files["base"][run - 1], files["new"][run - 1])):
            for b, pages in enumerate((files["base"][run - 1], files["new"][run - 1])):
                assert main(["score", "toyqa", "--gold", str(gold), "--predictions",
                             str(recombined(answers, pages, tmp_path / f"r{a}{b}.jsonl"))]) == 0
                official = json.loads(capsys.readouterr().out)["toy_score"]
                cell = est[(est["quantity"] == f"T{a}{b}") & (est["replicate"] == run)]["value"].iat[0]
                assert abs(cell - 100 * official) < 1e-12, (run, a, b)
    value = est[(est["replicate"] == -1) & (est["part"] == "")].set_index("quantity")["value"]
    assert abs(value["E0"] + value["A1"] - value["gain"]) < 1e-12
    assert {"answer_f1_0", "page_recall_1", "eligibility_diff", "eq4_covariance_0"} <= set(value.index)
    assert "ToyQA rates (points)." in (out / "summary.html").read_text(encoding="utf-8")


def test_a_plugin_format_s_bad_file_is_one_line_naming_the_file_and_line(toy_registered, tmp_path, capsys):
    gold, files = toy_world(tmp_path, runs=1)
    lines = files["new"][0].read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines + [lines[2]]) + "\n")
    argv = ["account", "toyqa", "--gold", str(gold), "--source0", str(files["base"][0]), "--source1", str(bad),
            "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.jsonl:31: field 'id': id 'q2' occurs twice" in err
    assert not (tmp_path / "out").exists()


FORMAT_NAMES = ("fever", "feverous", "kilt", "scifact")


def compared_names(node: ast.Compare) -> set[str]:
    """The format names a comparison names: string constants on either side (in tuples, lists and
    sets too) and constants spelled as the upper-case name (``KILT``)."""
    found = set()
    for side in [node.left, *node.comparators]:
        parts = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
        for part in parts:
            if isinstance(part, ast.Constant) and part.value in FORMAT_NAMES:
                found.add(part.value)
            name = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else ""
            if name.lower() in FORMAT_NAMES and name.isupper():
                found.add(name.lower())
    return found


def test_no_code_outside_a_format_s_module_compares_a_format_name():
    """``benchmark == "kilt"``, ``name in ("fever", "feverous")``, ``x != KILT``: a format decides
    about itself in its own module; the code that loops over formats never names one."""
    own = {PACKAGE / "prediction_files" / "formats" / f"{name}.py": name for name in FORMAT_NAMES}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                if compared_names(node) - {own.get(path)}:
                    found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}: {ast.unparse(node)}")
    pattern = re.compile(r"(==|!=|\bin\b)[^#\n]*['\"](%s)['\"]|['\"](%s)['\"]\s*(==|!=|\bin\b)"
                         % ("|".join(FORMAT_NAMES), "|".join(FORMAT_NAMES)))
    for path in sorted((REPO_ROOT / "workflow").rglob("*.smk")) + [REPO_ROOT / "Snakefile"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line.split("#")[0]):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_grep_finds_a_comparison_of_a_format_name():
    tree = ast.parse('if benchmark == "kilt" or name in ("fever", "x") or b != KILT or c == "other": pass')
    named = set().union(*(compared_names(n) for n in ast.walk(tree) if isinstance(n, ast.Compare)))
    assert named == {"kilt", "fever"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compared_names(ast.parse("x == y").body[0].value) == set()
