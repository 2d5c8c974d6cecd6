"""Rule study1_accounting: Study 1 cross-scoring point estimates and per-claim counts.

Reads:  snakemake.input.answers (ANSWER_INDICATORS), input.evidence (EVIDENCE_INDICATORS),
        input.relevant (RELEVANT), input.unresolved (the verifier's per-claim UNRESOLVED_FLAGS),
        input.reference (paper values TSV, optional);
        params.settings (config accounting.study1).
Writes: output.estimates (ESTIMATES), output.summary (TSV, replicate-averaged rows),
        output.counts (CLUSTER_COUNTS, populations all + resolved), output.coverage
        (COVERAGE); log to snakemake.log[0].
"""
import logging

from evidence_ledger.accounting import run_study1_accounting

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
run_study1_accounting(answers_path=snakemake.input.answers, evidence_path=snakemake.input.evidence,
                      relevant_path=snakemake.input.relevant, reference_path=snakemake.input.get("reference"),
                      unresolved_path=snakemake.input.unresolved,
                      params=snakemake.params.settings, outputs=dict(snakemake.output.items()),
                      log=logging.getLogger("study1_accounting"))
