"""The whole demo through Snakemake in a temporary directory.

Reads the session's demo run (``demo_run``, tests/support/session_runs.py: the default config end to
end, once), then checks: every `rule all` target exists and is non-empty, the HTML report
renders, a second run has nothing to do, changing one config value re-runs only the rules that
depend on it, `snakemake --lint` is clean, and the accounting of the demo's own predictions and
of its external systems equals the `account` command's on the same files.
EVIDENCE_LEDGER_DEMO_RUN=<dir> checks an existing run's work directory instead of running the demo.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from support.summary_page import check_values_against_sources
from support.summary_page import parse as parse_summary_page

from evidence_ledger.config.layers import layered_config
from evidence_ledger.report.ledger import validate_ledger
from evidence_ledger.tables import read_frame, read_table
from evidence_ledger.tables.accounting import DECISION_LABEL, ESTIMATES, INTERVALS
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.verifier import VERIFIER_ANSWERS
from support.hang_guard import HANG_GUARD_S
from support.rehearsal import job_stats
from support.snakemake_runs import run_snakemake

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
DEMO_CONFIG = REPO / "config" / "demo.yaml"


def planned_rules(dry_run_stdout: str) -> set[str]:
    """Rule names of the jobs a dry run would execute (from its job-stats table)."""
    return set(job_stats(dry_run_stdout)) - {"total"}


@pytest.fixture(scope="module")
def summary_rows(demo_run) -> list[dict]:
    """`snakemake --summary`: one row per output file of the DAG with its status."""
    proc = run_snakemake(demo_run, "--configfile", DEMO_CONFIG, "--cores", "1", "--summary", check=True)
    lines = [line.split("\t") for line in proc.stdout.splitlines() if line.strip()]
    header = lines[0]
    return [dict(zip(header, line)) for line in lines[1:]]


@pytest.fixture(scope="module")
def demo_report(demo_run) -> Path:
    """The demo's `snakemake --report` (report.html in the run's work directory)."""
    run_snakemake(demo_run, "--configfile", DEMO_CONFIG, "--cores", "1", "--report", demo_run / "report.html",
                  check=True)
    return demo_run / "report.html"


def test_demo_produces_every_output_of_the_dag(demo_run, summary_rows):
    assert len(summary_rows) > 100
    for row in summary_rows:
        path = demo_run / row["output_file"]
        assert path.exists(), row
        assert row["status"] == "ok", row
        if path.is_file():
            assert path.stat().st_size > 0, path
        else:
            assert any(path.iterdir()), path


def test_every_table_file_is_written_by_a_rule_its_schema_names(demo_run, summary_rows):
    """What a damaged table's error names as the rule to re-run is the rule that wrote it."""
    import fnmatch

    import pyarrow.parquet as pq

    from evidence_ledger.tables import METADATA_NAME
    from evidence_ledger.tables.catalog import all_schemas

    written_by = {schema.name: schema.written_by for schema in all_schemas()}
    checked = 0
    for row in summary_rows:
        path = demo_run / row["output_file"]
        for table in [path] if path.suffix == ".parquet" else sorted(path.rglob("*.parquet")) if path.is_dir() else []:
            name = pq.read_schema(table).metadata[METADATA_NAME].decode()
            patterns = [rule.replace("<dataset>", "*") for rule in written_by[name]]
            assert any(fnmatch.fnmatchcase(row["rule"], p) for p in patterns), (table, name, row["rule"])
            checked += 1
    assert checked > 50


