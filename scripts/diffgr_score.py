"""Rule diffgr_score: reader answers of every model x dataset -> CC items, DiffGR, length control.

Reads:  snakemake.input.answers / .lengths (DIFFGR_READER_ANSWERS / DIFFGR_LENGTHS, model x
        dataset in the same order), .records (CONFLICT_QA_RECORDS, params.datasets order);
        params restrict, length_threshold, draws, seed, level.
Writes: snakemake.output.cc_items (DIFFGR_CC_ITEMS), .diffgr and .length_control (TSV);
        log to snakemake.log[0] (warnings of empty subsets / zero denominators included).
"""
import logging
import warnings

from evidence_ledger.conflict.diffgr_pipeline import run_diffgr_score

from evidence_ledger.rule_log import log_to_rule_log  # noqa: E402

log_to_rule_log(snakemake.log[0])  # errors with their traceback go to the rule's log
logging.captureWarnings(True)
warnings.simplefilter("always")
p = snakemake.params
run_diffgr_score(
    list(snakemake.input.answers), list(snakemake.input.lengths), dict(zip(p.datasets, snakemake.input.records)),
    p.restrict, p.length_threshold, p.draws, p.seed, p.level, snakemake.output.cc_items, snakemake.output.diffgr,
    snakemake.output.length_control,
)
logging.info("wrote %s", list(snakemake.output))
