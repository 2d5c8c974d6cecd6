"""Rule diffgr_generate: NQ-CC / TQA-CC records -> the four reader runs of one model.

Reads:  input.records (CONFLICT_QA_RECORDS), input.model_dir when the model is built locally;
        params model, dataset, prompt, closed_book_prompt, system_message, context_orders,
        shuffle_seed, max_new_tokens, seed, length_threshold, model_cfg, backend, backend_options, batch_size, cache_dir.
Writes: output.answers (DIFFGR_READER_ANSWERS), output.lengths (DIFFGR_LENGTHS).
"""
from evidence_ledger.run.gpu_slots import pin_job_gpus
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.diffgr.stage import diffgr_generate

log_to_rule_log(snakemake.log[0])
pin_job_gpus(snakemake.resources.gpu)  # workstation: devices of its own; SLURM: left as assigned
diffgr_generate(
    records=snakemake.input.records, model_dir=snakemake.input.get("model_dir"), model=snakemake.params.model,
    dataset=snakemake.params.dataset, prompt=snakemake.params.prompt,
    closed_book_prompt=snakemake.params.closed_book_prompt, system_message=snakemake.params.system_message,
    context_orders=list(snakemake.params.context_orders), shuffle_seed=snakemake.params.shuffle_seed,
    max_new_tokens=snakemake.params.max_new_tokens, seed=snakemake.params.seed,
    length_threshold=snakemake.params.length_threshold, model_cfg=dict(snakemake.params.model_cfg),
    backend=snakemake.params.backend, backend_options=dict(snakemake.params.backend_options),
    batch_size=snakemake.params.batch_size, cache_dir=snakemake.params.cache_dir,
    answers_out=snakemake.output.answers, lengths_out=snakemake.output.lengths,
)
