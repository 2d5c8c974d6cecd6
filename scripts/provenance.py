"""Rule provenance: write results/report/provenance.tsv.

Reads:  params.config (the whole resolved config), params.repo (workflow dir),
        params.verifier_base_dir (the verifier's base model directory, or None).
Writes: output.tsv with (section, key, value) rows: run kind, config hash, git commit,
        package versions, what ran per model slot, model revisions, backend settings.
"""
from evidence_ledger.rule_log import log_to_rule_log
from evidence_ledger.report.stage import provenance

log_to_rule_log(snakemake.log[0])
provenance(config=snakemake.params.config, repo=snakemake.params.repo,
           verifier_base_dir=snakemake.params.verifier_base_dir, out=snakemake.output.tsv)
