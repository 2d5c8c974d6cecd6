"""Every numeric option of ``score`` has a range and a clear argparse error."""
import argparse

import pytest

from evidence_ledger.commands import score as score_command


def _parser():
    parser = argparse.ArgumentParser()
    score_command.register(parser.add_subparsers(dest="command", required=True))
    return parser


@pytest.mark.parametrize("benchmark, option, value, minimum", [
    ("fever", "--max-evidence", "-1", 0),
    ("feverous", "--max-evidence", "-1", 0),
    ("feverous", "--max-evidence-cell", "-3", 0),
    ("scifact", "--max-sentences", "0", 1),
    ("scifact", "--max-sentences", "-1", 1),
])
def test_out_of_range_numeric_option_is_an_argparse_error(benchmark, option, value, minimum, capsys):
    """``--max-evidence -1`` used to be accepted and silently dropped the last item (``[:-1]``)."""
    with pytest.raises(SystemExit) as exit_info:
        _parser().parse_args(["score", benchmark, "--gold", "g", "--predictions", "p", option, value])
    assert exit_info.value.code == 2
    assert f"argument {option}: must be >= {minimum}, got {value}" in capsys.readouterr().err


def test_in_range_values_parse():
    args = _parser().parse_args(["score", "fever", "--gold", "g", "--predictions", "p", "--max-evidence", "0"])
    assert args.max_evidence == 0
    with pytest.raises(SystemExit):
        _parser().parse_args(["score", "fever", "--gold", "g", "--predictions", "p", "--max-evidence", "x"])
