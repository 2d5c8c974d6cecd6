"""Rule study1_indicators: Study 1 per-claim indicators for the accounting.

Reads:  snakemake.input.answers (VERIFIER_ANSWERS), snakemake.input.claims (evaluation CLAIMS),
        snakemake.input.evidence (provider EVIDENCE tables, in params.sources order),
        snakemake.input.inputs (evaluation VERIFIER_INPUTS); params.sources,
        params.max_evidence, params.max_evidence_cell (FEVEROUS scorer budgets).
Writes: snakemake.output.answers (ANSWER_INDICATORS), .evidence (EVIDENCE_INDICATORS),
        .relevant (RELEVANT), .unresolved (per-claim unresolved flags); log to snakemake.log[0].
"""
import logging

from evidence_ledger.verifier.indicators import run_study1_indicators

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
sources = list(snakemake.params.sources)
evidence = list(snakemake.input.evidence)
if len(sources) != len(evidence):
    raise ValueError(f"{len(sources)} sources but {len(evidence)} evidence tables")
run_study1_indicators(snakemake.input.answers, snakemake.input.claims, dict(zip(sources, evidence)),
                      snakemake.input.inputs, dict(snakemake.output), max_evidence=snakemake.params.max_evidence,
                      max_evidence_cell=snakemake.params.max_evidence_cell, log=logging.getLogger("study1"))
