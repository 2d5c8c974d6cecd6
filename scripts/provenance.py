"""Rule provenance: write results/report/provenance.tsv.

Reads:  params.config (the whole resolved config), params.repo (workflow dir),
        params.verifier_base_dir (the verifier's base model directory, or None),
        params.device_memory_gb (one GPU's memory), input.models (local model directories).
Writes: output.tsv with (section, key, value) rows: run kind, config hash, git commit,
        package versions, what ran per model slot, model revisions, backend settings,
        substitutes for author-held inputs; output.gpu_fit: the GPU-fit table of the run's GPU jobs.
"""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.report.stage import provenance

log_to_rule_log(snakemake.log[0])
provenance(config=snakemake.params.config, repo=snakemake.params.repo,
           verifier_base_dir=snakemake.params.verifier_base_dir, out=snakemake.output.tsv,
           device_memory_gb=snakemake.params.device_memory_gb, gpu_fit_out=snakemake.output.gpu_fit)
