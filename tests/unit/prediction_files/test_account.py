"""``python -m evidence_ledger account``: official prediction files crossed through the official
scoring semantics, every Study 1 quantity with its interval, and bad input refused with one line."""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from support.defaults import summary_settings

from evidence_ledger.__main__ import main
from evidence_ledger.prediction_files.tables import DrawSettings, account_runs
from evidence_ledger.report.ledger import validate_ledger
from evidence_ledger.report.sources import read_source_table
from evidence_ledger.scoring import fever, feverous, scifact
from evidence_ledger.tables import read_frame
from evidence_ledger.tables.accounting import ESTIMATES, INTERVALS
from evidence_ledger.prediction_files.format_registry import get_format
from support.format_settings import format_settings, read_format_runs
from support.paths import REPO_ROOT
from support.readme_example import check_printed_as_shown, example_argv, readme_section
from support.summary_page import check_values_against_sources, parse

EXAMPLE = REPO_ROOT / "resources" / "demo" / "feverous"
EXAMPLE_RUNS = {s: [EXAMPLE / "submissions" / f"{s}_run{r}.jsonl" for r in (1, 2)] for s in ("baseline", "improved")}
FEVER_LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
SETTINGS = DrawSettings(draws=300, seed=5, alpha=0.05, family_size=1, batch_size=64)


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def fever_world(tmp_path: Path, n_claims: int = 40, runs: int = 3, seed: int = 1):
    """A FEVER gold file and ``runs`` prediction files per source: labels right about 60% / 75%
    of the time, evidence holding a complete gold group about 40% / 70% of the time."""
    rng = random.Random(seed)
    gold = []
    for i in range(n_claims):
        label = FEVER_LABELS[i % 3]
        if label == "NOT ENOUGH INFO":
            evidence = [[[i, None, None, None]]]
        else:
            evidence = [[[i, 0, f"Page_{i}", 0], [i, 1, f"Page_{i}", 1]], [[i, 2, f"Other_{i}", 3]]]
        gold.append({"id": 100 + i, "verifiable": "VERIFIABLE", "label": label, "claim": f"c{i}",
                     "evidence": evidence})
    gold_path = write_jsonl(tmp_path / "gold.jsonl", gold)
    files = {}
    for source, (p_label, p_evidence) in (("s0", (0.6, 0.4)), ("s1", (0.75, 0.7))):
        files[source] = []
        for run in range(runs):
            lines = []
            for rec in gold:
                i = rec["id"] - 100
                label = rec["label"] if rng.random() < p_label else rng.choice(FEVER_LABELS)
                found = rng.random() < p_evidence
                evidence = [[f"Page_{i}", 0], [f"Page_{i}", 1]] if found else [[f"Page_{i}", 0], [f"Noise_{i}", 2]]
                evidence += [[f"Noise_{i}", k] for k in range(rng.randrange(5))]
                lines.append({"id": rec["id"], "predicted_label": label, "predicted_evidence": evidence})
            files[source].append(write_jsonl(tmp_path / f"{source}_run{run}.jsonl", lines))
    return gold_path, files


def recombined(path_a: Path, path_b: Path, out: Path) -> Path:
    """The prediction file with the labels of ``path_a`` and the evidence of ``path_b``."""
    evidence = {r["id"]: r["predicted_evidence"] for r in map(json.loads, path_b.read_text().splitlines())}
    lines = [dict(r, predicted_evidence=evidence[r["id"]]) for r in map(json.loads, path_a.read_text().splitlines())]
    return write_jsonl(out, lines)


def test_every_cell_of_every_run_is_the_official_score_of_the_recombined_file(tmp_path):
    gold, files = fever_world(tmp_path)
    runs = read_format_runs("fever", gold, files["s0"], files["s1"])
    panel_cells = runs.num.sum(axis=0) / runs.den.sum(axis=0)[:, :, None]
    for r in range(runs.n_runs):
        for a in (0, 1):
            for b in (0, 1):
                path = recombined(files[f"s{a}"][r], files[f"s{b}"][r], tmp_path / f"x{r}{a}{b}.jsonl")
                official = fever.score_files(gold, path).strict_score
                assert panel_cells[r, a, b] == pytest.approx(official, abs=1e-15), (r, a, b)


