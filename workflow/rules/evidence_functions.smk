# Input functions, constants and the target hook of the 'evidence' stage; its rules are in
# evidence.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

from evidence_ledger.evidence.budget import budget_tokenizer_models
from evidence_ledger.vocabulary import FEVEROUS_CELL_LIKE_TYPES


def budget_tokenizer_specs():
    """name -> {path, revision} of the tokenizers whose counts bound the evidence budgets: the
    generation models named in ``evidence.budget_tokenizers``, or every ``generation.models`` when
    it is null (``budget_tokenizer_models``; their ``local_dir`` when set, else Hub id at the
    pinned revision)."""
    specs = {}
    for name in budget_tokenizer_models(config):
        m = config["models"][name]
        if m.get("local_dir"):
            specs[name] = {"path": m["local_dir"], "revision": None}
        else:
            specs[name] = {"path": m["hub_id"], "revision": m["revision"]}
    return specs


def budget_tokenizer_inputs():
    """Directories of locally built budget tokenizers (so the model-building rule runs first)."""
    return [config["models"][n]["local_dir"] for n in budget_tokenizer_models(config)
            if config["models"][n].get("build") and config["models"][n].get("local_dir")]


def scored_prefix_non_cell(dataset):
    """Scored-prefix cap on non-cell units: the dataset's scorer caps (benchmark registry), as
    config ``scoring`` may override them (``Benchmark.scored_prefix``)."""
    return get_benchmark(dataset).scored_prefix(config["scoring"])[0]


def scored_prefix_cell(dataset):
    """Scored-prefix cap on cell-like units (as :func:`scored_prefix_non_cell`); None: no cap."""
    return get_benchmark(dataset).scored_prefix(config["scoring"])[1]


def scored_cell_like_kinds():
    """The unit kinds the scored prefix counts against its cell cap: those the official FEVEROUS
    scorer counts as cells (``vocabulary.FEVEROUS_CELL_LIKE_TYPES``), so the prefix the evidence
    keeps is the prefix the scorer reads."""
    return list(FEVEROUS_CELL_LIKE_TYPES)


def evidence_providers(dataset):
    """Study 1 evidence sources of a dataset: source -> its prediction files (or ``{export:
    ordering}``) of the ``external.<dataset>`` entries with ``answers: verifier`` (Study 1 only)."""
    if not enabled("study1"):
        return {}
    sources = {}
    # a system set to null by a later config layer is not part of the run (config/public.yaml)
    for spec in (config["external"].get(dataset) or {}).values():
        if spec and spec.get("answers", "files") == "verifier":
            sources.update(spec["sources"])
    return sources


def provider_evidence_path(dataset, source):
    """The EVIDENCE table of one Study 1 evidence source (``import_evidence_source``)."""
    return EVIDENCE("external", dataset=dataset, name=source)


def provider_claim_inputs(dataset):
    """Claims tables the provider submissions cover: ``evidence.provider_split`` (one split or a
    list, e.g. [train, dev]: Study 1 trains on source-0 evidence of the training claims)."""
    splits = config["evidence"]["provider_split"]
    splits = [splits] if isinstance(splits, str) else list(splits)
    return [INGEST("claims", dataset=dataset, split=s) for s in splits]


def provider_submission_input(wildcards):
    """The submission file of a Study 1 evidence source: its one prediction file under data_root,
    or our ordering exported as a submission (``export``)."""
    spec = evidence_providers(wildcards.dataset)[wildcards.name]
    if isinstance(spec, dict):
        return EVIDENCE("submission", dataset=wildcards.dataset, name=wildcards.name)
    return data_path(spec[0])


def provider_export_source(wildcards):
    return evidence_providers(wildcards.dataset)[wildcards.name]["export"]


def evidence_assembled(dataset):
    """True when the dataset's Study 2 evidence is assembled (``assemble_evidence``): Study 2 runs
    and samples it. Its evidence is read for the sample only (generation, scoring, the report's
    traces); the other retrieved claims' orderings are read as orderings (provider exports)."""
    return enabled("study2") and dataset in config["sampling"]


def evidence_claim_inputs(dataset):
    """The CLAIMS table whose claims' evidence is assembled: the Study 2 sample."""
    return [SAMPLING("sample", dataset=dataset)]


def evidence_diagnostics_inputs(wildcards):
    d = wildcards.dataset
    assembled = [EVIDENCE("evidence", dataset=d)] if evidence_assembled(d) else []
    return {"claims": retrieval_claim_inputs(d), "retrieved": RETRIEVAL("retrieved", dataset=d),
            "pools": RETRIEVAL("pools", dataset=d),
            "evidence": assembled + [provider_evidence_path(d, n) for n in evidence_providers(d)]}


def retrieval_datasets():
    """Datasets that get pools, orderings and evidence (config ``retrieval.datasets``)."""
    return list(config["retrieval"]["datasets"])


def retrieval_has_claims(dataset):
    """True when some claims of the dataset are retrieved for (see ``retrieval_claim_inputs``)."""
    return (enabled("study2") and dataset in config["sampling"]) or bool(
        config["retrieval"]["extra_claim_splits"].get(dataset))


def evidence_final_outputs():
    """Study 2 evidence of every sampled retrieval dataset, diagnostics of every retrieval dataset
    with claims; provider imports (Study 1)."""
    targets = []
    for d in retrieval_datasets():
        if evidence_assembled(d):
            targets.append(EVIDENCE("evidence", dataset=d))
        if retrieval_has_claims(d):
            targets.append(EVIDENCE("diagnostics", dataset=d))
        targets += [provider_evidence_path(d, n) for n in evidence_providers(d)]
    return targets


FINAL_OUTPUTS["evidence"] = evidence_final_outputs
