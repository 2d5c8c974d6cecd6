"""Rule diffgr_generate: NQ-CC / TQA-CC records -> the four reader runs of one model.

Reads:  snakemake.input.records (CONFLICT_QA_RECORDS), .model_dir when the model is built
        locally; params model, dataset, prompt, closed_book_prompt, context_orders,
        max_new_tokens, seed, length_threshold, model_cfg, generation, cache_dir.
Writes: snakemake.output.answers (DIFFGR_READER_ANSWERS), .lengths (DIFFGR_LENGTHS);
        log to snakemake.log[0].
"""
import logging

from evidence_ledger.conflict.diffgr_pipeline import run_diffgr_generate

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
p = snakemake.params
n = run_diffgr_generate(
    snakemake.input.records, snakemake.output.answers, snakemake.output.lengths, p.model, p.dataset, p.prompt,
    p.closed_book_prompt, list(p.context_orders), p.max_new_tokens, p.seed, p.length_threshold, p.model_cfg,
    p.generation["backend"], p.generation["backend_options"], p.cache_dir, p.generation["batch_size"],
    local_dir=snakemake.input.get("model_dir"),
)
logging.info("%s %s: %d reader answers", p.model, p.dataset, n)
