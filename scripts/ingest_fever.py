"""Rule ingest_fever: FEVER claims (per split) + wiki-pages -> canonical tables.

Reads:  snakemake.input.claims (one jsonl per split, in params.splits order), optional
        snakemake.input.wiki (wiki-pages directory).
Writes: snakemake.output.claims (results/ingest/fever/claims_{split}.parquet, CLAIMS),
        output.units (UNITS), output.documents (DOCUMENTS); log to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.datasets.fever import ingest_fever
from evidence_ledger.datasets.canonical_output import write_canonical_tables

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
splits = list(snakemake.params.splits)
claims_in = dict(zip(splits, snakemake.input.claims))
with open(snakemake.log[0], "a") as log_handle, tqdm(desc="wiki files", file=log_handle, mininterval=30) as bar:
    claims, units, docs = ingest_fever(claims_in, snakemake.input.get("wiki"), snakemake.params.on_unresolved,
                                    progress=bar.update, data_root=snakemake.params.data_root)
write_canonical_tables(claims, units, docs, splits, snakemake.output.claims, snakemake.output.units,
                       snakemake.output.documents)
