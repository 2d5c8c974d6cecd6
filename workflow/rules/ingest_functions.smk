# Input functions, constants and the target hook of the 'ingest' stage; its rules are in
# ingest.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

CLAIM_DATASETS = benchmark_names()
# the corpus file of each claim dataset, under config data.<dataset>.<key>
CORPUS_KEY = {b.name: b.corpus_key for b in benchmarks()}


def ingest_claim_files(dataset):
    """Split -> claims file of a dataset (config ``data.<dataset>.claims``, config order); a split
    set to null by a later config layer is not read (config/public.yaml)."""
    return {split: path for split, path in config["data"].get(dataset, {}).get("claims", {}).items() if path}


def ingest_splits(dataset):
    """Configured claim splits of a dataset (:func:`ingest_claim_files`)."""
    return list(ingest_claim_files(dataset))


def ingest_claims_outputs(dataset):
    return [INGEST("claims", dataset=dataset, split=split) for split in ingest_splits(dataset)]


def ingest_on_unresolved(dataset):
    return config["data"][dataset].get("on_unresolved", "error")


def ingest_inputs(dataset):
    """Named inputs of ingest_<dataset>: ``claim_files`` (split order) and ``corpus`` (config
    ``data.<dataset>.<the registry's corpus key>``) when configured."""
    section = config["data"][dataset]
    inputs = {"claim_files": [data_path(p) for p in ingest_claim_files(dataset).values()]}
    corpus = section.get(CORPUS_KEY[dataset])
    if corpus:
        inputs["corpus"] = data_path(corpus)
    return inputs


def wikicontradict_inputs():
    section = config["data"]["wikicontradict"]
    inputs = {"csv": data_path(section["rag_qa_csv"])}
    if section.get("full_json"):
        inputs["full_json"] = data_path(section["full_json"])
    return inputs


def wikicontradict_standalone_fields():
    """Instance fields that must read on their own (config ``data.wikicontradict.standalone_fields``)."""
    return config["data"]["wikicontradict"].get("standalone_fields", ["paragraph_A_clean", "paragraph_B_clean"])


def ingest_final_outputs():
    """Every ingest table of the datasets named in ``data`` (conflict ones behind their study switch)."""
    targets = []
    for dataset in CLAIM_DATASETS:
        if dataset in config["data"]:
            targets += ingest_claims_outputs(dataset)
            targets += [INGEST("units", dataset=dataset), INGEST("documents", dataset=dataset)]
    if "wikicontradict" in config["data"] and enabled("wikicontradict"):
        targets.append(INGEST("instances"))
    for dataset in CONFLICT_QA_DATASETS:
        if dataset in config["data"] and enabled("diffgr"):
            targets.append(INGEST("records", dataset=dataset))
    return targets


FINAL_OUTPUTS["ingest"] = ingest_final_outputs
