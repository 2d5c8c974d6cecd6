"""Rule import_evidence_source: a provider submission (JSON lines), the provider split's claims, UNITS
and the budget tokenizers -> results/evidence/{dataset}/external_{name}.parquet (EVIDENCE, budget
'full', unresolved ids counted) and external_{name}.summary.json."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.evidence.stage import import_evidence_source

log_to_rule_log(snakemake.log[0])
import_evidence_source(submission=snakemake.input.submission, claims=list(snakemake.input.claims),
                       units=snakemake.input.units, evidence=snakemake.output.evidence,
                       summary=snakemake.output.summary, dataset=snakemake.params.dataset,
                       source=snakemake.params.source, tokenizers=dict(snakemake.params.tokenizers),
                       prefix_non_cell=snakemake.params.prefix_non_cell, prefix_cell=snakemake.params.prefix_cell,
                       cell_like_kinds=list(snakemake.params.cell_like_kinds))
