# Rules of the 'accounting' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
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
        estimates="results/accounting/study1/estimates.parquet",
        summary=report(
            "results/accounting/study1/estimates.tsv",
            caption="../report/accounting_study1.rst",
            category="Accounting",
            subcategory="Study 1",
        ),
        counts="results/accounting/study1/counts.parquet",
        coverage="results/accounting/study1/coverage.parquet",
    log:
        "logs/accounting/study1_accounting.log",
    benchmark:
        "logs/accounting/study1_accounting.benchmark.tsv"
    params:
        dataset=config["verifier"]["dataset"],
        system=config["verifier"]["name"],
        parser=ACC1["parser"],
        sources=list(config["verifier"]["sources"]),
        budget=ACC1["budget"],
        checkpoints=study1_checkpoints(),
        answer_format=ACC1["format"],
        unresolved_scope=ACC1.get("unresolved_scope", "window"),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study1_accounting.py"


rule study1_bootstrap:
    input:
        counts=rules.study1_accounting.output.counts,
        **accounting_reference_inputs(),
    output:
        intervals="results/accounting/study1/intervals.parquet",
        summary=report(
            "results/accounting/study1/intervals.tsv",
            caption="../report/accounting_study1_intervals.rst",
            category="Accounting",
            subcategory="Study 1",
        ),
    log:
        "logs/accounting/study1_bootstrap.log",
    benchmark:
        "logs/accounting/study1_bootstrap.benchmark.tsv"
    params:
        sources=list(config["verifier"]["sources"]),
        budget=ACC1["budget"],
        checkpoints=study1_checkpoints(),
        answer_format=ACC1["format"],
        draws=ACC1["bootstrap"]["draws"],
        alpha=ACC1["bootstrap"]["alpha"],
        family_size=ACC1["bootstrap"]["family_size"],
        seed=ACC1["bootstrap"]["seed"],
        batch_size=ACC_BOOT["batch_size"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study1_bootstrap.py"


rule study2_accounting:
    input:
        **study2_accounting_inputs(),
    output:
        estimates="results/accounting/study2/estimates.parquet",
        contrasts=report(
            "results/accounting/study2/contrasts.tsv",
            caption="../report/accounting_contrasts.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        cells=report(
            "results/accounting/study2/cells.tsv",
            caption="../report/accounting_cells.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        partition=report(
            "results/accounting/study2/partition.tsv",
            caption="../report/accounting_partition.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        crossed=report(
            "results/accounting/study2/crossed.tsv",
            caption="../report/accounting_crossed.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        invalid_rates="results/accounting/study2/invalid_rates.parquet",
        invalid_rates_tsv=report(
            "results/accounting/study2/invalid_rates.tsv",
            caption="../report/accounting_invalid_rates.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        counts="results/accounting/study2/counts.parquet",
        coverage="results/accounting/study2/coverage.parquet",
        traces="results/accounting/study2/pattern_traces.parquet",
        examples=report(
            "results/accounting/study2/pattern_examples.tsv",
            caption="../report/accounting_pattern_examples.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_accounting.log",
    benchmark:
        "logs/accounting/study2_accounting.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
        sources=ACC2["sources"],
        budgets=ACC2["budgets"],
        formats=ACC2["formats"],
        parser=ACC2["parser"],
        sensitivity_parsers=ACC2.get("sensitivity_parsers", []),
        greedy_replicate=ACC2.get("greedy_replicate"),
        seed_replicates=ACC2["seed_replicates"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_accounting.py"


rule study2_bootstrap:
    input:
        counts=rules.study2_accounting.output.counts,
        **accounting_reference_inputs(),
    output:
        intervals="results/accounting/study2/intervals_{family}.parquet",
        summary=report(
            "results/accounting/study2/intervals_{family}.tsv",
            caption="../report/accounting_intervals.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_bootstrap/{family}.log",
    benchmark:
        "logs/accounting/study2_bootstrap/{family}.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
        sources=ACC2["sources"],
        budgets=ACC2["budgets"],
        formats=ACC2["formats"],
        seed_replicates=ACC2["seed_replicates"],
        draws=lambda wc: study2_bootstrap_setting(wc.family, "draws"),
        alpha=lambda wc: study2_bootstrap_setting(wc.family, "alpha"),
        family_size=lambda wc: study2_bootstrap_setting(wc.family, "family_size"),
        seed=ACC_BOOT["seed"],
        batch_size=ACC_BOOT["batch_size"],
    wildcard_constraints:
        family="|".join(STUDY2_BOOTSTRAP_FAMILIES),
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_bootstrap.py"


rule decision_labels:
    input:
        intervals="results/accounting/study2/intervals_primary.parquet",
        estimates=rules.study2_accounting.output.estimates,
        **accounting_reference_inputs(),
    output:
        criteria="results/accounting/study2/decision_criteria.parquet",
        criteria_tsv=report(
            "results/accounting/study2/decision_criteria.tsv",
            caption="../report/accounting_decision_criteria.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        label="results/accounting/study2/decision_label.parquet",
        label_tsv=report(
            "results/accounting/study2/decision_label.tsv",
            caption="../report/accounting_decision_label.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/decision_labels.log",
    benchmark:
        "logs/accounting/decision_labels.benchmark.tsv"
    params:
        parser=ACC2["parser"],
        seed_replicates=ACC2["seed_replicates"],
        models=study2_panel_names()[1],
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
        "../../scripts/decision_labels.py"


rule study2_forest_plot:
    input:
        intervals="results/accounting/study2/intervals_primary.parquet",
    output:
        png=report(
            "results/accounting/study2/forest_primary.png",
            caption="../report/accounting_forest.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        svg="results/accounting/study2/forest_primary.svg",
    log:
        "logs/accounting/study2_forest_plot.log",
    benchmark:
        "logs/accounting/study2_forest_plot.benchmark.tsv"
    params:
        bound=ACC_DECISION["bound"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_forest_plot.py"


rule study2_controls:
    input:
        **study2_accounting_inputs(),
    output:
        controls=report(
            "results/accounting/study2/controls.tsv",
            caption="../report/accounting_controls.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_controls.log",
    benchmark:
        "logs/accounting/study2_controls.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
        parser=ACC2["parser"],
        budget=ACC_CONTROLS["budget"],
        formats=list(config["generation"]["controls"]["formats"]),
        control_sources=analysed_control_sources(),
        primary_sources=list(config["generation"]["sources"]),
        mappings=alternative_code_mappings(),
        greedy_replicate=ACC2["greedy_replicate"],
        draws=ACC_BOOT["primary"]["draws"],
        alpha=ACC_CONTROLS["alpha"],
        family_size=ACC_CONTROLS["family_size"],
        seed=ACC_BOOT["seed"],
        batch_size=ACC_BOOT["batch_size"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_controls.py"


rule control_generations:
    input:
        requests=control_generation_inputs(),
        **accounting_reference_inputs(),
    output:
        requests=report(
            "results/accounting/study2/control_generations.tsv",
            caption="../report/accounting_control_generations.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/control_generations.log",
    benchmark:
        "logs/accounting/control_generations.benchmark.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/control_generations.py"


rule study2_answer_accuracy:
    input:
        answers=study2_accounting_inputs()["answers"],
        families=study2_accounting_inputs()["families"],
    output:
        accuracy=report(
            "results/accounting/study2/answer_accuracy.tsv",
            caption="../report/accounting_answer_accuracy.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_answer_accuracy.log",
    benchmark:
        "logs/accounting/study2_answer_accuracy.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
        sources=ACC2["sources"],
        budgets=ACC2["budgets"],
        formats=ACC2["formats"],
        parsers=study2_parsers(),
        greedy_replicate=ACC2.get("greedy_replicate"),
        seed_replicates=ACC2["seed_replicates"],
        draws=ACC_BOOT["primary"]["draws"],
        alpha=ACC_BOOT["primary"]["alpha"],
        family_size=study2_bootstrap_setting("primary", "family_size"),
        seed=ACC_BOOT["seed"],
        batch_size=ACC_BOOT["batch_size"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_answer_accuracy.py"


rule study2_parser_sensitivity:
    input:
        answers=study2_accounting_inputs()["answers"],
        evidence=study2_accounting_inputs()["evidence"],
        relevant=study2_accounting_inputs()["relevant"],
        families=study2_accounting_inputs()["families"],
    output:
        counts="results/accounting/study2/counts_by_parser.parquet",
        sensitivity=report(
            "results/accounting/study2/parser_sensitivity.tsv",
            caption="../report/accounting_parser_sensitivity.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_parser_sensitivity.log",
    benchmark:
        "logs/accounting/study2_parser_sensitivity.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
        sources=ACC2["sources"],
        budgets=ACC2["budgets"],
        formats=ACC2["formats"],
        parsers=study2_parsers(),
        seed_replicates=ACC2["seed_replicates"],
        draws=ACC_BOOT["primary"]["draws"],
        alpha=ACC_BOOT["primary"]["alpha"],
        family_size=study2_bootstrap_setting("primary", "family_size"),
        seed=ACC_BOOT["seed"],
        batch_size=ACC_BOOT["batch_size"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=240,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_parser_sensitivity.py"


rule study1_answer_metrics:
    input:
        answers="results/study1/answer_indicators.parquet",
        relevant="results/study1/relevant.parquet",
        **accounting_reference_inputs(),
    output:
        metrics=report(
            "results/accounting/study1/answer_metrics.tsv",
            caption="../report/accounting_study1_answer_metrics.rst",
            category="Accounting",
            subcategory="Study 1",
        ),
    log:
        "logs/accounting/study1_answer_metrics.log",
    benchmark:
        "logs/accounting/study1_answer_metrics.benchmark.tsv"
    params:
        dataset=config["verifier"]["dataset"],
        system=config["verifier"]["name"],
        parser=ACC1["parser"],
        sources=list(config["verifier"]["sources"]),
        checkpoints=study1_checkpoints(),
        classes=ACC1.get("macro_f1_classes"),
        draws=ACC1["bootstrap"]["draws"],
        alpha=ACC1["bootstrap"]["alpha"],
        family_size=ACC1["bootstrap"]["family_size"],
        seed=ACC1["bootstrap"]["seed"],
        batch_size=ACC_BOOT["batch_size"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study1_answer_metrics.py"


rule study2_endpoints:
    input:
        estimates=rules.study2_accounting.output.estimates,
        exploratory="results/accounting/study2/intervals_exploratory.parquet",
        primary="results/accounting/study2/intervals_primary.parquet",
    output:
        endpoints=report(
            "results/accounting/study2/endpoints.tsv",
            caption="../report/accounting_endpoints.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/study2_endpoints.log",
    benchmark:
        "logs/accounting/study2_endpoints.benchmark.tsv"
    params:
        parser=ACC2["parser"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study2_endpoints.py"


rule design_tables:
    input:
        requests=control_generation_inputs(),
        sample_summaries=[f"results/sampling/{d}/sample_summary.tsv" for d in study2_panel_names()[0]],
        samples=[f"results/sampling/{d}/sample.parquet" for d in study2_panel_names()[0]],
        families=study2_accounting_inputs()["families"],
        evidence=study2_accounting_inputs()["evidence"],
        relevant=study2_accounting_inputs()["relevant"],
        answers=study2_accounting_inputs()["answers"],
    output:
        design=report(
            "results/accounting/study2/design.tsv",
            caption="../report/accounting_design.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
        populations=report(
            "results/accounting/study2/populations.tsv",
            caption="../report/accounting_populations.rst",
            category="Accounting",
            subcategory="Study 2",
        ),
    log:
        "logs/accounting/design_tables.log",
    benchmark:
        "logs/accounting/design_tables.benchmark.tsv"
    params:
        datasets=study2_panel_names()[0],
        models=study2_panel_names()[1],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/design_tables.py"
