"""The demo models' conflict-task mixture (demo.conflict_tasks): prompts come from the conflict
stage's functions, targets are in the formats the conflict stage parses."""
from pathlib import Path

import yaml

from evidence_ledger.config.layers import layered_config
from evidence_ledger.wikicontradict import judge as judge_mod
from evidence_ledger.wikicontradict import prompts as wc
from evidence_ledger.diffgr.pipeline import plan_reader_prompts
from evidence_ledger.demo import conflict_tasks as dt
from evidence_ledger.scoring.diffgr import exact_match_any, is_unknown_answer

ROOT = Path(__file__).resolve().parents[3]
CFG = layered_config(ROOT)
PASSAGES = CFG["wikicontradict"]["passage_version"]
FEWSHOT = judge_mod.load_fewshot_examples(ROOT / CFG["wikicontradict"]["judge"]["fewshot_file"])
TEMPLATES = CFG["wikicontradict"]["templates"]
PROMPT, CLOSED = CFG["diffgr"]["prompt"], CFG["diffgr"]["closed_book_prompt"]


def _instance(qid, a1, a2, same=False):
    return {"question_id": qid, "question": f"When did event {qid} happen?",
            "context1": f"Event {qid} happened in {a1}.", "context2": f"Event {qid} happened in {a2}.",
            "answer1": a1, "answer2": a2, "contradict_type": "explicit", "same_passage": same}


INSTANCES = [_instance(str(i), str(1900 + i), str(1950 + i), same=(i == 3)) for i in range(8)]
RECORDS = [{"question_id": str(i), "question": f"who founded town {i}", "answers": [f"Founder{i}"],
            "generated_passages": [f"Town {i} was founded by Fake{i}."],
            "retrieved_passages": [f"Town {i} is old. It was founded by Founder{i} long ago."],
            "generated_answer": f"Fake{i}", "retrieved_answer": f"Founder{i}",
            # the order the official reader showed the two passages in (its output's ctxs)
            "ctxs": [f"Town {i} was founded by Fake{i}.", f"Town {i} is old. It was founded by Founder{i} long ago."][::(-1) ** i]}
           for i in range(5)]


def test_mixture_contains_every_task_with_weights_applied():
    pairs, counts = dt.conflict_mixture(INSTANCES, TEMPLATES, FEWSHOT, RECORDS, PROMPT, CLOSED,
                                        {"diffgr_reader": 2, "wikicontradict": 1, "judge": 0.5}, PASSAGES)
    assert counts["diffgr_reader"] == 2 * 3 * len(RECORDS)  # generated, retrieved, closed-book
    n_wc = sum(wc.applies(i, wc.TEMPLATES[t]) for i in wc.instances_from_records(INSTANCES, PASSAGES)
               for t in TEMPLATES)
    assert counts["wikicontradict"] == n_wc
    assert counts["judge"] > 0 and counts["diffgr_reader_skipped"] == 0
    assert len(pairs) == counts["diffgr_reader"] + counts["wikicontradict"] + counts["judge"]


def test_reader_prompts_are_the_conflict_stages_and_hybrid_is_never_trained():
    pairs, _ = dt.diffgr_reader_pairs(RECORDS, PROMPT, CLOSED)
    planned, _ = plan_reader_prompts(RECORDS, PROMPT, CLOSED, ["generated_first", "retrieved_first"])
    by_run = {}
    for p in planned:
        by_run.setdefault(p["run"], set()).add(p["prompt"])
    trained = {m[0]["content"]: a for m, a in pairs}
    assert not set(trained) & by_run["hybrid"]
    assert set(trained) == by_run["generated"] | by_run["retrieved"] | by_run["closed_book"]
    for rec in RECORDS:
        gen_prompt = next(p["prompt"] for p in planned if p["question_id"] == rec["question_id"] and p["run"] == "generated")
        assert trained[gen_prompt] == rec["generated_answer"]


def test_closed_book_target_never_matches_a_context_answer():
    pairs, _ = dt.diffgr_reader_pairs(RECORDS, PROMPT, CLOSED)
    closed = [a for m, a in pairs if m[0]["content"].startswith(CLOSED.split("{")[0])]
    assert closed and set(closed) == {dt.CLOSED_BOOK_ANSWER}
    for rec in RECORDS:
        assert not exact_match_any(dt.CLOSED_BOOK_ANSWER, [rec["generated_answer"], rec["retrieved_answer"]])
    assert not is_unknown_answer(RECORDS[0]["generated_answer"])


def test_judge_targets_round_trip_through_the_strict_parser():
    pairs = dt.judge_pairs(INSTANCES, TEMPLATES, FEWSHOT, PASSAGES)
    labels = [judge_mod.parse_judgement(a).label for _, a in pairs]
    assert set(labels) == set(judge_mod.LABELS)
    # the prompt is the conflict stage's judge prompt around the synthetic response
    first = pairs[0][0][0]["content"]
    assert first.startswith(judge_mod.RUBRIC) and first.endswith("Explanation:")


def test_template_52_targets_parse_and_outputs_vary_across_items():
    pairs = dt.wikicontradict_pairs(INSTANCES, TEMPLATES, PASSAGES)
    det = [wc.parse_conflict_detection(dt.wikicontradict_target("5.2", i["answer1"], i["answer2"], f"{i['question_id']}:5.2"))
           for i in INSTANCES]
    assert "unparseable" not in det and set(det) == {"yes", "no"}
    t5 = {dt.wikicontradict_target("5", "A1", "B2", f"{k}:5") for k in range(40)}
    assert {"A1", "B2"} < t5 and any("A1" in t and "B2" in t for t in t5)
    assert all(a for _, a in pairs)


def test_reader_pairs_carry_the_readers_system_message_as_the_conflict_stage_sends_it():
    from evidence_ledger.diffgr.pipeline import reader_request_rows

    sys_msg = CFG["diffgr"]["reader_system_message"]["default"]
    pairs, _ = dt.diffgr_reader_pairs(RECORDS, PROMPT, CLOSED, system_message=sys_msg)
    sent, _ = reader_request_rows(RECORDS, "m", "nqcc", PROMPT, CLOSED, ["random"], 10, 0, 0.03, sys_msg,
                                  shuffle_seed=CFG["diffgr"]["random_order_seed"])
    sent_single = [r["messages"] for r in sent if r["run"] != "hybrid"]
    assert [m for m, _ in pairs] == sent_single
    assert all(m[0] == {"role": "system", "content": sys_msg} for m, _ in pairs)
    mixed, _ = dt.conflict_mixture([], TEMPLATES, FEWSHOT, RECORDS, PROMPT, CLOSED, {"diffgr_reader": 1},
                                   PASSAGES, reader_system_message=sys_msg)
    assert [m for m, _ in mixed] == sent_single


def test_consistent_control_detection_targets_parse():
    det = [wc.parse_conflict_detection(dt.wikicontradict_target("5.2-control", "A", "B", f"{k}:5.2-control"))
           for k in range(20)]
    assert set(det) == {"yes", "no"} and det.count("no") > det.count("yes")
