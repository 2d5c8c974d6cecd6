# Input functions, constants and the target hook of the 'wikicontradict' stage; its rules are in
# wikicontradict.smk, which includes this file first (Snakemake's linter keeps functions and
# rules in separate files). The model helpers it shares with the diffgr stage are in
# conflict_functions.smk.

include: "conflict_functions.smk"


WC = config["wikicontradict"]


def wikicontradict_judge_params():
    """The params of both judge rules (judge model, its generation settings, decoding)."""
    return {
        "judge_model": WC["judge"]["model"],
        **conflict_generation_params(WC["judge"]["model"], cfg_key="judge_cfg"),
        "max_new_tokens": WC["judge"]["max_new_tokens"],
        "seed": WC["seed"],
    }


def wikicontradict_human_labels():
    """The human-label file (``data.wikicontradict.human_judgements``) or None."""
    rel = ((config.get("data") or {}).get("wikicontradict") or {}).get("human_judgements")
    return data_path(rel) if rel else None


def wikicontradict_agreement_inputs():
    """``human_judged`` (the judge's verdicts on the human-labelled instances) when there are human labels."""
    if not wikicontradict_human_labels():
        return {}
    return {"human_judged": WIKICONTRADICT("human_judged")}


def wikicontradict_agreement_outputs():
    """``agreement_out`` and ``confusion_out`` (the judge against the human labels) when there are human labels."""
    if not wikicontradict_human_labels():
        return {}
    return {
        "agreement_out": report(WIKICONTRADICT("agreement"),
                                caption="../report/conflict_wikicontradict_agreement.rst",
                                category="Knowledge conflict", subcategory="WikiContradict"),
        "confusion_out": report(WIKICONTRADICT("confusion"),
                                caption="../report/conflict_wikicontradict_confusion.rst",
                                category="Knowledge conflict", subcategory="WikiContradict"),
    }


def wikicontradict_final_outputs():
    if not enabled("wikicontradict"):
        return []
    out = [WIKICONTRADICT("rates"), WIKICONTRADICT("detection")]
    if wikicontradict_human_labels():
        out += [WIKICONTRADICT("agreement"), WIKICONTRADICT("confusion")]
    return out


FINAL_OUTPUTS["wikicontradict"] = wikicontradict_final_outputs
