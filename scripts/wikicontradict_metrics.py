"""Rule wikicontradict_metrics: judgements -> rates, 5.2 conflict detection and judge agreement.

Reads:  snakemake.input.judgements (WC_JUDGEMENTS, one per model), .human_judged
        (WC_HUMAN_JUDGED, when a human-label file is configured); params templates.
Writes: snakemake.output.rates, .detection, and (with human labels) .agreement, .confusion
        (TSV); log to snakemake.log[0].
"""
import logging

from evidence_ledger.conflict.wikicontradict_run import run_wikicontradict_metrics

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
human = snakemake.input.human_judged or None
run_wikicontradict_metrics(
    list(snakemake.input.judgements), human, list(snakemake.params.templates), snakemake.output.rates,
    snakemake.output.detection, snakemake.output.agreement or None, snakemake.output.confusion or None,
)
logging.info("wrote %s", list(snakemake.output))
