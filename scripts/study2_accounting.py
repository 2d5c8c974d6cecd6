"""Rule study2_accounting: Study 2 estimates, family counts, invalid rates, pattern traces.

Reads:  snakemake.input.answers (ANSWER_INDICATORS, dataset-major over params.settings.datasets
        x models), input.evidence / input.relevant / input.families (one per dataset),
        input.reference (optional); params.settings (levels, parsers, replicates, datasets, models).
Writes: output.estimates (ESTIMATES) and TSVs contrasts / cells / partition / crossed,
        output.invalid_rates (+ TSV), output.counts (CLUSTER_COUNTS per claim family, sampled
        seeds), output.coverage, output.traces (PATTERN_TRACES), output.examples (TSV);
        log to snakemake.log[0].
"""
import logging

from evidence_ledger.accounting import run_study2_accounting

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_study2_accounting(answers_paths=list(snakemake.input.answers), evidence_paths=list(snakemake.input.evidence),
                      relevant_paths=list(snakemake.input.relevant), families_paths=list(snakemake.input.families),
                      reference_path=snakemake.input.get("reference"), params=snakemake.params.settings,
                      outputs=dict(snakemake.output.items()), log=logging.getLogger("study2_accounting"))
