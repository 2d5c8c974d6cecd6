"""The embedded demo data (resources/demo/): reproducible, in the official formats, self-consistent.

Checks that regenerating gives the committed bytes, that label counts match the table in
resources/demo/README.md, and that every gold evidence id resolves to a page line, a FEVEROUS
element or an abstract sentence.
"""
import collections
import csv
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[3] / "resources" / "demo"
GENERATED_DIRS = ["fever", "feverous", "scifact", "wikicontradict", "conflict_qa"]
FEVEROUS_ID = re.compile(r"^(?P<title>.+?)_(?P<kind>sentence|section|table_caption|header_cell|cell|item|title)"
                         r"(?:_(?P<nums>\d+(?:_\d+)*))?$")


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def scifact_label(claim: dict) -> str:
    labels = {s["label"] for sets in claim["evidence"].values() for s in sets}
    return labels.pop() if labels else "NOINFO"


def demo_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for d in GENERATED_DIRS for p in sorted((root / d).rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def fever_lines() -> dict[str, list[str]]:
    pages = read_jsonl(DEMO / "fever" / "wiki-pages" / "wiki-001.jsonl")
    return {p["id"]: [row.split("\t")[1] for row in p["lines"].split("\n")] for p in pages}


@pytest.fixture(scope="module")
def feverous_pages() -> dict[str, dict]:
    return {p["title"]: p for p in read_jsonl(DEMO / "feverous" / "pages.jsonl")}


def test_regeneration_is_byte_identical(tmp_path):
    src = str(DEMO.parents[1] / "src")  # this checkout's generator, not another installed copy
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-m", "evidence_ledger.demo.data", "--out", str(tmp_path)], check=True, env=env)
    committed, regenerated = demo_files(DEMO), demo_files(tmp_path)
    assert sorted(regenerated) == sorted(committed)
    changed = [name for name in committed if committed[name] != regenerated[name]]
    assert changed == []


def label_counts() -> dict[str, tuple[int, dict]]:
    """file -> (records, {label: count}) computed from the data."""
    out = {}
    for name, skip in (("fever/paper_dev.jsonl", 0), ("fever/train.jsonl", 0), ("feverous/dev.jsonl", 1),
                       ("feverous/train.jsonl", 1), ("feverous/pool.jsonl", 1)):
        recs = read_jsonl(DEMO / name)[skip:]
        out[name] = (len(recs), collections.Counter(r["label"] for r in recs))
    for name in ("scifact/claims_dev.jsonl", "scifact/claims_train.jsonl"):
        recs = read_jsonl(DEMO / name)
        out[name] = (len(recs), collections.Counter(scifact_label(r) for r in recs))
    with open(DEMO / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out["wikicontradict/WikiContradict_dataset_v1_rag_qa.csv"] = (
        len(rows), collections.Counter(r["contradictType"] for r in rows))
    judg = read_jsonl(DEMO / "wikicontradict" / "human_judgements.jsonl")
    out["wikicontradict/human_judgements.jsonl"] = (len(judg), collections.Counter(j["human_label"] for j in judg))
    return out


def test_label_counts_match_readme_table():
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    documented = {}
    for line in readme.splitlines():
        m = re.match(r"^\| `([^`]+)` \| (\d+) \| (.+) \|$", line)
        if m:
            documented[m.group(1)] = (int(m.group(2)),
                                      {k.strip(): int(v) for k, v in (part.rsplit(" ", 1) for part in m.group(3).split(", "))})
    actual = label_counts()
    assert set(documented) == set(actual)
    for name, (n, counts) in actual.items():
        assert documented[name] == (n, dict(counts)), name


def test_fever_label_counts_are_roughly_balanced():
    n, counts = label_counts()["fever/paper_dev.jsonl"]
    assert n == 100
    assert counts == {"SUPPORTS": 34, "REFUTES": 33, "NOT ENOUGH INFO": 33}


def test_fever_gold_evidence_resolves_to_page_lines(fever_lines):
    for name in ("paper_dev.jsonl", "train.jsonl"):
        for claim in read_jsonl(DEMO / "fever" / name):
            for group in claim["evidence"]:
                for ann, ev, page, line in group:
                    if claim["label"] == "NOT ENOUGH INFO":
                        assert (ev, page, line) == (None, None, None)
                        continue
                    assert page in fever_lines, (claim["id"], page)
                    assert 0 <= line < len(fever_lines[page]), (claim["id"], page, line)


def test_fever_supported_single_sentence_claims_state_numbers_of_their_gold_line(fever_lines):
    """Every number in a SUPPORTS claim with one-sentence evidence appears in that sentence."""
    checked = 0
    for claim in read_jsonl(DEMO / "fever" / "paper_dev.jsonl") + read_jsonl(DEMO / "fever" / "train.jsonl"):
        if claim["label"] != "SUPPORTS" or " not " in claim["claim"] or len(claim["evidence"][0]) != 1:
            continue
        _, _, page, line = claim["evidence"][0][0]
        for number in re.findall(r"\d[\d,]*", claim["claim"]):
            assert number in fever_lines[page][line], (claim["claim"], fever_lines[page][line])
            checked += 1
    assert checked >= 10


def test_fever_dev_has_multi_sentence_groups_alternatives_mutations_and_duplicates():
    dev = read_jsonl(DEMO / "fever" / "paper_dev.jsonl")
    assert sum(1 for c in dev if any(len(g) > 1 for g in c["evidence"])) >= 10
    assert sum(1 for c in dev if c["label"] != "NOT ENOUGH INFO" and len(c["evidence"]) > 1) >= 5
    assert sum(1 for c in dev if " not " in c["claim"]) >= 5
    norm = collections.Counter(re.sub(r"[^\w ]", "", c["claim"].casefold()).split().__str__() for c in dev)
    assert sum(1 for k, v in norm.items() if v > 1) == 2


def resolve_feverous(eid: str, pages: dict) -> bool:
    m = FEVEROUS_ID.match(eid)
    if not m or m.group("title") not in pages:
        return False
    page, kind, nums = pages[m.group("title")], m.group("kind"), m.group("nums")
    if kind == "title":
        return nums is None
    if kind in ("sentence", "section"):
        return f"{kind}_{nums}" in page
    if kind == "table_caption":
        return "caption" in page.get(f"table_{nums}", {})
    if kind == "item":
        k, _ = nums.split("_")
        return any(it["id"] == f"item_{nums}" for it in page.get(f"list_{k}", {}).get("list", []))
    t, r, c = (int(x) for x in nums.split("_"))
    rows = page.get(f"table_{t}", {}).get("table", [])
    if r >= len(rows) or c >= len(rows[r]):
        return False
    cell = rows[r][c]
    return cell["id"] == f"{kind}_{nums}" and cell["is_header"] == (kind == "header_cell")


def test_feverous_evidence_and_context_ids_resolve(feverous_pages):
    for name in ("dev.jsonl", "train.jsonl", "pool.jsonl"):
        records = read_jsonl(DEMO / "feverous" / name)
        assert records[0]["id"] == "" and records[0]["claim"] == "" and records[0]["evidence"] == []
        for claim in records[1:]:
            assert claim["evidence"], claim["id"]  # NEI claims also carry evidence in FEVEROUS
            for ev in claim["evidence"]:
                assert set(ev["context"]) == set(ev["content"])
                for eid in ev["content"] + [c for ctx in ev["context"].values() for c in ctx]:
                    assert resolve_feverous(eid, feverous_pages), (claim["id"], eid)


def test_feverous_db_holds_exactly_the_pages_of_pages_jsonl():
    lines = (DEMO / "feverous" / "pages.jsonl").read_text(encoding="utf-8").splitlines()
    con = sqlite3.connect(DEMO / "feverous" / "feverous_wikiv1.db")
    try:
        rows = con.execute("SELECT id, data FROM wiki ORDER BY rowid").fetchall()
    finally:
        con.close()
    assert [r[0] for r in rows] == [json.loads(line)["title"] for line in lines]
    assert [r[1] for r in rows] == lines
    assert len(rows) == 40


def test_feverous_pages_mix_infoboxes_tables_and_lists(feverous_pages):
    kinds = collections.Counter()
    for page in feverous_pages.values():
        for el in page["order"]:
            kinds[el.split("_")[0] if not el.startswith("table") else page[el]["type"]] += 1
    assert kinds["infobox"] == 40 and kinds["table"] == 40 and kinds["list"] >= 30


def test_feverous_reserved_ids_are_pool_claims_with_family_members_in_the_pool():
    pool = read_jsonl(DEMO / "feverous" / "pool.jsonl")[1:]
    by_id = {c["id"]: c for c in pool}
    reserved = [int(x) for x in (DEMO / "feverous" / "reserved_ids.txt").read_text().split()]
    assert len(reserved) == 4

    def shape(text):  # claim with digits and negation removed, casefolded
        return re.sub(r"\b(not|does|do)\b|\d[\d,]*|[^\w ]", "", text.casefold()).split()

    for rid in reserved:
        assert rid in by_id
        partners = [c for c in pool if c["id"] != rid and shape(c["claim"]) == shape(by_id[rid]["claim"])]
        assert partners, by_id[rid]["claim"]


def test_scifact_rationales_resolve_to_abstract_sentences():
    corpus = {d["doc_id"]: d for d in read_jsonl(DEMO / "scifact" / "corpus.jsonl")}
    assert len(corpus) == 150
    for name in ("claims_dev.jsonl", "claims_train.jsonl"):
        for claim in read_jsonl(DEMO / "scifact" / name):
            assert claim["cited_doc_ids"] and all(d in corpus for d in claim["cited_doc_ids"])
            for doc, sets in claim["evidence"].items():
                assert int(doc) in claim["cited_doc_ids"]
                for s in sets:
                    assert s["label"] in ("SUPPORT", "CONTRADICT")
                    assert all(0 <= i < len(corpus[int(doc)]["abstract"]) for i in s["sentences"])


def test_scifact_dev_has_citation_families():
    dev = read_jsonl(DEMO / "scifact" / "claims_dev.jsonl")
    shared = collections.Counter(d for c in dev for d in c["cited_doc_ids"])
    assert sum(1 for n in shared.values() if n > 1) >= 3


def test_wikicontradict_csv_has_the_release_columns_and_derived_fields():
    with open(DEMO / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv", encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert reader.fieldnames == ["question_ID", "question", "context1", "context2", "answer1", "answer2",
                                 "contradictType", "samepassage", "merged_context", "ref_answer",
                                 "WikipediaArticleTitle", "url"]
    for r in rows:
        expected = r["context1"] if r["samepassage"] == "Same" else r["context1"] + "\n" + r["context2"]
        assert r["merged_context"] == expected
        assert r["ref_answer"] == r["answer1"] + "|" + r["answer2"]
    assert sorted(int(r["question_ID"]) for r in rows) == list(range(1, 21))
    assert {r["samepassage"] for r in rows} == {"Same", "Different"}


def test_wikicontradict_judgements_refer_to_rows():
    with open(DEMO / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv", encoding="utf-8", newline="") as fh:
        ids = {int(r["question_ID"]) for r in csv.DictReader(fh)}
    judg = read_jsonl(DEMO / "wikicontradict" / "human_judgements.jsonl")
    assert all(j["question_ID"] in ids and j["template"] == "5" for j in judg)


def squad_norm(s: str) -> str:
    s = "".join(ch for ch in s.lower() if ch.isalnum() or ch.isspace())
    return " ".join(w for w in s.split() if w not in ("a", "an", "the"))


def test_reader_runs_give_non_empty_aig_and_air_subsets():
    runs = {k: read_jsonl(DEMO / "conflict_qa" / "reader_runs" / f"{k}.jsonl")
            for k in ("hybrid", "generated_only", "retrieved_only", "closed_book")}
    assert len({len(v) for v in runs.values()}) == 1
    unknown = {"unknown", "i dont know", "im not sure"}
    subsets = collections.Counter()
    filtered = collections.Counter()
    for h, g, r, c in zip(*runs.values()):
        assert h["question"] == g["question"] == r["question"] == c["question"]
        H, G, R, C = (squad_norm(x["response"][0]) for x in (h, g, r, c))
        if {H, G, R} & unknown:
            filtered["unknown"] += 1
            continue
        if C in (G, R):
            filtered["closed_book"] += 1
            continue
        gold = {squad_norm(a) for a in h["answer"]}
        if (G in gold) != (R in gold):
            subsets["AIG" if G in gold else "AIR"] += 1
    assert subsets["AIG"] > 0 and subsets["AIR"] > 0
    assert filtered["unknown"] > 0 and filtered["closed_book"] > 0


def test_conflict_items_have_wrong_generated_context_in_about_half():
    items = read_jsonl(DEMO / "conflict_qa" / "nqcc.jsonl")
    assert len(items) == 40 and len(read_jsonl(DEMO / "conflict_qa" / "tqacc.jsonl")) == 25
    wrong_gen = sum(1 for it in items if it["generated_answer"] not in it["answer"])
    wrong_ret = sum(1 for it in items if it["retrieved_answer"] not in it["answer"])
    assert 15 <= wrong_gen <= 25 and wrong_ret >= 8
    assert all(2 <= len(it["generated_passage"]) <= 3 for it in items)


def test_bm25_finds_most_but_not_all_gold_evidence():
    """BM25 sentence ranking within the top-5 pages finds complete gold groups often, not always."""
    rank_bm25 = pytest.importorskip("rank_bm25")
    tok = lambda s: re.findall(r"\w+", s.lower())  # noqa: E731
    pages = read_jsonl(DEMO / "fever" / "wiki-pages" / "wiki-001.jsonl")
    page_index = rank_bm25.BM25Okapi([tok(p["id"].replace("_", " ") + " " + p["text"]) for p in pages])
    hit = total = 0
    for claim in read_jsonl(DEMO / "fever" / "paper_dev.jsonl"):
        if claim["label"] == "NOT ENOUGH INFO":
            continue
        q = tok(claim["claim"])
        scores = page_index.get_scores(q)
        top = [pages[i] for i in sorted(range(len(pages)), key=lambda i: (-scores[i], i))[:5]]
        units = [(p["id"], int(row.split("\t")[0]), tok(row.split("\t")[1])) for p in top for row in p["lines"].split("\n")]
        unit_scores = rank_bm25.BM25Okapi([u[2] for u in units]).get_scores(q)
        first5 = {units[i][:2] for i in sorted(range(len(units)), key=lambda i: (-unit_scores[i], i))[:5]}
        total += 1
        hit += any(all((page, line) in first5 for _, _, page, line in g) for g in claim["evidence"])
    assert 0.6 <= hit / total <= 0.95


def test_demo_stays_small():
    size = sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file())
    assert size < 3 * 1024 * 1024
