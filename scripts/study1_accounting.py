"""Rule study1_accounting: Study 1 cross-scoring point estimates and per-claim counts.

Reads:  input.answers (ANSWER_INDICATORS), input.evidence (EVIDENCE_INDICATORS), input.relevant
        (RELEVANT), input.unresolved (the verifier's per-claim UNRESOLVED_FLAGS), input.reference
        (paper values TSV, optional); params design (dataset, system, parser, sources,
        checkpoints), budget, answer_format, unresolved_scope (window | list: which flag defines
        the resolved population).
Writes: output.estimates (ESTIMATES), output.summary (TSV, replicate-averaged rows),
        output.counts (CLUSTER_COUNTS, populations all + resolved), output.coverage (COVERAGE).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.accounting.stage import study1_accounting

log_to_rule_log(snakemake.log[0])
study1_accounting(
    answers=snakemake.input.answers, evidence=snakemake.input.evidence, relevant=snakemake.input.relevant,
    unresolved=snakemake.input.unresolved, reference=snakemake.input.get("reference"),
    **snakemake.params.design, budget=snakemake.params.budget, answer_format=snakemake.params.answer_format,
    unresolved_scope=snakemake.params.unresolved_scope,
    estimates_out=snakemake.output.estimates, summary_out=snakemake.output.summary,
    counts_out=snakemake.output.counts, coverage_out=snakemake.output.coverage,
)
