# Rules of the 'account' stage: systems outside the pipeline (config `external`) accounted from
# their official prediction files, as `python -m evidence_ledger account` does. Directive order:
# input, output, log, benchmark, params, threads, resources, conda, script. Config reaches the
# stage functions only through params. Rule functions: evidence_ledger.prediction_files.stage.

include: "account_functions.smk"


rule account_system:
    input:
        unpack(account_inputs),
    output:
        estimates=ACCOUNT("estimates"),
        estimates_tsv=report_output(ACCOUNT("estimates_tsv"), "account_estimates", "Accounting",
                                    "External systems"),
        counts=ACCOUNT("counts"),
        coverage=ACCOUNT("coverage"),
        intervals=ACCOUNT("intervals"),
        intervals_tsv=report_output(ACCOUNT("intervals_tsv"), "account_intervals", "Accounting",
                                    "External systems"),
        metrics_tsv=report_output(ACCOUNT("answer_metrics_tsv"), "account_answer_metrics",
                                  "Accounting", "External systems"),
        item_rows=ACCOUNT("items"),
        item_texts=ACCOUNT("item_texts"),
    log:
        log_file("account", "account_system", "{system}"),
    benchmark:
        timing_file("account", "account_system", "{system}")
    params:
        format_name=lambda wc: ACCOUNTED_SYSTEMS[wc.system][0],
        settings=lambda wc: account_settings(wc.system),
        system=lambda wc: wc.system,
        sources=lambda wc: list(ACCOUNTED_SYSTEMS[wc.system][1]["sources"]),
        resample_runs=lambda wc: bool(ACCOUNTED_SYSTEMS[wc.system][1].get("resample_runs", False)),
        **bootstrap_params("study1"),
    wildcard_constraints:
        system="[A-Za-z0-9_-]+",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
