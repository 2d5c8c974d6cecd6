"""Rule provenance: write results/report/provenance.tsv.

Reads:  params.config (the whole resolved config), params.repo (workflow dir).
Writes: output.tsv with (section, key, value) rows: config hash, git commit, package
        versions, model revisions, backend settings.
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.report.stage import provenance

log_to_rule_log(snakemake.log[0])
provenance(config=snakemake.params.config, repo=snakemake.params.repo, out=snakemake.output.tsv)
