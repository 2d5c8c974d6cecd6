# Input functions, constants and the target hook of the 'scoring' stage; its rules are in
# scoring.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

def scoring_final_outputs():
    """Study 2 indicator tables: evidence indicators + relevant counts per generated dataset,
    answer indicators per model x dataset (``generation.models`` x ``generation.datasets``)."""
    if not enabled("study2"):
        return []
    gen = config["generation"]
    datasets = list(gen["datasets"])
    targets = []
    for dataset in datasets:
        targets += [SCORING("evidence_indicators", dataset=dataset),
                    SCORING("relevant", dataset=dataset)]
    for model in gen["models"]:
        targets += [SCORING("answer_indicators", model=model, dataset=dataset) for dataset in datasets]
    return targets


FINAL_OUTPUTS["scoring"] = scoring_final_outputs
