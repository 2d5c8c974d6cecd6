# Rules of the 'conflict' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.
# Rule functions: evidence_ledger.conflict.stage.
#
# WikiContradict: wikicontradict_requests -> wikicontradict_generate -> wikicontradict_judge
#   (+ wikicontradict_judge_human on the human-labelled responses) -> wikicontradict_metrics.
# DiffGR: diffgr_generate (per model x dataset) -> diffgr_score; diffgr_score_files scores
#   official reader-output files as given.

include: "conflict_functions.smk"


wildcard_constraints:
    wc_model="|".join(WC.get("models") or ["__none__"]),
    dg_model="|".join(DG.get("models") or ["__none__"]),
    dg_dataset="nqcc|tqacc",


rule wikicontradict_requests:
    input:
        instances="results/ingest/wikicontradict/instances.parquet",
    output:
        requests="results/wikicontradict/{wc_model}/requests.parquet",
    log:
        "logs/conflict/wikicontradict_requests/{wc_model}.log",
    benchmark:
        "logs/conflict/wikicontradict_requests/{wc_model}.benchmark.tsv"
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
        "../../scripts/wikicontradict_requests.py"


rule wikicontradict_generate:
    input:
        unpack(lambda wc: conflict_model_inputs(wc.wc_model)),
        requests="results/wikicontradict/{wc_model}/requests.parquet",
    output:
        responses="results/wikicontradict/{wc_model}/responses.parquet",
    log:
        "logs/conflict/wikicontradict_generate/{wc_model}.log",
    benchmark:
        "logs/conflict/wikicontradict_generate/{wc_model}.benchmark.tsv"
    params:
        model=lambda wc: wc.wc_model,
        model_cfg=lambda wc: conflict_model_cfg(wc.wc_model),
        backend=conflict_backend(),
        backend_options=lambda wc: generation_backend_options(wc.wc_model),
        batch_size=lambda wc: conflict_batch_size(wc.wc_model),
        cache_dir=lambda wc: generation_cache_dir(wc.wc_model),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(lambda wc: model_gpus(wc.wc_model)),
    conda:
        generation_conda_env()
    script:
        "../../scripts/wikicontradict_generate.py"


rule wikicontradict_judge:
    input:
        unpack(lambda wc: conflict_model_inputs(WC["judge"]["model"])),
        responses="results/wikicontradict/{wc_model}/responses.parquet",
        instances="results/ingest/wikicontradict/instances.parquet",
        fewshot=repo_path(WC["judge"]["fewshot_file"]),
    output:
        judgements="results/wikicontradict/{wc_model}/judgements.parquet",
    log:
        "logs/conflict/wikicontradict_judge/{wc_model}.log",
    benchmark:
        "logs/conflict/wikicontradict_judge/{wc_model}.benchmark.tsv"
    params:
        judge_model=WC["judge"]["model"],
        judge_cfg=lambda wc: conflict_model_cfg(WC["judge"]["model"]),
        backend=conflict_backend(),
        backend_options=generation_backend_options(WC["judge"]["model"]),
        batch_size=conflict_batch_size(WC["judge"]["model"]),
        cache_dir=generation_cache_dir(WC["judge"]["model"]),
        max_new_tokens=WC["judge"]["max_new_tokens"],
        seed=WC["seed"],
    threads: 1
    resources:
        mem_mb=16000,
        runtime=240,
        **gpu_resources(model_gpus(WC["judge"]["model"])),
    conda:
        generation_conda_env()
    script:
        "../../scripts/wikicontradict_judge.py"


rule wikicontradict_judge_human:
    input:
        unpack(lambda wc: conflict_model_inputs(WC["judge"]["model"])),
        human=wikicontradict_human_labels() or [],
        instances="results/ingest/wikicontradict/instances.parquet",
        fewshot=repo_path(WC["judge"]["fewshot_file"]),
    output:
        judged="results/wikicontradict/judge_agreement/judgements.parquet",
    log:
        "logs/conflict/wikicontradict_judge_human.log",
    benchmark:
        "logs/conflict/wikicontradict_judge_human.benchmark.tsv"
    params:
        judge_model=WC["judge"]["model"],
        judge_cfg=lambda wc: conflict_model_cfg(WC["judge"]["model"]),
        backend=conflict_backend(),
        backend_options=generation_backend_options(WC["judge"]["model"]),
        batch_size=conflict_batch_size(WC["judge"]["model"]),
        cache_dir=generation_cache_dir(WC["judge"]["model"]),
        max_new_tokens=WC["judge"]["max_new_tokens"],
        seed=WC["seed"],
    threads: 1
    resources:
        mem_mb=16000,
        runtime=120,
        **gpu_resources(model_gpus(WC["judge"]["model"])),
    conda:
        generation_conda_env()
    script:
        "../../scripts/wikicontradict_judge_human.py"


