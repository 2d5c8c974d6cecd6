# Rules of the 'evidence' stage: what each claim (x abstract), source and budget shows a
# model, provider submissions exported / imported as sources, and diagnostics
# (evidence.stage). Uses retrieval_claim_inputs and retrieval_per_document of retrieval.smk
# (included before this file). Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches the stage functions only through params.

include: "evidence_functions.smk"


rule assemble_evidence:
    input:
        budget_tokenizer_inputs(),  # locally built tokenizers, named by params.tokenizers
        bm25=RETRIEVAL("ordering", source="bm25"),
        bge=RETRIEVAL("ordering", source="bge"),
        retrieved=RETRIEVAL("retrieved"),
        claims=lambda wc: evidence_claim_inputs(wc.dataset),
        units=INGEST("units"),
    output:
        evidence=EVIDENCE("evidence"),
    log:
        log_file("evidence", "assemble_evidence", "{dataset}"),
    benchmark:
        timing_file("evidence", "assemble_evidence", "{dataset}")
    params:
        dataset=lambda wc: wc.dataset,
        tokenizers=budget_tokenizer_specs(),
        budgets=dict(config["evidence"]["budgets"]),
        prefix_non_cell=lambda wc: scored_prefix_non_cell(wc.dataset),
        prefix_cell=lambda wc: scored_prefix_cell(wc.dataset),
        cell_like_kinds=scored_cell_like_kinds(),
        per_document=lambda wc: retrieval_per_document(wc.dataset),
        controls=list(config["evidence"]["controls"]),
        swap_seed=config["evidence"]["swap_seed"],
    threads: 1
    priority: 60
    resources:
        mem_mb=rule_resources.resource("assemble_evidence", "mem_mb"),
        runtime=rule_resources.resource("assemble_evidence", "runtime"),
        disk_mb=rule_resources.resource("assemble_evidence", "disk_mb"),
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule export_provider_submissions:
    input:
        ordering=lambda wc: RETRIEVAL("ordering", dataset=wc.dataset, source=provider_export_source(wc)),
        claims=lambda wc: provider_claim_inputs(wc.dataset),
    output:
        submission=EVIDENCE("submission"),
    log:
        log_file("evidence", "export_provider_submissions", "{dataset}_{name}"),
    benchmark:
        timing_file("evidence", "export_provider_submissions", "{dataset}_{name}")
    params:
        max_ids=config["evidence"]["export_max_ids"],
    wildcard_constraints:
        name="[A-Za-z0-9_-]+",
    threads: 1
    priority: 85
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule import_evidence_source:
    input:
        budget_tokenizer_inputs(),  # locally built tokenizers, named by params.tokenizers
        submission=provider_submission_input,
        claims=lambda wc: provider_claim_inputs(wc.dataset),
        units=INGEST("units"),
    output:
        evidence=EVIDENCE("external"),
        summary=EVIDENCE("external_summary"),
    log:
        log_file("evidence", "import_evidence_source", "{dataset}_{name}"),
    benchmark:
        timing_file("evidence", "import_evidence_source", "{dataset}_{name}")
    params:
        dataset=lambda wc: wc.dataset,
        source=lambda wc: wc.name,
        tokenizers=budget_tokenizer_specs(),
        prefix_non_cell=lambda wc: scored_prefix_non_cell(wc.dataset),
        prefix_cell=lambda wc: scored_prefix_cell(wc.dataset),
        cell_like_kinds=scored_cell_like_kinds(),
    wildcard_constraints:
        name="[A-Za-z0-9_-]+",
    threads: 1
    priority: 85
    resources:
        mem_mb=8000,
        runtime=60,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"


rule evidence_diagnostics:
    input:
        unpack(evidence_diagnostics_inputs),
    output:
        tsv=report(EVIDENCE("diagnostics"), caption="../report/retrieval_diagnostics.rst",
                   category="Retrieval", subcategory="{dataset}"),
    log:
        log_file("evidence", "evidence_diagnostics", "{dataset}"),
    benchmark:
        timing_file("evidence", "evidence_diagnostics", "{dataset}")
    params:
        dataset=lambda wc: wc.dataset,
        per_document=lambda wc: retrieval_per_document(wc.dataset),
        needs_no_evidence=lambda wc: list(config["evidence"]["needs_no_evidence"].get(wc.dataset, [])),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/call_stage.py"