def numbers(tsv: Path, column: str) -> list[float]:
    with open(tsv, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        index = header.index(column)
        values = [line.rstrip("\n").split("\t")[index] for line in handle]
    return [float(v) for v in values if v not in ("", "nan", "NaN")]


@pytest.mark.parametrize("tsv, column", [
    ("results/accounting/study1/estimates.tsv", "value"),
    ("results/accounting/study2/contrasts.tsv", "value"),
    ("results/accounting/study2/cells.tsv", "value"),
    ("results/accounting/study2/intervals_primary.tsv", "upper"),
])
def test_demo_accounting_numbers_are_not_degenerate(demo_run, tsv, column):
    values = numbers(demo_run / tsv, column)
    assert len(values) >= 4
    assert len(set(values)) > 1  # not one constant (e.g. all zero)


def test_demo_verifier_beats_chance_on_demo_dev_claims(demo_run):
    """Study 1 on the demo: every checkpoint of the tiny verifier (random init, trained on the
    source-0 evidence of the demo training claims) answers the 80 SUPPORTS / REFUTES demo dev
    claims from source 0 above chance. Chance is 0.5 (two trained labels, balanced classes,
    sd 0.056 over 80 claims); measured 0.66-0.69 per checkpoint (160 updates; 200 gave 0.66-0.73,
    300 gave 0.70-0.71)."""
    gold = {r["claim_id"]: r["label"] for r in read_table(
        demo_run / "results/ingest/feverous/claims_dev.parquet", CLAIMS, columns=["claim_id", "label"]).to_pylist()}
    config = layered_config(REPO)
    source0 = config["verifier"]["sources"][0]
    answers = [r for r in read_table(demo_run / "results/verifier/answers.parquet", VERIFIER_ANSWERS).to_pylist()
               if r["source"] == source0 and gold[r["claim_id"]] in ("SUPPORTS", "REFUTES")]
    checkpoints = sorted({r["checkpoint"] for r in answers})
    assert checkpoints == list(range(1, len(config["verifier"]["checkpoint_seeds"]) + 1))
    for k in checkpoints:
        rows = [r for r in answers if r["checkpoint"] == k]
        assert len(rows) == 80
        accuracy = sum(r["predicted_label"] == gold[r["claim_id"]] for r in rows) / len(rows)
        assert accuracy >= 0.625, (k, accuracy)  # >= 50 of 80: 2.2 sd above chance


def test_demo_decision_label_is_one_of_the_three(demo_run):
    text = (demo_run / "results/accounting/study2/decision_label.tsv").read_text()
    assert any(label in text for label in ("replicated dependence", "bounded stability", "restricted/mixed evidence"))


def test_second_run_has_nothing_to_do(demo_run):
    proc = run_snakemake(demo_run, "--configfile", DEMO_CONFIG, "--cores", "1", "-n", check=True)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_report_html_renders(demo_report):
    html = demo_report.read_text(encoding="utf-8", errors="replace")
    assert "<html" in html.lower()
    assert "provenance.tsv" in html
    assert "1 Summary (start here)" in html and "summary.html" in html


def test_demo_summary_page_numbers_are_their_source_cells(demo_run):
    """Every number on the demo's summary page is the cell of the report TSV it cites."""
    page = parse_summary_page(demo_run / "results/report/summary.html")
    numeric, sources = check_values_against_sources(page, root=demo_run)
    assert numeric > 100
    assert {"results/accounting/study1/intervals.tsv", "results/accounting/study2/decision_criteria.tsv",
            "results/wikicontradict/rates.tsv", "results/diffgr/diffgr.tsv"} <= sources


def test_changed_bootstrap_setting_reruns_only_the_dependent_rules(demo_run, tmp_path):
    draws = layered_config(REPO)["accounting"]["bootstrap"]["primary"]["draws"] + 1
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump({"accounting": {"bootstrap": {"primary": {"draws": draws}}}}))
    # the demo's own layer first (its data_root is the workflow's resources/demo), then the change:
    # the same config, in the same key order (part of params), as the run's but for the draws
    proc = run_snakemake(demo_run, "--configfile", DEMO_CONFIG, changed, "--cores", "1", "-n", check=True)
    rules = planned_rules(proc.stdout)
    assert "study2_bootstrap" in rules
    # the post-hoc Study 2 analyses draw their intervals with the primary protocol's settings, so they follow it
    assert rules <= {"study2_bootstrap", "decision_labels", "study2_forest_plot", "summary_page", "provenance",
                     "ledger", "study2_controls", "study2_endpoints", "study2_answer_accuracy",
                     "study2_parser_sensitivity", "all"}, rules


def test_lint_is_clean():
    proc = run_snakemake(None, "--lint", cwd=REPO)
    assert "Congratulations" in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-4000:]


# --- the two routes of the accounting: the pipeline and `account` on official files -------------------


