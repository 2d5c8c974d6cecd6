# Rules of the 'verifier' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.

include: "verifier_functions.smk"


rule serialise_verifier_inputs:
    input:
        lambda wc: verifier_base_inputs(),  # a locally built base model, named by params.base
        unpack(verifier_serialise_inputs),
    output:
        verifier_inputs=VERIFIER("inputs"),
    log:
        log_file("verifier", "serialise_verifier_inputs", "{split}"),
    benchmark:
        timing_file("verifier", "serialise_verifier_inputs", "{split}")
    params:
        split=lambda wc: wc.split,
        sources=lambda wc: verifier_split_sources(wc.split),
        base=verifier_base_model(),
        max_total_tokens=VERIFIER_CFG["input"]["max_total_tokens"],
        max_claim_tokens=VERIFIER_CFG["input"]["max_claim_tokens"],
        max_units=VERIFIER_CFG["input"]["max_units"],
        max_candidates=VERIFIER_CFG["input"]["max_candidates"],
        max_unit_tokens=VERIFIER_CFG["input"]["max_unit_tokens"],
        include_context=VERIFIER_CFG["input"]["include_context"],
        context_separator=VERIFIER_CFG["input"]["context_separator"],
        unit_separator=VERIFIER_CFG["input"]["unit_separator"],
        sentinel=VERIFIER_CFG["input"]["sentinel"],
        repeats_take_window_slots=VERIFIER_CFG["input"]["repeats_take_window_slots"],
    wildcard_constraints:
        split="train|dev",
    threads: 1
    priority: 50
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule train_verifier:
    input:
        lambda wc: verifier_base_inputs(),  # a locally built base model, named by params.base
        inputs=VERIFIER("inputs", split="train"),
    output:
        checkpoint_dir=directory(VERIFIER("checkpoint")),
    log:
        log_file("verifier", "train_verifier", "ckpt{k}"),
    benchmark:
        timing_file("verifier", "train_verifier", "ckpt{k}")
    params:
        checkpoint=lambda wc: int(wc.k),
        seed=verifier_checkpoint_seed,
        base=verifier_base_model(),
        final_update=VERIFIER_CFG["final_update"],
        batch_size=VERIFIER_CFG["batch_size"],
        grad_accumulation=VERIFIER_CFG["grad_accumulation"],
        learning_rate=VERIFIER_CFG["learning_rate"],
        warmup_ratio=VERIFIER_CFG["warmup_ratio"],
        precision=VERIFIER_CFG["precision"],
        label_set=list(VERIFIER_CFG["label_set"]),
        examples=VERIFIER_CFG["examples_per_checkpoint"],
        weight_decay=VERIFIER_CFG["weight_decay"],
        max_grad_norm=VERIFIER_CFG["max_grad_norm"],
    wildcard_constraints:
        k=r"[1-9][0-9]*",
    threads: 1
    priority: 40
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(1),
    conda:
        "../../envs/gpu-vllm.yaml"
    script:
        "../../scripts/call_stage.py"


rule predict_verifier:
    input:
        checkpoints=verifier_checkpoints(),
        inputs=VERIFIER("inputs", split="dev"),
    output:
        answers=VERIFIER("answers"),
    log:
        log_file("verifier", "predict_verifier"),
    benchmark:
        timing_file("verifier", "predict_verifier")
    params:
        system=VERIFIER_CFG["name"],
        batch_size=VERIFIER_CFG["predict_batch_size"],
        precision=VERIFIER_CFG["precision"],
    threads: 1
    priority: 30
    resources:
        mem_mb=8000,
        runtime=120,
        **gpu_resources(1),
    conda:
        "../../envs/gpu-vllm.yaml"
    script:
        "../../scripts/call_stage.py"


rule study1_indicators:
    input:
        answers=VERIFIER("answers"),
        claims=INGEST("claims", dataset=VERIFIER_CFG['dataset'], split="dev"),
        evidence=lambda wc: [verifier_evidence_path(s) for s in VERIFIER_CFG["sources"]],
        inputs=VERIFIER("inputs", split="dev"),
    output:
        answer_indicators=VERIFIER("answer_indicators"),
        evidence_indicators=VERIFIER("evidence_indicators"),
        relevant=VERIFIER("relevant"),
        unresolved=VERIFIER("unresolved"),
        unresolved_tsv=report(VERIFIER("unresolved_tsv"), caption="../report/study1_unresolved.rst",
                              category="Verifier"),
    log:
        log_file("verifier", "study1_indicators"),
    benchmark:
        timing_file("verifier", "study1_indicators")
    params:
        sources=VERIFIER_CFG["sources"],
        max_evidence=get_benchmark(VERIFIER_CFG["dataset"]).caps(config["scoring"])["max_evidence"],
        max_evidence_cell=get_benchmark(VERIFIER_CFG["dataset"]).caps(config["scoring"])["max_evidence_cell"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule verifier_summary:
    input:
        inputs=[VERIFIER("inputs", split="train"), VERIFIER("inputs", split="dev")],
        checkpoints=verifier_checkpoints(),
        answers=VERIFIER("answers"),
    output:
        summary=report(VERIFIER("summary"), caption="../report/verifier_summary.rst", category="Verifier"),
    log:
        log_file("verifier", "verifier_summary"),
    benchmark:
        timing_file("verifier", "verifier_summary")
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
