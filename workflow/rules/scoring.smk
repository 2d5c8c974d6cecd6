# Rules of the 'scoring' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
# Scorer semantics: docs/scoring.md. Per-unit indicators: src/evidence_ledger/scoring/indicators.py.

include: "scoring_functions.smk"


rule score_evidence:
    input:
        evidence="results/evidence/{dataset}/evidence.parquet",
        sample="results/sampling/{dataset}/sample.parquet",
    output:
        indicators="results/scoring/{dataset}/evidence_indicators.parquet",
        relevant="results/scoring/{dataset}/relevant.parquet",
        summary=report(
            "results/scoring/{dataset}/eligibility.tsv",
            caption="../report/scoring_eligibility.rst",
            category="Scoring",
            subcategory="{dataset}",
        ),
    log:
        log_file("scoring", "score_evidence", "{dataset}"),
    benchmark:
        timing_file("scoring", "score_evidence", "{dataset}")
    params:
        max_evidence=config["scoring"]["max_evidence"],
        max_evidence_cell=config["scoring"]["max_evidence_cell"],
        max_sentences=config["scoring"]["max_abstract_sentences"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule score_answers:
    input:
        parsed="results/generation/{model}/{dataset}/parsed.parquet",
        sample="results/sampling/{dataset}/sample.parquet",
    output:
        indicators="results/scoring/{model}/{dataset}/answer_indicators.parquet",
    log:
        log_file("scoring", "score_answers", "{model}_{dataset}"),
    benchmark:
        timing_file("scoring", "score_answers", "{model}_{dataset}")
    params:
        parsers=config["scoring"]["parsers"],
    wildcard_constraints:
        model="[A-Za-z0-9_.-]+",
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
