# Rules of the 'report' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
# Rule functions: evidence_ledger.report.stage.

include: "report_functions.smk"


rule provenance:
    input:
        lambda wc: gpu_fit_model_inputs(),  # locally built models: their identities are recorded
    output:
        out=report(
            REPORT("provenance"),
            caption="../report/provenance.rst",
            category="Provenance",
        ),
        gpu_fit_out=report(
            REPORT("gpu_fit"),
            caption="../report/gpu_fit.rst",
            category="Provenance",
        ),
    log:
        log_file("report", "provenance"),
    benchmark:
        timing_file("report", "provenance")
    params:
        config=config,
        repo=workflow.basedir,
        verifier_base_dir=lambda wc: verifier_base_local_dir(),
        device_memory_gb=lambda wc: config_device_memory_gb(config),
        budget_tokenizers=lambda wc: budget_tokenizer_specs(),
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule claim_traces:
    input:
        unpack(claim_trace_inputs),
    output:
        out=report(
            REPORT("claim_traces"),
            caption="../report/claim_traces.rst",
            category="Study 2",
            subcategory="Per-claim traces",
        ),
    log:
        log_file("report", "claim_traces"),
    benchmark:
        timing_file("report", "claim_traces")
    params:
        sources=lambda wc: config["generation"]["sources"],
        per_pattern=lambda wc: config["report"]["traces_per_pattern"],
        datasets=lambda wc: trace_datasets(),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule summary_page:
    input:
        unpack(summary_page_inputs),
    output:
        html_out=report(
            REPORT("summary"),
            caption="../report/summary_page.rst",
            category=SUMMARY_CATEGORY,
        ),
        decomposition_out=report(
            REPORT("decomposition"),
            caption="../report/study1_decomposition.rst",
            category=SUMMARY_CATEGORY,
        ),
    log:
        log_file("report", "summary_page"),
    benchmark:
        timing_file("report", "summary_page")
    params:
        study1_family_size=lambda wc: config["accounting"]["study1"]["bootstrap"]["family_size"],
        study1_alpha=lambda wc: config["accounting"]["study1"]["bootstrap"]["alpha"],
        unresolved_scope=lambda wc: config["accounting"]["study1"]["unresolved_scope"],
        study2_parser=lambda wc: config["accounting"]["study2"]["parser"],
        study2_sources=lambda wc: config["generation"]["sources"],
        extra_titles=[title for title, _ in summary_extra_tables()],
        accounted_titles=[account_title(s) for s in ACCOUNTED_SYSTEMS],
        accounted_layouts=[account_layout(s) for s in ACCOUNTED_SYSTEMS],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule items_page:
    input:
        unpack(items_page_inputs),
    output:
        html_out=report(
            REPORT("items"),
            caption="../report/items_page.rst",
            category=SUMMARY_CATEGORY,
        ),
    log:
        log_file("report", "items_page"),
    benchmark:
        timing_file("report", "items_page")
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule ledger:
    input:
        ledger_dependencies,
        provenance=REPORT("provenance"),
    output:
        ledger_out=REPORT("ledger"),
    log:
        log_file("report", "ledger"),
    benchmark:
        timing_file("report", "ledger")
    params:
        sources=lambda wc: ledger_sources(),
        settings=config,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
