"""``python -m evidence_ledger account kilt``: each cell is the official KILT-<metric> of a file
holding one run's answers and the other's provenance, the demo's KILT systems give the same numbers
through rule ``account_system`` and through the command, and bad input is refused with one line."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from evidence_ledger.__main__ import main
from evidence_ledger.prediction_files.format_registry import get_format
from evidence_ledger.prediction_files.formats.kilt import KILT_TASK_METRICS
from evidence_ledger.prediction_files.stage import account_system
from evidence_ledger.prediction_files.write import TABLE_FILES
from evidence_ledger.report.ledger import validate_ledger
from evidence_ledger.scoring.kilt import score_kilt_files
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.accounting import CLUSTER_SCORES, ESTIMATES, INTERVALS
from support.defaults import DEFAULTS
from support.paths import REPO_ROOT
from support.readme_example import check_printed_as_shown, example_argv, readme_section
from support.summary_page import check_values_against_sources, parse

DEMO = yaml.safe_load((REPO_ROOT / "config" / "demo.yaml").read_text(encoding="utf-8"))
DATA_ROOT = REPO_ROOT / DEMO["data_root"]
DRAWS = 300


def demo_system(system: str) -> tuple[dict, dict[str, list[Path]]]:
    spec = DEMO["external"]["kilt"][system]
    return spec, {source: [DATA_ROOT / f for f in runs] for source, runs in spec["sources"].items()}


def kilt_argv(system: str, out: Path, *extra: str) -> list[str]:
    spec, files = demo_system(system)
    (s0, runs0), (s1, runs1) = files.items()
    return ["account", "kilt", "--gold", str(DATA_ROOT / spec["gold_file"]), "--source0", *map(str, runs0),
            "--source1", *map(str, runs1), "--names", s0, s1, "--system", system, "--draws", str(DRAWS),
            "--out", str(out), *extra]


@pytest.fixture(scope="module")
def nq_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("kilt") / "nq"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(kilt_argv("rag_nq", out, "--task", "nq")) == 0
    return out


def recombined(answers: Path, provenance: Path, out: Path) -> Path:
    """A KILT prediction file holding the answers of one file and the provenance of another."""
    cited = {r["id"]: r["output"][0]["provenance"] for r in map(json.loads, provenance.read_text().splitlines())}
    lines = []
    for record in map(json.loads, answers.read_text().splitlines()):
        lines.append({"id": record["id"], "output": [{"answer": record["output"][0]["answer"],
                                                      "provenance": cited[record["id"]]}]})
    out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return out


@pytest.mark.parametrize("system, metric", [("rag_nq", "em"), ("rag_eli5", "rougel"), ("rag_eli5", "f1")])
def test_every_cell_of_every_run_is_the_official_kilt_score_of_the_recombined_file(tmp_path, system, metric):
    spec, files = demo_system(system)
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(kilt_argv(system, out, "--metric", metric, "--draws", "20")) == 0
    est = read_frame(out / "estimates.parquet", ESTIMATES)
    (runs0, runs1) = files.values()
    for run in (1, 2):
        for a, answers in enumerate((runs0[run - 1], runs1[run - 1])):
            for b, provenance in enumerate((runs0[run - 1], runs1[run - 1])):
                official = score_kilt_files(DATA_ROOT / spec["gold_file"], recombined(answers, provenance,
                                                                                 tmp_path / f"r{a}{b}.jsonl"))
                cell = est[(est["quantity"] == f"T{a}{b}") & (est["replicate"] == run)]["value"].iat[0]
                assert abs(cell - 100 * official["kilt"][f"KILT-{metric}"]) < 1e-12
                if a == b:
                    averaged = est[(est["quantity"] == f"{metric}_{a}") & (est["replicate"] == -1)]["value"].iat[0]
                    assert 0 <= averaged <= 100
    gain = est[(est["replicate"] == -1) & (est["part"] == "")].set_index("quantity")["value"]
    assert abs(gain["E0"] + gain["A1"] - gain["gain"]) < 1e-12 and abs(gain["A0"] + gain["E1"] - gain["gain"]) < 1e-12


def test_the_command_writes_the_tables_the_page_and_a_ledger_naming_the_metric(nq_out, capsys):
    names = {p.name for p in nq_out.iterdir()}
    assert {"counts.parquet", "summary.html", "decomposition.png", "ledger.json", "provenance.tsv"} <= names
    assert read_frame(nq_out / "counts.parquet", CLUSTER_SCORES)["metric"].eq("kilt").all()
    ledger = json.loads((nq_out / "ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["settings"]["scoring.metric"] == "em"
    quantities = {n["quantity"] for n in ledger["numbers"]}
    assert {"em_0", "em_diff", "rprec_diff", "eligibility_diff", "E0", "A1"} <= quantities
    page = parse(nq_out / "summary.html")
    assert "rag_nq on KILT (nq, KILT-em): bm25 → dpr" in page.headings
    count, paths = check_values_against_sources(page, nq_out)
    assert count > 30 and "answer_metrics.tsv" in paths
    assert "KILT answer metric EM, source-0 answers" in (nq_out / "summary.html").read_text(encoding="utf-8")
    assert main(kilt_argv("rag_nq", nq_out, "--task", "nq")) == 0
    printed = capsys.readouterr().out
    assert "rag_nq on KILT (nq, KILT-em): bm25 → dpr; 24 items, 2 run(s) per source" in printed
    assert any(line.startswith("em_diff ") and "[" in line for line in printed.splitlines())


def test_the_pipeline_rule_gives_the_command_s_numbers_exactly(nq_out, tmp_path):
    """Rule account_system's function, with the keywords the demo config gives it, writes the
    command's tables: the same estimates, intervals and answer metrics, to the bit."""
    spec, files = demo_system("rag_nq")
    boot = DEFAULTS["accounting"]["study1"]["bootstrap"]
    paths = {key: str(tmp_path / name) for key, name in TABLE_FILES.items()}
    (runs0, runs1) = files.values()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        account_system(gold=str(DATA_ROOT / spec["gold_file"]), source0=[str(p) for p in runs0],
                       source1=[str(p) for p in runs1], format_name="kilt",
                       settings=get_format("kilt").settings_from_entry(spec, DEMO), system="rag_nq",
                       sources=list(files), resample_runs=False, draws=DRAWS, alpha=boot["alpha"],
                       family_size=boot["family_size"], seed=boot["seed"],
                       batch_size=DEFAULTS["accounting"]["bootstrap"]["batch_size"], **paths)
    for name, schema in (("estimates.parquet", ESTIMATES), ("intervals.parquet", INTERVALS),
                         ("counts.parquet", CLUSTER_SCORES)):
        pd.testing.assert_frame_equal(read_frame(tmp_path / name, schema), read_frame(nq_out / name, schema))
    for name in ("estimates.tsv", "intervals.tsv", "answer_metrics.tsv"):
        assert (tmp_path / name).read_bytes() == (nq_out / name).read_bytes(), name


