# Rules of the 'diffgr' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.
# Rule functions: evidence_ledger.diffgr.stage.
#
# diffgr_generate (per model x dataset) -> diffgr_score; diffgr_score_files scores official
#   reader-output files as given.
# Logs stay under logs/conflict/ (where the knowledge-conflict rules have always logged).

include: "diffgr_functions.smk"


wildcard_constraints:
    dg_model="|".join(DG.get("models") or ["__none__"]),
    dg_dataset=conflict_qa_wildcard_regex(),


rule diffgr_generate:
    input:
        unpack(lambda wc: conflict_model_inputs(wc.dg_model)),
        records=INGEST("records", dataset="{dg_dataset}"),
    output:
        answers_out=DIFFGR("answers"),
        lengths_out=DIFFGR("lengths"),
    log:
        log_file("conflict", "diffgr_generate", "{dg_model}_{dg_dataset}"),
    benchmark:
        timing_file("conflict", "diffgr_generate", "{dg_model}_{dg_dataset}")
    params:
        model=lambda wc: wc.dg_model,
        dataset=lambda wc: wc.dg_dataset,
        prompt=lambda wc: DG["prompt"],
        closed_book_prompt=lambda wc: DG["closed_book_prompt"],
        system_message=lambda wc: diffgr_reader_system_message(wc.dg_model),
        context_orders=config["diffgr"]["context_orders"],
        shuffle_seed=DG["random_order_seed"],
        max_new_tokens=DG["max_new_tokens"],
        seed=DG["seed"],
        length_threshold=DG["length_threshold"],
        **conflict_generation_params(lambda wc: wc.dg_model),
    threads: 1
    resources:
        mem_mb=16000,
        runtime=120,
        **gpu_resources(lambda wc: model_gpus(wc.dg_model)),
    conda:
        generation_conda_env()
    script:
        "../../scripts/call_stage.py"


rule diffgr_score:
    input:
        answers=expand(
            DIFFGR("answers"),
            dg_model=DG["models"],
            dg_dataset=DG["datasets"],
        ),
        lengths=expand(
            DIFFGR("lengths"), dg_model=DG["models"], dg_dataset=DG["datasets"]
        ),
        records=expand(INGEST("records", dataset="{dg_dataset}"), dg_dataset=DG["datasets"]),
    output:
        cc_items_out=DIFFGR("cc_items"),
        diffgr_out=report(
            DIFFGR("diffgr"),
            caption="../report/conflict_diffgr.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
        length_control_out=report(
            DIFFGR("length_control"),
            caption="../report/conflict_diffgr_length.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
    log:
        log_file("conflict", "diffgr_score"),
    benchmark:
        timing_file("conflict", "diffgr_score")
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
        "../../scripts/call_stage.py"


rule diffgr_score_files:
    input:
        # the reader runs' files, named by params.file_sets
        [data_path(fs[run]) for fs in DG.get("reader_run_files") or [] for run in DIFFGR_FILE_RUNS],
    output:
        out=report(
            DIFFGR("reader_files"),
            caption="../report/conflict_diffgr_files.rst",
            category="Knowledge conflict",
            subcategory="DiffGR",
        ),
    log:
        log_file("conflict", "diffgr_score_files"),
    benchmark:
        timing_file("conflict", "diffgr_score_files")
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
        "../../scripts/call_stage.py"
