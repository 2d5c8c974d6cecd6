# Rules of the 'scoring' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
# Scorer semantics: docs/scoring.md. Per-unit indicators: src/evidence_ledger/scoring/indicators.py.

include: "scoring_functions.smk"


rule score_evidence:
    input:
        evidence=EVIDENCE("evidence"),
        sample=SAMPLING("sample"),
    output:
        indicators=SCORING("evidence_indicators"),
        relevant=SCORING("relevant"),
        summary=report(
            SCORING("eligibility"),
            caption="../report/scoring_eligibility.rst",
            category="Scoring",
            subcategory="{dataset}",
        ),
    log:
        log_file("scoring", "score_evidence", "{dataset}"),
    benchmark:
        timing_file("scoring", "score_evidence", "{dataset}")
    params:
        # the dataset's official scorer caps (benchmark registry), unless config scoring overrides one
        max_evidence=lambda wc: get_benchmark(wc.dataset).caps(config["scoring"])["max_evidence"],
        max_evidence_cell=lambda wc: get_benchmark(wc.dataset).caps(config["scoring"])["max_evidence_cell"],
        max_sentences=lambda wc: get_benchmark(wc.dataset).caps(config["scoring"])["max_sentences"],
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
        parsed=GENERATION("parsed"),
        sample=SAMPLING("sample"),
    output:
        indicators=SCORING("answer_indicators"),
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
