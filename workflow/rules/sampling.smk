# Rules of the 'sampling' stage: claim families and the Study 2 claim samples
# (sampling.stage). Directive order: input, output, log, benchmark, params, threads,
# resources, conda, script. Config reaches the stage functions only through params.

include: "sampling_functions.smk"


rule build_families:
    input:
        claims=lambda wc: family_claim_inputs(wc.dataset),
    output:
        families=SAMPLING("families"),
        links=SAMPLING("family_links"),
        summary=report(
            SAMPLING("families_summary"),
            caption="../report/families.rst",
            category="Sampling",
            subcategory="{dataset}",
        ),
    log:
        log_file("sampling", "build_families", "{dataset}"),
    benchmark:
        timing_file("sampling", "build_families", "{dataset}")
    params:
        dataset=lambda wc: wc.dataset,
        negation_tokens=config["families"]["negation_tokens"],
        top_k=config["families"]["top_k"],
        threshold=config["families"]["near_duplicate_threshold"],
    threads: 1
    priority: 85
    resources:
        mem_mb=4000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule sample_claims:
    input:
        unpack(lambda wc: sample_inputs(wc.dataset)),
    output:
        sample=SAMPLING("sample"),
        summary=report(
            SAMPLING("sample_summary"),
            caption="../report/sample_summary.rst",
            category="Sampling",
            subcategory="{dataset}",
        ),
    log:
        log_file("sampling", "sample_claims", "{dataset}"),
    benchmark:
        timing_file("sampling", "sample_claims", "{dataset}")
    params:
        method=lambda wc: config["sampling"][wc.dataset]["method"],
        salt=lambda wc: config["sampling"][wc.dataset].get("salt", ""),
        n=lambda wc: config["sampling"][wc.dataset].get("n"),
    threads: 1
    priority: 85
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
