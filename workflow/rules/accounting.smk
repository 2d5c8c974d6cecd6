# Rules of the 'accounting' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params;
# the shared parameter blocks (study1_design, study2_panel, bootstrap_params: each key its own
# param) and the Study 2 tables in panel order (study2_inputs) are in accounting_functions.smk.
# Rule functions: evidence_ledger.accounting.stage.

include: "accounting_functions.smk"


rule study1_accounting:
    input:
        answers="results/study1/answer_indicators.parquet",
        evidence="results/study1/evidence_indicators.parquet",
        relevant="results/study1/relevant.parquet",
        unresolved="results/study1/unresolved.parquet",
        **accounting_reference_inputs(),
    output:
        estimates_out="results/accounting/study1/estimates.parquet",
        summary_out=accounting_report("study1", "estimates.tsv", "accounting_study1"),
        counts_out="results/accounting/study1/counts.parquet",
        coverage_out="results/accounting/study1/coverage.parquet",
    log:
        log_file("accounting", "study1_accounting"),
    benchmark:
        timing_file("accounting", "study1_accounting")
    params:
        **study1_design(),
        budget=ACC1["budget"],
        answer_format=ACC1["format"],
        unresolved_scope=ACC1["unresolved_scope"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study1_bootstrap:
    input:
        counts=rules.study1_accounting.output.counts_out,
        **accounting_reference_inputs(),
    output:
        intervals_out="results/accounting/study1/intervals.parquet",
        summary_out=accounting_report("study1", "intervals.tsv", "accounting_study1_intervals"),
    log:
        log_file("accounting", "study1_bootstrap"),
    benchmark:
        timing_file("accounting", "study1_bootstrap")
    params:
        sources=list(config["verifier"]["sources"]),
        budget=ACC1["budget"],
        checkpoints=study1_checkpoints(),
        answer_format=ACC1["format"],
        **bootstrap_params("study1"),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_accounting:
    input:
        **study2_inputs("answers", "evidence", "relevant", "families"),
        **accounting_reference_inputs(),
    output:
        estimates_out="results/accounting/study2/estimates.parquet",
        contrasts_out=accounting_report("study2", "contrasts.tsv", "accounting_contrasts"),
        cells_out=accounting_report("study2", "cells.tsv", "accounting_cells"),
        partition_out=accounting_report("study2", "partition.tsv", "accounting_partition"),
        crossed_out=accounting_report("study2", "crossed.tsv", "accounting_crossed"),
        invalid_rates_out="results/accounting/study2/invalid_rates.parquet",
        invalid_rates_tsv_out=accounting_report("study2", "invalid_rates.tsv", "accounting_invalid_rates"),
        counts_out="results/accounting/study2/counts.parquet",
        coverage_out="results/accounting/study2/coverage.parquet",
        traces_out="results/accounting/study2/pattern_traces.parquet",
        examples_out=accounting_report("study2", "pattern_examples.tsv", "accounting_pattern_examples"),
    log:
        log_file("accounting", "study2_accounting"),
    benchmark:
        timing_file("accounting", "study2_accounting")
    params:
        **study2_panel(),
        parser=ACC2["parser"],
        sensitivity_parsers=ACC2["sensitivity_parsers"],
        greedy_replicate=ACC2["greedy_replicate"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_bootstrap:
    input:
        counts=rules.study2_accounting.output.counts_out,
        **accounting_reference_inputs(),
    output:
        intervals_out="results/accounting/study2/intervals_{family}.parquet",
        summary_out=accounting_report("study2", "intervals_{family}.tsv", "accounting_intervals"),
    log:
        log_file("accounting", "study2_bootstrap", "{family}"),
    benchmark:
        timing_file("accounting", "study2_bootstrap", "{family}")
    params:
        family=lambda wc: wc.family,
        **study2_panel(),
        # the family's draw protocol (accounting.bootstrap; the Bonferroni size derived from its comparisons)
        draws=lambda wc: config["accounting"]["bootstrap"][wc.family]["draws"],
        alpha=lambda wc: config["accounting"]["bootstrap"][wc.family]["alpha"],
        family_size=lambda wc: study2_family_size(config, wc.family),
        seed=config["accounting"]["bootstrap"]["seed"],
        batch_size=config["accounting"]["bootstrap"]["batch_size"],
    wildcard_constraints:
        family="|".join(STUDY2_BOOTSTRAP_FAMILIES),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule decision_labels:
    input:
        intervals="results/accounting/study2/intervals_primary.parquet",
        estimates=rules.study2_accounting.output.estimates_out,
        **accounting_reference_inputs(),
    output:
        criteria_out="results/accounting/study2/decision_criteria.parquet",
        criteria_tsv_out=accounting_report("study2", "decision_criteria.tsv", "accounting_decision_criteria"),
        label_out="results/accounting/study2/decision_label.parquet",
        label_tsv_out=accounting_report("study2", "decision_label.tsv", "accounting_decision_label"),
    log:
        log_file("accounting", "decision_labels"),
    benchmark:
        timing_file("accounting", "decision_labels")
    params:
        parser=ACC2["parser"],
        seed_replicates=ACC2["seed_replicates"],
        models=STUDY2_MODELS,
        magnitude=ACC_DECISION["magnitude"],
        min_agreeing_seeds=ACC_DECISION["min_agreeing_seeds"],
        min_datasets=ACC_DECISION["min_datasets"],
        required_dataset=ACC_DECISION["required_dataset"],
        bound=ACC_DECISION["bound"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_forest_plot:
    input:
        intervals="results/accounting/study2/intervals_primary.parquet",
    output:
        png_out=accounting_report("study2", "forest_primary.png", "accounting_forest"),
        svg_out="results/accounting/study2/forest_primary.svg",
    log:
        log_file("accounting", "study2_forest_plot"),
    benchmark:
        timing_file("accounting", "study2_forest_plot")
    params:
        bound=ACC_DECISION["bound"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_controls:
    input:
        **study2_inputs("answers", "evidence", "relevant", "families"),
    output:
        controls_out=accounting_report("study2", "controls.tsv", "accounting_controls"),
    log:
        log_file("accounting", "study2_controls"),
    benchmark:
        timing_file("accounting", "study2_controls")
    params:
        datasets=STUDY2_DATASETS,
        models=STUDY2_MODELS,
        parser=ACC2["parser"],
        budget=ACC_CONTROLS["budget"],
        formats=list(config["generation"]["controls"]["formats"]),
        control_sources=analysed_control_sources(),
        primary_sources=control_ordering_sources(),
        mappings=alternative_code_mappings(),
        greedy_replicate=ACC2["greedy_replicate"],
        **bootstrap_params("controls"),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule control_generations:
    input:
        **study2_inputs("requests"),
        **accounting_reference_inputs(),
    output:
        requests_out=accounting_report("study2", "control_generations.tsv", "accounting_control_generations"),
    log:
        log_file("accounting", "control_generations"),
    benchmark:
        timing_file("accounting", "control_generations")
    params:
        design=config["generation"]["controls"]["design"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_answer_accuracy:
    input:
        **study2_inputs("answers", "families"),
    output:
        accuracy_out=accounting_report("study2", "answer_accuracy.tsv", "accounting_answer_accuracy"),
    log:
        log_file("accounting", "study2_answer_accuracy"),
    benchmark:
        timing_file("accounting", "study2_answer_accuracy")
    params:
        **study2_panel(),
        parsers=study2_parsers(),
        greedy_replicate=ACC2["greedy_replicate"],
        **bootstrap_params("primary"),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_parser_sensitivity:
    input:
        **study2_inputs("answers", "evidence", "relevant", "families"),
    output:
        counts_out="results/accounting/study2/counts_by_parser.parquet",
        sensitivity_out=accounting_report("study2", "parser_sensitivity.tsv", "accounting_parser_sensitivity"),
    log:
        log_file("accounting", "study2_parser_sensitivity"),
    benchmark:
        timing_file("accounting", "study2_parser_sensitivity")
    params:
        **study2_panel(),
        parsers=study2_parsers(),
        **bootstrap_params("primary"),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study1_answer_metrics:
    input:
        answers="results/study1/answer_indicators.parquet",
        relevant="results/study1/relevant.parquet",
        evidence="results/study1/evidence_indicators.parquet",
        **accounting_reference_inputs(),
    output:
        metrics_out=accounting_report("study1", "answer_metrics.tsv", "accounting_study1_answer_metrics"),
    log:
        log_file("accounting", "study1_answer_metrics"),
    benchmark:
        timing_file("accounting", "study1_answer_metrics")
    params:
        **study1_design(),
        classes=ACC1["macro_f1_classes"],
        **bootstrap_params("study1"),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_endpoints:
    input:
        estimates=rules.study2_accounting.output.estimates_out,
        exploratory="results/accounting/study2/intervals_exploratory.parquet",
    output:
        endpoints_out=accounting_report("study2", "endpoints.tsv", "accounting_endpoints"),
    log:
        log_file("accounting", "study2_endpoints"),
    benchmark:
        timing_file("accounting", "study2_endpoints")
    params:
        parser=ACC2["parser"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule design_tables:
    input:
        **study2_inputs("requests", "sample_summaries", "samples", "families", "evidence", "relevant", "answers"),
    output:
        design_out=accounting_report("study2", "design.tsv", "accounting_design"),
        populations_out=accounting_report("study2", "populations.tsv", "accounting_populations"),
    log:
        log_file("accounting", "design_tables"),
    benchmark:
        timing_file("accounting", "design_tables")
    params:
        datasets=STUDY2_DATASETS,
        models=STUDY2_MODELS,
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
