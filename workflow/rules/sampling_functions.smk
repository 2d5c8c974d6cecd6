# Input functions, constants and the target hook of the 'sampling' stage; its rules are in
# sampling.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

def family_claim_inputs(dataset):
    """Ingested claims of the family population (config ``families.splits.<dataset>``)."""
    return [INGEST("claims", dataset=dataset, split=split) for split in config["families"]["splits"][dataset]]


def sample_inputs(dataset):
    """Named inputs of sample_claims: ``claims`` of the sampled split; FEVEROUS with reserved ids
    also ``families`` and ``reserved`` (the reserved-id file)."""
    settings = config["sampling"][dataset]
    inputs = {"claims": INGEST("claims", dataset=dataset, split=settings['split'])}
    if settings.get("exclude_reserved_families"):
        inputs["families"] = SAMPLING("families", dataset=dataset)
        inputs["reserved"] = data_path(config["data"][dataset]["reserved_ids"])
    return inputs


def sampling_final_outputs():
    """Sample and families of every dataset configured under ``sampling`` (Study 2 only)."""
    if not enabled("study2"):
        return []
    targets = []
    for dataset in config["sampling"]:
        targets += [SAMPLING("sample", dataset=dataset), SAMPLING("families", dataset=dataset)]
    return targets


FINAL_OUTPUTS["sampling"] = sampling_final_outputs
