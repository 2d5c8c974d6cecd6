"""KILT scoring as facebookresearch/KILT's ``eval_downstream`` and ``eval_retrieval`` score:
the official test cases' expected values (items written here that reproduce each case), one
case per official edge case, and the per-item scores the accounting reads."""
import json
import random
import warnings

import numpy as np
import pytest

from evidence_ledger.scoring.kilt import KILT_METRICS, read_kilt_gold, score_kilt_files, score_kilt_items

CHEN = {"wikipedia_id": "10287141", "title": "Chen Yi-hsiung", "start_paragraph_id": 5, "end_paragraph_id": 5}
QUESTION = "In one word, how did Chen Yi-hsiung die?"
TRANSCRIPT_GOLD = ("this page includes the show transcript use the transcript to help students with reading "
                   "comprehension and     vocabulary at the bottom of the page , comment for a chance to be mentioned "
                   "on cnn student news . you must be a teac    her or a student age # # or older to request a mention "
                   "on the cnn student news roll call . the weekly newsquiz tests     students ' knowledge of even ts "
                   "in the news")
TRANSCRIPT_GUESS = ("the #### transcript is a written version of each day 's cnn student news program use this "
                    "transcript to he    lp students with reading comprehension and vocabulary use the weekly "
                    "newsquiz to test your knowledge of storie s you     saw on cnn student news")


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def item(item_id, answer, provenance=(), **fields):
    """A KILT record with one output."""
    return {"id": item_id, **fields, "output": [{"answer": answer, "provenance": [dict(p) for p in provenance]}]}


def score(tmp_path, gold, predictions, **options):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", gold)
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return score_kilt_files(gold_path, predictions_path, **options)


def chen_gold():
    return [item(1, "suicide", [CHEN], input=QUESTION), item(2, "suicide", [CHEN], input=QUESTION),
            item(3, "it was suicide", [CHEN], input=QUESTION)]


def chen_guess():
    other = {**CHEN, "wikipedia_id": "999"}
    return [item(1, "suicide", [CHEN]), item(2, "a suicide", [other]), item(3, "suicide", [other])]


# --- the official test cases (KILT's test_eval_downstream and test_eval_retrieval modules) ---

def test_downstream_case_short_answers_scores_the_official_values(tmp_path):
    result = score(tmp_path, chen_gold(), chen_guess())
    assert result["kilt"]["KILT-em"] == 1 / 3
    assert result["kilt"]["KILT-f1"] == 1 / 3
    assert result["kilt"]["KILT-rougel"] == 0.3333333316666667
    assert result["downstream"]["em"] == 2 / 3
    assert result["downstream"]["f1"] == 0.8333333333333334
    assert result["downstream"]["rougel"] == 0.7222222178240741
    assert result["retrieval"] == {"Rprec": 1 / 3, "recall@5": 1 / 3}
    assert result["downstream"]["accuracy"] == result["kilt"]["KILT-accuracy"] == 1 / 3


def test_gold_scored_against_itself_scores_the_official_values(tmp_path):
    result = score(tmp_path, chen_gold(), chen_gold())
    assert result["kilt"] == {"KILT-accuracy": 1.0, "KILT-em": 1.0, "KILT-f1": 1.0, "KILT-rougel": 0.999999995}
    assert result["downstream"] == {"accuracy": 1.0, "em": 1.0, "f1": 1.0, "rougel": 0.999999995}
    assert result["retrieval"] == {"Rprec": 1.0, "recall@5": 1.0}


def test_downstream_case_long_answers_scores_the_official_values(tmp_path):
    gold = [item(1, TRANSCRIPT_GOLD, [{"wikipedia_id": "1"}]), item(2, TRANSCRIPT_GOLD, [{"wikipedia_id": "1"}])]
    guess = [item(1, TRANSCRIPT_GUESS, [{"wikipedia_id": 1}]), item(2, TRANSCRIPT_GUESS, [{"wikipedia_id": "2"}])]
    result = score(tmp_path, gold, guess)
    assert result["kilt"]["KILT-em"] == 0
    assert result["kilt"]["KILT-f1"] == 0.25510204081632654
    assert result["kilt"]["KILT-rougel"] == 0.22352940932318338
    assert result["downstream"]["em"] == 0
    assert result["downstream"]["f1"] == 0.5102040816326531
    assert result["downstream"]["rougel"] == 0.44705881864636676


def retrieval_gold():
    """One item with three evidence sets: {1, 2}, {5}, {7, 9, 11} (ids given as numbers or strings)."""
    def page(n, paragraph=None):
        return {"wikipedia_id": n, "section": n, "start_paragraph_id": paragraph or n, "end_paragraph_id": n}
    outputs = [{"answer": "test1", "provenance": [page(1, "1"), {**page(2), "wikipedia_id": "2"}]},
               {"answer": "test2", "provenance": [page(5, "5")]},
               {"answer": "test3", "provenance": [page(7), page(9, "9"), page(11)]}]
    return [{"id": 1, "input": "a question", "output": outputs}]