def test_feverous_cells_are_official_scores_and_the_gain_splits_both_ways(tmp_path):
    runs = read_format_runs("feverous", EXAMPLE / "dev.jsonl", EXAMPLE_RUNS["baseline"], EXAMPLE_RUNS["improved"])
    for r in range(2):
        for a, b in ((0, 0), (1, 1), (0, 1)):
            path = recombined(EXAMPLE_RUNS[("baseline", "improved")[a]][r],
                              EXAMPLE_RUNS[("baseline", "improved")[b]][r], tmp_path / f"x{r}{a}{b}.jsonl")
            official = feverous.score_files(EXAMPLE / "dev.jsonl", path).strict_score
            assert runs.num[:, r, a, b].sum() / len(runs.units) == pytest.approx(official, abs=1e-15)
    est = account_runs(runs, system="example", sources=("baseline", "improved"), settings=SETTINGS).estimates
    value = {q: Fraction(v).limit_denominator(10 ** 6) for q, v in
             est[(est["replicate"] == -1) & (est["part"] == "")].set_index("quantity")["value"].items()}
    assert value["gain"] == value["E0"] + value["A1"] == value["A0"] + value["E1"] == value["T11"] - value["T00"]
    assert value["interaction"] == value["E1"] - value["E0"]


def scifact_world(tmp_path: Path, runs: int = 2, seed: int = 3):
    rng = random.Random(seed)
    gold = []
    for i in range(30):
        evidence = {}
        for d in range(rng.randrange(3)):
            evidence[str(1000 + 10 * i + d)] = [{"sentences": [0, 1], "label": rng.choice(["SUPPORT", "CONTRADICT"])},
                                                {"sentences": [4], "label": None}]
            evidence[str(1000 + 10 * i + d)][1]["label"] = evidence[str(1000 + 10 * i + d)][0]["label"]
        gold.append({"id": i + 1, "claim": f"c{i}", "evidence": evidence, "cited_doc_ids": []})
    gold_path = write_jsonl(tmp_path / "claims_dev.jsonl", gold)
    files = {}
    for source, p in (("s0", 0.5), ("s1", 0.8)):
        files[source] = []
        for run in range(runs):
            lines = []
            for rec in gold:
                predicted = {}
                for doc, rationales in rec["evidence"].items():
                    if rng.random() < 0.8:
                        label = rationales[0]["label"] if rng.random() < p else "CONTRADICT"
                        sentences = [0, 1] if rng.random() < p else [1, 2, 3, 4]
                        predicted[doc] = {"sentences": sentences, "label": label}
                if rng.random() < 0.3:
                    predicted["77"] = {"sentences": [0], "label": "SUPPORT"}
                lines.append({"id": rec["id"], "evidence": predicted})
            files[source].append(write_jsonl(tmp_path / f"sf_{source}_{run}.jsonl", lines))
    return gold_path, files


def test_scifact_cells_are_the_official_abstract_rationalized_f1_of_the_recombined_file(tmp_path):
    gold, files = scifact_world(tmp_path)
    runs = read_format_runs("scifact", gold, files["s0"], files["s1"])
    assert runs.metric == "f1"
    for r in range(2):
        for a in (0, 1):
            for b in (0, 1):
                answers = [json.loads(x) for x in files[f"s{a}"][r].read_text().splitlines()]
                evidence = {x["id"]: x["evidence"] for x in map(json.loads, files[f"s{b}"][r].read_text().splitlines())}
                lines = [{"id": x["id"], "evidence": {doc: {"label": p["label"], "sentences": evidence[x["id"]].get(
                    doc, {"sentences": []})["sentences"]} for doc, p in x["evidence"].items()}} for x in answers]
                path = write_jsonl(tmp_path / f"sx{r}{a}{b}.jsonl", lines)
                official = scifact.score_files(gold, path)["abstract_rationalized"]["f1"]
                mine = 2 * runs.num[:, r, a, b].sum() / runs.den[:, r, a].sum()
                assert mine == pytest.approx(official, abs=1e-15), (r, a, b)
    accounted = account_runs(runs, system="sys", sources=("s0", "s1"), settings=SETTINGS)
    assert accounted.metrics is None and set(accounted.intervals["quantity"]) >= {"gain", "E0", "T11"}


