"""Rule gather_responses: concatenate the shard responses of one model x dataset.

Reads:  snakemake.input.requests (REQUESTS), input.shards (RESPONSES per shard).
Writes: snakemake.output.responses (RESPONSES, one row per unique request, sorted by
        request_id; fails if a planned request is missing or answered twice); log to
        snakemake.log[0].
"""
import logging

from evidence_ledger.generation.run import gather_responses
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.generation import REQUESTS, RESPONSES

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
requests = read_table(snakemake.input.requests, REQUESTS, columns=["request_id"])
table = gather_responses(requests, [read_table(p, RESPONSES) for p in snakemake.input.shards])
write_table(table, snakemake.output.responses, RESPONSES)
logging.info("gathered %d responses from %d shards", table.num_rows, len(snakemake.input.shards))
