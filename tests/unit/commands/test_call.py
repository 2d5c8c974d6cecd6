"""The call command: `python -m evidence_ledger call RULE key=value ...` runs a rule's stage function."""
import inspect

import pytest

from evidence_ledger.__main__ import main
from evidence_ledger.commands.call import parse_keyword_arguments, stage_functions


def test_values_are_parsed_as_yaml_scalars_and_lists():
    assert parse_keyword_arguments(["k=5", "alpha=0.05", "names=[a, b]", "x=null", "path=results/a.parquet", "s="]) == {
        "k": 5, "alpha": 0.05, "names": ["a", "b"], "x": None, "path": "results/a.parquet", "s": ""}


def test_a_pair_without_equals_sign_is_refused():
    with pytest.raises(ValueError, match="expected key=value"):
        parse_keyword_arguments(["draws"])


def test_every_stage_function_is_keyword_only_and_named_for_a_rule():
    functions = stage_functions()
    assert "assemble_evidence" in functions or "assemble_evidence_file" in functions
    for name, fn in functions.items():
        kinds = {p.kind for p in inspect.signature(fn).parameters.values()}
        assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, f"{name} takes positional parameters"


def test_unknown_rule_is_one_line_naming_it(capsys):
    assert main(["call", "no_such_rule"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: call: no stage function named 'no_such_rule'; `call --list` shows them"


def test_missing_keywords_are_named(capsys):
    name = sorted(stage_functions())[0]
    assert main(["call", name]) == 2
    err = capsys.readouterr().err.strip()
    assert "missing keywords" in err and len(err.splitlines()) == 1 and "Traceback" not in err
