"""The paper's Study 2 plan under the real Qwen3 and Llama 3 tokenizers, beside its stand-in figures.

In:  ``--tokenizers DIR`` holding ``qwen3/`` and ``llama3/`` (each a real ``tokenizer.json``,
     ``tokenizer_config.json`` with the chat template, and ``config.json`` of the model's shape),
     ``--fever-claims FILE`` (the real FEVER ``paper_dev.jsonl``), ``--work DIR`` (scratch).
Out: ``benchmarks/results/real_tokens_plan.json`` (``--out``) and, with ``table``, the markdown of
     docs/scale.md ("The paper plan under the real tokenizers").

Two FEVER populations under config/paper.yaml (``generation.datasets: [fever]``; sampled as the
paper samples, hash with its salt, n 2,000): the rehearsal data tree's dev claims
(``python -m evidence_ledger rehearsal-data``) with its pages, and the real paper_dev claims with
synthetic FEVER pages (``synthetic_wiki.py``; the real wiki is not here). The Hub snapshots of
Qwen/Qwen3-8B and meta-llama/Llama-3.1-8B-Instruct hold only those tokenizer files (a
Hugging Face cache in ``--work``, no weights). Each claim's evidence is assembled under both
budgets by ``evidence.budget.assemble_budgeted`` with the real tokenizers as budget tokenizers
(the ``bm25`` source: the claim's gold page first, then the following pages' sentences; ``bge``:
the same sentences in reverse; the ``none`` control; no gold, swap or reversed controls), so
the exact plan's evidence has the lengths the real tokenizers allow. Per population, three plans
of ``evidence_ledger.generation.planner``:

  upper_bound   after sampling, before evidence: the config's counts (every evidence text at its
                full budget + ``planner.prompt_tokens_overhead``), answers under the real tokenizers
  exact_real    from the evidence: each distinct prompt rendered with the real chat template and
                counted with the real tokenizer (what ``plan --exact`` prints from tokenizers alone)
  exact_chars   the same evidence with no tokenizer here: prompt characters / ``chars_per_token``
                (the planner's stand-in for a model whose tokenizer it cannot read)

and the wall time of each step. Run it (minutes on 2 busy cores; ``--claims N`` caps the
sample for a quick look):

    PYTHONPATH=src python benchmarks/real_tokens_plan.py --tokenizers TOKENIZERS \\
        --fever-claims paper_dev.jsonl --work /tmp/real_tokens
    python benchmarks/real_tokens_plan.py table [benchmarks/results/real_tokens_plan.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PAPER = REPO / "config" / "paper.yaml"
FOLDERS = {"Qwen/Qwen3-8B": "qwen3", "meta-llama/Llama-3.1-8B-Instruct": "llama3"}
SNAPSHOT_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json")
LINES_PER_CLAIM = 60  # sentences offered per claim: more than the long budget holds
PLANS = ("upper_bound", "exact_real", "exact_chars")


def tokenizer_cache(tokenizers: Path, cache: Path, config: dict) -> Path:
    """A Hugging Face cache holding each generation model's snapshot at its pinned revision with
    the tokenizer files and config.json only."""
    for name in config["generation"]["models"]:
        spec = config["models"][name]
        snapshot = cache / f"models--{spec['hub_id'].replace('/', '--')}" / "snapshots" / spec["revision"]
        snapshot.mkdir(parents=True, exist_ok=True)
        for file in SNAPSHOT_FILES:
            shutil.copyfile(tokenizers / FOLDERS[spec["hub_id"]] / file, snapshot / file)
    return cache


def use_cache(cache: Path) -> None:
    """Every offline Hub lookup of this process reads ``cache``."""
    import huggingface_hub.constants

    huggingface_hub.constants.HF_HUB_CACHE = str(cache)


def claim_rows(claims_file: Path) -> list[dict]:
    """CLAIMS rows of a FEVER claims file (what ingest writes; evidence groups left empty)."""
    rows = []
    for i, line in enumerate(claims_file.read_text(encoding="utf-8").splitlines()):
        r = json.loads(line)
        rows.append({"dataset": "fever", "claim_id": str(r["id"]), "claim": r["claim"], "label": r["label"],
                     "evidence_groups": [], "gold_abstracts": [], "cited_doc_ids": [],
                     "source_file": str(claims_file), "source_line": i + 1, "unresolved_ids": [],
                     "gold_pages": sorted({str(e[2]) for group in r["evidence"] for e in group if e[2]})})
    return rows


def write_sample(rows: list[dict], workdir: Path, config: dict, cap: int | None) -> list[dict]:
    """The paper's sample of ``rows`` (its method, salt and size), as sample_claims writes it;
    ``cap``: only its first ``cap`` claims (a quick look)."""
    from evidence_ledger.sampling.sample import sample_claims, summary_table
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.ingest import CLAIMS

    settings = config["sampling"]["fever"]
    table = CLAIMS.from_rows([{k: v for k, v in r.items() if k != "gold_pages"} for r in rows])
    selected, counts = sample_claims(table, settings.get("salt", ""), settings.get("n"), settings["method"])
    if cap:
        selected = selected.slice(0, cap)
    out = workdir / "results" / "sampling" / "fever"
    write_table(selected, out / "sample.parquet", CLAIMS)
    summary_table(counts).to_csv(out / "sample_summary.tsv", sep="\t", index=False)
    chosen = set(selected.column("claim_id").to_pylist())
    return [r for r in rows if r["claim_id"] in chosen]


def rehearsal_pages(tree: Path) -> list[tuple[str, list[str]]]:
    """(page id, sentences) of the rehearsal tree's FEVER wiki, in file order."""
    pages = []
    for path in sorted((tree / "fever" / "wiki-pages").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            page = json.loads(line)
            if page["id"]:
                pages.append((page["id"], [s.split("\t", 1)[1] for s in page["lines"].splitlines() if "\t" in s]))
    return pages


def synthetic_pages(n_pages: int, seed: int = 0) -> list[tuple[str, list[str]]]:
    """(page id, sentences) of ``n_pages`` synthetic FEVER pages (synthetic_wiki.fever_block)."""
    sys.path.insert(0, str(HERE))
    from synthetic_wiki import BLOCK, FEVER, _Words, fever_block

    words = _Words(FEVER)
    return [p for b in range(-(-n_pages // BLOCK)) for p in fever_block(b, seed, words, n_pages)]


def claim_lines(claim: dict, pages: list[tuple[str, list[str]]], index: int) -> list[str]:
    """The sentences a claim's bm25 ordering offers: its gold page's first (when the tree has
    it), then the pages after it (or after page ``index``) in order."""
    where = {page: k for k, (page, _) in enumerate(pages)}
    start = next((where[p] for p in claim["gold_pages"] if p in where), index % len(pages))
    lines: list[str] = []
    k = start
    while len(lines) < LINES_PER_CLAIM:
        lines += pages[k % len(pages)][1]
        k += 1
    return lines[:LINES_PER_CLAIM]


def write_evidence(sample: list[dict], pages, workdir: Path, config: dict, tokenizers: dict) -> int:
    """The EVIDENCE table of the sample: bm25 and bge orderings under both budgets, assembled
    with the real tokenizers as budget tokenizers, and the ``none`` control."""
    from evidence_ledger.evidence.budget import assemble_budgeted
    from evidence_ledger.tables import write_table
    from evidence_ledger.tables.evidence import EVIDENCE

    budgets = config["evidence"]["budgets"]
    rows = []

    def row(claim_id, source, budget, text, counts, fits):
        return {"dataset": "fever", "claim_id": claim_id, "doc_id": "", "source": source, "budget": budget,
                "visible_text": text, "fits_budget": fits, "visible_unit_ids": [],
                "tokens_by_tokenizer": list(counts.items()), "scored_unit_ids": [], "unresolved": 0,
                "submitted_unit_ids": None}

    for i, claim in enumerate(sample):
        lines = claim_lines(claim, pages, i)
        for source, ordered in (("bm25", lines), ("bge", lines[::-1])):
            for budget, got in assemble_budgeted(ordered, tokenizers, budgets).items():
                rows.append(row(claim["claim_id"], source, budget, got["text"], got["tokens"], got["n_units"] > 0))
        rows += [row(claim["claim_id"], "none", b, "", {t: 0 for t in tokenizers}, True) for b in budgets]
    write_table(EVIDENCE.from_rows(rows), workdir / "results" / "evidence" / "fever" / "evidence.parquet", EVIDENCE)
    return len(rows)


def plan_figures(config: dict, workdir: Path, data_root: Path) -> dict:
    """The planner's rows for this run directory, summed per model and in total."""
    from evidence_ledger.generation.planner import plan

    rows = plan(config, workdir, data_root)
    out = {}
    for who in [*config["generation"]["models"], "total"]:
        part = [r for r in rows if who in (r["model"], "total")]
        prompt = sum(r["prompt_tokens"] for r in part)
        reused = sum(r.get("reused_tokens", 0) for r in part)
        out[who] = {"requests": sum(r["requests"] for r in part), "prompt_tokens": prompt,
                    "reused_share": round(reused / prompt, 4) if prompt else 0.0,
                    "output_tokens": sum(r.get("output_tokens", 0) for r in part),
                    "gpu_hours": round(sum(r["gpu_seconds"] for r in part) / 3600, 4),
                    "floor_hours": round(sum(r.get("floor_seconds", 0) for r in part) / 3600, 4),
                    "exact": all(r.get("exact") for r in part)}
    return out


def population(name: str, data_root: Path, pages, args, cache: Path, empty: Path) -> dict:
    """One population's three plans (module docstring) and the wall time of each step."""
    from evidence_ledger.evidence.budget import load_tokenizer
    from evidence_ledger.run.preflight import command_line_run

    workdir = args.work / name
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    ctx = command_line_run([str(PAPER)], [f"data_root={data_root}", "generation={datasets: [fever]}"], workdir)
    config, times = ctx.config, {}
    use_cache(cache)
    t = time.perf_counter()
    sample = write_sample(claim_rows(data_root / config["data"]["fever"]["claims"]["dev"]), workdir, config,
                          args.claims)
    times["sample_s"] = time.perf_counter() - t
    t = time.perf_counter()
    figures = {"upper_bound": plan_figures(config, workdir, data_root)}
    times["upper_bound_s"] = time.perf_counter() - t
    models = config["models"]
    tokenizers = {m: load_tokenizer(models[m]["hub_id"], models[m]["revision"]) for m in config["generation"]["models"]}
    t = time.perf_counter()
    n_rows = write_evidence(sample, pages, workdir, config, tokenizers)
    times["evidence_s"] = time.perf_counter() - t
    t = time.perf_counter()
    figures["exact_real"] = plan_figures(config, workdir, data_root)
    times["exact_real_s"] = time.perf_counter() - t
    use_cache(empty)
    t = time.perf_counter()
    figures["exact_chars"] = plan_figures(config, workdir, data_root)
    times["exact_chars_s"] = time.perf_counter() - t
    return {"claims": len(sample), "evidence_rows": n_rows, "plans": figures,
            "seconds": {k: round(v, 1) for k, v in times.items()}}


def run(args) -> dict:
    from evidence_ledger.config.layers import layered_config
    from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data

    args.work.mkdir(parents=True, exist_ok=True)
    config = layered_config(REPO, [PAPER])
    cache = tokenizer_cache(args.tokenizers, args.work / "hf-cache", config)
    empty = args.work / "hf-empty"
    empty.mkdir(exist_ok=True)
    tree = args.work / "rehearsal-data"
    write_rehearsal_data(tree, force=True)
    real = args.work / "fever-paper-dev"
    (real / "fever").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.fever_claims, real / "fever" / "shared_task_dev.jsonl")
    out = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
           "config": "config/paper.yaml, generation.datasets [fever]", "claims_cap": args.claims}
    out["rehearsal"] = population("rehearsal", Path(tree), rehearsal_pages(Path(tree)), args, cache, empty)
    out["fever_paper_dev"] = population("fever_paper_dev", real, synthetic_pages(args.synthetic_pages), args,
                                        cache, empty)
    return out


def markdown(results: dict) -> str:
    """The table of docs/scale.md: per population and plan, the totals over both models."""
    head = ("| population | claims | plan | requests | prompt tokens | prefix-cache share | output tokens "
            "| GPU hours | compute floor h |\n|---|---:|---|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for name in ("rehearsal", "fever_paper_dev"):
        pop = results[name]
        for plan_name in PLANS:
            t = pop["plans"][plan_name]["total"]
            lines.append(f"| {name} | {pop['claims']:,} | {plan_name} | {t['requests']:,} | {t['prompt_tokens']:,} "
                         f"| {t['reused_share']:.1%} | {t['output_tokens']:,} | {t['gpu_hours']:.3f} "
                         f"| {t['floor_hours']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "table":
        path = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "results" / "real_tokens_plan.json"
        print(markdown(json.loads(path.read_text())))
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokenizers", type=Path, required=True, help="folder holding qwen3/ and llama3/")
    p.add_argument("--fever-claims", type=Path, required=True, help="the real FEVER paper_dev.jsonl")
    p.add_argument("--work", type=Path, default=Path("/tmp/real_tokens_plan"))
    p.add_argument("--claims", type=int, default=None, help="cap on the sampled claims whose evidence is built")
    p.add_argument("--synthetic-pages", type=int, default=2000, help="synthetic FEVER pages for the real claims")
    p.add_argument("--out", type=Path, default=HERE / "results" / "real_tokens_plan.json")
    args = p.parse_args()
    started = time.perf_counter()
    results = run(args)
    results["seconds_total"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))


if __name__ == "__main__":
    main()