def test_intervals_cover_the_components_and_cells_and_the_metrics_share_the_claim_draws(tmp_path):
    gold, files = fever_world(tmp_path)
    accounted = account_runs(read_format_runs("fever", gold, files["s0"], files["s1"]), system="sys", sources=("s0", "s1"),
                             settings=SETTINGS)
    iv = accounted.intervals
    assert list(iv["quantity"]) == ["gain", "E0", "A1", "A0", "E1", "interaction", "T00", "T01", "T10", "T11"]
    assert list(iv["in_family"]) == [True] * 6 + [False] * 4 and (iv["n_comparisons"] == 6).all()
    assert (iv["lower"] <= iv["estimate"]).all() and (iv["estimate"] <= iv["upper"]).all()
    metrics = accounted.metrics.set_index("quantity")
    assert {"accuracy_diff", "macro_f1_diff", "eligibility_diff", "eq4_covariance_0", "eq4_product_1"} <= set(
        metrics.index)
    est = accounted.estimates.query("replicate == -1 and part == ''").set_index("quantity")["value"]
    for q in ("accuracy_0", "eligibility_diff", "eq4_covariance_1", "eq4_product_0"):
        assert metrics.at[q, "estimate"] == pytest.approx(est[q], abs=1e-9), q
    # E_a = product + covariance in every draw, so at the point estimate too
    assert metrics.at["eq4_product_1", "estimate"] + metrics.at["eq4_covariance_1", "estimate"] == pytest.approx(
        est["E1"], abs=1e-9)


def test_families_make_the_clusters_and_resampled_runs_are_drawn(tmp_path):
    gold, files = fever_world(tmp_path)
    runs = read_format_runs("fever", gold, files["s0"], files["s1"])
    fam = tmp_path / "families.tsv"
    fam.write_text("claim_id\tfamily_id\n" + "".join(f"{c}\tF{int(c) // 4}\n" for c in runs.units))
    from evidence_ledger.prediction_files.tables import read_families

    families = read_families(fam, "fever", runs.units)
    plain = account_runs(runs, system="s", sources=("a", "b"), settings=SETTINGS)
    clustered = account_runs(runs, system="s", sources=("a", "b"), families=families,
                             settings=DrawSettings(300, 5, 0.05, 1, 64, resample_runs=True))
    assert (plain.intervals["n_clusters"] == 40).all() and (clustered.intervals["n_clusters"] == 10).all()
    assert (clustered.intervals["n_seed_indices"] == 3).all() and (plain.intervals["n_seed_indices"] == 0).all()
    assert (clustered.metrics["n_clusters"] == 10).all()
    np.testing.assert_array_equal(plain.intervals["estimate"], clustered.intervals["estimate"])
    assert not np.array_equal(plain.intervals["upper"], clustered.intervals["upper"])


def account_args(out: Path, *extra: str) -> list[str]:
    return ["account", "feverous", "--gold", str(EXAMPLE / "dev.jsonl"),
            "--source0", *map(str, EXAMPLE_RUNS["baseline"]), "--source1", *map(str, EXAMPLE_RUNS["improved"]),
            "--names", "baseline", "improved", "--system", "example", "--draws", "400", "--out", str(out), *extra]


@pytest.fixture(scope="module")
def example_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("account") / "out"
    assert main(account_args(out)) == 0
    return out


