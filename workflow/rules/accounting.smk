# Rules of the 'accounting' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params;
# the shared parameter blocks (study1_design, study2_panel, bootstrap_params: each key its own
# param) and the Study 2 tables in panel order (study2_inputs) are in accounting_functions.smk.
# Rule functions: evidence_ledger.accounting.stage.

include: "accounting_functions.smk"


rule study1_accounting:
    input:
        answers=VERIFIER("answer_indicators"),
        evidence=VERIFIER("evidence_indicators"),
        relevant=VERIFIER("relevant"),
        unresolved=VERIFIER("unresolved"),
        **accounting_reference_inputs(),
    output:
        estimates_out=ACCOUNTING("study1_estimates"),
        summary_out=accounting_report("study1_estimates_tsv", "accounting_study1"),
        counts_out=ACCOUNTING("study1_counts"),
        coverage_out=ACCOUNTING("study1_coverage"),
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
        intervals_out=ACCOUNTING("study1_intervals"),
        summary_out=accounting_report("study1_intervals_tsv", "accounting_study1_intervals"),
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
        estimates_out=ACCOUNTING("estimates"),
        contrasts_out=accounting_report("contrasts_tsv", "accounting_contrasts"),
        cells_out=accounting_report("cells_tsv", "accounting_cells"),
        partition_out=accounting_report("partition_tsv", "accounting_partition"),
        crossed_out=accounting_report("crossed_tsv", "accounting_crossed"),
        invalid_rates_out=ACCOUNTING("invalid_rates"),
        invalid_rates_tsv_out=accounting_report("invalid_rates_tsv", "accounting_invalid_rates"),
        counts_out=ACCOUNTING("counts"),
        coverage_out=ACCOUNTING("coverage"),
        traces_out=ACCOUNTING("pattern_traces"),
        examples_out=accounting_report("pattern_examples_tsv", "accounting_pattern_examples"),
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


rule study1_items:
    input:
        counts=rules.study1_accounting.output.counts_out,
        answers=VERIFIER("answer_indicators"),
        evidence=VERIFIER("evidence_indicators"),
        claims=INGEST("claims", dataset=config["verifier"]["dataset"], split="dev"),
        evidence_texts=[verifier_evidence_path(s) for s in config["verifier"]["sources"]],
        verifier_answers=VERIFIER("answers"),
    output:
        items_out=ACCOUNTING("items", study="study1"),
        texts_out=ACCOUNTING("item_texts", study="study1"),
    log:
        log_file("accounting", "study1_items"),
    benchmark:
        timing_file("accounting", "study1_items")
    params:
        **study1_design(),
        budget=ACC1["budget"],
        answer_format=ACC1["format"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule study2_items:
    input:
        **study2_inputs("answers", "evidence", "relevant", "families", "samples", "evidence_texts", "parsed"),
    output:
        items_out=ACCOUNTING("items", study="study2"),
        texts_out=ACCOUNTING("item_texts", study="study2"),
    log:
        log_file("accounting", "study2_items"),
    benchmark:
        timing_file("accounting", "study2_items")
    params:
        **study2_panel(),
        parser=ACC2["parser"],
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
        intervals_out=ACCOUNTING("intervals"),
        summary_out=accounting_report("intervals_tsv", "accounting_intervals"),
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
        intervals=ACCOUNTING("intervals", family="primary"),
        estimates=rules.study2_accounting.output.estimates_out,
        **accounting_reference_inputs(),
    output:
        criteria_out=ACCOUNTING("decision_criteria"),
        criteria_tsv_out=accounting_report("decision_criteria_tsv", "accounting_decision_criteria"),
        label_out=ACCOUNTING("decision_label"),
        label_tsv_out=accounting_report("decision_label_tsv", "accounting_decision_label"),
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
        intervals=ACCOUNTING("intervals", family="primary"),
    output:
        png_out=accounting_report("forest_png", "accounting_forest"),
        svg_out=ACCOUNTING("forest_svg"),
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
        controls_out=accounting_report("analysis_tsv", "accounting_controls", analysis="controls"),
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
        requests_out=accounting_report("analysis_tsv", "accounting_control_generations", analysis="control_generations"),
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
        accuracy_out=accounting_report("analysis_tsv", "accounting_answer_accuracy", analysis="answer_accuracy"),
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
        counts_out=ACCOUNTING("counts_by_parser"),
        sensitivity_out=accounting_report("analysis_tsv", "accounting_parser_sensitivity", analysis="parser_sensitivity"),
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
        answers=VERIFIER("answer_indicators"),
        relevant=VERIFIER("relevant"),
        evidence=VERIFIER("evidence_indicators"),
        **accounting_reference_inputs(),
    output:
        metrics_out=accounting_report("study1_answer_metrics_tsv", "accounting_study1_answer_metrics"),
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
        exploratory=ACCOUNTING("intervals", family="exploratory"),
    output:
        endpoints_out=accounting_report("analysis_tsv", "accounting_endpoints", analysis="endpoints"),
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
        design_out=accounting_report("analysis_tsv", "accounting_design", analysis="design"),
        populations_out=accounting_report("analysis_tsv", "accounting_populations", analysis="populations"),
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
