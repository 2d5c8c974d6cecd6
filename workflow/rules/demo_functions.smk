# Input functions, constants and the target hook of the 'demo' stage; its rules are in
# demo.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files).

def demo_built_models():
    """Models the demo builds locally (``models.<name>.build`` set)."""
    return [m for m, c in config["models"].items() if c.get("build")]


def demo_models_setting(key):
    """One training setting of the demo chat models (``generation.demo_models.<key>``), None when
    unset (the stage function then uses its default)."""
    return config["generation"].get("demo_models", {}).get(key)


def demo_tokenizer_dir(arch):
    """The real tokenizer directory the stand-in family ``arch`` is built over
    (``generation.demo_models.tokenizers.<arch>``, resolved), None when unset (a trained BPE)."""
    if not (demo_models_setting("tokenizers") or {}).get(arch):
        return None
    return input_path(f"generation.demo_models.tokenizers.{arch}")


def demo_conflict_tasks():
    """``generation.demo_models.conflict_tasks`` (empty when unset)."""
    return config["generation"].get("demo_models", {}).get("conflict_tasks") or {}


def demo_conflict_tasks_on():
    """Whether the demo models also learn the conflict stage's prompts (``demo_models.conflict_tasks``).

    Only the tasks of enabled studies (``studies.wikicontradict``, ``studies.diffgr``) are added."""
    return bool(demo_conflict_tasks().get("enabled", False))


def demo_model_train_inputs():
    """Ingested train claims + units of the datasets the demo models are trained on."""
    datasets = config["generation"].get("demo_models", {}).get("train_datasets", config["generation"]["datasets"])
    out = {
        "claims": [INGEST("claims", dataset=d, split="train") for d in datasets],
        "units": [INGEST("units", dataset=d) for d in datasets],
        "wikicontradict": [],
        "fewshot": [],
        "reader_records": [],
    }
    if demo_conflict_tasks_on():
        if "wikicontradict" in config and enabled("wikicontradict"):
            out["wikicontradict"] = [INGEST("instances")]
            out["fewshot"] = [input_path("wikicontradict.judge.fewshot_file")]
        if "diffgr" in config and enabled("diffgr"):
            out["reader_records"] = [INGEST("records", dataset=d) for d in config["diffgr"]["datasets"]]
    return out


def demo_conflict_params():
    """The conflict stage's prompt settings the demo models' conflict-task mixture renders with
    (``templates``, ``passage_version``, ``reader_prompt``, ``closed_book_prompt``); all None
    when the conflict tasks are off."""
    keys = ("templates", "passage_version", "reader_prompt", "closed_book_prompt")
    if not demo_conflict_tasks_on():
        return dict.fromkeys(keys)
    wc, dg = config["wikicontradict"], config["diffgr"]
    return {
        "templates": wc["templates"],
        "passage_version": wc["passage_version"],
        "reader_prompt": dg["prompt"],
        "closed_book_prompt": dg["closed_book_prompt"],
    }


def demo_reader_system_message(model):
    """The DiffGR reader system message the conflict stage sends ``model`` (see
    ``diffgr_reader_system_message``), so the demo model learns the reader prompts with it;
    '' when the conflict tasks or the DiffGR study are off."""
    if not demo_conflict_tasks_on() or "diffgr" not in config or not enabled("diffgr"):
        return ""
    return diffgr_reader_system_message(model)


def demo_reranker_build():
    """``retrieval.reranker.build`` (None: the reranker is loaded from the Hub)."""
    return config["retrieval"]["reranker"]["build"]


def demo_reranker_inputs():
    """Inputs of build_demo_reranker, per dataset of ``retrieval.reranker.build.datasets`` (in
    config order): corpus indexes, units, and the training claims of the listed splits."""
    b = demo_reranker_build()
    if not b:
        raise ValueError("retrieval.reranker.build is not set; the reranker is loaded from the Hub")
    ds = list(b["datasets"])
    return {"index": [RETRIEVAL("index", dataset=d) for d in ds],
            "units": [INGEST("units", dataset=d) for d in ds],
            "claims": [INGEST("claims", dataset=d, split=s) for d in ds for s in b["datasets"][d]]}


def demo_reranker_claims_per_dataset():
    """Per training dataset (config order): how many of the ``claims`` inputs are its tables."""
    b = demo_reranker_build() or {"datasets": {}}
    return [len(splits) for splits in b["datasets"].values()]


def demo_reranker_docs_per_claim():
    """Per training dataset (config order): documents retrieved per claim (``retrieval_k``)."""
    b = demo_reranker_build() or {"datasets": {}}
    return [retrieval_k(d) for d in b["datasets"]]


def demo_reranker_train_settings():
    """The tiny reranker's model and training spec (``retrieval.reranker.build.train``)."""
    b = demo_reranker_build() or {}
    return dict(b.get("train", {}))


DEMO_MODEL_RE = "|".join(sorted(demo_built_models())) or "none"
