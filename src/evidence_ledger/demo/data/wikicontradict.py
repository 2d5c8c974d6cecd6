"""WikiContradict-style demo rows and project-written human judgements.

In:  the world of :mod:`.world`.
Out: ``wikicontradict/WikiContradict_dataset_v1_rag_qa.csv`` (the released RAG-QA columns) and
     ``wikicontradict/human_judgements.jsonl``.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from .world import page_id, rng_for, value_pools, wrong_value, write_jsonl


WIKICONTRADICT_COLUMNS = ["question_ID", "question", "context1", "context2", "answer1", "answer2", "contradictType",
                          "samepassage", "merged_context", "ref_answer", "WikipediaArticleTitle", "url"]


def wikicontradict_rows(w: dict) -> list[dict]:
    """20 rows: 12 explicit and 8 implicit contradictions, 5 of them inside one passage ("Same")."""
    r = rng_for("wikicontradict")
    rows = []
    towns, people, bands, rivers, comps = w["towns"], w["people"], w["bands"], w["rivers"], w["companies"]

    def row(question, c1, c2, a1, a2, implicit, same, title):
        if same and c1 != c2:  # one passage holds both statements
            c1 = c2 = f"{c1} {c2}"
        rows.append({"question": question, "context1": c1, "context2": c2, "answer1": a1, "answer2": a2,
                     "contradictType": "Implicit (reasoning required)" if implicit else "Explicit",
                     "samepassage": "Same" if same else "Different", "WikipediaArticleTitle": title,
                     "url": f"https://wiki.varenholm.example/wiki/{page_id(title)}"})

    for k, t in enumerate(towns[:6]):  # founding year: explicit, one implicit via an anniversary
        alt = t["founded"] + r.randint(8, 40)
        c1 = f"{t['name']} was founded in {t['founded']} as a {t['origin']} on the {t['river']} River."
        if k < 3:
            c2 = f"Town records date the founding of {t['name']} to {alt}, when a market charter was granted."
            row(f"When was {t['name']} founded?", c1, c2, str(t["founded"]), str(alt), False, k == 2, t["title"])
        elif k < 5:
            n = r.choice([300, 400, 500])
            c2 = f"In {alt + n}, {t['name']} celebrated the {n}th anniversary of its founding with a week of festivities."
            row(f"In what year was {t['name']} founded?", c1, c2, str(t["founded"]), str(alt), True, False, t["title"])
        else:
            both = (f"{t['name']} was founded in {t['founded']} as a {t['origin']}. Some historians instead give {alt} "
                    f"as the founding year, citing a lost charter.")
            row(f"When was {t['name']} founded?", both, both, str(t["founded"]), str(alt), False, True, t["title"])
    for k, p in enumerate(people[:5]):  # birth year: explicit, or implicit via an age at a dated event
        alt = p["birth_year"] + r.choice([-3, -2, 2, 4])
        pro = "she" if p["gender"] == "f" else "he"
        c1 = f"{p['name']} (born {p['birth_year']}) is a Varenholmian {p['occupation']} from {p['birthplace']}."
        if k < 2:
            c2 = f"{p['name']} was born in {alt} in {p['birthplace']}."
            row(f"In which year was {p['name']} born?", c1, c2, str(p["birth_year"]), str(alt), False, False, p["title"])
        elif k < 4:
            age = r.randint(20, 35)
            c2 = f"In {alt + age}, at the age of {age}, {pro} moved to {p['university']}."
            row(f"When was {p['name']} born?", c1, c2, str(p["birth_year"]), str(alt), True, False, p["title"])
        else:
            both = f"{p['name']} was born in {p['birth_year']}, although {pro} has said in interviews that {pro} was born in {alt}."
            row(f"What year was {p['name']} born?", both, both, str(p["birth_year"]), str(alt), False, True, p["title"])
    for k, b in enumerate(bands[:4]):  # formation year / hometown
        if k < 2:
            alt = b["formed"] + r.randint(1, 4)
            c1 = f"{b['name']} is a {b['genre']} band from {b['hometown']}, formed in {b['formed']}."
            c2 = (f"{b['name']} played their first concert in {alt}, a month after the band was formed."
                  if k == 1 else f"The band {b['name']} was formed in {alt}.")
            row(f"When was {b['name']} formed?", c1, c2, str(b["formed"]), str(alt), k == 1, False, b["title"])
        else:
            other = wrong_value("pool:town", b["hometown"], value_pools(w), r)
            c1 = f"{b['name']} was formed in {b['hometown']} in {b['formed']}."
            c2 = f"The members of {b['name']} met at school in {other}, where the band was founded."
            row(f"In which town was {b['name']} formed?", c1, c2, b["hometown"], other, k == 3, k == 2, b["title"])
    for k, rv in enumerate(rivers[:3]):  # length: explicit or implicit by comparison
        alt = rv["length"] + r.randint(15, 60)
        c1 = f"The {rv['title']} is {rv['length']} kilometres long and flows into {rv['mouth']}."
        if k < 2:
            c2 = f"With a length of {alt} km, the {rv['name']} is one of the longest rivers of Varenholm."
            row(f"How long is the {rv['title']}?", c1, c2, f"{rv['length']} km", f"{alt} km", False, k == 1, rv["title"])
        else:
            ref = rivers[5]
            c2 = f"The {rv['name']} is {alt - ref['length']} kilometres longer than the {ref['title']}, which is {ref['length']} km long."
            row(f"How long is the {rv['title']}?", c1, c2, f"{rv['length']} km", f"{alt} km", True, False, rv["title"])
    for k, c in enumerate(comps[:2]):  # employees, implicit by doubling
        alt = c["employees"] * 2 + 50
        c1 = f"{c['name']} employs about {c['employees']:,} people at its headquarters in {c['hq']}."
        c2 = f"The workforce of {c['name']} doubled after 2015 from {(alt // 2):,} to its present size."
        row(f"How many people does {c['name']} employ?", c1, c2, f"{c['employees']:,}", f"{alt:,}", True, False, c["title"])
    ids = list(range(1, len(rows) + 1))
    for qid, rw in zip(ids, rows):
        rw["question_ID"] = qid
        rw["merged_context"] = rw["context1"] if rw["samepassage"] == "Same" else rw["context1"] + "\n" + rw["context2"]
        rw["ref_answer"] = rw["answer1"] + "|" + rw["answer2"]
    r.shuffle(rows)  # the release is not sorted by question_ID either
    return rows


def human_judgements(rows: list[dict]) -> list[dict]:
    """30 project-written human labels of template-5 responses (rubric of the WikiContradict paper, Section 3.4)."""
    r = rng_for("wikicontradict:human")
    by_id = sorted(rows, key=lambda x: x["question_ID"])
    out = []
    kinds = ["neutral", "attributed", "one", "prefer", "both_true", "wrong", "extra", "neutral", "one", "alternatives"]
    for k in range(30):
        rw = by_id[k % len(by_id)]
        a1, a2 = rw["answer1"], rw["answer2"]
        kind = kinds[(k * 3 + k // 10) % len(kinds)]
        if kind == "neutral":
            resp, lab = f"The passages conflict: one gives {a1}, while the other gives {a2}.", "correct"
        elif kind == "attributed":
            resp, lab = f"According to the first passage the answer is {a1}; the second passage says {a2}.", "correct"
        elif kind == "alternatives":
            resp, lab = f"It is either {a1} or {a2}; the sources disagree.", "correct"
        elif kind == "one":
            resp, lab = f"{a1 if k % 2 else a2}.", "partially correct"
        elif kind == "prefer":
            resp, lab = f"The answer is {a1}. One passage says {a2}, but that is probably a mistake.", "partially correct"
        elif kind == "extra":
            resp, lab = f"The answer is {a2}, or possibly the year 1900.", "partially correct"
        elif kind == "both_true":
            resp, lab = f"The answer is {a1} and {a2}.", "incorrect"
        else:
            resp, lab = "The passages do not say.", "incorrect"
        out.append({"question_ID": rw["question_ID"], "model": ["qwen3", "llama31"][k % 2], "template": "5",
                    "response": resp, "human_label": lab})
    return out


def write_wikicontradict(w: dict, out: Path) -> dict:
    rows = wikicontradict_rows(w)
    path = out / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    wr = csv.DictWriter(buf, fieldnames=WIKICONTRADICT_COLUMNS, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    wr.writeheader()
    for rw in rows:
        wr.writerow({k: rw[k] for k in WIKICONTRADICT_COLUMNS})
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    judgements = human_judgements(rows)
    write_jsonl(out / "wikicontradict" / "human_judgements.jsonl", judgements)
    return {"rows": rows, "judgements": judgements}
