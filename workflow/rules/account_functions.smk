# Input functions, constants and the target hook of the 'account' stage; its rules are in
# account.smk, which includes this file first (Snakemake's linter keeps functions and rules in
# separate files).

# Systems outside the pipeline accounted from their own prediction files: every entry of
# `external.<benchmark>` whose answers are its files' labels (answers: verifier entries are
# Study 1's evidence sources, evidence_functions.smk). system -> (benchmark, entry)
ACCOUNTED_SYSTEMS = {
    system: (benchmark, spec)
    for benchmark, systems in (config["external"] or {}).items()
    for system, spec in (systems or {}).items()
    if spec and spec.get("answers", "files") == "files"  # null: dropped by a later layer
}


def account_inputs(wildcards):
    """Named inputs of one accounted system: the benchmark's gold file (``data.<benchmark>.claims``
    at the entry's ``gold`` split), the run files of source 0 and source 1, and the families file."""
    benchmark, spec = ACCOUNTED_SYSTEMS[wildcards.system]
    runs = list(spec["sources"].values())
    inputs = {"gold": data_path(config["data"][benchmark]["claims"][spec.get("gold", "dev")]),
              "source0": [data_path(f) for f in runs[0]], "source1": [data_path(f) for f in runs[1]]}
    if spec.get("families"):
        inputs["families"] = data_path(spec["families"])
    return inputs


def account_scoring(system):
    """The official scorers' caps of one system's benchmark (benchmark registry), as config
    ``scoring`` may override them: evidence items and sentences scored."""
    return get_benchmark(ACCOUNTED_SYSTEMS[system][0]).caps(config["scoring"])


def account_title(system):
    benchmark, spec = ACCOUNTED_SYSTEMS[system]
    source0, source1 = list(spec["sources"])
    return f"{system} on {benchmark}: {source0} → {source1}"


def account_final_outputs():
    return [ACCOUNT(name, system=s) for s in ACCOUNTED_SYSTEMS for name in ("intervals_tsv", "answer_metrics_tsv")]


FINAL_OUTPUTS["account"] = account_final_outputs
