"""Rule plan_requests: the request table of one model x dataset.

Reads:  snakemake.input.claims (CLAIMS: the Study 2 population), input.evidence (EVIDENCE);
        params.generation (seeds, sampling, max_new_tokens, formats, sources, budgets,
        code_mappings, controls), params.shards.
Writes: snakemake.output.requests (REQUESTS); log to snakemake.log[0] (row counts, unique
        requests, skipped control rows by condition).
"""
import logging

from evidence_ledger.generation.requests import plan_requests
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.evidence import EVIDENCE
from evidence_ledger.tables.generation import REQUESTS
from evidence_ledger.tables.ingest import CLAIMS

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
claims = read_table(snakemake.input.claims, CLAIMS).to_pylist()
evidence = read_table(snakemake.input.evidence, EVIDENCE).to_pylist()
table, skipped = plan_requests(
    snakemake.wildcards.model, snakemake.wildcards.dataset, claims, evidence, snakemake.params.generation,
    evidence_path=snakemake.input.evidence, n_shards=snakemake.params.shards,
)
unique = len(set(table.column("request_id").to_pylist()))
logging.info("%d request rows, %d unique requests; control rows skipped (evidence does not fit / absent): %s",
             table.num_rows, unique, skipped)
write_table(table, snakemake.output.requests, REQUESTS)
