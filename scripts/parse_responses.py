"""Rule parse_responses: strict and lenient labels for every saved response.

Reads:  snakemake.input.requests (REQUESTS), input.responses (RESPONSES);
        params.code_mappings (config generation.code_mappings).
Writes: snakemake.output.parsed (PARSED, one row per request row, raw response kept),
        output.failures (TSV: model, dataset, format, n, strict/lenient INVALID counts and
        rates); log to snakemake.log[0].
"""
import logging

from evidence_ledger.generation.requests import code_mappings
from evidence_ledger.parsing import parse_responses
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.generation import PARSED, REQUESTS, RESPONSES

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
requests = read_table(snakemake.input.requests, REQUESTS)
responses = read_table(snakemake.input.responses, RESPONSES)
parsed, failures = parse_responses(requests, responses, code_mappings({"code_mappings": snakemake.params.code_mappings}))
write_table(parsed, snakemake.output.parsed, PARSED)
cols = ["model", "dataset", "format", "n", "strict_invalid", "strict_invalid_rate", "lenient_invalid",
        "lenient_invalid_rate"]
with open(snakemake.output.failures, "w") as out:
    out.write("\t".join(cols) + "\n")
    for row in failures:
        out.write("\t".join(f"{row[c]:.4f}" if c.endswith("rate") else str(row[c]) for c in cols) + "\n")
for row in failures:
    logging.info("%s", row)
