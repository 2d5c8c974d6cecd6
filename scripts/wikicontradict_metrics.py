"""Rule wikicontradict_metrics: judgements -> rates, 5.2 conflict detection and judge agreement.

Reads:  input.judgements (WC_JUDGEMENTS, one per model), input.instances
        (WIKICONTRADICT_INSTANCES), input.human_judged (WC_HUMAN_JUDGED, when a human-label file
        is configured); params templates, passage_version.
Writes: output.rates, output.detection, and (with human labels) output.agreement,
        output.confusion (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.wikicontradict.stage import wikicontradict_metrics

log_to_rule_log(snakemake.log[0])
wikicontradict_metrics(
    judgements=list(snakemake.input.judgements), instances=snakemake.input.instances,
    human_judged=snakemake.input.human_judged or None, templates=list(snakemake.params.templates),
    passage_version=snakemake.params.passage_version, rates_out=snakemake.output.rates,
    detection_out=snakemake.output.detection, agreement_out=snakemake.output.agreement or None,
    confusion_out=snakemake.output.confusion or None,
)
