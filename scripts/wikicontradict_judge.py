"""Rule wikicontradict_judge: one model's responses -> WikiContradictEval judgements.

Reads:  snakemake.input.responses (WC_RESPONSES), .instances (WIKICONTRADICT_INSTANCES),
        .fewshot (judge few-shot JSONL), .model_dir when the judge is built locally; params
        judge_model, judge_cfg, generation, cache_dir, max_new_tokens, seed.
Writes: snakemake.output.judgements (WC_JUDGEMENTS); log to snakemake.log[0] (label counts,
        unparseable included).
"""
import logging

from evidence_ledger.conflict.wikicontradict_run import run_wikicontradict_judge

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
counts = run_wikicontradict_judge(
    snakemake.input.responses, snakemake.input.instances, snakemake.input.fewshot, snakemake.output.judgements,
    p.judge_model, p.judge_cfg, p.generation["backend"], p.generation["backend_options"], p.cache_dir,
    p.generation["batch_size"], p.max_new_tokens, p.seed, local_dir=snakemake.input.get("model_dir"),
)
logging.info("judge %s labels: %s", p.judge_model, counts)
