# Input functions, constants and the target hook of the 'verifier' stage; its rules are in
# verifier.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

VERIFIER_CFG = config["verifier"]


def verifier_evidence_path(source):
    """EVIDENCE table of a Study 1 source: one of the sources of the ``external.<dataset>`` entry
    with ``answers: verifier`` (``results/evidence/<dataset>/external_<source>.parquet``); the
    preflight refuses ``verifier.sources`` that entry does not list."""
    return provider_evidence_path(config["verifier"]["dataset"], source)


def verifier_split_sources(split):
    """Sources serialised per split: training inputs come from source 0 only."""
    sources = list(config["verifier"]["sources"])
    return sources[:1] if split == "train" else sources


def verifier_base_local_dir():
    """The local directory the base model loads from: the demo build, else
    ``verifier.base_model.local_dir`` inside data_root (e.g. a convert-weights output), else None."""
    v = config["verifier"]
    if v["demo_model"]:
        return DEMO("model", model="verifier_base")
    local = v["base_model"]["local_dir"]
    return data_path(local) if local else None


def verifier_base_inputs():
    """The base model's local directory as an input (demo build or local_dir), else nothing (Hub cache)."""
    local = verifier_base_local_dir()
    return [local] if local else []


def verifier_serialise_inputs(wildcards):
    d = config["verifier"]["dataset"]
    inputs = {
        "claims": INGEST("claims", dataset=d, split=wildcards.split),
        "units": INGEST("units", dataset=d),
        "evidence": [verifier_evidence_path(s) for s in verifier_split_sources(wildcards.split)],
    }
    return inputs


def verifier_base_model():
    """``{hub_id, revision, local_dir, allow_pickle_weights}`` the jobs load (``verifier.train.BaseModel``):
    a local directory (demo build or ``base_model.local_dir``) wins over the Hub id at its revision."""
    v = config["verifier"]
    b = v["base_model"]
    if v["demo_model"]:
        return {"hub_id": None, "revision": None, "local_dir": verifier_base_local_dir(), "allow_pickle_weights": False}
    return {"hub_id": b["hub_id"], "revision": b["revision"], "local_dir": verifier_base_local_dir(),
            "allow_pickle_weights": bool(b["allow_pickle_weights"])}


def verifier_checkpoint_seed(wildcards):
    seeds = config["verifier"]["checkpoint_seeds"]
    k = int(wildcards.k)
    if not 1 <= k <= len(seeds):
        raise ValueError(f"verifier checkpoint {k} is outside 1..{len(seeds)} (verifier.checkpoint_seeds)")
    return seeds[k - 1]


def verifier_checkpoints():
    return [VERIFIER("checkpoint", k=k) for k in range(1, len(config["verifier"]["checkpoint_seeds"]) + 1)]


def verifier_final_outputs():
    """Study 1 indicator tables and the verifier summary (when Study 1 runs)."""
    if not enabled("study1"):
        return []
    return [VERIFIER("answer_indicators"), VERIFIER("evidence_indicators"),
            VERIFIER("relevant"), VERIFIER("unresolved"), VERIFIER("unresolved_tsv"),
            VERIFIER("summary")]


FINAL_OUTPUTS["verifier"] = verifier_final_outputs
