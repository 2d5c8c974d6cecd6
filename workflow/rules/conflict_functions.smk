# Input functions, constants and the target hook of the 'conflict' stage; its rules are in
# conflict.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

from evidence_ledger.conflict.reader_setup import reader_system_message_from_config

DIFFGR_FILE_RUNS = ("hybrid", "generated", "retrieved", "closed_book")


def conflict_model_cfg(name):
    """The ``models:`` entry of a model used by the conflict stage (error names the key)."""
    models = config.get("models") or {}
    if name not in models:
        raise ValueError(f"config: model {name!r} (used by wikicontradict/diffgr) is not defined under 'models:'")
    return dict(models[name])


def conflict_model_inputs(name):
    """The locally built model directory as an input when the model has one (demo models)."""
    local = conflict_model_cfg(name).get("local_dir")
    return {"model_dir": local} if local else {}


def conflict_backend():
    """The generation backend name (``generation.backend``): both stages load models alike."""
    return config["generation"].get("backend", "transformers")


def conflict_batch_size(model):
    """Generation batch size of ``model`` (from ``generation_backend_options``)."""
    return int(generation_backend_options(model)["batch_size"])


def diffgr_reader_system_message(name):
    """The DiffGR reader system message of model ``name`` ('' = none): ``diffgr.reader_system_message``
    resolved for the model (per-model entry, else the default for its family)."""
    return reader_system_message_from_config(
        name, conflict_model_cfg(name), (config.get("diffgr") or {}).get("reader_system_message")
    )


def wikicontradict_human_labels():
    """The human-label file (``data.wikicontradict.human_judgements``) or None."""
    rel = ((config.get("data") or {}).get("wikicontradict") or {}).get("human_judgements")
    return data_path(rel) if rel else None


def wikicontradict_final_outputs():
    if not enabled("wikicontradict"):
        return []
    out = ["results/wikicontradict/rates.tsv", "results/wikicontradict/detection.tsv"]
    if wikicontradict_human_labels():
        out += ["results/wikicontradict/judge_agreement.tsv", "results/wikicontradict/judge_confusion.tsv"]
    return out


def diffgr_final_outputs():
    if not enabled("diffgr"):
        return []
    out = ["results/diffgr/diffgr.tsv", "results/diffgr/length_control.tsv"]
    if config["diffgr"].get("reader_run_files"):
        out.append("results/diffgr/reader_files.tsv")
    return out


FINAL_OUTPUTS["wikicontradict"] = wikicontradict_final_outputs
FINAL_OUTPUTS["diffgr"] = diffgr_final_outputs


WC = config["wikicontradict"]
DG = config["diffgr"]
