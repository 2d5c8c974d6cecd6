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