def test_neither_metric_nor_task_is_an_error_saying_to_give_one(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(kilt_argv("rag_nq", out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "--metric" in err and "--task" in err
    assert not out.exists()


def test_the_task_table_holds_the_metric_the_kilt_paper_reports():
    assert {t for t, m in KILT_TASK_METRICS.items() if m == "em"} == {"nq", "hotpotqa", "triviaqa"}
    assert KILT_TASK_METRICS["eli5"] == "rougel" and KILT_TASK_METRICS["wow"] == "f1"
    assert {t for t, m in KILT_TASK_METRICS.items() if m == "accuracy"} == {
        "fever", "aidayago2", "wned", "cweb", "trex", "structured_zeroshot"}


def edited(tmp_path: Path, edit) -> Path:
    _, files = demo_system("rag_nq")
    lines = [json.loads(x) for x in files["dpr"][1].read_text().splitlines()]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in edit(lines)), encoding="utf-8")
    return path


@pytest.mark.parametrize("edit, expected", [
    (lambda ls: ls[:-1], "nq-dev-kilt.jsonl:24: field 'id'"),
    (lambda ls: ls + [ls[3]], "bad.jsonl:25: field 'id'"),
    (lambda ls: ls[:2] + [dict(ls[2], output=ls[2]["output"] * 2)] + ls[3:], "bad.jsonl:3: field 'output'"),
    (lambda ls: ls[:4] + [dict(ls[4], output=[])] + ls[5:], "bad.jsonl:5: field 'output'"),
    (lambda ls: ls[:1] + [dict(ls[1], output=[{"provenance": []}])] + ls[2:], "bad.jsonl:2: field 'answer'"),
])
def test_bad_input_is_one_line_naming_the_file_and_line_and_nothing_is_written(tmp_path, capsys, edit, expected):
    bad = edited(tmp_path, edit)
    spec, files = demo_system("rag_nq")
    out = tmp_path / "out"
    argv = ["account", "kilt", "--gold", str(DATA_ROOT / spec["gold_file"]), "--metric", "em",
            "--source0", *map(str, files["bm25"]), "--source1", str(files["dpr"][0]), str(bad), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert expected in err, err
    assert not out.exists()


def test_a_continuous_metric_keeps_its_values_unrounded(tmp_path):
    spec, files = demo_system("rag_eli5")
    out = tmp_path / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(kilt_argv("rag_eli5", out, "--task", "eli5", "--draws", "20")) == 0
    counts = read_frame(out / "counts.parquet", CLUSTER_SCORES)
    numerators = counts[counts["kind"] == "C"]["value"].to_numpy()
    assert ((numerators > 0) & (numerators < 1)).sum() > 10  # ROUGE-L between 0 and 1, not thresholded
    assert np.isin(counts[counts["kind"] == "D"]["value"].to_numpy(), [1.0]).all()


def test_the_readme_kilt_example_prints_what_the_readme_shows(tmp_path, capsys):
    section = readme_section("### A retrieval-augmented system on KILT")
    argv = example_argv(section, str(tmp_path / "kilt"))
    assert argv[:2] == ["account", "kilt"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    check_printed_as_shown(section, capsys.readouterr().out.splitlines(), "results/account-kilt")


def test_the_pipeline_summary_page_shows_a_kilt_system_as_the_command_s_page_does(nq_out, tmp_path):
    from evidence_ledger.report.stage import summary_page
    from support.defaults import summary_settings
    from support.summary_tables import write_summary_inputs

    paths = write_summary_inputs(tmp_path)
    page = tmp_path / "summary.html"
    title = "rag_nq on KILT (nq, KILT-em): bm25 → dpr"
    summary_page(provenance=paths["provenance"], accounted_estimates=[nq_out / "estimates.tsv"],
                 accounted_intervals=[nq_out / "intervals.tsv"], accounted_metrics=[nq_out / "answer_metrics.tsv"],
                 accounted_titles=[title], accounted_layouts=[get_format("kilt").page_layout({"task": "nq", "metric": "em"})],
                 html_out=page, decomposition_out=tmp_path / "d.png", **summary_settings())
    parsed = parse(page)
    assert title in parsed.headings
    assert "KILT answer metric EM, source-1 answers" in page.read_text(encoding="utf-8")
    command_page = parse(nq_out / "summary.html")
    for table in ("estimates.tsv", "intervals.tsv", "answer_metrics.tsv"):
        cells = [{(v["data-line"], v["data-col"], v["shown"]) for v in p.values if v["data-src"].endswith(table)}
                 for p in (parsed, command_page)]
        assert cells[0] == cells[1], table


def test_what_kilt_scores_silently_is_scored_so_warned_once_per_file_and_counted(tmp_path, capsys):
    """An empty answer scores 0 on every metric, as KILT scores it; the command says so in a
    ``warning:`` line naming the file (also from its --jobs workers) and counts it in COVERAGE."""
    from evidence_ledger.tables.accounting import COVERAGE

    empty = edited(tmp_path, lambda ls: ls[:3] + [dict(ls[3], output=[dict(ls[3]["output"][0], answer="")])] + ls[4:])
    spec, files = demo_system("rag_nq")
    out = tmp_path / "out"
    argv = ["account", "kilt", "--gold", str(DATA_ROOT / spec["gold_file"]), "--metric", "em", "--jobs", "2",
            "--source0", *map(str, files["bm25"]), "--source1", str(files["dpr"][0]), str(empty), "--draws", "20",
            "--out", str(out)]
    assert main(argv) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and "bad.jsonl" in warned[0] and "empty answer" in warned[0]
    coverage = read_frame(out / "coverage.parquet", COVERAGE).set_index("item")["count"]
    assert coverage["empty_answers"] == 1


def test_a_prediction_file_given_as_the_gold_is_scored_and_warned_naming_it(tmp_path, capsys):
    """A KILT gold file none of whose items has an ``input`` is most likely a prediction file given
    as ``--gold``: ``account kilt`` and ``score kilt`` score it as given and say so, naming it."""
    spec, files = demo_system("rag_nq")
    as_gold = files["bm25"][0]
    argv = ["account", "kilt", "--gold", str(as_gold), "--metric", "em", "--source0", str(files["bm25"][1]),
            "--source1", str(files["dpr"][1]), "--draws", "20", "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert warned[0] == (f"warning: {as_gold}: none of its 24 items has an 'input', which every KILT gold item has: "
                         f"is it a prediction file given as --gold? (scored as the gold file)")
    assert main(["score", "kilt", "--gold", str(as_gold), "--predictions", str(files["dpr"][1])]) == 0
    assert warned[0] in capsys.readouterr().err.splitlines()
    assert main(["score", "kilt", "--gold", str(DATA_ROOT / spec["gold_file"]), "--predictions",
                 str(files["dpr"][1])]) == 0
    assert "prediction file given as --gold" not in capsys.readouterr().err