def test_the_command_writes_the_pipeline_tables_the_page_and_a_valid_ledger(example_out):
    names = {p.name for p in example_out.iterdir()}
    assert names == {"estimates.parquet", "estimates.tsv", "counts.parquet", "coverage.parquet", "intervals.parquet",
                     "intervals.tsv", "answer_metrics.tsv", "provenance.tsv", "summary.html", "decomposition.png",
                     "ledger.json", "items.parquet", "item_texts.parquet", "items.html"}
    est = read_frame(example_out / "estimates.parquet", ESTIMATES)
    assert set(est["system"]) == {"example"} and set(est["format"]) == {"official"}
    assert sorted(set(est["replicate"])) == [-1, 1, 2]
    assert (read_frame(example_out / "intervals.parquet", INTERVALS)["n_draws"] == 400).all()
    ledger = json.loads((example_out / "ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["kind"] == "account" and ledger["settings"]["draws"] == 400
    for number in ledger["numbers"]:
        source = ledger["sources"][number["source"]["table"]]
        table = read_source_table(example_out / source["table"])
        row = table.rows[table.lines.index(number["source"]["line"])]
        assert float(row["value" if "value" in row else "estimate"]) == number["estimate"]
    page = parse(example_out / "summary.html")
    count, paths = check_values_against_sources(page, example_out)
    assert count > 50 and {"estimates.tsv", "intervals.tsv", "answer_metrics.tsv"} <= paths


def test_the_command_prints_the_table(example_out, capsys):
    assert main(account_args(example_out)) == 0  # an earlier account run's directory is rewritten
    out = capsys.readouterr().out
    assert "example on FEVEROUS: baseline → improved; 100 claims, 2 run(s) per source" in out
    assert any(line.startswith("gain ") and "[" in line for line in out.splitlines())
    assert any(line.startswith("eligibility_diff ") for line in out.splitlines())


def bad_feverous(tmp_path: Path, edit) -> Path:
    lines = [json.loads(x) for x in EXAMPLE_RUNS["improved"][1].read_text().splitlines()]
    return write_jsonl(tmp_path / "bad.jsonl", edit(lines))


@pytest.mark.parametrize("edit, expected", [
    (lambda ls: ls[:-1], "dev.jsonl:101: field 'id': claim id '73196' has no prediction in"),
    (lambda ls: ls + [ls[3]], "bad.jsonl:101: field 'id': claim id '61154' predicted twice (first at line 4)"),
    (lambda ls: ls[:5] + [dict(ls[5], id=999999)] + ls[6:], "bad.jsonl:6: field 'id': claim id '999999' is not in "
                                                             "the gold file"),
    (lambda ls: ls[:2] + [dict(ls[2], predicted_label="MAYBE")] + ls[3:], "bad.jsonl:3: field 'predicted_label': "
                                                                           "unknown label 'MAYBE'"),
    (lambda ls: [dict(x, predicted_evidence=[["Page", 0]]) for x in ls], "bad.jsonl:1: field 'predicted_evidence': "
                                                                         "item 0 is ['Page', 0]"),
    (lambda ls: [{"id": x["id"], "evidence": {}} for x in ls], "bad.jsonl:1: field 'predicted_evidence': missing"),
])
def test_bad_input_is_one_line_naming_the_file_and_line_and_nothing_is_written(tmp_path, capsys, edit, expected):
    bad = bad_feverous(tmp_path, edit)
    out = tmp_path / "out"
    argv = ["account", "feverous", "--gold", str(EXAMPLE / "dev.jsonl"), "--source0", *map(str, EXAMPLE_RUNS["baseline"]),
            "--source1", str(EXAMPLE_RUNS["improved"][0]), str(bad), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert expected in err, err
    assert not out.exists()


def test_unequal_run_counts_are_refused(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["account", "feverous", "--gold", str(EXAMPLE / "dev.jsonl"), "--source0", *map(str, EXAMPLE_RUNS["baseline"]),
            "--source1", str(EXAMPLE_RUNS["improved"][0]), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--source0 has 2 runs" in err and "--source1 has 1" in err and "matched by position" in err
    assert not out.exists()


def test_a_file_of_another_benchmark_is_refused(tmp_path, capsys):
    gold, files = scifact_world(tmp_path)
    argv = ["account", "fever", "--gold", str(EXAMPLE / "dev.jsonl"), "--source0", str(files["s0"][0]),
            "--source1", str(files["s1"][0]), "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "sf_s0_0.jsonl:1: field 'predicted_evidence': missing" in err


def test_a_directory_holding_other_files_is_not_written_into(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep")
    assert main(account_args(out)) == 2
    assert "holds files no account run wrote" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_a_families_file_naming_an_unknown_claim_names_its_line(tmp_path, capsys):
    fam = tmp_path / "families.tsv"
    fam.write_text("claim_id\tfamily_id\n65780\tA\n1234567\tB\n")
    assert main(account_args(tmp_path / "out", "--families", str(fam))) == 2
    assert "families.tsv:3: field 'claim_id': claim '1234567' is not a gold claim" in capsys.readouterr().err


def test_scoring_options_apply_as_in_the_score_command(tmp_path):
    gold, files = fever_world(tmp_path, runs=1)
    narrow = read_format_runs("fever", gold, files["s0"], files["s1"], "--max-evidence", "1")
    wide = read_format_runs("fever", gold, files["s0"], files["s1"])
    assert narrow.eligible.sum() < wide.eligible.sum()
    assert narrow.num[:, 0, 0, 0].sum() / len(narrow.units) == pytest.approx(
        fever.score_files(gold, files["s0"][0], 1).strict_score, abs=1e-15)


def test_the_readme_example_prints_what_the_readme_shows(tmp_path, capsys):
    section = readme_section("## Account your own system")
    assert main(example_argv(section, str(tmp_path / "example"))) == 0
    check_printed_as_shown(section, capsys.readouterr().out.splitlines(), "results/account-example")


def test_the_pipeline_summary_page_shows_an_accounted_system_with_the_command_s_section(example_out, tmp_path):
    from evidence_ledger.report.stage import summary_page
    from support.summary_tables import write_summary_inputs

    paths = write_summary_inputs(tmp_path)
    page = tmp_path / "summary.html"
    summary_page(provenance=paths["provenance"], accounted_estimates=[example_out / "estimates.tsv"],
                 accounted_intervals=[example_out / "intervals.tsv"],
                 accounted_metrics=[example_out / "answer_metrics.tsv"],
                 accounted_titles=["example on feverous: baseline → improved"],
                 accounted_layouts=[get_format("feverous").page_layout(format_settings("feverous"))], html_out=page,
                 decomposition_out=tmp_path / "d.png", **summary_settings())
    parsed = parse(page)
    assert "example on feverous: baseline → improved" in parsed.headings
    count, sources = check_values_against_sources(parsed)
    assert {str(example_out / "intervals.tsv"), str(example_out / "answer_metrics.tsv")} <= sources
    command_page = parse(example_out / "summary.html")
    for table in ("estimates.tsv", "intervals.tsv", "answer_metrics.tsv"):
        cells = [{(v["data-line"], v["data-col"], v["shown"]) for v in p.values if v["data-src"].endswith(table)}
                 for p in (parsed, command_page)]
        assert cells[0] == cells[1], table  # the same cells shown the same way (the command's headline repeats some)


def test_files_without_ids_are_paired_by_line_and_counted(tmp_path):
    gold, files = fever_world(tmp_path, runs=1)
    bare = {}
    for source, paths in files.items():
        lines = [{k: v for k, v in json.loads(x).items() if k != "id"} for x in paths[0].read_text().splitlines()]
        bare[source] = [write_jsonl(tmp_path / f"bare_{source}.jsonl", lines)]
    with pytest.warns(UserWarning, match="matched to gold claims by position") as warned:
        by_line = account_runs(read_format_runs("fever", gold, bare["s0"], bare["s1"]), system="s", sources=("a", "b"),
                               settings=SETTINGS)
    assert len(warned) == 2  # one per file, as `score` says it; no id to disagree
    by_id = account_runs(read_format_runs("fever", gold, files["s0"][:1], files["s1"][:1]), system="s", sources=("a", "b"),
                         settings=SETTINGS)
    np.testing.assert_array_equal(by_line.estimates["value"], by_id.estimates["value"])
    coverage = by_line.coverage.set_index("item")["count"]
    assert coverage["files_matched_by_position"] == 2 and coverage["runs_per_source"] == 1


def test_scifact_through_the_command(tmp_path, capsys):
    gold, files = scifact_world(tmp_path)
    out = tmp_path / "out"
    argv = ["account", "scifact", "--gold", str(gold), "--source0", *map(str, files["s0"]), "--source1",
            *map(str, files["s1"]), "--draws", "200", "--sentence-cap", "leaderboard", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "system on SciFact: source0 → source1; 30 claims, 2 run(s) per source" in printed
    assert "accuracy_diff" not in printed  # no per-claim answers: the cells and components only
    assert (out / "answer_metrics.tsv").read_text().count("\n") == 1
    ledger = json.loads((out / "ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["settings"]["scoring.sentence_cap"] == "leaderboard"


def test_files_scored_in_two_processes_give_the_same_runs(tmp_path):
    gold, files = fever_world(tmp_path, runs=2)
    one = read_format_runs("fever", gold, files["s0"], files["s1"], jobs=1)
    two = read_format_runs("fever", gold, files["s0"], files["s1"], jobs=2)
    assert one.units == two.units
    for name in ("num", "den", "answer", "eligible", "predicted", "gold_class"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))


def test_positional_matching_with_disagreeing_ids_warns_as_score_does_and_is_counted(tmp_path, capsys):
    """``--match positional`` with every prediction id shifted: each file's warnings are the
    ``score`` command's, and the files paired by position and the id disagreements are rows of
    the printed table and the ``matching`` entry of ``ledger.json``."""
    gold, files = fever_world(tmp_path, n_claims=30, runs=1)
    shifted = {}
    for source, paths in files.items():
        lines = [dict(json.loads(x), id=900 + i) for i, x in enumerate(paths[0].read_text().splitlines())]
        shifted[source] = write_jsonl(tmp_path / f"shifted_{source}.jsonl", lines)
    assert main(["score", "fever", "--gold", str(gold), "--predictions", str(shifted["s0"]),
                 "--match", "positional"]) == 0
    score_warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    out = tmp_path / "out"
    assert main(["account", "fever", "--gold", str(gold), "--source0", str(shifted["s0"]), "--source1",
                 str(shifted["s1"]), "--match", "positional", "--draws", "50", "--jobs", "1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert score_warnings == [
        f"warning: predictions in {shifted['s0']} matched to gold claims by position (line order), not by id",
        f"warning: matching by position: on 30 of 30 lines the prediction id differs from the gold id at the same "
        f"line of {gold} (counted as 'id_disagreements')"]
    account_warnings = [line for line in captured.err.splitlines() if line.startswith("warning: ")]
    assert account_warnings == score_warnings + [w.replace(str(shifted["s0"]), str(shifted["s1"]))
                                                 for w in score_warnings]
    table = captured.out.splitlines()
    assert "files_matched_by_position        2                      prediction files paired with the gold lines " \
           "by position" in table
    assert ("id_disagreements        60                      lines paired by position whose prediction id is not "
            "the gold id") in table
    ledger = json.loads((out / "ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["matching"] == {"files_matched_by_position": 2, "id_disagreements": 60, "own_gold_ignored": 0}


def test_files_paired_by_id_leave_the_ledger_without_matching_counts(example_out):
    assert "matching" not in json.loads((example_out / "ledger.json").read_text())
