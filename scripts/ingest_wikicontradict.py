"""Rule ingest_wikicontradict: the RAG-QA CSV (+ full JSON when configured) ->
results/ingest/wikicontradict/instances.parquet (WIKICONTRADICT_INSTANCES)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.datasets.stage import ingest_wikicontradict

log_to_rule_log(snakemake.log[0])
ingest_wikicontradict(csv=snakemake.input.csv, full_json=snakemake.input.get("full_json"),
                      instances=snakemake.output.instances,
                      standalone_fields=list(snakemake.params.standalone_fields),
                      consistent_fields=snakemake.params.consistent_fields)
