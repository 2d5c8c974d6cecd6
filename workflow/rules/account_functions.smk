# Input functions, constants and the target hook of the 'account' stage; its rules are in
# account.smk, which includes this file first (Snakemake's linter keeps functions and rules in
# separate files). Every system is read by its format (evidence_ledger.prediction_files.format_registry):
# nothing here names a format.

from evidence_ledger.prediction_files.format_registry import get_format

# Systems outside the pipeline accounted from their own prediction files: every entry of
# `external.<format>` whose answers are its files' labels (answers: verifier entries are
# Study 1's evidence sources, evidence_functions.smk). system -> (format name, entry)
ACCOUNTED_SYSTEMS = {
    system: (name, spec)
    for name, systems in (config["external"] or {}).items()
    for system, spec in (systems or {}).items()
    if spec and spec.get("answers", "files") == "files"  # null: dropped by a later layer
}


def account_format(system):
    return get_format(ACCOUNTED_SYSTEMS[system][0])


def account_inputs(wildcards):
    """Named inputs of one accounted system: its gold file (the format's, from the entry), the run
    files of source 0 and source 1, and the families file."""
    name, spec = ACCOUNTED_SYSTEMS[wildcards.system]
    runs = list(spec["sources"].values())
    inputs = {"gold": data_path(get_format(name).gold_path(spec, config)),
              "source0": [data_path(f) for f in runs[0]], "source1": [data_path(f) for f in runs[1]]}
    if spec.get("families"):
        inputs["families"] = data_path(spec["families"])
    return inputs


def account_settings(system):
    """The scorer's settings of one system (its format's, from the entry and config `scoring`)."""
    return account_format(system).settings_from_entry(ACCOUNTED_SYSTEMS[system][1], config)


def account_title(system):
    source0, source1 = list(ACCOUNTED_SYSTEMS[system][1]["sources"])
    return f"{system} on {account_format(system).title_of(account_settings(system))}: {source0} → {source1}"


def account_layout(system):
    """What the summary page shows of the system beyond its cells (its format's page layout)."""
    return account_format(system).page_layout(account_settings(system))


def account_final_outputs():
    return [ACCOUNT(name, system=s) for s in ACCOUNTED_SYSTEMS for name in ("intervals_tsv", "answer_metrics_tsv")]


FINAL_OUTPUTS["account"] = account_final_outputs
