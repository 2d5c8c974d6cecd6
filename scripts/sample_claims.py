"""Rule sample_claims: the Study 2 claim population of one dataset.

Reads:  snakemake.input.claims (CLAIMS of the configured split); for FEVEROUS also
        input.families (FAMILIES of the pool) and input.reserved (reserved claim ids, one per
        line); params.method, params.salt, params.n.
Writes: snakemake.output.sample (results/sampling/{dataset}/sample.parquet, CLAIMS) and
        output.summary (key/value TSV); log to snakemake.log[0].
"""
import logging

from evidence_ledger.datasets.feverous import read_id_list
from evidence_ledger.sampling import sample_claims, summary_tsv
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.sampling import FAMILIES

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
claims = read_table(snakemake.input.claims, CLAIMS)
families, reserved = None, []
if "reserved" in snakemake.input.keys():
    reserved = read_id_list(snakemake.input.reserved)
    fam = read_table(snakemake.input.families, FAMILIES)
    families = dict(zip(fam.column("claim_id").to_pylist(), fam.column("family_id").to_pylist()))
sample, summary = sample_claims(claims, snakemake.params.salt, snakemake.params.n, snakemake.params.method,
                                families, reserved)
write_table(sample, snakemake.output.sample, CLAIMS)
with open(snakemake.output.summary, "w") as out:
    out.write(summary_tsv(summary))
logging.info("%s", summary)
if summary["requested"] > summary["selected"]:
    logging.warning("requested %d claims but only %d are eligible: all selected",
                    summary["requested"], summary["selected"])
