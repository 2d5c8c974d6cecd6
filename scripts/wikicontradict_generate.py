"""Rule wikicontradict_generate: prompt requests -> verbatim responses (cached backend).

Reads:  input.requests (WC_REQUESTS), input.model_dir when the model is built locally; params
        model, model_cfg, backend, backend_options, batch_size, cache_dir.
Writes: output.responses (WC_RESPONSES); response-cache shards under cache_dir.
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.wikicontradict.stage import wikicontradict_generate

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
wikicontradict_generate(
    requests=snakemake.input.requests, model_dir=snakemake.input.get("model_dir"), model=snakemake.params.model,
    model_cfg=dict(snakemake.params.model_cfg), backend=snakemake.params.backend,
    backend_options=dict(snakemake.params.backend_options), batch_size=snakemake.params.batch_size,
    cache_dir=snakemake.params.cache_dir, out=snakemake.output.responses,
)
