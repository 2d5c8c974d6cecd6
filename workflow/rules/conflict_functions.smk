# Model helpers shared by the two knowledge-conflict stages, 'wikicontradict' and 'diffgr'
# (wikicontradict_functions.smk and diffgr_functions.smk both include this file; Snakemake
# reads it once).


def conflict_model_cfg(name):
    """The ``models:`` entry of a model used by the conflict stages (error names the key)."""
    models = config.get("models") or {}
    if name not in models:
        raise ValueError(f"config: model {name!r} (used by wikicontradict/diffgr) is not defined under 'models:'")
    return dict(models[name])


def conflict_model_inputs(name):
    """The locally built model directory as an input when the model has one (demo models)."""
    local = conflict_model_cfg(name).get("local_dir")
    return {"model_dir": local} if local else {}


def conflict_batch_size(model):
    """Generation batch size of ``model`` (from ``generation_backend_options``)."""
    return int(generation_backend_options(model)["batch_size"])


def conflict_generation_params(model, cfg_key="model_cfg"):
    """The params of a rule that generates with ``model`` (a name, or a function of the
    wildcards returning one): its ``models:`` entry (as ``cfg_key``), the backend name and
    options, batch size and response-cache directory. Use as ``**conflict_generation_params(m)``."""
    if callable(model):
        return {
            cfg_key: lambda wc: conflict_model_cfg(model(wc)),
            "backend": lambda wc: generation_backend(model(wc)),
            "backend_options": lambda wc: generation_backend_options(model(wc)),
            "batch_size": lambda wc: conflict_batch_size(model(wc)),
            "cache_dir": lambda wc: generation_cache_dir(model(wc)),
        }
    return {
        cfg_key: lambda wc: conflict_model_cfg(model),
        "backend": generation_backend(model),
        "backend_options": generation_backend_options(model),
        "batch_size": conflict_batch_size(model),
        "cache_dir": generation_cache_dir(model),
    }
