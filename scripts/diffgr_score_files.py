"""Rule diffgr_score_files: official reader-output files (four per set) -> DiffGR per subset.

Reads:  the files named in params.file_sets (name, dataset, hybrid, generated, retrieved,
        closed_book); params draws, seed, level.
Writes: snakemake.output.table (TSV); log to snakemake.log[0].
"""
import logging
import warnings

from evidence_ledger.conflict.diffgr_pipeline import run_diffgr_score_files

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
logging.captureWarnings(True)
warnings.simplefilter("always")
p = snakemake.params
run_diffgr_score_files(list(p.file_sets), p.draws, p.seed, p.level, snakemake.output.table)
logging.info("scored %d reader-file sets", len(p.file_sets))
