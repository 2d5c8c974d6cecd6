"""Rule ingest_wikicontradict: the RAG-QA CSV (+ full JSON when configured) -> instances table.

Reads:  snakemake.input.csv, optional snakemake.input.full_json; params.standalone_fields.
Writes: snakemake.output.instances (results/ingest/wikicontradict/instances.parquet,
        WIKICONTRADICT_INSTANCES); log to snakemake.log[0].
"""
import logging
from collections import Counter

from evidence_ledger.datasets.wikicontradict import read_wikicontradict
from evidence_ledger.tables import write_table
from evidence_ledger.tables.conflict_inputs import WIKICONTRADICT_INSTANCES

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
table = read_wikicontradict(snakemake.input.csv, snakemake.input.get("full_json"),
                            tuple(snakemake.params.standalone_fields))
write_table(table, snakemake.output.instances, WIKICONTRADICT_INSTANCES)
logging.info("%d instances %s", table.num_rows, dict(Counter(table.column("contradict_type").to_pylist())))