def export_study1_predictions(workdir: Path, config: dict, out: Path) -> dict[str, list[Path]]:
    """The demo's Study 1 predictions as official FEVEROUS prediction files, one per source and
    checkpoint: each dev claim's verifier label, and the evidence source's submitted list as
    written (repeats and unresolved ids included; the scorer truncates it)."""
    dev_ids = {r["claim_id"] for r in read_table(workdir / "results/ingest/feverous/claims_dev.parquet", CLAIMS,
                                                  columns=["claim_id"]).to_pylist()}
    answers = read_table(workdir / "results/verifier/answers.parquet", VERIFIER_ANSWERS).to_pylist()
    files = {}
    for source in config["verifier"]["sources"]:
        evidence = {r["claim_id"]: list(r["submitted_unit_ids"]) for r in read_table(
            workdir / f"results/evidence/feverous/external_{source}.parquet", EVIDENCE).to_pylist()}
        files[source] = []
        for k in range(1, len(config["verifier"]["checkpoint_seeds"]) + 1):
            lines = [{"id": int(a["claim_id"]), "predicted_label": a["predicted_label"],
                      "predicted_evidence": evidence[a["claim_id"]]}
                     for a in answers if a["source"] == source and a["checkpoint"] == k and a["claim_id"] in dev_ids]
            assert len(lines) == len(dev_ids)
            path = out / f"{source}_ckpt{k}.jsonl"
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            files[source].append(path)
    return files


def account_argv(gold, files: dict, names, system: str, bootstrap: dict, out: Path) -> list[str]:
    (s0, runs0), (s1, runs1) = files.items()
    return ["account", "feverous", "--gold", str(gold), "--source0", *map(str, runs0), "--source1", *map(str, runs1),
            "--names", *names, "--system", system, "--draws", str(bootstrap["draws"]), "--seed", str(bootstrap["seed"]),
            "--level", repr(1 - bootstrap["alpha"]), "--family-size", str(bootstrap["family_size"]), "--out", str(out)]


def assert_same_accounting(pipeline: Path, command: Path, population: str = "all") -> int:
    """The pipeline's Study 1 tables (``estimates``, ``intervals``, ``answer_metrics``) of one
    population and the command's: every estimate to 1e-12, every interval bound identical."""
    est_p = read_frame(pipeline / "estimates.parquet", ESTIMATES)
    est_p = est_p[est_p["population"] == population].set_index(["quantity", "part", "replicate"])["value"]
    est_c = read_frame(command / "estimates.parquet", ESTIMATES).set_index(["quantity", "part", "replicate"])["value"]
    assert set(est_p.index) <= set(est_c.index), set(est_p.index) - set(est_c.index)
    assert (est_p - est_c.reindex(est_p.index)).abs().max() <= 1e-12
    iv_p = read_frame(pipeline / "intervals.parquet", INTERVALS)
    iv_p = iv_p[iv_p["population"] == population].set_index("quantity")
    iv_c = read_frame(command / "intervals.parquet", INTERVALS).set_index("quantity").reindex(iv_p.index)
    assert (iv_p["estimate"] - iv_c["estimate"]).abs().max() <= 1e-12
    for column in ("lower", "upper", "boot_mean", "boot_sd", "tail", "n_draws", "seed", "n_clusters"):
        assert iv_p[column].tolist() == iv_c[column].tolist(), column
    # the metric rows' text, but for names (system) and the paper's values the pipeline joins
    metrics = [pd.read_csv(path / "answer_metrics.tsv", sep="\t", dtype=str, keep_default_na=False)
               .drop(columns=["system", "reference", "reference_lower", "reference_upper"]) for path in (pipeline, command)]
    pd.testing.assert_frame_equal(metrics[0], metrics[1])
    return len(est_p) + len(iv_p) + len(metrics[0])


