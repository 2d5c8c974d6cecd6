"""Rule wikicontradict_judge_human: the judge on the human-labelled responses (judge agreement).

Reads:  input.human (human-label JSONL, schema in conflict.wikicontradict_metrics),
        input.instances, input.fewshot, input.model_dir when the judge is built locally;
        params as wikicontradict_judge.
Writes: output.judged (WC_HUMAN_JUDGED).
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.wikicontradict.stage import wikicontradict_judge_human

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
wikicontradict_judge_human(
    human=snakemake.input.human, instances=snakemake.input.instances, fewshot=snakemake.input.fewshot,
    model_dir=snakemake.input.get("model_dir"), judge_model=snakemake.params.judge_model,
    judge_cfg=dict(snakemake.params.judge_cfg), backend=snakemake.params.backend,
    backend_options=dict(snakemake.params.backend_options), batch_size=snakemake.params.batch_size,
    cache_dir=snakemake.params.cache_dir, max_new_tokens=snakemake.params.max_new_tokens,
    seed=snakemake.params.seed, out=snakemake.output.judged,
)
