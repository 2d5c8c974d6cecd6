# Input functions, constants and the target hook of the 'account' stage; its rules are in
# account.smk, which includes this file first (Snakemake's linter keeps functions and rules in
# separate files).

from evidence_ledger.vocabulary import KILT, KILT_TASK_METRICS

# Systems outside the pipeline accounted from their own prediction files: every entry of
# `external.<benchmark>` whose answers are its files' labels (answers: verifier entries are
# Study 1's evidence sources, evidence_functions.smk). system -> (benchmark, entry)
ACCOUNTED_SYSTEMS = {
    system: (benchmark, spec)
    for benchmark, systems in (config["external"] or {}).items()
    for system, spec in (systems or {}).items()
    if spec and spec.get("answers", "files") == "files"  # null: dropped by a later layer
}


def account_gold(benchmark, spec):
    """The gold file of one accounted system: ``data.<benchmark>.claims`` at the entry's ``gold``
    split; KILT (no ingest): the entry's ``gold`` file itself."""
    if benchmark == KILT:
        return spec["gold"]
    return config["data"][benchmark]["claims"][spec.get("gold", "dev")]


def account_inputs(wildcards):
    """Named inputs of one accounted system: its gold file (:func:`account_gold`), the run files of
    source 0 and source 1, and the families file."""
    benchmark, spec = ACCOUNTED_SYSTEMS[wildcards.system]
    runs = list(spec["sources"].values())
    inputs = {"gold": data_path(account_gold(benchmark, spec)),
              "source0": [data_path(f) for f in runs[0]], "source1": [data_path(f) for f in runs[1]]}
    if spec.get("families"):
        inputs["families"] = data_path(spec["families"])
    return inputs


def account_scoring(system):
    """The official scorers' caps of one system's benchmark (benchmark registry), as config
    ``scoring`` may override them: evidence items and sentences scored (none for KILT, whose
    KILT-* scores have no cap)."""
    benchmark = ACCOUNTED_SYSTEMS[system][0]
    if benchmark == KILT:
        return {"max_evidence": None, "max_evidence_cell": None, "max_sentences": None}
    return get_benchmark(benchmark).caps(config["scoring"])


def account_kilt_metric(system):
    """A KILT system's downstream metric (its entry's ``metric``, else its ``task``'s as the KILT
    paper reports it); '' for the other benchmarks."""
    benchmark, spec = ACCOUNTED_SYSTEMS[system]
    if benchmark != KILT:
        return ""
    return spec.get("metric") or KILT_TASK_METRICS[spec["task"]]


def account_title(system):
    benchmark, spec = ACCOUNTED_SYSTEMS[system]
    source0, source1 = list(spec["sources"])
    if benchmark == KILT:
        task = f"{spec['task']}, " if spec.get("task") else ""
        benchmark = f"KILT ({task}KILT-{account_kilt_metric(system)})"
    return f"{system} on {benchmark}: {source0} → {source1}"


def account_final_outputs():
    return [ACCOUNT(name, system=s) for s in ACCOUNTED_SYSTEMS for name in ("intervals_tsv", "answer_metrics_tsv")]


FINAL_OUTPUTS["account"] = account_final_outputs