def test_demo_study1_is_reproduced_by_account_from_official_prediction_files(demo_run, tmp_path):
    """The pipeline's own Study 1 predictions (verifier labels per checkpoint, the providers'
    evidence as submitted), exported as official FEVEROUS prediction files and fed to `account`,
    give the pipeline's Study 1 estimates to 1e-12 and identical intervals (population all; the
    official files know no unresolved ids, and the demo's exported submissions have none)."""
    config = layered_config(REPO)
    files = export_study1_predictions(demo_run, config, tmp_path)
    gold = REPO / config["data_root"] / config["data"]["feverous"]["claims"]["dev"]
    out = tmp_path / "account"
    argv = account_argv(gold, files, config["verifier"]["sources"], config["verifier"]["name"],
                        config["accounting"]["study1"]["bootstrap"], out)
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", *argv], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    compared = assert_same_accounting(demo_run / "results/accounting/study1", out)
    assert compared > 100
    unresolved = (demo_run / "results/study1/unresolved.tsv").read_text()
    assert "claims_with_unresolved_in_window\t0" in unresolved


def test_demo_accounts_the_external_system_as_the_command_does(demo_run, tmp_path):
    """The demo's `external` system (rule account_system) equals `account` on the same files with
    the same settings, has a section on the summary page and its numbers in ledger.json."""
    config = layered_config(REPO)
    spec = config["external"]["feverous"]["example"]
    files = {source: [REPO / config["data_root"] / f for f in runs] for source, runs in spec["sources"].items()}
    out = tmp_path / "account"
    argv = account_argv(REPO / config["data_root"] / config["data"]["feverous"]["claims"]["dev"], files,
                        list(spec["sources"]), "example", config["accounting"]["study1"]["bootstrap"], out)
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", *argv], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert_same_accounting(demo_run / "results/account/example", out)
    page = parse_summary_page(demo_run / "results/report/summary.html")
    assert "example on FEVEROUS: baseline → improved" in page.headings
    ledger = json.loads((demo_run / "results/report/ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["sources"]["account_example_intervals"]["rule"] == "account_system"
    systems = {n["keys"].get("system") for n in ledger["numbers"] if n["study"] == "study1"}
    assert {"example", config["verifier"]["name"]} <= systems


@pytest.mark.parametrize("system", ["rag_nq", "rag_eli5"])
def test_demo_accounts_the_kilt_systems_as_the_command_does(demo_run, tmp_path, system):
    """The demo's KILT systems (rule account_system) equal `account kilt` on the same files with
    the same settings, table for table; each has its section on the summary page, naming its
    metric, and its numbers in ledger.json."""
    config = layered_config(REPO)
    spec = config["external"]["kilt"][system]
    (s0, runs0), (s1, runs1) = ((source, [REPO / config["data_root"] / f for f in runs])
                                for source, runs in spec["sources"].items())
    boot = config["accounting"]["study1"]["bootstrap"]
    out = tmp_path / "account"
    argv = ["account", "kilt", "--gold", str(REPO / config["data_root"] / spec["gold_file"]), "--task", spec["task"],
            "--source0", *map(str, runs0), "--source1", *map(str, runs1), "--names", s0, s1, "--system", system,
            "--draws", str(boot["draws"]), "--seed", str(boot["seed"]), "--level", repr(1 - boot["alpha"]),
            "--family-size", str(boot["family_size"]), "--out", str(out)]
    proc = subprocess.run([sys.executable, "-m", "evidence_ledger", *argv], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    pipeline = demo_run / "results/account" / system
    for name in ("estimates.tsv", "intervals.tsv", "answer_metrics.tsv"):
        assert (pipeline / name).read_bytes() == (out / name).read_bytes(), name
    metric = {"rag_nq": "em", "rag_eli5": "rougel"}[system]
    page = parse_summary_page(demo_run / "results/report/summary.html")
    assert f"{system} on KILT ({spec['task']}, KILT-{metric}): {s0} → {s1}" in page.headings
    ledger = json.loads((demo_run / "results/report/ledger.json").read_text())
    quantities = {n["quantity"] for n in ledger["numbers"] if n["keys"].get("system") == system}
    assert {f"{metric}_diff", "rprec_diff", "eligibility_diff", "E0", "A1"} <= quantities


def test_demo_ledger_holds_every_headline_table_with_its_provenance(demo_run):
    ledger = json.loads((demo_run / "results/report/ledger.json").read_text())
    validate_ledger(ledger)
    assert ledger["kind"] == "pipeline" and ledger["run"]["kind"] == "demo"
    assert {n["study"] for n in ledger["numbers"]} == {"study1", "study2", "wikicontradict", "diffgr"}
    assert [label["label"] for label in ledger["labels"]] == [
        read_table(demo_run / "results/accounting/study2/decision_label.parquet", DECISION_LABEL)["label"][0].as_py()]
    for key, source in ledger["sources"].items():
        assert source["sha256"] == hashlib.sha256((demo_run / source["table"]).read_bytes()).hexdigest(), key
        assert source["inputs"], key
    assert ledger["settings"]["accounting"]["study1"]["bootstrap"]["draws"] == 2000
    assert any(m["slot"] == "models.qwen3" and "local build" in m["ran"] for m in ledger["models"])


def item_means_match_estimates(items: pd.DataFrame, estimates: pd.DataFrame, keys: tuple[str, ...]) -> int:
    """Every comparison's item means equal its replicate-averaged cells and components to 1e-12
    (an item's ``gain`` is T11 - T00, which Study 2's estimates name ``source_gain``); returns
    how many numbers were compared."""
    from evidence_ledger.tables.items import ITEM_CELLS, ITEM_COMPONENTS

    est = estimates[(estimates["replicate"] == -1) & (estimates["part"] == "") & (estimates["factor"] == "")
                    & (estimates["population"] == "all")]
    compared = 0
    for key, group in items.groupby(list(keys)):
        rows = est.set_index(list(keys)).loc[key]
        value = rows.set_index("quantity")["value"]
        if "gain" not in value.index:
            value = value.rename({"source_gain": "gain"})
        for name in ITEM_CELLS + ITEM_COMPONENTS:
            assert abs(group[name].mean() - value[name]) < 1e-12, (key, name)
            compared += 1
    return compared


def test_demo_items_behind_every_decomposition_average_to_its_estimates(demo_run):
    """Study 1, every Study 2 cell set and every external system: ITEMS means are the estimates,
    and ITEM_TEXTS holds the claim of every item and answers of every run."""
    from evidence_ledger.tables.items import ITEM_TEXTS, ITEMS

    results = demo_run / "results"
    study1 = read_frame(results / "accounting/study1/items.parquet", ITEMS)
    assert item_means_match_estimates(study1, read_frame(results / "accounting/study1/estimates.parquet", ESTIMATES),
                                      ("dataset", "system", "format", "budget")) == 10
    study2 = read_frame(results / "accounting/study2/items.parquet", ITEMS)
    estimates2 = read_frame(results / "accounting/study2/estimates.parquet", ESTIMATES)
    config = layered_config(REPO)
    estimates2 = estimates2[estimates2["parser"] == config["accounting"]["study2"]["parser"]]
    n = item_means_match_estimates(study2, estimates2, ("dataset", "system", "format", "budget"))
    generation = config["generation"]
    assert study2["comparison"].nunique() == len(generation["datasets"]) * len(generation["models"]) * len(
        generation["formats"]) * len(generation["budgets"]) and n == 10 * study2["comparison"].nunique()
    for system in ("example", "rag_nq", "rag_eli5"):
        items = read_frame(results / f"account/{system}/items.parquet", ITEMS)
        item_means_match_estimates(items, read_frame(results / f"account/{system}/estimates.parquet", ESTIMATES),
                                   ("dataset", "system", "format", "budget"))
    texts = read_frame(results / "accounting/study2/item_texts.parquet", ITEM_TEXTS)
    claims = texts[texts["kind"] == "claim"]
    assert set(zip(study2["dataset"], study2["item_id"])) == set(zip(claims["dataset"], claims["item_id"]))
    answers = texts[texts["kind"] == "answer"]
    assert set(answers["replicate"]) == set(config["accounting"]["study2"]["seed_replicates"])
    assert (texts[texts["kind"] == "evidence"]["text"].str.len() > 0).mean() > 0.5
    s1_texts = read_frame(results / "accounting/study1/item_texts.parquet", ITEM_TEXTS)
    assert set(s1_texts["kind"]) == {"claim", "evidence", "answer"}
