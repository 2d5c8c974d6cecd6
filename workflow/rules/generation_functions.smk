# Input functions, constants and the target hook of the 'generation' stage; its rules are in
# generation.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

def generation_models():
    """Study 2 model names (config ``generation.models``)."""
    return list(config["generation"]["models"])


def model_dir_inputs(model):
    """The local model directory a generation job needs (built or pre-placed), else nothing."""
    local = config["models"][model].get("local_dir")
    return [local] if local else []


def generation_model_spec(model):
    """The ``models:`` entry of ``model``: the one structured object ``generate`` loads a model from."""
    return config["models"][model]


def generation_shard_outputs(wildcards):
    n = int(config["generation"]["shards"])
    return [GENERATION("shard_responses", model=wildcards.model, dataset=wildcards.dataset, shard=i) for i in range(n)]


def generation_final_outputs():
    """Parsed answers and parse-failure tables of every Study 2 model x dataset."""
    if not enabled("study2"):
        return []
    targets = []
    for model in generation_models():
        for dataset in config["generation"]["datasets"]:
            targets += [GENERATION("parsed", model=model, dataset=dataset),
                        GENERATION("parse_failures", model=model, dataset=dataset)]
    return targets + [GENERATION("plan")]


def planner_config():
    """The config the planner reads (every section but the accounting and report settings, which
    it does not use), so that changing e.g. a bootstrap setting does not re-run generation_plan."""
    return {key: value for key, value in config.items() if key not in ("accounting", "report")}


GEN_MODEL_RE = "|".join(sorted(config["models"])) or "none"
GEN_CFG = config["generation"]




FINAL_OUTPUTS["generation"] = generation_final_outputs
