"""Rule order_bge: POOLS, RETRIEVED (claim texts), UNITS and the reranker (local directory or Hub id +
revision) -> results/retrieval/{dataset}/ordering_bge.parquet (ORDERING, FlagReranker)."""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.retrieval.stage import order_bge

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
order_bge(pools=snakemake.input.pools, retrieved=snakemake.input.retrieved, units=snakemake.input.units,
          ordering=snakemake.output.ordering, reranker=dict(snakemake.params.reranker),
          claims_per_call=snakemake.params.claims_per_call)
