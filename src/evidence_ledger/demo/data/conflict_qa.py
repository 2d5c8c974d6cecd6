"""NQ-CC / TQA-CC-style context-conflict demo items and official-style reader runs.

In:  the world of :mod:`.world` and its FEVER pages (:func:`.fever.fever_pages`, the passages).
Out: ``conflict_qa/nqcc.jsonl``, ``conflict_qa/tqacc.jsonl`` and
     ``conflict_qa/reader_runs/{hybrid,generated_only,retrieved_only,closed_book}.jsonl``.
"""
from __future__ import annotations

import random
from pathlib import Path

from .fever import fever_pages
from .world import all_entities, fix_articles, page_id, rng_for, value_pools, wrong_value, write_jsonl


def conflict_questions(w: dict, style: str) -> list[dict]:
    """Question, gold answers, a wrong answer and the wiki passage that gives the gold answer."""
    r = rng_for("conflict:" + style)
    pools = value_pools(w)
    pages = {p["id"]: p for p in fever_pages(w)[0]}

    def passage(e, k=4):
        lines = pages[page_id(e["title"])]["lines"].split("\n")
        return " ".join(l.split("\t")[1] for l in lines[:k])

    qs = []
    for t in w["towns"]:
        wrong = wrong_value("year", t["founded"], pools, r)
        q = (f"when was {t['name']} founded" if style == "nq" else
             f"In which year was the Varenholmian town of {t['name']}, known for its {t['known_for']}, founded?")
        qs.append({"question": q, "answer": [str(t["founded"])], "wrong": str(wrong), "entity": t,
                   "passage": passage(t), "attr": "founded"})
        q = (f"what river does {t['name']} lie on" if style == "nq" else
             f"On which river does the town of {t['name']} stand?")
        qs.append({"question": q, "answer": [f"{t['river']} River", t["river"]],
                   "wrong": f"{wrong_value('pool:river', t['river'], pools, r)} River", "entity": t,
                   "passage": passage(t, 2), "attr": "river"})
    for c in w["companies"]:
        q = f"who founded {c['name']}" if style == "nq" else f"Which person founded the company {c['name']}?"
        qs.append({"question": q, "answer": [c["founder"]], "wrong": wrong_value("pool:person", c["founder"], pools, r),
                   "entity": c, "passage": passage(c, 3), "attr": "founder"})
    for b in w["bands"]:
        q = f"what genre of music does {b['name']} play" if style == "nq" else f"{b['name']} is a band of which musical genre?"
        qs.append({"question": q, "answer": [b["genre"]], "wrong": wrong_value("pool:genre", b["genre"], pools, r),
                   "entity": b, "passage": passage(b, 2), "attr": "genre"})
    for p in w["people"]:
        q = f"where was {p['name']} born" if style == "nq" else f"In which town was the {p['occupation']} {p['name']} born?"
        qs.append({"question": q, "answer": [p["birthplace"]], "wrong": wrong_value("pool:town", p["birthplace"], pools, r),
                   "entity": p, "passage": passage(p, 3), "attr": "birthplace"})
    r.shuffle(qs)
    return qs


def generated_passages(q: dict, answer: str, r: random.Random) -> list[str]:
    """Two or three LLM-style generated contexts of different lengths, all stating `answer`."""
    e = q["entity"]
    name = e["name"]
    core = {"founded": f"{name} was founded in {answer}.",
            "river": f"{name} is a town built on the banks of the {answer}.",
            "founder": f"{name} was founded by {answer}.",
            "genre": f"{name} is a Varenholmian {answer} band.",
            "birthplace": f"{name} was born in {answer}."}[q["attr"]]
    filler = [f"{name} is often mentioned in guides to Varenholm.",
              f"Local historians have written extensively about {name}.",
              f"Visitors to the region frequently ask about {name} and its history.",
              f"Much of what is known about {name} comes from regional newspapers.",
              f"{name} has been the subject of several documentary programmes."]
    r.shuffle(filler)
    short = fix_articles(core)
    medium = fix_articles(" ".join([filler[0], core, filler[1]]))
    long = fix_articles(" ".join([filler[2], filler[3], core, filler[4], filler[0]]))
    out = [short, medium, long]
    return out[: r.choice([2, 3])] if r.random() < 0.5 else out


