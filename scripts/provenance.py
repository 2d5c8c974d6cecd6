"""Rule provenance: write results/report/provenance.tsv.

Reads: snakemake.params.config (the whole resolved config), params.repo (workflow dir).
Writes: output.tsv with (section, key, value) rows: config hash, git commit, package
versions, model revisions, backend settings.
"""
import logging
from pathlib import Path

from evidence_ledger.report.provenance import provenance_rows, write_provenance_tsv

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
rows = provenance_rows(snakemake.params.config, Path(snakemake.params.repo))
write_provenance_tsv(rows, snakemake.output.tsv)
logging.info("wrote %d provenance rows to %s", len(rows), snakemake.output.tsv)
