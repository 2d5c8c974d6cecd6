"""Scale benchmark: the data path of the pipeline on synthetic FEVER / FEVEROUS corpora of growing size.

For each corpus and size: generate a release in the official format (``synthetic_wiki.py``:
deterministic, Zipf vocabulary, realistic sentences per page and words per sentence, claims
whose gold evidence resolves), then run the rule functions of the data path, each in its own
process:

  ingest    datasets.stage.ingest_claim_benchmark (streams the wiki into UNITS / DOCUMENTS)
  index     retrieval.stage.index_corpus          (bm25s page index, lucene, k1 1.5, b 0.75)
  retrieve  retrieval.stage.retrieve              (top 5 pages for every claim, default 2,000)
  pools     retrieval.stage.build_pools           (100 units per claim)
  order_bm25 retrieval.stage.order_bm25           (rank_bm25 within each pool)
  order_bge  retrieval.stage.order_bge            (cross-encoder over each pool: a randomly
                                                   initialised stand-in of the reranker's
                                                   tokenizer + XLM-R head, built locally, CPU)
  evidence  evidence.stage.assemble_evidence      (both orderings x both budgets x controls,
                                                   budgets counted by two stand-in BPE tokenizers)

and record per step the CPU time (user + system, ``os.wait4``'s rusage of the child), the peak
RSS of that process (its own ``VmHWM``, which the child reports on exit), its wall time, and
the size of its inputs. A least-squares line per corpus step (peak RSS and CPU against pages,
and against input MB) is extrapolated to the real corpora (FEVER 5,416,537 pages; FEVEROUS ~5.4M pages). Results are written to
``--out`` (default ``benchmarks/results/scale.json``) after every step, so a long run can be
stopped at any point.

    PYTHONPATH=src python benchmarks/scale.py --fever-pages 10000 50000 200000 \\
        --feverous-pages 5000 20000 60000 --work /tmp/scale
    python benchmarks/scale.py table [benchmarks/results/scale.json]   # the markdown of docs/scale.md
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent
REAL_PAGES = {"fever": 5_416_537, "feverous": 5_400_000}
STEPS = ("ingest", "index", "retrieve", "pools", "order_bm25", "order_bge", "evidence")
CORPUS_STEPS = ("ingest", "index", "retrieve", "pools")  # the fits against pages / input MB
POOL_KINDS = ["sentence", "cell", "header_cell", "table_caption", "item"]


def tree_mb(path) -> float:
    """Size of a file, or of every file under a directory, in MB (10^6 bytes)."""
    path = Path(path)
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6
    return path.stat().st_size / 1e6 if path.exists() else 0.0


def cached_release(writer, corpus: str, pages: int, claims: int, seed: int, cache) -> dict:
    """The release dict of ``writer(dir, pages, n_claims=claims, seed=seed)``, generated into
    ``cache/<corpus>-<pages>-c<claims>-s<seed>/`` once and reused afterwards (generation is
    deterministic; ``release.json``, written last, marks a finished one)."""
    where = Path(cache) / f"{corpus}-{pages}-c{claims}-s{seed}"
    done = where / "release.json"
    if done.exists():
        return json.loads(done.read_text())
    shutil.rmtree(where, ignore_errors=True)
    release = writer(where / "release", pages, n_claims=claims, seed=seed)
    done.write_text(json.dumps(release) + "\n")
    return release


def paper_settings() -> dict:
    """The settings of the ordering and evidence rules in ``config/defaults.yaml`` (the paper's
    values): pool BM25, reranker batch / length / claims per call, budgets, the scorer caps
    (``scoring``, whose nulls mean the benchmark registry's caps), controls and swap seed."""
    from evidence_ledger.evidence.budget import budget_tokenizer_models
    from evidence_ledger.config.layers import read_layer

    d = read_layer(HERE.parent / "config" / "defaults.yaml")
    return {"pool_bm25": d["retrieval"]["pool_bm25"], "reranker": d["retrieval"]["reranker"],
            "evidence": d["evidence"], "scoring": d["scoring"], "budget_tokenizers": budget_tokenizer_models(d)}


def build_stand_in_models(tables: Path, models: Path, tokenizer_names) -> None:
    """Locally built stand-ins for the rules that load models, built once per release in a child
    process (so this process's own memory stays small): a randomly initialised tiny
    cross-encoder (``models/reranker``; the demo reranker's builder with no training step) and one
    byte-level BPE tokenizer per budget tokenizer (``models/<name>``, the demo's chat
    architectures). Their tokenizers are trained on the claims and, per claim, the first two
    passages of its pool (the texts the rules tokenize), so a scored pair is about as many
    tokens as with a real tokenizer, not split into characters. The weights do not matter here:
    the memory and CPU of the data around the models are what is measured (the real reranker
    runs on the GPU; ``benchmarks/reranker.py --size base`` measures its shape)."""
    if (models / "done").exists():
        return
    kwargs = {"tables": str(tables), "models": str(models), "tokenizer_names": list(tokenizer_names)}
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "stand-ins", json.dumps(kwargs)], check=True,
                   env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"),
                                                                    os.environ.get("PYTHONPATH", "")])))


