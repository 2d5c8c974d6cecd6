# Input functions, constants and the target hook of the 'diffgr' stage; its rules are in
# diffgr.smk, which includes this file first (Snakemake's linter keeps functions and rules in
# separate files). The model helpers it shares with the wikicontradict stage are in
# conflict_functions.smk.

include: "conflict_functions.smk"


from evidence_ledger.diffgr.reader_setup import reader_system_message_from_config

DIFFGR_FILE_RUNS = ("hybrid", "generated", "retrieved", "closed_book")


def diffgr_reader_system_message(name):
    """The DiffGR reader system message of model ``name`` ('' = none): ``diffgr.reader_system_message``
    resolved for the model (per-model entry, else the default for its family)."""
    return reader_system_message_from_config(
        name, conflict_model_cfg(name), (config.get("diffgr") or {}).get("reader_system_message")
    )


def diffgr_final_outputs():
    if not enabled("diffgr"):
        return []
    out = [DIFFGR("diffgr"), DIFFGR("length_control")]
    if config["diffgr"].get("reader_run_files"):
        out.append(DIFFGR("reader_files"))
    return out


FINAL_OUTPUTS["diffgr"] = diffgr_final_outputs


DG = config["diffgr"]
