"""Rule diffgr_score_files: official reader-output files (four per set) -> DiffGR per subset.

Reads:  the files named in params.file_sets (name, dataset, hybrid, generated, retrieved,
        closed_book); params draws, seed, level.
Writes: output.table (TSV).
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.diffgr.stage import diffgr_score_files

log_to_rule_log(snakemake.log[0])
diffgr_score_files(file_sets=list(snakemake.params.file_sets), draws=snakemake.params.draws,
                   seed=snakemake.params.seed, level=snakemake.params.level, out=snakemake.output.table)
