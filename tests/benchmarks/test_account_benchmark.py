"""benchmarks/account.py: its synthetic files are official FEVEROUS files the command reads (families
cover every claim), and its report table says which target was met."""
import importlib.util
from pathlib import Path

from evidence_ledger.prediction_files.tables import read_families
from support.format_settings import read_format_runs

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("account_benchmark", REPO / "benchmarks" / "account.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_synthetic_world_is_read_as_official_files(tmp_path):
    gold, files, families = bench.write_world(tmp_path, n_claims=60, runs=3, seed=1)
    runs = read_format_runs("feverous", gold, files["base"], files["new"])
    assert runs.n_runs == 3 and len(runs.units) == 60
    eligible = runs.eligible.mean(axis=(0, 1))
    assert 0.2 < eligible[0] < eligible[1] < 0.9  # the new source cites complete gold sets more often
    fam = read_families(families, "feverous", runs.units)
    assert 20 <= fam["family_id"].nunique() < 60


def test_markdown_names_each_case_and_whether_its_target_was_met():
    case = {"claims": 7890, "runs": 4, "draws": 10000, "met": True,
            "end_to_end": {"wall_s": 6.1, "cpu_s": 6.0, "peak_pss_mib": 300.0, "peak_rss_sum_mib": 450.0},
            "phases": {"read_and_score_s": 2.0, "estimates_and_bootstraps_s": 3.0, "write_s": 1.0, "clusters": 7890}}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "omp_num_threads": "1"},
              "load_average_before": 0.1, "load_average_after": 1.9,
              "cases": {"study1_size": case, "study2_protocol": dict(case, met=False, claims=1000, runs=6)}}
    table = bench.markdown(result)
    assert ("| study1_size | 7,890 | 4 | 7,890 | 10,000 | 6.1 (6.1) | 6.0 | 300.0 (450.0) | wall_s <= 10, "
            "peak_pss_mib <= 1024 (met) |" in table)
    assert "wall_s <= 30 (missed)" in table


def test_synthetic_kilt_world_is_read_as_kilt_files_with_a_continuous_f1(tmp_path):
    import warnings

    import numpy as np

    gold, files = bench.write_kilt_world(tmp_path, n_items=80, runs=2, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = read_format_runs("kilt", gold, files["base"], files["new"], "--metric", "f1")
    assert runs.n_runs == 2 and len(runs.units) == 80
    eligible = runs.eligible.mean(axis=(0, 1))
    assert 0.2 < eligible[0] < eligible[1] < 0.9  # the new source ranks the gold pages first more often
    assert ((runs.answer > 0) & (runs.answer < 1)).mean() > 0.2 and np.unique(runs.answer).size > 5


def test_ranked_kilt_world_gives_each_source_four_runs_of_1000_pages_the_new_one_finding_more(tmp_path):
    import warnings

    case = {"claims": 120, "runs": 4, "pages": 1000, "benchmark": "kilt"}
    gold, files, families = bench.case_world(tmp_path, case)
    assert families is None and [len(files[s]) for s in ("base", "new")] == [4, 4]
    assert files["base"][0].read_text().splitlines()[0].count('"wikipedia_id"') == 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = read_format_runs("kilt", gold, files["base"], files["new"], "--metric", "accuracy")
    eligible = runs.eligible.mean(axis=(0, 1))
    assert runs.n_runs == 4 and 0.0 < eligible[0] < eligible[1] < 0.5


def test_markdown_sets_a_retrieval_scale_case_beside_its_bare_parse():
    e2e = {"wall_s": 30.0, "cpu_s": 50.0, "peak_pss_mib": 400.0, "peak_rss_sum_mib": 600.0, "largest_process_mib": 200.0,
           "process_peaks_sum_mib": 610.0, "processes": 3}
    case = {"claims": 10444, "runs": 4, "draws": 10000, "met": True, "end_to_end": e2e, "files_mb": 2413.0,
            "bare_parse": dict(e2e, wall_s=15.0, cpu_s=14.0),
            "phases": {"read_and_score_s": 2.0, "estimates_and_bootstraps_s": 3.0, "write_s": 1.0, "clusters": 10444}}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "omp_num_threads": "1"},
              "load_average_before": 0.1, "load_average_after": 1.9, "cases": {"kilt_retrieval_scale": case}}
    table = bench.markdown(result)
    assert "wall_s <= 60, peak_pss_mib <= 2048 (met)" in table
    assert "| kilt_retrieval_scale | 2,413.0 | 15.0 | 14.0 | 2.00 | 610.0 (3) | 200.0 |" in table