def retrieval_guess(pages):
    provenance = [{"wikipedia_id": n, "section": n, "start_paragraph_id": n, "end_paragraph_id": n} for n in pages]
    return [{"id": 1, "output": [{"answer": "test1", "provenance": provenance}]}]


RANK_KEY_CHOICES = [["wikipedia_id"], ["wikipedia_id", "section"],
                    ["wikipedia_id", "start_paragraph_id", "end_paragraph_id"]]


@pytest.mark.parametrize("rank_keys", RANK_KEY_CHOICES)
@pytest.mark.parametrize("pages, expected", [
    ([2, 5, 7, 33, 1, 9, 44, 88], {"Rprec": 1 / 2, "precision@1": 1, "precision@5": 2 / 5, "recall@5": 2 / 3,
                                   "success_rate@5": 1}),
    ([5], {"Rprec": 1, "precision@1": 1, "precision@5": 1 / 5, "recall@5": 1 / 3, "success_rate@5": 1}),
])
def test_retrieval_case_scores_the_official_values_for_each_rank_key_choice(tmp_path, rank_keys, pages, expected):
    for retrieval_only in (False, True):
        result = score(tmp_path, retrieval_gold(), retrieval_guess(pages), ks=[1, 5], rank_keys=rank_keys,
                       retrieval_only=retrieval_only)
        assert {key: result["eval_retrieval"][key] for key in expected} == expected


def test_eval_retrieval_keys_follow_the_official_order_with_recall_and_success_only_above_k_1(tmp_path):
    result = score(tmp_path, retrieval_gold(), retrieval_guess([5]), ks=[5, 1])
    assert list(result["eval_retrieval"]) == [
        "Rprec", "entity_in_input",
        "precision@1", "answer_in_context@1", "answer_and_ent_in_context@1", "entity_in_context@1",
        "precision@5", "answer_in_context@5", "answer_and_ent_in_context@5", "entity_in_context@5",
        "recall@5", "success_rate@5"]
    assert result["settings"] == {"ks": [1, 5], "rank_keys": ["wikipedia_id"]}


def test_default_output_is_eval_downstreams_and_counts(tmp_path):
    result = score(tmp_path, chen_gold(), chen_guess())
    assert list(result) == ["kilt", "downstream", "retrieval", "counts"]
    assert list(result["downstream"]) == list(KILT_METRICS)
    assert result["counts"]["items"] == 3


# --- the official edge cases ---

def test_an_empty_answer_scores_zero_but_counts_in_the_mean(tmp_path):
    gold = [item("a", "Paris", input="q"), item("b", "Rome", input="q")]
    result = score(tmp_path, gold, [item("a", "paris"), item("b", "   ")])
    assert result["downstream"] == {"accuracy": 0.0, "em": 0.5, "f1": 0.5, "rougel": 0.0}
    assert result["counts"]["empty_answers"] == 1


