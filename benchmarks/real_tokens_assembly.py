"""Benchmark of evidence assembly under the real Study 2 tokenizers at FEVEROUS paper scale
(writes benchmarks/results/real_tokens_assembly.json).

In:  the directories of the real Qwen3 and Llama 3 tokenizers (``--qwen3``, ``--llama3``: each
     with ``tokenizer.json``), a claim count (default 7,890, FEVEROUS's paper sample), units per
     claim (default 100, the pool cap), a seed.
Out: wall and CPU seconds and peak RSS of ``evidence.assemble.assemble_evidence`` over every
     claim: sources ``bm25`` and ``bge`` (two orderings of each claim's pool), controls none /
     swap / gold / reversed, budgets 256 and 1,024 tokens under both tokenizers (as the evidence
     rule runs it, minus the table reading and writing); and, on the first ``--check-claims``
     claims, the same rows assembled with the rule as first written (every prefix tokenised),
     which must be identical, with the time of each.

Units are FEVEROUS-shaped pages of the repository's calibrated synthetic wiki
(``synthetic_wiki.feverous_page``: sentences under sections, table cells, list items, rendered
``[title | section] text`` as the evidence stage renders them); each claim's pool is the units of
six random pages of a shared page pool (so units recur across claims, as retrieved pages do), cut
at ``--units``. Synthetic syllable words take more tokens per character than English, so a
budget holds fewer units than on real pages and the walk per claim is shorter; token counting
per text is the cost either way. Targets: 10 minutes or less, 2 GiB or less, on 2 cores.

Run:  .venv/bin/python benchmarks/real_tokens_assembly.py --qwen3 DIR --llama3 DIR
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # the reference rule lives beside the tests

from support.budget_reference import prefix_rule  # noqa: E402
from synthetic_wiki import FEVEROUS, _Words, feverous_page  # noqa: E402

from evidence_ledger.evidence import assemble  # noqa: E402
from evidence_ledger.evidence.budget import load_tokenizer  # noqa: E402
from evidence_ledger.vocabulary import CONTROLS  # noqa: E402

BUDGETS = {"short": 256, "long": 1024}
PAGES_PER_CLAIM = 6


def page_units(k: int, rng: np.random.Generator, words) -> list[tuple[str, assemble.UnitInfo]]:
    """(unit id, unit) of one FEVEROUS-shaped page, in page order."""
    data = feverous_page(k, rng, words)
    title, section, out = data["title"], "", []
    for key in data["order"]:
        value = data[key]
        if key.startswith("section_"):
            section = value["value"]
            continue
        context = f"{title} | {section}" if section else title
        if key.startswith("sentence_"):
            out.append((f"{title}_{key}", assemble.UnitInfo(value, context, "sentence", title)))
        elif key.startswith("table_"):
            headers = " | ".join(c["value"] for c in value["table"][0])
            for row in value["table"][1:]:
                for c in row:
                    out.append((f"{title}_{c['id']}", assemble.UnitInfo(c["value"], f"{context} | {headers}", "cell",
                                                                        title)))
        else:
            for item in value["list"]:
                out.append((f"{title}_{item['id']}", assemble.UnitInfo(item["value"], context, "item", title)))
    return out


def synthetic_run(n_claims: int, units_per_claim: int, seed: int):
    """Units, ORDERING rows per source, retrieved docs and gold groups of ``n_claims`` claims."""
    rng = np.random.default_rng(seed)
    words = _Words(FEVEROUS)
    n_pages = max(PAGES_PER_CLAIM, n_claims)
    pages = [page_units(k, rng, words) for k in range(n_pages)]
    units = {uid: u for page in pages for uid, u in page}
    pick = random.Random(seed)
    orderings, retrieved, gold = {"bm25": [], "bge": []}, {}, {}
    for c in range(n_claims):
        cid = str(c)
        docs = pick.sample(range(n_pages), PAGES_PER_CLAIM)
        pool = [uid for d in docs for uid, _ in pages[d]][:units_per_claim]
        retrieved[cid] = [pages[d][0][1].doc_id for d in docs]
        first = list(pool)
        pick.shuffle(first)
        second = list(pool)
        pick.shuffle(second)
        orderings["bm25"].append({"claim_id": cid, "unit_ids": first})
        orderings["bge"].append({"claim_id": cid, "unit_ids": second})
        gold[cid] = [pick.sample(pool, min(2, len(pool)))]
    return units, orderings, retrieved, gold


def timed_assembly(builder, orderings, retrieved, gold) -> tuple[list[dict], dict]:
    wall, cpu = time.perf_counter(), time.process_time()
    rows = assemble.assemble_evidence(builder, orderings, retrieved, gold, controls=list(CONTROLS), swap_seed=7,
                                      show_progress=True)
    return rows, {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(time.process_time() - cpu, 1)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qwen3", required=True)
    ap.add_argument("--llama3", required=True)
    ap.add_argument("--claims", type=int, default=7890)
    ap.add_argument("--units", type=int, default=100)
    ap.add_argument("--check-claims", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(HERE / "results" / "real_tokens_assembly.json"))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    tokenizers = {"qwen3": load_tokenizer(args.qwen3), "llama3": load_tokenizer(args.llama3)}
    load_s = time.perf_counter() - t0
    units, orderings, retrieved, gold = synthetic_run(args.claims, args.units, args.seed)
    setup_s = time.perf_counter() - t0 - load_s
    builder = assemble.EvidenceBuilder("feverous", units, tokenizers, dict(BUDGETS), assemble.PrefixCaps(5, 25))
    rows, timing = timed_assembly(builder, orderings, retrieved, gold)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the same claims' ordered rows, cut by the rule as first written
    check = [str(c) for c in range(min(args.check_claims, args.claims))]
    fresh = assemble.EvidenceBuilder("feverous", units, tokenizers, dict(BUDGETS), assemble.PrefixCaps(5, 25))
    wall = time.perf_counter()
    fast = [fresh.budgeted_rows(c, "", s, o["unit_ids"]) for s in ("bm25", "bge") for o in orderings[s][:len(check)]
            for c in [o["claim_id"]]]
    fast_s = time.perf_counter() - wall
    wall = time.perf_counter()
    slow = [prefix_rule([units[u].line for u in o["unit_ids"]], tokenizers, BUDGETS)
            for s in ("bm25", "bge") for o in orderings[s][:len(check)]]
    slow_s = time.perf_counter() - wall
    identical = all([r["visible_unit_ids"] for r in f] == [o["unit_ids"][: s[b]["n_units"]] for b in BUDGETS]
                    and [r["tokens_by_tokenizer"] for r in f] == [dict(sorted(s[b]["tokens"].items())) for b in BUDGETS]
                    for f, s, o in zip(fast, slow, orderings["bm25"][:len(check)] + orderings["bge"][:len(check)]))
    kept = {b: float(np.mean([len(r["visible_unit_ids"]) for r in rows if r["source"] == "bm25" and r["budget"] == b]))
            for b in BUDGETS}
    result = {
        "claims": args.claims, "units_per_claim": args.units, "distinct_units": len(units),
        "sources": ["bm25", "bge"], "controls": list(CONTROLS), "budgets": BUDGETS, "evidence_rows": len(rows),
        "tokenizer_load_s": round(load_s, 1), "synthetic_setup_s": round(setup_s, 1), "assembly": timing,
        "peak_rss_mib": round(peak_mib), "mean_units_kept_bm25": {b: round(v, 1) for b, v in kept.items()},
        "check": {"claims": len(check), "orderings": 2 * len(check), "identical_to_prefix_rule": identical,
                  "line_counts_and_confirm_s": round(fast_s, 1), "every_prefix_s": round(slow_s, 1)},
        "targets": {"wall_s": 600, "peak_rss_mib": 2048},
        "machine": {"cpus": len(__import__("os").sched_getaffinity(0)), "python": platform.python_version()},
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
