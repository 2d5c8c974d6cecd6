"""benchmarks/kilt_score.py: its synthetic files are KILT files ``score kilt`` reads (long answers in
sentences, five gold answers), and its report table says which target was met."""
import importlib.util
import warnings
from pathlib import Path

from evidence_ledger.scoring.kilt import score_kilt_items
from evidence_ledger.scoring.rouge_l import rouge_sentences

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("kilt_score_benchmark", REPO / "benchmarks" / "kilt_score.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_long_answer_world_is_read_as_kilt_files_with_five_references(tmp_path):
    gold, predictions = bench.write_world(tmp_path, items=40, long_answers=True, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing odd in the synthetic files
        items = score_kilt_items(gold, predictions)
    assert len(items.ids) == 40 and bench.rouge_comparisons(gold) == 200
    assert 0.05 < items.rougel.mean() < 0.9 and items.em.sum() == 0
    answer = bench.long_answer(__import__("numpy").random.default_rng(1), 130)
    assert 120 <= len(answer.split()) - answer.count(" .") <= 140 and len(rouge_sentences(answer)) >= 5


def test_short_answer_world_has_labels_right_about_seven_times_in_ten_and_some_complete_provenance(tmp_path):
    gold, predictions = bench.write_world(tmp_path, items=400, long_answers=False, seed=3)
    items = score_kilt_items(gold, predictions)
    assert 0.6 < items.accuracy.mean() < 0.8 and 0.2 < (items.rprec == 1).mean() < 0.5


def test_markdown_names_each_case_and_whether_its_target_was_met():
    case = {"items": 10444, "rouge_comparisons": 10444, "score_kilt_items_s": 1.1, "met": True,
            "end_to_end": {"wall_s": 2.5, "cpu_s": 2.3, "wall_s_all": [2.5, 2.9]}}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "omp_num_threads": "1"},
              "load_average_before": 0.1, "load_average_after": 1.9,
              "cases": {"fever_dev_size": case, "eli5_dev_shape": dict(case, met=False, items=1507)}}
    table = bench.markdown(result)
    assert "| fever_dev_size | 10,444 | 10,444 | 2.5 (2.5, 2.9) | 2.3 | 1.1 | wall_s <= 5 (met) |" in table
    assert "wall_s <= 10 (missed)" in table


def test_ranked_world_ranks_1000_pages_per_item_and_finds_some_gold_sets_deep_in_the_ranking(tmp_path):
    from evidence_ledger.scoring.kilt import score_kilt_files

    gold, files = bench.write_ranked_world(tmp_path, 200, 1000, bench.RANKED_RUN, seed=3)
    predictions = files["run"][0]
    assert all(line.count('"wikipedia_id"') == 1000 for line in predictions.read_text().splitlines())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing odd in the synthetic files
        values = score_kilt_files(gold, predictions, ks=[1, 100, 1000], rank_keys=["wikipedia_id"])["eval_retrieval"]
    assert 0.05 < values["precision@1"] < values["recall@100"] < values["recall@1000"] < 0.8
    argv = bench.command(gold, predictions, bench.CASES["retrieval_scale"])
    assert argv[-4:] == ["--ks", "1,100,1000", "--rank-keys", "wikipedia_id"]


def test_the_official_scripts_printed_numbers_are_read_and_compared_with_ours():
    retrieval = "OrderedDict([   ('Rprec', 0.5),\n    ('precision@1', 0.25)])\n"
    downstream = "{   'downstream': {'em': 0.5},\n    'kilt': {'KILT-em': 0.25}}\n"
    ours = {"eval_retrieval": {"Rprec": 0.5, "precision@1": 0.3}, "downstream": {"em": 0.5}, "kilt": {"KILT-em": 0.25}}
    assert bench.identical_numbers(ours, bench.printed_values(retrieval, "eval_retrieval")) == (2, 1)
    assert bench.identical_numbers(ours, bench.printed_values(downstream, "eval_downstream")) == (2, 2)


def test_markdown_sets_the_retrieval_case_beside_the_bare_parse_and_the_official_scripts():
    memory = {"wall_s": 9.0, "cpu_s": 8.0, "peak_pss_mib": 120.0, "peak_rss_sum_mib": 130.0,
              "process_peaks_sum_mib": 131.0, "largest_process_mib": 131.0, "processes": 1}
    case = {"items": 10444, "rouge_comparisons": 10444, "score_kilt_items_s": 5.0, "met": True, "file_mb": 301.6,
            "end_to_end": {"wall_s": 7.5, "cpu_s": 7.0, "wall_s_all": [7.5, 8.0]}, "memory": memory,
            "bare_parse": dict(memory, wall_s=2.5, cpu_s=2.4), "wall_over_bare_parse": 3.0,
            "official": {"eval_retrieval": dict(memory, wall_s=250.0, cpu_s=248.0, numbers=18, identical=18)}}
    result = {"machine": {"cpus": 2, "python": "3.11", "platform": "linux", "omp_num_threads": "1"},
              "load_average_before": 0.1, "load_average_after": 1.9, "cases": {"retrieval_scale": case}}
    table = bench.markdown(result)
    assert "peak_pss_mib <= 1024, wall_over_bare_parse <= 5 (met; wall / bare parse 3.0)" in table
    assert "| retrieval_scale | score kilt | 301.6 | 7.5 | 7.0 | 120.0 (130.0; 131.0; 131.0) |  |" in table
    assert "| retrieval_scale | eval_retrieval | 301.6 | 250.0 | 248.0 | 120.0 (130.0; 131.0; 131.0) | 18 of 18 |" in table
