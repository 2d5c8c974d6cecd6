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
    return [f"results/generation/{wildcards.model}/{wildcards.dataset}/shards/responses_{i}.parquet" for i in range(n)]


def generation_final_outputs():
    """Parsed answers and parse-failure tables of every Study 2 model x dataset."""
    if not enabled("study2"):
        return []
    targets = []
    for model in generation_models():
        for dataset in config["generation"]["datasets"]:
            targets += [f"results/generation/{model}/{dataset}/parsed.parquet",
                        f"results/generation/{model}/{dataset}/parse_failures.tsv"]
    return targets + ["results/report/generation_plan.tsv"]


def planner_config():
    """The config the planner reads (every section but the accounting and report settings, which
    it does not use), so that changing e.g. a bootstrap setting does not re-run generation_plan."""
    return {key: value for key, value in config.items() if key not in ("accounting", "report")}


GEN_MODEL_RE = "|".join(sorted(config["models"])) or "none"
GEN_CFG = config["generation"]




FINAL_OUTPUTS["generation"] = generation_final_outputs
