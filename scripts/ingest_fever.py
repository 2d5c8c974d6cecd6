"""Rule ingest_fever: FEVER claims (per split) + wiki-pages -> canonical tables.

Reads:  snakemake.input.claims (one jsonl per split, in params.splits order), optional
        snakemake.input.wiki (wiki-pages directory).
Writes: snakemake.output.claims (results/ingest/fever/claims_{split}.parquet, CLAIMS),
        output.units (UNITS), output.documents (DOCUMENTS); log to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.datasets.fever import ingest_fever
from evidence_ledger.tables import write_table
from evidence_ledger.tables.ingest import CLAIMS, DOCUMENTS, UNITS

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
splits = list(snakemake.params.splits)
claims_in = dict(zip(splits, snakemake.input.claims))
with open(snakemake.log[0], "a") as log_handle, tqdm(desc="wiki files", file=log_handle, mininterval=30) as bar:
    claims, units, docs = ingest_fever(claims_in, snakemake.input.get("wiki"), snakemake.params.on_unresolved,
                                    progress=bar.update)
for split, path in zip(splits, snakemake.output.claims):
    write_table(claims[split], path, CLAIMS)
    logging.info("%s: %d claims -> %s", split, claims[split].num_rows, path)
write_table(units, snakemake.output.units, UNITS)
write_table(docs, snakemake.output.documents, DOCUMENTS)
logging.info("%d units, %d documents", units.num_rows, docs.num_rows)
