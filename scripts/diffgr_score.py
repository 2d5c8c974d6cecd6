"""Rule diffgr_score: reader answers of every model x dataset -> CC items, DiffGR, length control.

Reads:  input.answers / input.lengths (DIFFGR_READER_ANSWERS / DIFFGR_LENGTHS, model x dataset
        in the same order), input.records (CONFLICT_QA_RECORDS, params.datasets order);
        params datasets, restrict, length_threshold, draws, seed, level.
Writes: output.cc_items (DIFFGR_CC_ITEMS), output.diffgr and output.length_control (TSV); the
        log holds the warnings of empty subsets / zero denominators.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.diffgr.stage import diffgr_score

log_to_rule_log(snakemake.log[0])
diffgr_score(
    answers=list(snakemake.input.answers), lengths=list(snakemake.input.lengths),
    records=list(snakemake.input.records), datasets=list(snakemake.params.datasets),
    restrict=snakemake.params.restrict, length_threshold=snakemake.params.length_threshold,
    draws=snakemake.params.draws, seed=snakemake.params.seed, level=snakemake.params.level,
    cc_items_out=snakemake.output.cc_items, diffgr_out=snakemake.output.diffgr,
    length_control_out=snakemake.output.length_control,
)