def stand_in_models(tables: str, models: str, tokenizer_names: list) -> None:
    """The ``stand-ins`` subcommand: :func:`build_stand_in_models`'s work."""
    from evidence_ledger.demo.reranker import build_tiny_reranker
    from evidence_ledger.demo.tiny_models import ARCHS, train_tokenizer
    from evidence_ledger.retrieval.stage import _pool_inputs

    tables, models = Path(tables), Path(models)
    pools, claims, passages = _pool_inputs(tables / "pools.parquet", tables / "retrieved.parquet",
                                           tables / "units.parquet")
    examples = [{"claim": claims[p["claim_id"]], "positives": [passages[p["unit_ids"][0]]], "same_doc": [],
                 "candidates": [passages[u] for u in p["unit_ids"][1:2]]} for p in pools if len(p["unit_ids"]) > 1]
    build_tiny_reranker(examples, models / "reranker", steps=0, seed=0)
    texts = [t for e in examples for t in [e["claim"], *e["positives"], *e["candidates"]]]
    for name in tokenizer_names:
        train_tokenizer(ARCHS[name], texts).save_pretrained(models / name)
    (models / "done").write_text("")


def step_calls(corpus: str, release: dict, work: Path) -> dict:
    """Per step: (stage function path, keyword arguments, input paths) for one generated release."""
    out = work / "tables"
    units, documents, claims = out / "units.parquet", out / "documents.parquet", out / "claims_dev.parquet"
    index, retrieved, pools = out / "index", out / "retrieved.parquet", out / "pools.parquet"
    bm25, bge, evidence = out / "ordering_bm25.parquet", out / "ordering_bge.parquet", out / "evidence.parquet"
    models, settings = work / "models", paper_settings()
    rr = settings["reranker"]
    ev = settings["evidence"]
    reranker = {"local_dir": str(models / "reranker"), "batch_size": rr["batch_size"], "fp16": rr["fp16"],
                "max_length": rr["max_length"]}
    tokenizers = {name: {"path": str(models / name), "revision": None} for name in settings["budget_tokenizers"]}
    from evidence_ledger.benchmark_registry import get_benchmark
    from evidence_ledger.vocabulary import FEVEROUS_CELL_LIKE_TYPES

    prefix_non_cell, prefix_cell = get_benchmark(corpus).scored_prefix(settings["scoring"])
    return {
        "ingest": ("evidence_ledger.datasets.stage:ingest_claim_benchmark",
                   {"benchmark": corpus, "claim_files": [release["claims"]], "corpus": release["wiki"],
                    "claim_tables": [str(claims)], "units": str(units), "documents": str(documents),
                    "splits": ["dev"], "on_unresolved": "error", "data_root": str(Path(release["claims"]).parent)},
                   [release["wiki"], release["claims"]]),
        "index": ("evidence_ledger.retrieval.stage:index_corpus",
                  {"documents": str(documents), "index": str(index), "method": "lucene", "k1": 1.5, "b": 0.75},
                  [str(documents)]),
        "retrieve": ("evidence_ledger.retrieval.stage:retrieve",
                     {"index": str(index), "claims": [str(claims)], "units": str(units),
                      "retrieved": str(retrieved), "k": 5},
                     [str(index), str(claims), str(units)]),
        "pools": ("evidence_ledger.retrieval.stage:build_pools",
                  {"retrieved": str(retrieved), "units": str(units), "pools": str(pools), "max_units": 100,
                   "pool_kinds": POOL_KINDS},
                  [str(retrieved), str(units)]),
        "order_bm25": ("evidence_ledger.retrieval.stage:order_bm25",
                       {"pools": str(pools), "retrieved": str(retrieved), "units": str(units),
                        "ordering": str(bm25), **settings["pool_bm25"]},
                       [str(pools), str(retrieved), str(units)]),
        "order_bge": ("evidence_ledger.retrieval.stage:order_bge",
                      {"pools": str(pools), "retrieved": str(retrieved), "units": str(units),
                       "ordering": str(bge), "reranker": reranker, "claims_per_call": rr["claims_per_call"]},
                      [str(pools), str(retrieved), str(units)]),
        "evidence": ("evidence_ledger.evidence.stage:assemble_evidence",
                     {"bm25": str(bm25), "bge": str(bge), "retrieved": str(retrieved), "claims": [str(claims)],
                      "units": str(units), "evidence": str(evidence), "dataset": corpus, "tokenizers": tokenizers,
                      "budgets": dict(ev["budgets"]), "prefix_non_cell": prefix_non_cell,
                      "prefix_cell": prefix_cell, "cell_like_kinds": list(FEVEROUS_CELL_LIKE_TYPES),
                      "per_document": False, "controls": list(ev["controls"]), "swap_seed": ev["swap_seed"]},
                     [str(bm25), str(bge), str(retrieved), str(claims), str(units)]),
    }


OWN_PEAK_MARK = "own peak RSS KiB:"
OWN_PEAK = re.compile(re.escape(OWN_PEAK_MARK) + r" (\d+)")
PASS_PEAKS = re.compile(r"(pass [12]): .*peak RSS(?: so far)? (\d+) MiB")
PASS2_BLOCKS = re.compile(r"pass 2: \d+ non-zeros in (\d+) blocks of at most (\d+) bytes")


