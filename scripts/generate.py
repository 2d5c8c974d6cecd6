"""Rule generate: responses of one shard of one model x dataset, through the response cache.

Reads:  input.requests (REQUESTS), input.model (local model directory, if any); params.model_spec
        (the model's `models:` entry), params.backend (vllm | transformers | openai | a plugin's
        name or module:Class), params.backend_options (batch_size; vLLM: enable_prefix_caching,
        tensor_parallel_size, enforce_eager, max_model_len, gpu_memory_utilization, max_num_seqs,
        max_num_batched_tokens; openai: the model's server settings; a plugin: its backend_options),
        params.cache_dir, params.call_size (requests per backend call); wildcards.shard;
        resources.gpu (the devices the job pins itself to on a workstation).
Writes: output.responses (RESPONSES, unique requests of the shard); new cache shards under
        params.cache_dir (kept when the job is killed, so a rerun resumes); log: progress.
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import generate

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
generate(
    requests=snakemake.input.requests, responses=snakemake.output.responses, model=snakemake.wildcards.model,
    shard=int(snakemake.wildcards.shard), model_spec=dict(snakemake.params.model_spec),
    backend=snakemake.params.backend, backend_options=dict(snakemake.params.backend_options),
    cache_dir=snakemake.params.cache_dir, call_size=snakemake.params.call_size,
)