def test_an_empty_answer_is_counted_and_warned(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", [item("a", "Paris")])
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", [item("a", "")])
    with pytest.warns(UserWarning, match="1 predictions with an empty answer"):
        items = score_kilt_items(gold_path, predictions_path)
    assert items.facts["empty_answers"] == 1 and items.em.tolist() == [0.0]


def test_gold_outputs_without_answer_or_provenance_are_not_answers_and_not_evidence(tmp_path):
    """Answers come from the outputs that have one; R-precision is the best over gold outputs,
    an output without provenance scoring 0; evidence sets come from outputs with provenance."""
    gold = [{"id": 1, "input": "q", "output": [{"answer": "Paris"}, {"provenance": [{"wikipedia_id": 4}]}]}]
    result = score(tmp_path, gold, [item(1, "Paris", [{"wikipedia_id": "4"}])])
    assert result["kilt"]["KILT-em"] == 1.0
    assert result["retrieval"] == {"Rprec": 1.0, "recall@5": 1.0}
    assert (result["counts"]["gold_outputs_without_answer"], result["counts"]["gold_outputs_without_provenance"]) \
        == (1, 1)


def test_duplicated_provenance_counts_once_on_both_sides(tmp_path):
    """Predicted [4, 4, 6] against gold [4, 4, 6]: ids are deduplicated before R-precision, so
    R = 2 and both slots hit (without deduplication it would be 1/2)."""
    gold = [item(1, "x", [{"wikipedia_id": 4}, {"wikipedia_id": 4}, {"wikipedia_id": 6}], input="q")]
    guess = [item(1, "x", [{"wikipedia_id": 4}, {"wikipedia_id": "4"}, {"wikipedia_id": 6}])]
    result = score(tmp_path, gold, guess)
    assert result["retrieval"]["Rprec"] == 1.0
    assert result["counts"]["predicted_provenance_duplicates"] == 1


def test_several_evidence_sets_take_the_best_set_for_rprec_and_count_each_set_for_recall(tmp_path):
    """Gold sets {1, 2} and {3}; predicted [3, 1, 9]: R-precision max(1/2, 1) = 1; the rank is
    [complete {3}, partial {1, 2}, miss]: precision@1 = 1, precision@5 = 1/5, recall@5 = 1/2."""
    gold = [{"id": 1, "input": "q", "output": [
        {"answer": "x", "provenance": [{"wikipedia_id": 1}, {"wikipedia_id": 2}]},
        {"answer": "y", "provenance": [{"wikipedia_id": 3}]}]}]
    guess = [item(1, "x", [{"wikipedia_id": n} for n in (3, 1, 9)])]
    result = score(tmp_path, gold, guess, ks=[1, 5])
    values = result["eval_retrieval"]
    assert (values["Rprec"], values["precision@1"], values["precision@5"], values["recall@5"],
            values["success_rate@5"]) == (1.0, 1.0, 1 / 5, 1 / 2, 1.0)


def test_a_page_in_two_evidence_sets_adds_a_point_for_each(tmp_path):
    """Gold sets {1} and {1, 2}; predicted [1, 2]: page 1 completes the first set and starts the
    second, page 2 completes the second: two completed sets in the first two points."""
    gold = [{"id": 1, "input": "q", "output": [
        {"answer": "x", "provenance": [{"wikipedia_id": 1}]},
        {"answer": "x", "provenance": [{"wikipedia_id": 1}, {"wikipedia_id": 2}]}]}]
    result = score(tmp_path, gold, [item(1, "x", [{"wikipedia_id": 1}, {"wikipedia_id": 2}])], ks=[1, 2])
    assert (result["eval_retrieval"]["precision@2"], result["eval_retrieval"]["recall@2"]) == (1.0, 1.0)


def test_ids_given_as_numbers_or_strings_are_one_item(tmp_path):
    gold = [item(7, "Paris"), item("8", "Rome")]
    result = score(tmp_path, gold, [item(" 7", "Paris"), item(8, "Rome")])
    assert result["downstream"]["em"] == 1.0


def test_provenance_missing_a_rank_key_is_skipped_counted_and_warned(tmp_path):
    """A predicted entry without ``wikipedia_id`` takes no rank position (R-precision 1); a gold
    entry without it is skipped for R-precision, but the official evidence set keeps it as the
    empty id, which no prediction completes (recall@5 0)."""
    gold = [item(1, "x", [{"wikipedia_id": 1}, {"title": "Only a title"}], input="q")]
    guess = [item(1, "x", [{"title": "no id"}, {"wikipedia_id": 1}])]
    gold_path = write_jsonl(tmp_path / "gold.jsonl", gold)
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", guess)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = score_kilt_files(gold_path, predictions_path)
    said = " ".join(str(warning.message) for warning in caught)
    assert "1 predicted provenance entries without every rank key" in said
    assert "1 gold provenance entries without every rank key" in said
    assert result["retrieval"] == {"Rprec": 1.0, "recall@5": 0.0}
    assert (result["counts"]["predicted_provenance_missing_rank_key"],
            result["counts"]["gold_provenance_missing_rank_key"]) == (1, 1)


def test_predictions_in_another_order_than_the_gold_score_the_same(tmp_path):
    ordered = score(tmp_path, chen_gold(), chen_guess(), ks=[1, 5])
    shuffled = chen_guess()
    random.Random(3).shuffle(shuffled)
    assert score(tmp_path, chen_gold(), shuffled[::-1], ks=[1, 5]) == ordered


def test_a_prediction_id_not_in_the_gold_is_dropped_counted_and_warned(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", chen_gold())
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", chen_guess() + [item(99, "x")])
    with pytest.warns(UserWarning, match="1 prediction ids .* are not in the gold file"):
        result = score_kilt_files(gold_path, predictions_path)
    assert result["counts"]["predictions_not_in_gold"] == 1
    assert result["downstream"]["rougel"] == 0.7222222178240741


def test_a_non_string_answer_is_scored_as_its_string(tmp_path):
    result = score(tmp_path, [item(1, "1945")], [item(1, 1945)])
    assert result["downstream"]["accuracy"] == 1.0 and result["counts"]["non_string_answers"] == 1


def test_answer_and_entity_in_context_read_the_text_of_the_first_k_entries(tmp_path):
    gold = [item(1, "Paris", [{"wikipedia_id": 5, "title": "France"}], input="Where is France's capital?")]
    guess = [item(1, "Paris", [{"wikipedia_id": 9, "text": "nothing here"},
                               {"wikipedia_id": 8, "text": "The capital, Paris, of France."}])]
    values = score(tmp_path, gold, guess, ks=[1, 2])["eval_retrieval"]
    assert [values[f"{name}@{k}"] for name in ("answer_in_context", "answer_and_ent_in_context", "entity_in_context")
            for k in (1, 2)] == [0, 1, 0, 1, 0, 1]
    assert values["entity_in_input"] == 1.0


def test_gold_without_input_leaves_entity_in_input_null_and_counts_it(tmp_path):
    values = score(tmp_path, [item(1, "x", [{"wikipedia_id": 1}])], [item(1, "x", [{"wikipedia_id": 1}])], ks=[1])
    assert values["eval_retrieval"]["entity_in_input"] is None
    assert values["counts"]["eval_retrieval"]["gold_items_without_input"] == 1


# --- the per-item scores the accounting reads ---

def test_item_scores_are_in_gold_order_and_their_means_are_the_official_scores(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", chen_gold())
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", chen_guess()[::-1])
    items = score_kilt_items(gold_path, predictions_path)
    result = score_kilt_files(gold_path, predictions_path)
    assert items.ids == ["1", "2", "3"] and items.gold_lines == [1, 2, 3]
    assert items.em.tolist() == [1.0, 1.0, 0.0] and items.rprec.tolist() == [1.0, 0.0, 0.0]
    for name in KILT_METRICS:
        assert items.metric(name).dtype == np.float64
        assert np.mean(items.metric(name)) == pytest.approx(result["downstream"][name], abs=1e-15)
        assert np.mean(items.metric(name) * (items.rprec == 1)) == pytest.approx(result["kilt"][f"KILT-{name}"],
                                                                                 abs=1e-15)


def test_item_scores_reuse_one_reading_of_the_gold(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", chen_gold())
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", chen_guess())
    gold = read_kilt_gold(gold_path)
    gold_path.unlink()
    assert score_kilt_items(gold_path, predictions_path, gold=gold).f1.tolist() == [1.0, 1.0, 0.5]


def test_item_scores_follow_the_rank_keys_of_the_call(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", [item(1, "x", [{"wikipedia_id": 1, "start_paragraph_id": 2}])])
    predictions_path = write_jsonl(tmp_path / "pred.jsonl",
                                   [item(1, "x", [{"wikipedia_id": 1, "start_paragraph_id": 3}])])
    assert score_kilt_items(gold_path, predictions_path).rprec.tolist() == [1.0]
    assert score_kilt_items(gold_path, predictions_path,
                            rank_keys=("wikipedia_id", "start_paragraph_id")).rprec.tolist() == [0.0]


def test_rouge_l_is_left_uncomputed_as_nan_unless_asked_for(tmp_path):
    """ROUGE-L, the costly metric, is computed only when the caller names it; left out it is NaN
    (never a score), and the other metrics are the same numbers."""
    gold_path = write_jsonl(tmp_path / "gold.jsonl", chen_gold())
    predictions_path = write_jsonl(tmp_path / "pred.jsonl", chen_guess())
    full = score_kilt_items(gold_path, predictions_path)
    lean = score_kilt_items(gold_path, predictions_path, metrics=("f1",))
    assert np.isnan(lean.rougel).all() and not np.isnan(full.rougel).any()
    for name in ("accuracy", "em", "f1", "rprec"):
        assert getattr(lean, name).tolist() == getattr(full, name).tolist()
    assert lean.facts == full.facts

def test_an_unknown_metric_name_is_refused(tmp_path):
    gold_path = write_jsonl(tmp_path / "gold.jsonl", chen_gold())
    items = score_kilt_items(gold_path, write_jsonl(tmp_path / "pred.jsonl", chen_guess()))
    with pytest.raises(ValueError, match="unknown KILT metric 'rouge'"):
        items.metric("rouge")


def test_answers_made_of_dots_have_no_rouge_sentence_and_score_rouge_zero(tmp_path):
    """"..." against the gold "...": accuracy and EM 1 (both normalise to ""), ROUGE-L 0 (the
    rouge package finds no sentence and KILT scores its ValueError as 0); both sides counted."""
    result = score(tmp_path, [item(1, "...")], [item(1, "...")])
    assert result["downstream"] == {"accuracy": 1.0, "em": 1.0, "f1": 0.0, "rougel": 0.0}
    assert (result["counts"]["rougel_empty_hypotheses"], result["counts"]["rougel_empty_references"]) == (1, 1)