def conflict_items(w: dict, style: str, n: int) -> list[dict]:
    """Reader-input items: about half with a wrong generated context (retrieved right), about a
    third with a wrong retrieved passage (a page about another entity; generated right), the
    rest with both right.
    """
    r = rng_for(f"conflict-items:{style}")
    qs = conflict_questions(w, style)[:n]
    by_type = {}
    for e in all_entities(w):
        by_type.setdefault(e["type"], []).append(e)
    items = []
    for k, q in enumerate(qs):
        gold = q["answer"][0]
        case = ["gen_wrong", "ret_wrong", "gen_wrong", "both_right", "ret_wrong", "gen_wrong"][k % 6]
        gen_ans = q["wrong"] if case == "gen_wrong" else gold
        gen = generated_passages(q, gen_ans, r)
        if case == "ret_wrong":
            others = [e for e in by_type[q["entity"]["type"]] if e["name"] != q["entity"]["name"]]
            other = others[r.randrange(len(others))]
            val = {"founded": lambda e: str(e["founded"]), "river": lambda e: f"{e['river']} River",
                   "founder": lambda e: e["founder"], "genre": lambda e: e["genre"],
                   "birthplace": lambda e: e["birthplace"]}[q["attr"]](other)
            if val in q["answer"]:
                val = q["wrong"]
            ret_passage = conflict_questions_passage(w, other, q["attr"])
            ret_ans = val
        else:
            ret_passage = q["passage"]
            ret_ans = gold
        items.append({"question": q["question"], "answer": q["answer"], "generated_passage": gen,
                      "retrieved_passage": [ret_passage], "generated_answer": gen_ans, "retrieved_answer": ret_ans,
                      "_case": case})
    return items


def conflict_questions_passage(w: dict, e: dict, attr: str) -> str:
    """The first wiki sentences of another entity's page (a retrieval error), enough to answer attr."""
    pages = {p["id"]: p for p in fever_pages(w)[0]}
    k = {"founded": 3, "river": 2, "founder": 3, "genre": 2, "birthplace": 3}[attr]
    lines = pages[page_id(e["title"])]["lines"].split("\n")
    return " ".join(l.split("\t")[1] for l in lines[:k])


def reader_runs(items: list[dict], part: str = "reader-runs") -> dict[str, list[dict]]:
    """Four official-style reader-output runs over the NQ-CC items (``response`` = [answer]).

    Built so that AIG and AIR are both non-empty after the official filters: three items have an
    "unknown"-like answer, four have a closed-book answer equal to a context answer, and hybrid
    answers follow the retrieved answer, the generated one, the closed-book one or something else.
    """
    r = rng_for(part)
    runs = {k: [] for k in ("hybrid", "generated_only", "retrieved_only", "closed_book")}
    unknown = ["unknown", "I don't know", "Unknown."]
    for k, it in enumerate(items):
        gen, ret = it["generated_answer"], it["retrieved_answer"]
        gen_resp = unknown[k // 13 % 3] if k in (7, 20, 33) else gen
        ret_resp = ret if k != 20 else "unknown"
        if k in (4, 15, 26, 37):
            closed = gen if k % 2 == 0 else ret
        else:
            closed = ["unknown", "I'm not sure", "Lowfen", "1850", "Nils Brekke"][k % 5]
        roll = r.random()
        if roll < 0.45:
            hybrid = gen_resp
        elif roll < 0.8:
            hybrid = ret_resp
        elif roll < 0.9:
            hybrid = closed
        else:
            hybrid = "Varenholm"
        if k % 7 == 3 and hybrid == ret:
            hybrid = "the " + hybrid  # an article: equal after SQuAD normalisation
        base = {"question": it["question"], "answer": it["answer"], "generated_passage": it["generated_passage"],
                "retrieved_passage": it["retrieved_passage"]}
        runs["hybrid"].append({**base, "response": [hybrid]})
        runs["generated_only"].append({**base, "response": [gen_resp]})
        runs["retrieved_only"].append({**base, "response": [ret_resp]})
        runs["closed_book"].append({**base, "response": [closed]})
    return runs


def write_conflict_qa(w: dict, out: Path) -> dict:
    cdir = out / "conflict_qa"
    nq = conflict_items(w, "nq", 40)
    tqa = conflict_items(w, "tqa", 25)
    runs = reader_runs(nq)
    tqa_hybrid = reader_runs(tqa, "reader-runs:tqacc")["hybrid"]

    def record(it, hybrid):
        # the official reader-output field ``response`` holds the hybrid reader's answer
        rec = {k: v for k, v in it.items() if not k.startswith("_")}
        rec["response"] = hybrid["response"]
        return rec

    write_jsonl(cdir / "nqcc.jsonl", [record(it, h) for it, h in zip(nq, runs["hybrid"])])
    write_jsonl(cdir / "tqacc.jsonl", [record(it, h) for it, h in zip(tqa, tqa_hybrid)])
    for name, recs in runs.items():
        write_jsonl(cdir / "reader_runs" / f"{name}.jsonl", recs)
    return {"nqcc": nq, "tqacc": tqa, "runs": runs}