rule wikicontradict_metrics:
    input:
        judgements=expand("results/wikicontradict/{wc_model}/judgements.parquet", wc_model=WC["models"]),
        instances="results/ingest/wikicontradict/instances.parquet",
        human_judged=(
            "results/wikicontradict/judge_agreement/judgements.parquet" if wikicontradict_human_labels() else []
        ),
    output:
        rates=report(
            "results/wikicontradict/rates.tsv",
            caption="../report/conflict_wikicontradict_rates.rst",
            category="Knowledge conflict",
            subcategory="WikiContradict",
        ),
        detection=report(
            "results/wikicontradict/detection.tsv",
            caption="../report/conflict_wikicontradict_detection.rst",
            category="Knowledge conflict",
            subcategory="WikiContradict",
        ),
        agreement=(
            report(
                "results/wikicontradict/judge_agreement.tsv",
                caption="../report/conflict_wikicontradict_agreement.rst",
                category="Knowledge conflict",
                subcategory="WikiContradict",
            )
            if wikicontradict_human_labels()
            else []
        ),
        confusion=(
            report(
                "results/wikicontradict/judge_confusion.tsv",
                caption="../report/conflict_wikicontradict_confusion.rst",
                category="Knowledge conflict",
                subcategory="WikiContradict",
            )
            if wikicontradict_human_labels()
            else []
        ),
    log:
        "logs/conflict/wikicontradict_metrics.log",
    benchmark:
        "logs/conflict/wikicontradict_metrics.benchmark.tsv"
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
        "../../scripts/wikicontradict_metrics.py"


rule diffgr_generate:
    input:
        unpack(lambda wc: conflict_model_inputs(wc.dg_model)),
        records="results/ingest/{dg_dataset}/records.parquet",
    output:
        answers="results/diffgr/{dg_model}/{dg_dataset}/reader_answers.parquet",
        lengths="results/diffgr/{dg_model}/{dg_dataset}/lengths.parquet",
    log:
        "logs/conflict/diffgr_generate/{dg_model}_{dg_dataset}.log",
    benchmark:
        "logs/conflict/diffgr_generate/{dg_model}_{dg_dataset}.benchmark.tsv"
    params:
        model=lambda wc: wc.dg_model,
        dataset=lambda wc: wc.dg_dataset,
        prompt=lambda wc: DG["prompt"],
        closed_book_prompt=lambda wc: DG["closed_book_prompt"],
        system_message=lambda wc: diffgr_reader_system_message(wc.dg_model),
        context_orders=DG["context_orders"],
        shuffle_seed=DG["random_order_seed"],
        max_new_tokens=DG["max_new_tokens"],
        seed=DG["seed"],
        length_threshold=DG["length_threshold"],
        model_cfg=lambda wc: conflict_model_cfg(wc.dg_model),
        backend=conflict_backend(),
        backend_options=lambda wc: generation_backend_options(wc.dg_model),
        batch_size=lambda wc: conflict_batch_size(wc.dg_model),
        cache_dir=lambda wc: generation_cache_dir(wc.dg_model),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=120,
        **gpu_resources(lambda wc: model_gpus(wc.dg_model)),
    conda:
        generation_conda_env()
    script:
        "../../scripts/diffgr_generate.py"


rule diffgr_score:
    input:
        answers=expand(
            "results/diffgr/{dg_model}/{dg_dataset}/reader_answers.parquet",
            dg_model=DG["models"],
            dg_dataset=DG["datasets"],
        ),
        lengths=expand(
            "results/diffgr/{dg_model}/{dg_dataset}/lengths.parquet", dg_model=DG["models"], dg_dataset=DG["datasets"]
        ),
        records=expand("results/ingest/{dg_dataset}/records.parquet", dg_dataset=DG["datasets"]),
    output:
        cc_items="results/diffgr/cc_items.parquet",
        diffgr=report(
            "results/diffgr/diffgr.tsv",
            caption="../report/conflict_diffgr.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
        length_control=report(
            "results/diffgr/length_control.tsv",
            caption="../report/conflict_diffgr_length.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
    log:
        "logs/conflict/diffgr_score.log",
    benchmark:
        "logs/conflict/diffgr_score.benchmark.tsv"
    params:
        datasets=DG["datasets"],
        restrict=DG["restrict_to_length_threshold"],
        length_threshold=DG["length_threshold"],
        draws=DG["bootstrap"]["draws"],
        seed=DG["bootstrap"]["seed"],
        level=DG["bootstrap"]["level"],
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/diffgr_score.py"


rule diffgr_score_files:
    input:
        files=[data_path(fs[run]) for fs in DG.get("reader_run_files") or [] for run in DIFFGR_FILE_RUNS],
    output:
        table=report(
            "results/diffgr/reader_files.tsv",
            caption="../report/conflict_diffgr_files.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
    log:
        "logs/conflict/diffgr_score_files.log",
    benchmark:
        "logs/conflict/diffgr_score_files.benchmark.tsv"
    params:
        file_sets=[
            {"name": fs["name"], "dataset": fs["dataset"], **{run: data_path(fs[run]) for run in DIFFGR_FILE_RUNS}}
            for fs in DG.get("reader_run_files") or []
        ],
        draws=DG["bootstrap"]["draws"],
        seed=DG["bootstrap"]["seed"],
        level=DG["bootstrap"]["level"],
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/diffgr_score_files.py"
