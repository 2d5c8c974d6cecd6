# Rules of the 'wikicontradict' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
# Rule functions: evidence_ledger.wikicontradict.stage.
#
# wikicontradict_requests -> wikicontradict_generate -> wikicontradict_judge
#   (+ wikicontradict_judge_human on the human-labelled responses) -> wikicontradict_metrics.
# Logs stay under logs/conflict/ (where the knowledge-conflict rules have always logged).

include: "wikicontradict_functions.smk"


wildcard_constraints:
    wc_model="|".join(WC.get("models") or ["__none__"]),


rule wikicontradict_requests:
    input:
        instances=INGEST("instances"),
    output:
        out=WIKICONTRADICT("requests"),
    log:
        log_file("conflict", "wikicontradict_requests", "{wc_model}"),
    benchmark:
        timing_file("conflict", "wikicontradict_requests", "{wc_model}")
    params:
        model=lambda wc: wc.wc_model,
        templates=WC["templates"],
        max_new_tokens=WC["max_new_tokens"],
        seed=WC["seed"],
        passage_version=WC["passage_version"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule wikicontradict_generate:
    input:
        unpack(lambda wc: conflict_model_inputs(wc.wc_model)),
        requests=WIKICONTRADICT("requests"),
    output:
        out=WIKICONTRADICT("responses"),
    log:
        log_file("conflict", "wikicontradict_generate", "{wc_model}"),
    benchmark:
        timing_file("conflict", "wikicontradict_generate", "{wc_model}")
    params:
        model=lambda wc: wc.wc_model,
        **conflict_generation_params(lambda wc: wc.wc_model),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(lambda wc: model_gpus(wc.wc_model)),
    conda:
        generation_conda_env()
    script:
        "../../scripts/call_stage.py"


rule wikicontradict_judge:
    input:
        unpack(lambda wc: conflict_model_inputs(WC["judge"]["model"])),
        responses=WIKICONTRADICT("responses"),
        instances=INGEST("instances"),
        fewshot=input_path("wikicontradict.judge.fewshot_file"),
    output:
        out=WIKICONTRADICT("judgements"),
    log:
        log_file("conflict", "wikicontradict_judge", "{wc_model}"),
    benchmark:
        timing_file("conflict", "wikicontradict_judge", "{wc_model}")
    params:
        **wikicontradict_judge_params(),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(model_gpus(WC["judge"]["model"])),
    conda:
        generation_conda_env()
    script:
        "../../scripts/call_stage.py"


rule wikicontradict_judge_human:
    input:
        unpack(lambda wc: conflict_model_inputs(WC["judge"]["model"])),
        human=wikicontradict_human_labels() or [],
        instances=INGEST("instances"),
        fewshot=input_path("wikicontradict.judge.fewshot_file"),
    output:
        out=WIKICONTRADICT("human_judged"),
    log:
        log_file("conflict", "wikicontradict_judge_human"),
    benchmark:
        timing_file("conflict", "wikicontradict_judge_human")
    params:
        **wikicontradict_judge_params(),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=120,
        **gpu_resources(model_gpus(WC["judge"]["model"])),
    conda:
        generation_conda_env()
    script:
        "../../scripts/call_stage.py"


rule wikicontradict_metrics:
    input:
        judgements=expand(WIKICONTRADICT("judgements"), wc_model=WC["models"]),
        instances=INGEST("instances"),
        **wikicontradict_agreement_inputs(),
    output:
        rates_out=report(
            WIKICONTRADICT("rates"),
            caption="../report/conflict_wikicontradict_rates.rst",
            category="Knowledge conflict",
            subcategory="WikiContradict",
        ),
        detection_out=report(
            WIKICONTRADICT("detection"),
            caption="../report/conflict_wikicontradict_detection.rst",
            category="Knowledge conflict",
            subcategory="WikiContradict",
        ),
        **wikicontradict_agreement_outputs(),
    log:
        log_file("conflict", "wikicontradict_metrics"),
    benchmark:
        timing_file("conflict", "wikicontradict_metrics")
    params:
        templates=WC["templates"],
        passage_version=WC["passage_version"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
