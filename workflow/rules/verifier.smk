# Rules of the 'verifier' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.


rule build_demo_verifier:
    input:
        claims=f"results/ingest/{config['verifier']['dataset']}/claims_train.parquet",
        units=f"results/ingest/{config['verifier']['dataset']}/units.parquet",
    output:
        directory("results/models/verifier_base"),
    log:
        "logs/verifier/build_demo_verifier.log",
    benchmark:
        "logs/verifier/build_demo_verifier.benchmark.tsv"
    params:
        spec=config["verifier"]["demo_model"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/build_demo_verifier.py"


rule serialise_verifier_inputs:
    input:
        unpack(verifier_serialise_inputs),
    output:
        "results/verifier/inputs_{split}.parquet",
    log:
        "logs/verifier/serialise_verifier_inputs_{split}.log",
    benchmark:
        "logs/verifier/serialise_verifier_inputs_{split}.benchmark.tsv"
    params:
        sources=lambda wc: verifier_split_sources(wc.split),
        base=verifier_base_model(),
        limits=config["verifier"]["input"],
    wildcard_constraints:
        split="train|dev",
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/serialise_verifier_inputs.py"


rule train_verifier:
    input:
        unpack(lambda wc: {"inputs": "results/verifier/inputs_train.parquet", **verifier_base_inputs()}),
    output:
        directory("results/verifier/ckpt{k}"),
    log:
        "logs/verifier/train_verifier_ckpt{k}.log",
    benchmark:
        "logs/verifier/train_verifier_ckpt{k}.benchmark.tsv"
    params:
        checkpoint=lambda wc: int(wc.k),
        seed=verifier_checkpoint_seed,
        base=verifier_base_model(),
        settings=verifier_training_settings(),
    wildcard_constraints:
        k=r"[1-9][0-9]*",
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(1),
    conda:
        "../../envs/gpu-vllm.yaml"
    script:
        "../../scripts/train_verifier.py"


rule predict_verifier:
    input:
        checkpoints=verifier_checkpoints(),
        inputs="results/verifier/inputs_dev.parquet",
    output:
        "results/verifier/answers.parquet",
    log:
        "logs/verifier/predict_verifier.log",
    benchmark:
        "logs/verifier/predict_verifier.benchmark.tsv"
    params:
        system=config["verifier"]["name"],
        batch_size=config["verifier"]["predict_batch_size"],
        precision=config["verifier"]["precision"],
    threads: 1
    resources:
        mem_mb=8000,
        runtime=120,
        **gpu_resources(1),
    conda:
        "../../envs/gpu-vllm.yaml"
    script:
        "../../scripts/predict_verifier.py"


rule study1_indicators:
    input:
        answers="results/verifier/answers.parquet",
        claims=f"results/ingest/{config['verifier']['dataset']}/claims_dev.parquet",
        evidence=[verifier_evidence_path(s) for s in config["verifier"]["sources"]],
        inputs="results/verifier/inputs_dev.parquet",
    output:
        answers="results/study1/answer_indicators.parquet",
        evidence="results/study1/evidence_indicators.parquet",
        relevant="results/study1/relevant.parquet",
        unresolved="results/study1/unresolved.parquet",
    log:
        "logs/verifier/study1_indicators.log",
    benchmark:
        "logs/verifier/study1_indicators.benchmark.tsv"
    params:
        sources=config["verifier"]["sources"],
        max_evidence=config["scoring"]["max_evidence"],
        max_evidence_cell=config["scoring"]["max_evidence_cell"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/study1_indicators.py"


rule verifier_summary:
    input:
        inputs=["results/verifier/inputs_train.parquet", "results/verifier/inputs_dev.parquet"],
        checkpoints=verifier_checkpoints(),
        answers="results/verifier/answers.parquet",
    output:
        report("results/verifier/summary.tsv", caption="../report/verifier_summary.rst", category="Verifier"),
    log:
        "logs/verifier/verifier_summary.log",
    benchmark:
        "logs/verifier/verifier_summary.benchmark.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/verifier_summary.py"


FINAL_OUTPUTS["verifier"] = lambda: (
    ["results/study1/answer_indicators.parquet", "results/study1/evidence_indicators.parquet",
     "results/study1/relevant.parquet", "results/study1/unresolved.parquet", "results/verifier/summary.tsv"]
    if enabled("study1")
    else []
)
