"""Rule assemble_evidence: the bm25 and bge ORDERINGs, RETRIEVED, the claims (gold groups), UNITS and
the budget tokenizers -> results/evidence/{dataset}/evidence.parquet (EVIDENCE for every source x
budget, plus the controls none / swap / gold / reversed)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.evidence.stage import assemble_evidence

log_to_rule_log(snakemake.log[0])
assemble_evidence(bm25=snakemake.input.bm25, bge=snakemake.input.bge, retrieved=snakemake.input.retrieved,
                  claims=list(snakemake.input.claims), units=snakemake.input.units,
                  evidence=snakemake.output.evidence, dataset=snakemake.params.dataset,
                  tokenizers=dict(snakemake.params.tokenizers), budgets=dict(snakemake.params.budgets),
                  prefix_non_cell=snakemake.params.prefix_non_cell, prefix_cell=snakemake.params.prefix_cell,
                  cell_like_kinds=list(snakemake.params.cell_like_kinds),
                  per_document=snakemake.params.per_document, controls=list(snakemake.params.controls),
                  swap_seed=snakemake.params.swap_seed)
