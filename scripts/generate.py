"""Rule generate: responses of one shard of one model x dataset, through the response cache.

Reads:  input.requests (REQUESTS), input.model (local model directory, if any); params.model_spec
        (the model's `models:` entry), params.backend (vllm | transformers),
        params.backend_options (batch_size; vLLM: enable_prefix_caching, tensor_parallel_size,
        enforce_eager, max_model_len, gpu_memory_utilization, max_num_seqs, max_num_batched_tokens),
        params.cache_dir, params.call_size (requests per backend call); wildcards.shard.
Writes: output.responses (RESPONSES, unique requests of the shard); new cache shards under
        params.cache_dir (kept when the job is killed, so a rerun resumes); log: progress.
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.generation.stage import generate

log_to_rule_log(snakemake.log[0])
generate(
    requests=snakemake.input.requests, responses=snakemake.output.responses, model=snakemake.wildcards.model,
    shard=int(snakemake.wildcards.shard), model_spec=dict(snakemake.params.model_spec),
    backend=snakemake.params.backend, backend_options=dict(snakemake.params.backend_options),
    cache_dir=snakemake.params.cache_dir, call_size=snakemake.params.call_size,
)
