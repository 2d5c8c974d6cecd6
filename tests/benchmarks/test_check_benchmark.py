"""benchmarks/check.py: times the preflight over a generated FEVER-format data tree (here a tiny one)."""
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_benchmark", REPO / "benchmarks" / "check.py")
check_benchmark = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_benchmark)


def test_the_benchmark_generates_the_tree_once_and_records_each_passing_check(tmp_path):
    out = tmp_path / "check.json"
    assert check_benchmark.main(["--pages", "1500", "--work", str(tmp_path / "work"), "--repeats", "1",
                                 "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["tree"]["pages"] == 1500 and result["tree"]["wiki_files"] == 1
    run = result["runs"][0]
    assert run["exit"] == 0 and run["failed"] == [] and run["checks"] > 20
    assert run["wiki_line"].startswith("ok   data    data.fever.wiki: fever/wiki-pages")
    # a second call reuses the tree (its marker names the same page count)
    marker = (tmp_path / "work" / "done.json").read_text()
    assert check_benchmark.build_tree(tmp_path / "work", 1500, fresh=False) == json.loads(marker)