def run_step(function: str, kwargs: dict, block_bytes: int | None = None) -> dict:
    """Run one stage function in a child process; its CPU seconds, wall seconds, peak RSS (MiB:
    the child's own ``VmHWM``, which it reports on exit; the rusage ``ru_maxrss`` of a child
    started by vfork + exec includes this parent's peak, so it is kept apart as ``ru_maxrss_mib``),
    the peak RSS its log reports at the end of the index's passes (``pass_peak_rss_mib``) and
    the index's pass-2 blocks and block budget (``pass2_blocks``, ``block_bytes``).
    ``block_bytes``: the index's ``lean_index.PASS2_BLOCK_BYTES`` in the child (default: its own)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    start = time.monotonic()
    argv = [sys.executable, str(Path(__file__).resolve()), "step", function, json.dumps(kwargs)]
    proc = subprocess.Popen(argv + ([str(block_bytes)] if block_bytes else []),
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{function} failed ({proc.returncode}):\n{stderr.decode(errors='replace')[-3000:]}")
    text = stderr.decode(errors="replace")
    own = OWN_PEAK.search(text)
    if own is None:
        raise RuntimeError(f"{function}: the child did not report its own peak RSS:\n{text[-3000:]}")
    out = {"cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "wall_s": round(wall, 2),
           "peak_rss_mib": round(int(own.group(1)) / 1024, 1),
           "ru_maxrss_mib": round(usage.ru_maxrss / 1024, 1)}
    passes = {m.group(1).replace(" ", ""): float(m.group(2)) for m in PASS_PEAKS.finditer(text)}
    if passes:
        out["pass_peak_rss_mib"] = passes
    blocks = PASS2_BLOCKS.search(text)
    if blocks:
        out["pass2_blocks"], out["block_bytes"] = int(blocks.group(1)), int(blocks.group(2))
    return out


def index_size(index_dir) -> dict:
    """Vocabulary size (bm25s' count, as in ``meta.json``) and non-zeros of a saved index."""
    import numpy as np

    meta = json.loads((Path(index_dir) / "meta.json").read_text())
    indptr = np.load(Path(index_dir) / "indptr.csc.index.npy", mmap_mode="r")
    return {"vocab_size": meta["vocab_size"], "index_nnz": int(indptr[-1])}


def child(function: str, kwargs_json: str, block_bytes: str | None = None) -> None:
    """The ``step`` subcommand: import and call ``module:function(**kwargs)`` (with the index's
    pass-2 block budget set to ``block_bytes`` when given)."""
    import importlib
    import logging

    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    if block_bytes:
        from evidence_ledger.retrieval import lean_index
        lean_index.PASS2_BLOCK_BYTES = int(block_bytes)
    module, _, name = function.partition(":")
    getattr(importlib.import_module(module), name)(**json.loads(kwargs_json))
    from evidence_ledger.memory.peak_rss import own_peak_rss_kib

    sys.stderr.write(f"{OWN_PEAK_MARK} {own_peak_rss_kib()}\n")


def linear_fit(xs: list[float], ys: list[float]) -> dict:
    """Least-squares ``y = a + b x`` (``a``, ``b``; ``b`` 0 with a single point)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return {"a": my - b * mx, "b": b}


def fits(results: dict) -> dict:
    """Per corpus and step: fits of peak RSS (MiB) and CPU (s) on pages and on input MB, and the
    values extrapolated to the real corpus (its page count; input MB scaled with pages)."""
    out = {}
    for corpus, runs in results["runs"].items():
        for step in CORPUS_STEPS:  # the others follow the claims, not the corpus
            sizes = sorted((r for r in runs if step in r["steps"]), key=lambda r: r["pages"])
            if len(sizes) < 2:
                continue
            pages = [r["pages"] for r in sizes]
            mb = [r["steps"][step]["input_mb"] for r in sizes]
            rss = [r["steps"][step]["peak_rss_mib"] for r in sizes]
            cpu = [r["steps"][step]["cpu_s"] for r in sizes]
            f_rss, f_cpu, f_rss_mb, f_cpu_mb = (linear_fit(pages, rss), linear_fit(pages, cpu), linear_fit(mb, rss),
                                                linear_fit(mb, cpu))
            real = REAL_PAGES[corpus]
            out.setdefault(corpus, {})[step] = {
                "rss_mib_vs_pages": f_rss, "cpu_s_vs_pages": f_cpu,
                "rss_mib_vs_input_mb": f_rss_mb, "cpu_s_vs_input_mb": f_cpu_mb,
                "input_mb_per_page": mb[-1] / pages[-1],
                "real_pages": real,
                "extrapolated_peak_rss_gib": round((f_rss["a"] + f_rss["b"] * real) / 1024, 2),
                "extrapolated_cpu_min": round((f_cpu["a"] + f_cpu["b"] * real) / 60, 1),
            }
    return out


def least_squares(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Coefficients ``c`` minimising ``sum((rows @ c - ys) ** 2)`` (``numpy.linalg.lstsq``)."""
    import numpy as np

    return [float(c) for c in np.linalg.lstsq(np.asarray(rows, float), np.asarray(ys, float), rcond=None)[0]]


def power_fit(xs: list[float], ys: list[float]) -> dict:
    """``y = c x^alpha`` by least squares on logarithms (``c``, ``alpha``)."""
    import math

    f = linear_fit([math.log(x) for x in xs], [math.log(y) for y in ys])
    return {"c": math.exp(f["a"]), "alpha": f["b"]}


def component_fits(results: dict) -> dict:
    """The index's peak RSS as ``floor + per_nnz x non-zeros + per_term x terms`` (MiB; one
    least-squares fit over every run of both corpora that recorded its index size), and per
    corpus the vocabulary (power law in pages) and non-zeros (linear in pages) extrapolated to
    the real page count with the RSS they predict. ``{}`` with fewer than three such runs."""
    runs = [(corpus, r) for corpus, rs in results["runs"].items() for r in rs
            if "index_nnz" in r and "index" in r["steps"]]
    if len(runs) < 3:
        return {}
    floor, per_nnz, per_term = least_squares([[1.0, r["index_nnz"], r["vocab_size"]] for _, r in runs],
                                             [r["steps"]["index"]["peak_rss_mib"] for _, r in runs])
    # pass 1 (the larger phase on these corpora) holds the vocabulary: peak against terms alone
    by_terms = linear_fit([r["vocab_size"] for _, r in runs], [r["steps"]["index"]["peak_rss_mib"] for _, r in runs])
    out = {"index_rss_mib": {"floor_mib": floor, "bytes_per_nnz": per_nnz * 2**20, "bytes_per_term": per_term * 2**20,
                             "runs": len(runs)},
           "index_rss_mib_vs_terms": {"floor_mib": by_terms["a"], "bytes_per_term": by_terms["b"] * 2**20}}
    for corpus in results["runs"]:
        mine = sorted((r for c, r in runs if c == corpus), key=lambda r: r["pages"])
        if len(mine) < 2:
            continue
        pages = [r["pages"] for r in mine]
        vocab = power_fit(pages, [r["vocab_size"] for r in mine])
        nnz = linear_fit(pages, [r["index_nnz"] for r in mine])
        real = REAL_PAGES[corpus]
        v_real, n_real = vocab["c"] * real ** vocab["alpha"], nnz["a"] + nnz["b"] * real
        out[corpus] = {"vocab_vs_pages": vocab, "nnz_vs_pages": nnz, "real_pages": real,
                       "extrapolated_vocab": round(v_real), "extrapolated_nnz": round(n_real),
                       "extrapolated_index_rss_gib": round((floor + per_nnz * n_real + per_term * v_real) / 1024, 2),
                       "extrapolated_index_rss_gib_vs_terms": round((by_terms["a"] + by_terms["b"] * v_real) / 1024, 2)}
    return out


# The index's buffers (docs/scale.md, "Memory model"): bytes held in each pass
PASS1_BYTES_PER_TERM = 100   # vocabulary hash table + term strings + document frequencies
PASS2_BYTES_PER_NNZ = 8      # CSC data (float32) + indices (int32) of the block being filled
PASS2_BYTES_PER_TERM = 36    # indptr + cursor (int64), df + idf (float32/int32), idf's inverse (int64)
BATCH_PAGES = 8192           # retrieval.corpus.build_corpus_index_from_table's batch_rows
BLOCK_BYTES = 512 * 2**20    # retrieval.lean_index.PASS2_BLOCK_BYTES (runs record the budget they ran with)


def index_memory_model(vocab: float, nnz: float, pages: float, floor_mib: float, batch_bytes_per_pair: float,
                       block_bytes: float | None = BLOCK_BYTES) -> dict:
    """Predicted peak RSS (MiB) of each index pass and of the process: the interpreter floor,
    each kept buffer's bytes a term / a non-zero of the block pass 2 fills (at most
    ``block_bytes`` of them; None: the whole matrix at once, as before blocks), and one batch's
    temporaries (bytes a (term, page) pair of a batch of ``BATCH_PAGES`` pages: token strings
    in pass 1, the scatter's index arrays in pass 2)."""
    batch = batch_bytes_per_pair * BATCH_PAGES * nnz / pages
    block = PASS2_BYTES_PER_NNZ * nnz if block_bytes is None else min(PASS2_BYTES_PER_NNZ * nnz, block_bytes)
    pass1 = floor_mib + (PASS1_BYTES_PER_TERM * vocab + batch) / 2**20
    pass2 = floor_mib + (block + PASS2_BYTES_PER_TERM * vocab + batch) / 2**20
    return {"pass1": pass1, "pass2": pass2, "peak": max(pass1, pass2)}


def run_block_bytes(run: dict) -> float | None:
    """The pass-2 block budget a run's index ran with (None: recorded before blocks)."""
    return run["steps"]["index"].get("block_bytes")


def fit_uncounted_terms(runs: list[dict]) -> tuple[float, float]:
    """(floor MiB, batch bytes a pair): least squares on each run's measured index peak minus its
    counted buffers (those of the larger pass, as the counted terms alone rank them)."""
    rows = [[1.0, BATCH_PAGES * r["index_nnz"] / r["pages"] / 2**20] for r in runs]
    rest = [r["steps"]["index"]["peak_rss_mib"]
            - index_memory_model(r["vocab_size"], r["index_nnz"], r["pages"], 0, 0, run_block_bytes(r))["peak"]
            for r in runs]
    floor, per_pair = least_squares(rows, rest)
    return floor, per_pair


def predicted_against_measured(corpus: str, run: dict, floor: float, per_pair: float) -> dict:
    pred = index_memory_model(run["vocab_size"], run["index_nnz"], run["pages"], floor, per_pair,
                              run_block_bytes(run))
    meas = run["steps"]["index"]["peak_rss_mib"]
    return {"corpus": corpus, "pages": run["pages"], "blocks": run["steps"]["index"].get("pass2_blocks"),
            "predicted_mib": round(pred["peak"], 1), "measured_mib": meas, "rel_error": round(pred["peak"] / meas - 1, 3)}


HOLDOUT_PAGES = 300_000  # the hold-out check fits on runs of at most this many pages


def memory_model_check(results: dict) -> dict:
    """Fit the two uncounted terms (floor MiB, batch bytes a pair) by least squares on each run's
    measured peak minus its counted buffers, then each run's predicted peak against the
    measured one (relative error). Also a hold-out check: the same fit on the runs of at most
    ``HOLDOUT_PAGES`` pages predicting the larger runs (``holdout``). ``{}`` with fewer than
    two runs with an index."""
    runs = [(c, r) for c, rs in results["runs"].items() for r in rs if "index_nnz" in r and "index" in r["steps"]]
    if len(runs) < 2:
        return {}
    floor, per_pair = fit_uncounted_terms([r for _, r in runs])
    out = {"floor_mib": floor, "batch_bytes_per_pair": per_pair, "block_bytes": BLOCK_BYTES, "runs": []}
    small = [r for _, r in runs if r["pages"] <= HOLDOUT_PAGES]
    large = [(c, r) for c, r in runs if r["pages"] > HOLDOUT_PAGES]
    if len(small) >= 2 and large:
        h_floor, h_pair = fit_uncounted_terms(small)
        out["holdout"] = {"fit_pages_max": HOLDOUT_PAGES, "floor_mib": h_floor, "batch_bytes_per_pair": h_pair,
                          "runs": [predicted_against_measured(c, r, h_floor, h_pair) for c, r in large]}
    for c, r in runs:
        pred = index_memory_model(r["vocab_size"], r["index_nnz"], r["pages"], floor, per_pair,
                                  run_block_bytes(r))["peak"]
        meas = r["steps"]["index"]["peak_rss_mib"]
        out["runs"].append({"corpus": c, "pages": r["pages"], "predicted_mib": round(pred, 1),
                            "measured_mib": meas, "rel_error": round(pred / meas - 1, 3)})
    out["block_runs"] = []
    for c, rs in results.get("block_runs", {}).items():  # not fitted: predicted out of sample
        for r in rs:
            if "index_nnz" in r and "index" in r["steps"]:
                pred = index_memory_model(r["vocab_size"], r["index_nnz"], r["pages"], floor, per_pair,
                                          run_block_bytes(r))["peak"]
                meas = r["steps"]["index"]["peak_rss_mib"]
                out["block_runs"].append({"corpus": c, "pages": r["pages"], "block_bytes": run_block_bytes(r),
                                          "blocks": r["steps"]["index"].get("pass2_blocks"),
                                          "predicted_mib": round(pred, 1), "measured_mib": meas,
                                          "rel_error": round(pred / meas - 1, 3)})
    for c, f in component_fits(results).items():
        if c.startswith("index_rss"):
            continue
        m = index_memory_model(f["extrapolated_vocab"], f["extrapolated_nnz"], f["real_pages"], floor, per_pair)
        blocks = math.ceil(PASS2_BYTES_PER_NNZ * f["extrapolated_nnz"] / BLOCK_BYTES)
        out[c] = {"real_pages": f["real_pages"], "vocab": f["extrapolated_vocab"], "nnz": f["extrapolated_nnz"],
                  "blocks": blocks, "pass1_gib": round(m["pass1"] / 1024, 2), "pass2_gib": round(m["pass2"] / 1024, 2)}
    return out


# Each step's rule (src/evidence_ledger/jobs/rule_resources.py's MODELS) and the files its model is
# sized by when not all its inputs (names of the run's ``output_mb``)
STEP_RULES = {"ingest": "ingest", "index": "index_corpus", "retrieve": "retrieve", "pools": "build_pools",
              "order_bm25": "order_bm25", "order_bge": "order_bge", "evidence": "assemble_evidence"}
SIZED_BY_FILES = {"pools": "pools.parquet", "bm25": "ordering_bm25.parquet", "bge": "ordering_bge.parquet"}


def reranker_model_difference_mib(path: Path = HERE / "results" / "reranker_memory_cpu.json") -> float:
    """MiB that BAAI/bge-reranker-base adds to the stand-in cross-encoder's process: the measured
    peak of a cross-encoder of its shape (278M parameters) minus the tiny stand-in's, both loaded
    and scoring through ``load_reranker`` on the CPU (``benchmarks/reranker.py``), plus the fp32
    bytes of the embedding rows that measurement never paged in (its text looks up a few rows;
    real text looks up many). Its 250,002-piece tokenizer is counted in the measured peak."""
    d = json.loads(path.read_text())
    base, tiny, emb = d["runs"]["base"], d["runs"]["tiny"], d["base_embedding"]
    unread = (emb["rows"] - base["embedding_rows_looked_up"]) * emb["hidden"] * emb["bytes_per_weight"]
    return base["peak_rss_mib"] - tiny["peak_rss_mib"] + unread / 2**20


def reranker_gpu_load_host_mib(path: Path = HERE / "results" / "device_weights_cpu.json") -> float:
    """Host MiB of loading BAAI/bge-reranker-base onto a GPU, CUDA's host libraries not counted:
    the peak of loading a model of its shape and reading its weights from the file in chunks
    into float16 (``load_reranker``'s way on a GPU), less the float16 weights, which a GPU holds
    (``benchmarks/device_weights.py``, the host standing in for the device)."""
    return json.loads(path.read_text())["runs"]["chunks"]["host_mib"]


def reranker_load_difference_mib(path: Path = HERE / "results" / "reranker_memory_cpu.json") -> float:
    """MiB that loading a model of bge-reranker-base's shape with a 250,002-piece tokenizer adds
    to loading the tiny stand-in, weights mapped and unread (``load_peak_rss_mib`` of the two
    runs of ``benchmarks/reranker.py``): the tokenizer's part of the real model's host memory
    on any device."""
    runs = json.loads(path.read_text())["runs"]
    return runs["base"]["load_peak_rss_mib"] - runs["tiny"]["load_peak_rss_mib"]


def declared_against_measured(results: dict, model_difference_mib: float | None = None) -> list[dict]:
    """Per run and step: the ``mem_mb`` its rule declares for that run's inputs (MB, the run's
    recorded sizes), the measured peak (MiB; order_bge: the stand-in's peak plus
    ``model_difference_mib``, the real reranker it is sized for) and their ratio."""
    from evidence_ledger.jobs.rule_resources import MODELS, resources_for_mb

    if model_difference_mib is None:
        model_difference_mib = reranker_model_difference_mib()
    rows = []
    for corpus, runs in results["runs"].items():
        for r in sorted((r for r in runs if "output_mb" in r), key=lambda r: r["pages"]):  # finished runs
            for step, rule in STEP_RULES.items():
                if step not in r["steps"]:
                    continue
                sized_by = MODELS[rule].sized_by
                mb = (r["steps"][step]["input_mb"] if sized_by is None
                      else sum(r["output_mb"][SIZED_BY_FILES[n]] for n in sized_by))
                declared = resources_for_mb(rule, mb)["mem_mb"]
                measured = r["steps"][step]["peak_rss_mib"] + (model_difference_mib if step == "order_bge" else 0)
                rows.append({"corpus": corpus, "pages": r["pages"], "rule": rule, "sizing_mb": round(mb, 2),
                             "declared_mb": declared, "measured_mib": round(measured, 1),
                             "ratio": round(declared / (measured * 2**20 / 1e6), 2)})
    return rows


def reread_cpu(results: dict) -> dict:
    """CPU of pass 2's extra spill re-reads: each block run (a smaller block budget) against the
    run of the same corpus and size at the default budget gives CPU seconds a non-zero a block
    (their CPU difference over the extra blocks x non-zeros); pooled (the CPU differences
    sum over the sum of extra blocks x non-zeros, so the runs with most re-reading weigh most,
    the small ones being within CPU noise) it prices the blocks of
    the real corpora, added to the index CPU extrapolated linearly in pages (whose runs needed
    at most 2 blocks), and the full ingest + index CPU. ``{}`` without such a pair."""
    pairs = []
    for c, rs in results.get("block_runs", {}).items():
        base = {r["pages"]: r for r in results["runs"].get(c, [])}
        for r in rs:
            d = base.get(r["pages"])
            if not d or "index_nnz" not in r or "pass2_blocks" not in d["steps"].get("index", {}):
                continue
            extra = r["steps"]["index"]["pass2_blocks"] - d["steps"]["index"]["pass2_blocks"]
            if extra > 0:
                s = (r["steps"]["index"]["cpu_s"] - d["steps"]["index"]["cpu_s"]) / (extra * r["index_nnz"])
                pairs.append({"corpus": c, "pages": r["pages"], "extra_blocks": extra, "s_per_nnz_block": s,
                              "extra_nnz_reads": extra * r["index_nnz"]})
    if not pairs:
        return {}
    per = sum(p["s_per_nnz_block"] * p["extra_nnz_reads"] for p in pairs) / sum(p["extra_nnz_reads"] for p in pairs)
    out = {"pairs": pairs, "s_per_nnz_block": per}
    model, lin = memory_model_check(results), fits(results)
    for c, m in model.items():
        if isinstance(m, dict) and "blocks" in m and c in lin:
            index_min = lin[c]["index"]["extrapolated_cpu_min"] + per * m["nnz"] * (m["blocks"] - 1) / 60
            out[c] = {"blocks": m["blocks"], "index_cpu_min": round(index_min, 1),
                      "ingest_plus_index_cpu_min": round(lin[c]["ingest"]["extrapolated_cpu_min"] + index_min, 1)}
    return out


def with_analyses(results: dict) -> dict:
    """``results`` with its fits, component fits, memory-model check and re-read pricing
    (re)computed from its runs."""
    results["fits"] = fits(results)
    results["component_fits"] = component_fits(results)
    results["memory_model"] = memory_model_check(results)
    results["reread_cpu"] = reread_cpu(results)
    return results


def save(results: dict, out: Path) -> None:
    with_analyses(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)


def markdown_table(results: dict) -> str:
    """The measured peak RSS (MiB) / CPU (s) per step and size, the index's size, then the
    extrapolations (linear in pages, and the index's component fit)."""
    claim_steps = [s for s in STEPS if s not in CORPUS_STEPS]
    lines = []
    for steps, head in ((CORPUS_STEPS, "units"), (claim_steps, "claims")):
        if lines:
            lines.append("")
        lines += ["| corpus | pages | " + head + " | " + " | ".join(f"{s} RSS MiB / CPU s" for s in steps) + " |",
                  "|---|---:|---:|" + "---:|" * len(steps)]
        for corpus, runs in results["runs"].items():
            for r in sorted(runs, key=lambda r: r["pages"]):
                if not any(s in r["steps"] for s in steps):
                    continue
                cells = [f"{r['steps'][s]['peak_rss_mib']:.0f} / {r['steps'][s]['cpu_s']:.1f}" if s in r["steps"]
                         else "-" for s in steps]
                lines.append(f"| {corpus} | {r['pages']:,} | {r[head]:,} | " + " | ".join(cells) + " |")
    lines += ["", "| corpus | pages | vocabulary (terms) | index non-zeros | index pass 1 peak MiB | index MB on disk |",
              "|---|---:|---:|---:|---:|---:|"]
    for corpus, runs in results["runs"].items():
        for r in sorted(runs, key=lambda r: r["pages"]):
            if "index_nnz" in r:
                pass1 = r["steps"]["index"].get("pass_peak_rss_mib", {}).get("pass1")
                disk = r.get("output_mb", {}).get("index")
                lines.append(f"| {corpus} | {r['pages']:,} | {r['vocab_size']:,} | {r['index_nnz']:,} | "
                             f"{'-' if pass1 is None else f'{pass1:.0f}'} | {'-' if disk is None else f'{disk:,.0f}'} |")
    lines += ["", "| corpus | step | RSS slope KiB/page | extrapolated peak RSS GiB | extrapolated CPU min |",
              "|---|---|---:|---:|---:|"]
    for corpus, per_step in results.get("fits", {}).items():
        for step, f in per_step.items():
            # The index's peak is not linear in pages (pass 2 holds one block of the matrix, not
            # the matrix): its extrapolation is the memory model's, below.
            rss = "memory model" if step == "index" else f"{f['extrapolated_peak_rss_gib']}"
            lines.append(f"| {corpus} ({f['real_pages']:,} pages) | {step} | {f['rss_mib_vs_pages']['b'] * 1024:.3f} | "
                         f"{rss} | {f['extrapolated_cpu_min']} |")
    comp = results.get("component_fits", {})
    if comp:
        # the vocabulary and non-zeros the memory model is extrapolated at (the regression of the
        # peak itself on both is ill-conditioned, terms and non-zeros growing together: it stays
        # in the JSON, under component_fits.index_rss_mib, and out of the tables)
        lines += ["", "| corpus | vocabulary fit (terms) | non-zeros fit | extrapolated terms | extrapolated non-zeros |",
                  "|---|---|---|---:|---:|"]
        for corpus, f in comp.items():
            if corpus.startswith("index_rss_mib"):
                continue
            lines.append(f"| {corpus} ({f['real_pages']:,} pages) | {f['vocab_vs_pages']['c']:.1f} x pages^"
                         f"{f['vocab_vs_pages']['alpha']:.3f} | {f['nnz_vs_pages']['b']:.1f} x pages "
                         f"{f['nnz_vs_pages']['a']:+,.0f} | {f['extrapolated_vocab']:,} | {f['extrapolated_nnz']:,} |")
    model = results.get("memory_model", {})
    if model:
        lines += ["", f"Memory model: pass 1 = floor + {PASS1_BYTES_PER_TERM} B a term + batch; pass 2 = floor + "
                      f"{PASS2_BYTES_PER_NNZ} B a non-zero of one block (at most the run's block budget) + "
                      f"{PASS2_BYTES_PER_TERM} B a term + batch; fitted floor "
                      f"{model['floor_mib']:.0f} MiB, batch {model['batch_bytes_per_pair']:.0f} B a (term, page) pair "
                      f"of a {BATCH_PAGES:,}-page batch.", "",
                  "| corpus | pages | predicted index peak MiB | measured MiB | error |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {r['corpus']} | {r['pages']:,} | {r['predicted_mib']:.0f} | {r['measured_mib']:.0f} | "
                  f"{r['rel_error']:+.1%} |" for r in model["runs"]]
        if model.get("holdout"):
            h = model["holdout"]
            lines += ["", f"Hold-out: the same two terms fitted on the runs of at most {h['fit_pages_max']:,} pages "
                          f"only (floor {h['floor_mib']:.0f} MiB, batch {h['batch_bytes_per_pair']:.0f} B a pair) "
                          "predict the larger runs:", "",
                      "| corpus | pages | pass-2 blocks | predicted index peak MiB | measured MiB | error |",
                      "|---|---:|---:|---:|---:|---:|"]
            lines += [f"| {r['corpus']} | {r['pages']:,} | {r['blocks']} | {r['predicted_mib']:.0f} | "
                      f"{r['measured_mib']:.0f} | {r['rel_error']:+.1%} |" for r in h["runs"]]
        if model.get("block_runs"):
            lines += ["", "Smaller pass-2 blocks (not in the fit; predicted out of sample):", "",
                      "| corpus | pages | block budget MiB | blocks | predicted index peak MiB | measured MiB | error |",
                      "|---|---:|---:|---:|---:|---:|---:|"]
            lines += [f"| {r['corpus']} | {r['pages']:,} | {r['block_bytes'] / 2**20:.0f} | {r['blocks']} | "
                      f"{r['predicted_mib']:.0f} | {r['measured_mib']:.0f} | {r['rel_error']:+.1%} |"
                      for r in model["block_runs"]]
        lines += ["", f"| corpus | extrapolated terms | extrapolated non-zeros | pass-2 blocks of "
                      f"{model.get('block_bytes', BLOCK_BYTES) / 2**20:.0f} MiB | pass 1 GiB | pass 2 GiB |",
                  "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {c} ({m['real_pages']:,} pages) | {m['vocab']:,} | {m['nnz']:,} | {m.get('blocks', '-')} | "
                  f"{m['pass1_gib']} | {m['pass2_gib']} |" for c, m in model.items() if isinstance(m, dict) and "nnz" in m]
    rows = declared_against_measured(results) if results.get("runs") else []
    if rows:
        lines += ["", "Declared `mem_mb` (rule_resources.py, for each run's input sizes) against the measured peak "
                      "(order_bge: the stand-in's peak + the real reranker's difference), over every run:", "",
                  "| rule | declared MB | measured MiB | declared / measured |", "|---|---:|---:|---:|"]
        for rule in dict.fromkeys(STEP_RULES.values()):
            mine = [r for r in rows if r["rule"] == rule]
            if mine:
                lines.append(f"| {rule} | {min(r['declared_mb'] for r in mine):,}-{max(r['declared_mb'] for r in mine):,} | "
                             f"{min(r['measured_mib'] for r in mine):,.0f}-{max(r['measured_mib'] for r in mine):,.0f} | "
                             f"{min(r['ratio'] for r in mine):.2f}-{max(r['ratio'] for r in mine):.2f} |")
        bge = [r["measured_mib"] for r in rows if r["rule"] == "order_bge"]
        difference = reranker_model_difference_mib()
        load, tokenizer = reranker_gpu_load_host_mib(), reranker_load_difference_mib()
        scoring = [m - difference + tokenizer for m in bge]  # the stand-in's peak + the tokenizer
        lines += ["", f"order_bge with BAAI/bge-reranker-base, host peak MiB: on the CPU (fp32) "
                      f"{min(bge):,.0f}-{max(bge):,.0f} (the stand-in's peak + {difference:,.0f}); "
                      f"on a GPU, CUDA's host libraries not counted, at most the larger of loading ({load:,.0f}: "
                      f"weights read in chunks, tokenizer included) and scoring (the stand-in's peak, which counts "
                      f"activations a GPU holds on the device, + {tokenizer:,.0f} for the 250,002-piece tokenizer): "
                      f"{max(load, min(scoring)):,.0f}-{max(load, max(scoring)):,.0f}."]
    reread = results.get("reread_cpu", {})
    if reread:
        lines += ["", f"Spill re-reads: {reread['s_per_nnz_block'] * 1e9:.1f} CPU ns a non-zero a block (pooled over "
                      f"{len(reread['pairs'])} block runs against the default budget; each: "
                      + ", ".join(f"{p['corpus']} {p['pages']:,} {p['s_per_nnz_block'] * 1e9:+.1f}" for p in reread["pairs"])
                      + ").", "",
                  "| corpus | pass-2 blocks | index CPU min (linear + re-reads) | ingest + index CPU min |",
                  "|---|---:|---:|---:|"]
        lines += [f"| {c} | {m['blocks']} | {m['index_cpu_min']} | {m['ingest_plus_index_cpu_min']} |"
                  for c, m in reread.items() if isinstance(m, dict) and "blocks" in m]
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "step":
        child(*sys.argv[2:5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "stand-ins":
        stand_in_models(**json.loads(sys.argv[2]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "table":
        path = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "results" / "scale.json"
        sys.stdout.write(markdown_table(with_analyses(json.loads(path.read_text()))))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fever-pages", type=int, nargs="*", default=[10_000, 50_000, 200_000])
    ap.add_argument("--feverous-pages", type=int, nargs="*", default=[5_000, 20_000, 60_000])
    ap.add_argument("--claims", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default="/tmp/evidence_ledger_scale")
    ap.add_argument("--out", default=str(HERE / "results" / "scale.json"))
    ap.add_argument("--keep", action="store_true", help="keep each size's generated release and tables")
    ap.add_argument("--block-mib", type=float, default=None,
                    help="the index's pass-2 block budget (MiB); runs are kept apart, under block_runs")
    ap.add_argument("--steps", nargs="*", choices=STEPS, default=list(STEPS),
                    help="steps to measure (every step runs, in order, up to the last one named)")
    ap.add_argument("--release-cache", default=None,
                    help="generate each release once into this directory and reuse it (kept)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import synthetic_wiki

    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    key = "runs" if args.block_mib is None else "block_runs"
    block_bytes = None if args.block_mib is None else int(args.block_mib * 2**20)
    results.setdefault("runs", {})
    results.setdefault(key, {})
    results["machine"] = {"platform": platform.platform(), "python": platform.python_version(),
                          "cpus": os.cpu_count(), "note": "shared machine; one step per process"}
    writers = {"fever": synthetic_wiki.write_fever_release, "feverous": synthetic_wiki.write_feverous_release}
    for corpus, sizes in (("fever", args.fever_pages), ("feverous", args.feverous_pages)):
        for pages in sizes:
            work = Path(args.work) / f"{corpus}-{pages}"
            shutil.rmtree(work, ignore_errors=True)
            t0 = time.monotonic()
            if args.release_cache:
                release = cached_release(writers[corpus], corpus, pages, args.claims, args.seed, args.release_cache)
            else:
                release = writers[corpus](work / "release", pages, n_claims=args.claims, seed=args.seed)
            run = {"pages": pages, "units": release["units"], "claims": args.claims,
                   "generate_s": round(time.monotonic() - t0, 1), "steps": {}}
            runs = [r for r in results[key].get(corpus, []) if r["pages"] != pages]
            results[key][corpus] = runs + [run]
            calls = list(step_calls(corpus, release, work).items())
            last = max(STEPS.index(step) for step in args.steps)
            for step, (function, kwargs, inputs) in calls[:last + 1]:
                if step == "order_bge":
                    build_stand_in_models(work / "tables", work / "models", paper_settings()["budget_tokenizers"])
                measured = run_step(function, kwargs, block_bytes)
                measured["input_mb"] = round(sum(tree_mb(p) for p in inputs), 2)
                run["steps"][step] = measured
                if step == "index":
                    run.update(index_size(work / "tables" / "index"))
                print(f"{corpus} {pages} pages {step}: {measured}", flush=True)
                save(results, out)
            run["output_mb"] = {p.name: round(tree_mb(p), 2) for p in (work / "tables").iterdir()}
            save(results, out)
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
