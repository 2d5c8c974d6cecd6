"""Benchmark of the item tables (writes benchmarks/results/items_tables.json and items_tables.md).

The rules ``study1_items`` and ``study2_items`` (``accounting.stage``) at the paper's size, each
on synthetic inputs in the real schemas of the tables the rules read:

1. Study 1: 7,890 FEVEROUS claims (the dev set), a verifier's 4 checkpoints, two provider
   sources (budget ``full``): ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT, the
   CLUSTER_COUNTS that ``study1_accounting`` writes of them (called here to make them), the
   claims (CLAIMS), each source's EVIDENCE rows (the verifier's input, about 380 words, the
   512-token window) and VERIFIER_ANSWERS.
2. Study 2: per dataset (fever, feverous, scifact) 2,000 sampled claims (SciFact: each with 3
   retrieved abstracts, a unit each) x 2 models x 2 sources (bm25, bge) x 2 budgets (short,
   long) x 2 formats (codes, labels) x 6 replicates (greedy 0 and 5 sampled seeds), both
   parsers (strict, lenient) as scoring writes them: per dataset EVIDENCE_INDICATORS, RELEVANT,
   FAMILIES, the sample's CLAIMS and EVIDENCE (about 190 words at the short budget, 750 at the
   long, the short text the start of the long one; SciFact's per abstract, so its texts are an
   upper bound: a real abstract is shorter than 750 words), per model ANSWER_INDICATORS and
   PARSED_ANSWERS (raw responses of at most 16 tokens, strict and lenient labels).

Each stage function runs in a child process (``--repeat`` times; the fastest reported beside all,
as the machine is shared): the child's wall time from start to exit (Python's imports included)
and CPU time (``os.wait4``), the stage function's own seconds, the child's own peak resident
memory (``VmHWM``, ``memory.peak_rss``), the rows and sizes of ``items.parquet`` and
``item_texts.parquet``. Target: each written in 30 s or less (the whole child). Beside them,
for information, the ``account`` command's share: ``prediction_files.items.runs_items``,
``runs_item_texts`` and ``accounting.items.write_item_tables`` on the KILT runs of
``benchmarks/account.py`` (10,444 items x 4 runs per source, F1), timed in a child after the
runs are read.

Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/items_tables.py   (options: --quick, --out,
--repeat, --keep DIR, --no-account, --note). ``results/items_tables_before.*``: the same run of
the code before the item tables were written dataset by dataset (``PYTHONPATH`` naming a copy
of that code's ``src``, ``--note`` saying so).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from account import cpu_pressure, end_to_end, write_kilt_world  # noqa: E402
from items_page import (LABELS, SCIFACT_LABELS, Prose, claim_pool, fitting, orderings,  # noqa: E402
                        write_results)

from evidence_ledger.accounting.stage import study1_accounting  # noqa: E402
from evidence_ledger.tables import write_table  # noqa: E402
from evidence_ledger.tables.evidence import EVIDENCE  # noqa: E402
from evidence_ledger.tables.generation import PARSED  # noqa: E402
from evidence_ledger.tables.ingest import CLAIMS  # noqa: E402
from evidence_ledger.tables.sampling import FAMILIES  # noqa: E402
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT  # noqa: E402
from evidence_ledger.tables.verifier import VERIFIER_ANSWERS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 30.0
DATASETS = ("fever", "feverous", "scifact")
MODELS = ("qwen3", "llama31")
SOURCES = ("bm25", "bge")
BUDGET_WORDS = {"short": 190, "long": 750}
FORMATS = ("codes", "labels")
REPLICATES = (0, 1, 2, 3, 4, 5)  # the greedy answer and 5 sampled seeds
SEED_REPLICATES = [1, 2, 3, 4, 5]
PARSERS = ("strict", "lenient")
ABSTRACTS = 3  # SciFact's retrieved abstracts per claim
STUDY1_SOURCES = ("dcuf", "unifee")
CHECKPOINTS = [1, 2, 3, 4]
STUDY1_WORDS = 380  # the verifier's 512-token input
#: per source and budget the share of gold units whose evidence is eligible
ELIGIBLE = {("bm25", "short"): 0.4, ("bm25", "long"): 0.5, ("bge", "short"): 0.5, ("bge", "long"): 0.6}
#: raw responses a parser cannot read: strict INVALID, lenient one of the labels
UNREADABLE = ("I cannot determine this from the evidence.", "The evidence is unclear; it neither supports nor "
              "refutes the claim.")

#: the child that runs one stage function: argv[1] its name, argv[2] a JSON file of its keyword arguments
STAGE_CHILD = """import json, sys, time
from pathlib import Path
from evidence_ledger.accounting import stage
from evidence_ledger.memory.peak_rss import peak_rss_mib
kwargs = json.loads(Path(sys.argv[2]).read_text())
start = time.perf_counter()
getattr(stage, sys.argv[1])(**kwargs)
print(json.dumps({"stage_s": time.perf_counter() - start, "peak_rss_mib": peak_rss_mib()}))
"""

#: the child that times the account command's item tables: argv[1] the gold, argv[2] the out dir, then the runs
ACCOUNT_CHILD = """import json, sys, time, warnings
from pathlib import Path
from evidence_ledger.accounting.items import write_item_tables
from evidence_ledger.memory.peak_rss import peak_rss_mib
from evidence_ledger.prediction_files.format_registry import get_format
from evidence_ledger.prediction_files.items import runs_item_texts, runs_items
from evidence_ledger.prediction_files.runs import read_runs
fmt = get_format("kilt")
settings = fmt.settings_from_entry({"metric": "f1"}, {"scoring": {}})
files = sys.argv[3:]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    runs = read_runs(fmt, sys.argv[1], files[:len(files) // 2], files[len(files) // 2:], settings)
read_peak = peak_rss_mib()
out = Path(sys.argv[2])
t0 = time.perf_counter()
items = runs_items(runs, system="s", sources=("base", "new"))
t1 = time.perf_counter()
texts = runs_item_texts(runs, system="s", sources=("base", "new"))
t2 = time.perf_counter()
write_item_tables(items, texts, out / "items.parquet", out / "item_texts.parquet")
t3 = time.perf_counter()
print(json.dumps({"runs_items_s": t1 - t0, "runs_item_texts_s": t2 - t1, "write_item_tables_s": t3 - t2,
                  "total_s": t3 - t0, "peak_rss_after_reading_mib": read_peak, "peak_rss_mib": peak_rss_mib(),
                  "items": len(items), "text_rows": len(texts)}))
"""


def claim_ids(n: int, start: int) -> np.ndarray:
    """``n`` numeric claim ids (strings) from ``start``."""
    return np.array([str(start + k) for k in range(n)], dtype=object)


def responses(fmt: str, labels: tuple[str, ...]) -> list[list[str]]:
    """Per label (in order) raw responses that give it: a code (A, B, C) or the label, as models
    write them."""
    if fmt == "codes":
        return [[c, f"{c}.", f"Answer: {c}", f"{c}\n\nThe evidence bears on the claim."] for c in "ABC"[:len(labels)]]
    return [[label, label.title(), f"{label}.", f"The claim: {label}."] for label in labels]


def evidence_texts(prose: Prose, rng: np.random.Generator, unit: str, budgets: dict[str, int],
                   sources=SOURCES) -> dict:
    """Per source and budget the text of one unit's evidence and its unit ids: the units of the
    source's ordering of the unit's pool while they fit the budget's words (the short text the
    start of the long one; the sources order one pool)."""
    pool = claim_pool(prose, rng, 60)
    out = {}
    for source, order in zip(sources, orderings(rng, 60)):
        for budget, words in budgets.items():
            text = fitting(pool, order, words)
            shown = [f"{unit}_{u}" for u in order[:text.count("\n") + 1].tolist()]
            out[(source, budget)] = (text, shown)
    return out


def evidence_table(rows: list[tuple], dataset: str, scored: int, submitted: bool) -> pa.Table:
    """EVIDENCE rows ``(claim_id, doc_id, source, budget, text, unit_ids)``."""
    return pa.table({
        "dataset": [dataset] * len(rows), "claim_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
        "source": [r[2] for r in rows], "budget": [r[3] for r in rows], "visible_unit_ids": [r[5] for r in rows],
        "visible_text": [r[4] for r in rows],
        "tokens_by_tokenizer": [[("qwen3", int(1.3 * (r[4].count(" ") + 1))), ("llama31", int(1.25 * (r[4].count(" ")
                                                                                                        + 1)))]
                                for r in rows],
        "scored_unit_ids": [r[5][:scored] for r in rows], "unresolved": [0] * len(rows),
        "fits_budget": [True] * len(rows), "submitted_unit_ids": [r[5] if submitted else None for r in rows]},
        schema=EVIDENCE.schema)


def claims_table(dataset: str, ids: np.ndarray, texts: list[str], labels: list[str],
                 gold_abstracts: list[list[dict]]) -> pa.Table:
    """CLAIMS rows of the claims (FEVER-style evidence groups of one sentence; SciFact its gold
    abstracts, cited too)."""
    n = len(ids)
    return pa.table({
        "dataset": [dataset] * n, "claim_id": ids.tolist(), "claim": texts, "label": labels,
        "evidence_groups": [[[f"{c}_0"]] if not g else [] for c, g in zip(ids, gold_abstracts)],
        "gold_abstracts": gold_abstracts, "cited_doc_ids": [[a["doc_id"] for a in g] for g in gold_abstracts],
        "source_file": [f"{dataset}_dev.jsonl"] * n, "source_line": list(range(1, n + 1)), "unresolved_ids": [[]] * n},
        schema=CLAIMS.schema)


def answer_grid(units: int, *axes: int) -> list[np.ndarray]:
    """Flat index arrays of the grid ``units x axes...`` (row-major)."""
    return [x.ravel() for x in np.meshgrid(np.arange(units), *(np.arange(n) for n in axes), indexing="ij")]


def model_answers(rng: np.random.Generator, *, dataset: str, model: str, ids: np.ndarray, unit_claim: np.ndarray,
                  unit_doc: np.ndarray, unit_gold: np.ndarray, gold: np.ndarray, labels: tuple[str, ...],
                  rates: tuple[float, float]) -> tuple[pa.Table, pa.Table]:
    """(ANSWER_INDICATORS, PARSED_ANSWERS) of one model: per unit, format, source, budget and
    replicate a response read as the right label with probability ``rates[source]`` (else any
    label, 5% unreadable), scored under both parsers."""
    scifact = dataset == "scifact"
    u, f, a, b, r = answer_grid(len(unit_claim), len(FORMATS), len(SOURCES), len(BUDGET_WORDS), len(REPLICATES))
    n = len(u)
    gold_code = np.array([labels.index(g) for g in gold], dtype=np.int64)[unit_claim[u]]
    right = rng.random(n) < np.asarray(rates)[a]
    code = np.where(right, gold_code, rng.integers(0, len(labels), size=n))
    unreadable = ~right & (rng.random(n) < 0.05)
    label_of = np.asarray(labels + ("INVALID",), dtype=object)
    strict = label_of[np.where(unreadable, len(labels), code)]
    lenient = label_of[code]
    texts = {fmt: responses(fmt, labels) for fmt in FORMATS}
    pick = rng.integers(0, 4, size=n)
    raw = np.array([UNREADABLE[p % 2] if bad else texts[FORMATS[fi]][c][p]
                    for fi, c, p, bad in zip(f.tolist(), code.tolist(), pick.tolist(), unreadable.tolist())],
                   dtype=object)
    claim, doc = unit_claim[u], unit_doc[u]
    budgets = np.asarray(tuple(BUDGET_WORDS), dtype=object)
    common = {"dataset": np.full(n, dataset, dtype=object), "claim_id": ids[claim],
              "doc_id": doc, "format": np.asarray(FORMATS, dtype=object)[f],
              "replicate": np.asarray(REPLICATES, dtype=np.int64)[r]}
    parsed = pa.table({
        "model": np.full(n, model, dtype=object), **common, "source": np.asarray(SOURCES, dtype=object)[a],
        "budget": budgets[b], "seed": np.where(r == 0, 0, 1000 + r).astype(np.int64),
        "request_key": np.char.add(f"{model}-{dataset}-", np.arange(n).astype(str)).astype(object),
        "raw_response": raw, "strict_label": strict, "lenient_label": lenient}).select(PARSED.columns)
    indicators = []
    for parser, predicted in zip(PARSERS, (strict, lenient)):
        correct = (predicted == np.asarray(labels, dtype=object)[gold_code]) & unit_gold[u]
        submitted = ~np.isin(predicted, ["NOINFO", "INVALID"]) if scifact else np.ones(n, dtype=bool)
        indicators.append(pa.table({
            "dataset": common["dataset"], "system": np.full(n, model, dtype=object),
            "format": common["format"], "replicate": common["replicate"], "parser": np.full(n, parser, dtype=object),
            "answer_source": np.asarray(SOURCES, dtype=object)[a], "answer_budget": budgets[b],
            "claim_id": common["claim_id"], "doc_id": doc, "gold_label": np.asarray(gold, dtype=object)[claim],
            "predicted_label": predicted, "label_correct": correct, "submitted": submitted}))
    return pa.concat_tables(indicators).select(ANSWER_INDICATORS.columns), parsed


def write_study2_dataset(root: Path, dataset: str, claims: int, prose: Prose, rng: np.random.Generator) -> dict:
    """One dataset's Study 2 tables under ``root/study2``; the paths by input name."""
    scifact = dataset == "scifact"
    labels = SCIFACT_LABELS if scifact else LABELS
    ids = claim_ids(claims, 1000)
    gold = [labels[g] for g in rng.integers(0, 2 if scifact else 3, size=claims)]
    per = ABSTRACTS if scifact else 1
    unit_claim = np.repeat(np.arange(claims), per)
    unit_doc = np.array([str(4_000_000 + per * k + j) if scifact else "" for k in range(claims) for j in range(per)],
                        dtype=object)
    unit_gold = rng.random(len(unit_claim)) < 0.4 if scifact else np.ones(len(unit_claim), dtype=bool)
    gold_abstracts = [[] for _ in range(claims)]
    if scifact:
        for k, doc, is_gold in zip(unit_claim.tolist(), unit_doc.tolist(), unit_gold.tolist()):
            if is_gold:
                gold_abstracts[k].append({"doc_id": doc, "label": gold[k]})
    base = root / "study2"
    paths = {"samples": base / f"samples/{dataset}/claims.parquet",
             "relevant": base / f"scoring/{dataset}/relevant.parquet",
             "evidence": base / f"scoring/{dataset}/evidence_indicators.parquet",
             "families": base / f"families/{dataset}/families.parquet",
             "evidence_texts": base / f"evidence/{dataset}/evidence.parquet"}
    write_table(claims_table(dataset, ids, prose.sentences(rng, claims, 8, 25), gold, gold_abstracts),
                paths["samples"], CLAIMS)
    n_relevant = np.array([len(g) for g in gold_abstracts]) + (rng.random(claims) < 0.2) if scifact else np.ones(claims)
    write_table(pa.table({"dataset": [dataset] * claims, "claim_id": ids.tolist(), "gold_label": gold,
                          "n_relevant": n_relevant.astype(np.int64)}), paths["relevant"], RELEVANT)
    write_table(pa.table({"dataset": [dataset] * claims, "claim_id": ids.tolist(),
                          "family_id": ids[np.arange(claims) // 3 * 3].tolist()}), paths["families"], FAMILIES)
    u, s, b = answer_grid(len(unit_claim), len(SOURCES), len(BUDGET_WORDS))
    rate = np.array([[ELIGIBLE[(src, bud)] for bud in BUDGET_WORDS] for src in SOURCES])[s, b]
    write_table(pa.table({
        "dataset": [dataset] * len(u), "evidence_source": np.asarray(SOURCES, dtype=object)[s],
        "evidence_budget": np.asarray(tuple(BUDGET_WORDS), dtype=object)[b], "claim_id": ids[unit_claim[u]],
        "doc_id": unit_doc[u], "eligible": unit_gold[u] & (rng.random(len(u)) < rate),
        "n_scored": np.full(len(u), 3 if scifact else 5, dtype=np.int64),
        "unresolved": (rng.random(len(u)) < 0.03).astype(np.int64)}), paths["evidence"], EVIDENCE_INDICATORS)
    rows = []
    for k, doc in zip(unit_claim.tolist(), unit_doc.tolist()):
        for (source, budget), (text, shown) in evidence_texts(prose, rng, doc or ids[k], BUDGET_WORDS).items():
            rows.append((ids[k], doc, source, budget, text, shown))
    write_table(evidence_table(rows, dataset, 3 if scifact else 5, submitted=False), paths["evidence_texts"], EVIDENCE)
    paths["answers"], paths["parsed"] = {}, {}
    for m, model in enumerate(MODELS):
        answers, parsed = model_answers(rng, dataset=dataset, model=model, ids=ids, unit_claim=unit_claim,
                                        unit_doc=unit_doc,
                                        unit_gold=unit_gold, gold=np.asarray(gold, dtype=object), labels=labels,
                                        rates=(0.55 + 0.03 * m, 0.62 + 0.03 * m))
        paths["answers"][model] = base / f"scoring/{model}/{dataset}/answer_indicators.parquet"
        paths["parsed"][model] = base / f"generation/{model}/{dataset}/parsed.parquet"
        write_table(answers, paths["answers"][model], ANSWER_INDICATORS)
        write_table(parsed, paths["parsed"][model], PARSED)
    return paths


def write_study2(root: Path, claims: int, seed: int = 2026) -> dict:
    """Every dataset's Study 2 tables under ``root/study2``; ``study2_items``' keyword arguments
    (without the outputs)."""
    rng = np.random.default_rng(seed)
    prose = Prose(rng)
    paths = {d: write_study2_dataset(root, d, claims, prose, rng) for d in DATASETS}
    per_model = {name: [str(paths[d][name][m]) for d in DATASETS for m in MODELS] for name in ("answers", "parsed")}
    per_dataset = {name: [str(paths[d][name]) for d in DATASETS]
                   for name in ("evidence", "relevant", "families", "samples", "evidence_texts")}
    return {**per_model, **per_dataset, "datasets": list(DATASETS), "models": list(MODELS), "sources": list(SOURCES),
            "budgets": list(BUDGET_WORDS), "formats": list(FORMATS), "parser": "strict",
            "seed_replicates": SEED_REPLICATES}


def write_study1(root: Path, claims: int, seed: int = 2027) -> dict:
    """Study 1's tables under ``root/study1`` (its CLUSTER_COUNTS by ``study1_accounting``);
    ``study1_items``' keyword arguments (without the outputs)."""
    rng = np.random.default_rng(seed)
    prose = Prose(rng)
    base = root / "study1"
    ids = claim_ids(claims, 1)
    gold_code = rng.choice(3, size=claims, p=[0.5, 0.4, 0.1])
    gold = np.asarray(LABELS, dtype=object)[gold_code]
    paths = {name: base / f"{name}.parquet" for name in ("answers", "evidence", "relevant", "claims",
                                                         "verifier_answers", "counts")}
    write_table(claims_table("feverous", ids, prose.sentences(rng, claims, 8, 25), gold.tolist(),
                             [[] for _ in range(claims)]), paths["claims"], CLAIMS)
    write_table(pa.table({"dataset": ["feverous"] * claims, "claim_id": ids.tolist(), "gold_label": gold.tolist(),
                          "n_relevant": np.ones(claims, dtype=np.int64)}), paths["relevant"], RELEVANT)
    k, s = answer_grid(claims, len(STUDY1_SOURCES))
    write_table(pa.table({
        "dataset": ["feverous"] * len(k), "evidence_source": np.asarray(STUDY1_SOURCES, dtype=object)[s],
        "evidence_budget": ["full"] * len(k), "claim_id": ids[k], "doc_id": [""] * len(k),
        "eligible": rng.random(len(k)) < np.array([0.4, 0.6])[s], "n_scored": np.full(len(k), 30, dtype=np.int64),
        "unresolved": (rng.random(len(k)) < 0.05).astype(np.int64)}), paths["evidence"], EVIDENCE_INDICATORS)
    k, c, s = answer_grid(claims, len(CHECKPOINTS), len(STUDY1_SOURCES))
    n = len(k)
    probabilities = rng.dirichlet((1.0, 1.0, 0.3), size=n)
    right = rng.random(n) < np.array([0.6, 0.68])[s]
    predicted_code = np.where(right, gold_code[k], probabilities.argmax(axis=1))
    predicted = np.asarray(LABELS, dtype=object)[predicted_code]
    write_table(pa.table({
        "dataset": ["feverous"] * n, "system": ["verifier"] * n, "format": ["verifier"] * n,
        "replicate": np.asarray(CHECKPOINTS, dtype=np.int64)[c], "parser": ["none"] * n,
        "answer_source": np.asarray(STUDY1_SOURCES, dtype=object)[s], "answer_budget": ["full"] * n,
        "claim_id": ids[k], "doc_id": [""] * n, "gold_label": gold[k], "predicted_label": predicted,
        "label_correct": predicted == gold[k], "submitted": np.ones(n, dtype=bool)}),
        paths["answers"], ANSWER_INDICATORS)
    write_table(pa.table({
        "dataset": ["feverous"] * n, "system": ["verifier"] * n, "checkpoint": np.asarray(CHECKPOINTS)[c],
        "source": np.asarray(STUDY1_SOURCES, dtype=object)[s], "claim_id": ids[k], "predicted_label": predicted,
        "p_supports": probabilities[:, 0], "p_refutes": probabilities[:, 1], "p_nei": probabilities[:, 2]}),
        paths["verifier_answers"], VERIFIER_ANSWERS)
    texts = {source: [] for source in STUDY1_SOURCES}
    for claim in ids.tolist():
        for (source, _), (text, shown) in evidence_texts(prose, rng, claim, {"full": STUDY1_WORDS},
                                                         STUDY1_SOURCES).items():
            texts[source].append((claim, "", source, "full", text, shown))
    evidence_texts_paths = []
    for source, rows in texts.items():
        path = base / f"evidence_{source}.parquet"
        write_table(evidence_table(rows, "feverous", 30, submitted=True), path, EVIDENCE)
        evidence_texts_paths.append(str(path))
    design = {"dataset": "feverous", "system": "verifier", "parser": "none", "sources": list(STUDY1_SOURCES),
              "budget": "full", "checkpoints": CHECKPOINTS, "answer_format": "verifier"}
    scratch = base / "accounting"
    study1_accounting(answers=paths["answers"], evidence=paths["evidence"], relevant=paths["relevant"], **design,
                      estimates_out=scratch / "estimates.parquet", summary_out=scratch / "summary.tsv",
                      counts_out=paths["counts"], coverage_out=scratch / "coverage.parquet",
                      unresolved_scope="window")
    return {**{name: str(paths[name]) for name in ("counts", "answers", "evidence", "claims", "verifier_answers")},
            "evidence_texts": evidence_texts_paths, **design}


def input_mb(kwargs: dict) -> float:
    """MB of the input files named in a stage's keyword arguments."""
    files = [v for v in kwargs.values() if isinstance(v, str) and v.endswith(".parquet")]
    files += [p for v in kwargs.values() if isinstance(v, list) for p in v if str(p).endswith(".parquet")]
    return round(sum(Path(p).stat().st_size for p in files) / 1e6, 2)


def run_stage(name: str, kwargs: dict, out: Path) -> dict:
    """One run of stage function ``name`` in a child process writing under ``out``: its wall and
    CPU time (:func:`account.end_to_end`), the stage function's own seconds and the child's peak
    resident memory, and what it wrote."""
    out.mkdir(parents=True, exist_ok=True)
    items, texts = out / "items.parquet", out / "item_texts.parquet"
    arguments = out / "kwargs.json"
    arguments.write_text(json.dumps(dict(kwargs, items_out=str(items), texts_out=str(texts))))
    printed = out / "child.json"
    measured = end_to_end([sys.executable, "-c", STAGE_CHILD, name, str(arguments)], stdout=printed)
    child = json.loads(printed.read_text().splitlines()[-1])
    return {**measured, "stage_s": round(child["stage_s"], 2), "peak_rss_mib": round(child["peak_rss_mib"], 1),
            "items_rows": pq.ParquetFile(items).metadata.num_rows, "text_rows": pq.ParquetFile(texts).metadata.num_rows,
            "items_mb": round(items.stat().st_size / 1e6, 2), "texts_mb": round(texts.stat().st_size / 1e6, 2)}


def stage_case(name: str, kwargs: dict, out: Path, repeat: int) -> dict:
    """``repeat`` runs of a stage: the fastest (wall) with every wall time and the largest peak."""
    tries = [run_stage(name, kwargs, out / f"run{i}") for i in range(repeat)]
    best = min(tries, key=lambda t: t["wall_s"])
    return dict(best, wall_s_all=[t["wall_s"] for t in tries], peak_rss_mib=max(t["peak_rss_mib"] for t in tries),
                input_mb=input_mb(kwargs), met=best["wall_s"] <= TARGET_S)


def account_case(root: Path, items: int, runs: int) -> dict:
    """The account command's item tables of KILT runs (``items`` x ``runs`` per source), timed
    in a child after it read the runs."""
    gold, files = write_kilt_world(root, items, runs, seed=7)
    printed = root / "child.json"
    measured = end_to_end([sys.executable, "-c", ACCOUNT_CHILD, str(gold), str(root),
                           *map(str, files["base"] + files["new"])], stdout=printed)
    child = json.loads(printed.read_text().splitlines()[-1])
    return {"items": items, "runs": runs, "child_wall_s": measured["wall_s"],
            **{k: round(v, 2) if isinstance(v, float) else v for k, v in child.items()},
            "items_mb": round((root / "items.parquet").stat().st_size / 1e6, 2),
            "texts_mb": round((root / "item_texts.parquet").stat().st_size / 1e6, 2)}


def load_sentence(result: dict) -> str:
    """The machine and how loaded it was while the benchmark ran."""
    machine = result["machine"]
    return (f"Machine: {machine['cpus']} CPUs, Python {machine['python']}, {machine['platform']}; OMP_NUM_THREADS="
            f"{machine['omp_num_threads']}; load average {result['load_average_before']:.2f} before, "
            f"{result['load_average_after']:.2f} after; CPU pressure (PSI some avg60) "
            f"{result.get('cpu_pressure_before')}% before, {result.get('cpu_pressure_after')}% after (0 on an idle "
            "machine).")


def markdown(result: dict) -> str:
    note = [result["note"], ""] if result.get("note") else []
    lines = ["# Item tables benchmark", "", *note, load_sentence(result), "",
             "| rule | size | inputs MB | wall s, whole child (fastest; all) | stage function s | CPU s | peak RSS MiB "
             "| ITEMS rows (MB) | ITEM_TEXTS rows (MB) | target |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, case in result["cases"].items():
        lines.append(f"| `{name}` | {case['size']} | {case['input_mb']} | {case['wall_s']} "
                     f"({', '.join(map(str, case['wall_s_all']))}) | {case['stage_s']} | {case['cpu_s']} | "
                     f"{case['peak_rss_mib']} | {case['items_rows']:,} ({case['items_mb']}) | {case['text_rows']:,} "
                     f"({case['texts_mb']}) | <= {TARGET_S:g} s ({'met' if case['met'] else 'missed'}) |")
    account = result.get("account")
    if account:
        lines += ["", f"The `account` command's share, KILT runs of {account['items']:,} items x {account['runs']} "
                      "runs per source (seconds in a child, after reading the runs):", "",
                  "| runs_items | runs_item_texts | write_item_tables | total | ITEMS rows (MB) | ITEM_TEXTS rows (MB) "
                  "| peak RSS MiB (after reading) |", "|---|---|---|---|---|---|---|",
                  f"| {account['runs_items_s']} | {account['runs_item_texts_s']} | {account['write_item_tables_s']} | "
                  f"{account['total_s']} | {account['items']:,} ({account['items_mb']}) | {account['text_rows']:,} "
                  f"({account['texts_mb']}) | {account['peak_rss_mib']} ({account['peak_rss_after_reading_mib']}) |"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the claims (a smoke run, not the target)")
    parser.add_argument("--repeat", type=int, default=3, help="child runs per rule (default 3)")
    parser.add_argument("--no-account", action="store_true", help="leave out the account command's share")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "items_tables"),
                        help="results path without extension (.json and .md are written)")
    parser.add_argument("--keep", default=None, help="build in this directory and keep it (default: a temporary one)")
    parser.add_argument("--note", default="", help="a sentence the report opens with (e.g. which code ran)")
    args = parser.parse_args(argv)
    scale = 10 if args.quick else 1
    study1_claims, study2_claims, kilt_items = 7890 // scale, 2000 // scale, 10444 // scale
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "load_average_before": os.getloadavg()[0], "cpu_pressure_before": cpu_pressure(), "quick": args.quick,
              "note": args.note, "cases": {}}
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="items-tables-"))
    try:
        started = time.perf_counter()
        inputs = {"study1_items": write_study1(root, study1_claims), "study2_items": write_study2(root, study2_claims)}
        result["inputs_written_s"] = round(time.perf_counter() - started, 1)
        sizes = {"study1_items": f"{study1_claims:,} claims x {len(CHECKPOINTS)} checkpoints",
                 "study2_items": f"3 datasets x {study2_claims:,} claims x 2 models x 2 budgets x 2 formats x 5 seeds"}
        for name, kwargs in inputs.items():
            result["cases"][name] = dict(stage_case(name, kwargs, root / "out" / name, args.repeat), size=sizes[name])
            print(name, json.dumps(result["cases"][name]), flush=True)
        if not args.no_account:
            (root / "account").mkdir()
            result["account"] = account_case(root / "account", kilt_items, 4)
            print("account", json.dumps(result["account"]), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    result.update(load_average_after=os.getloadavg()[0], cpu_pressure_after=cpu_pressure())
    if not args.quick:  # a smoke run keeps the results of the last full one
        write_results(Path(args.out), result, markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
