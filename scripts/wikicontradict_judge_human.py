"""Rule wikicontradict_judge_human: the judge on the human-labelled responses (judge agreement).

Reads:  snakemake.input.human (human-label JSONL, schema in conflict.wikicontradict_metrics),
        .instances, .fewshot, .model_dir when the judge is built locally; params as
        wikicontradict_judge.
Writes: snakemake.output.judged (WC_HUMAN_JUDGED); log to snakemake.log[0].
"""
import logging

from evidence_ledger.conflict.wikicontradict_run import run_wikicontradict_judge_human

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
n = run_wikicontradict_judge_human(
    snakemake.input.human, snakemake.input.instances, snakemake.input.fewshot, snakemake.output.judged,
    p.judge_model, p.judge_cfg, p.generation["backend"], p.generation["backend_options"], p.cache_dir,
    p.generation["batch_size"], p.max_new_tokens, p.seed, local_dir=snakemake.input.get("model_dir"),
)
logging.info("judge %s on %d human-labelled responses", p.judge_model, n)
