"""Rule generate: responses of one shard of one model x dataset, through the response cache.

Reads:  snakemake.input.requests (REQUESTS), input.model (local model directory, if any);
        params.model_config (a `models:` entry), params.backend (vllm | transformers),
        params.options (batch_size; vLLM: enable_prefix_caching, tensor_parallel_size,
        enforce_eager, max_model_len, gpu_memory_utilization), params.cache_dir;
        wildcards.shard.
Writes: snakemake.output.responses (RESPONSES, unique requests of the shard); new cache shards
        under params.cache_dir (kept when the job is killed, so a rerun resumes); log + tqdm
        progress to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.generation.backends import load_backend, model_spec_from_config
from evidence_ledger.generation.cache import ResponseCache
from evidence_ledger.generation.run import generate_responses, unique_requests
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.generation import REQUESTS, RESPONSES

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
shard = int(snakemake.wildcards.shard)
requests = read_table(snakemake.input.requests, REQUESTS)
n = len(unique_requests(requests, shard))
spec = model_spec_from_config(snakemake.wildcards.model, snakemake.params.model_config)
logging.info("model %s from %s (revision %r, weights %s); backend %s; %d unique requests in shard %d",
             spec.name, spec.path, spec.revision, spec.weights_hash[:12], snakemake.params.backend, n, shard)
options = dict(snakemake.params.options)
backend = load_backend(snakemake.params.backend, spec, **options)
with open(snakemake.log[0], "a") as handle, tqdm(total=n, desc="generate", file=handle, mininterval=5) as bar:
    table = generate_responses(requests, backend, ResponseCache(snakemake.params.cache_dir), shard=shard,
                               batch_size=int(options.get("batch_size", 256)), progress=bar.update)
write_table(table, snakemake.output.responses, RESPONSES)
logging.info("wrote %d responses", table.num_rows)
