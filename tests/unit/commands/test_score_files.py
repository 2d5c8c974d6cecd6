"""``score`` command line: JSON output formats, exit codes and messages naming the record."""
import argparse
import json
import os
import subprocess
import sys

import pytest

from support.paths import REPO_ROOT, shared_file
from evidence_ledger.commands import score as score_command


def run(argv, capsys):
    parser = argparse.ArgumentParser(prog="python -m evidence_ledger")
    score_command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path, name, records):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_register_adds_score_with_four_benchmarks():
    parser = argparse.ArgumentParser()
    score_command.register(parser.add_subparsers(dest="command", required=True))
    for benchmark in ("fever", "feverous", "scifact"):
        args = parser.parse_args(["score", benchmark, "--gold", "g", "--predictions", "p"])
        assert args.command == "score" and args.benchmark == benchmark and callable(args.func)
    args = parser.parse_args(["score", "diffgr", "--hybrid", "h", "--generated-only", "g", "--retrieved-only", "r",
                              "--closed-book", "c"])
    assert (args.hybrid, args.generated_only, args.retrieved_only, args.closed_book) == ("h", "g", "r", "c")


def test_fever_prints_the_five_official_numbers(capsys):
    gold = shared_file("fever", "paper_dev.jsonl")  # actual.jsonl's labels and evidence, with the real ids
    pred = shared_file("fever", "fever-scorer_tests", "predictions.jsonl")
    code, out, _ = run(["score", "fever", "--gold", str(gold), "--predictions", str(pred)], capsys)
    result = json.loads(out)
    assert code == 0
    assert list(result) == ["strict_score", "label_accuracy", "precision", "recall", "f1"]
    assert result["strict_score"] == pytest.approx(0.32573257325732574, abs=1e-12)
    assert result["f1"] == pytest.approx(0.1688970477815144, abs=1e-12)


def test_feverous_output_keys_and_header_line(tmp_path, capsys):
    gold = _write(tmp_path, "dev.jsonl", [
        {"id": "", "claim": "", "label": "", "evidence": []},
        {"id": 3, "claim": "c", "label": "REFUTES", "evidence": [{"content": ["P_cell_0_1_1"], "context": {}}]}])
    pred = _write(tmp_path, "pred.jsonl", [{"id": 3, "predicted_label": "REFUTES", "predicted_evidence": ["P_cell_0_1_1"]}])
    code, out, _ = run(["score", "feverous", "--gold", str(gold), "--predictions", str(pred)], capsys)
    assert code == 0
    assert json.loads(out) == {"strict_score": 1.0, "label_accuracy": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_scifact_output_has_four_metrics_with_precision_recall_f1(tmp_path, capsys):
    gold = _write(tmp_path, "claims.jsonl", [{"id": 1, "claim": "c", "cited_doc_ids": [4],
                                              "evidence": {"4": [{"sentences": [0], "label": "SUPPORT"}]}}])
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "evidence": {"4": {"sentences": [0], "label": "SUPPORT"}}}])
    code, out, _ = run(["score", "scifact", "--gold", str(gold), "--predictions", str(pred)], capsys)
    result = json.loads(out)
    assert code == 0
    assert list(result) == ["abstract_label_only", "abstract_rationalized", "sentence_selection", "sentence_label"]
    assert all(v == {"precision": 1.0, "recall": 1.0, "f1": 1.0} for v in result.values())


def test_diffgr_output_and_warning_on_stderr(tmp_path, capsys):
    base = {"question": "q", "answer": ["Lyon city"], "generated_passage": ["Paris city"],
            "retrieved_passage": ["Lyon city"], "response": ["Paris city"]}
    paths = [_write(tmp_path, "h.jsonl", [base]),
             _write(tmp_path, "g.jsonl", [{"question": "q", "response": ["Paris city"]}]),
             _write(tmp_path, "r.jsonl", [{"question": "q", "response": ["Lyon city"]}]),
             _write(tmp_path, "c.jsonl", [{"question": "q", "response": ["Nice"]}])]
    code, out, err = run(["score", "diffgr", "--hybrid", str(paths[0]), "--generated-only", str(paths[1]),
                          "--retrieved-only", str(paths[2]), "--closed-book", str(paths[3])], capsys)
    result = json.loads(out)
    assert code == 0
    assert result["air"] == {"diffgr": 1.0, "gen_ans": 1.0, "ir_ans": 0.0, "llm_ans": 0.0, "others": 0.0, "n": 1}
    assert result["aig"]["n"] == 0
    assert "warning: DiffGR: subset AIG is empty" in err


def test_malformed_input_exits_non_zero_naming_the_record(tmp_path, capsys):
    gold = _write(tmp_path, "gold.jsonl", [{"id": 1, "label": "SUPPORTS", "evidence": [[[0, 0, "P", 0]]]}])
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "predicted_label": "SUPPORTS"}])
    code, out, err = run(["score", "fever", "--gold", str(gold), "--predictions", str(pred)], capsys)
    assert code == 2 and out == ""
    assert f"error: {pred}:1: field 'predicted_evidence': missing" in err


def test_bad_json_line_exits_non_zero_naming_the_line(tmp_path, capsys):
    gold = _write(tmp_path, "claims.jsonl", [{"id": 1, "claim": "c", "evidence": {}, "cited_doc_ids": []}])
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": 1, "evidence": {}}\n{"id": 2,\n')
    code, _, err = run(["score", "scifact", "--gold", str(gold), "--predictions", str(pred)], capsys)
    assert code == 2 and f"{pred}:2: field '<json>': malformed JSON" in err


def test_python_m_evidence_ledger_score_runs_as_a_subprocess(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", [{"id": 1, "label": "NOT ENOUGH INFO", "evidence": [[[0, None, None, None]]]}])
    pred = _write(tmp_path, "pred.jsonl", [{"id": 1, "predicted_label": "NOT ENOUGH INFO", "predicted_evidence": []}])
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", "score", "fever", "--gold", str(gold),
                           "--predictions", str(pred)], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"strict_score": 1.0, "label_accuracy": 1.0, "precision": 1.0, "recall": 0.0,
                                       "f1": 0.0}
