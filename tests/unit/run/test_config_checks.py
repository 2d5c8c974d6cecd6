"""Start-of-run checks: data_root given, keys that must agree do (both named), no placeholder
revision for a model the run loads."""
import copy
import re

import pytest

from evidence_ledger.run.config_checks import config_errors, study2_family_size, used_models
from evidence_ledger.vocabulary import STUDY2_FAMILIES
from evidence_ledger.config.layers import layered_config

from support.paths import REPO_ROOT

DEMO = layered_config(REPO_ROOT)
PAPER = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml"], {"data_root": "/data"})
REHEARSAL = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml", REPO_ROOT / "config" / "rehearsal.yaml"],
                           {"data_root": "/data"})


def test_demo_and_rehearsal_pass():
    assert config_errors(DEMO) == []
    assert config_errors(REHEARSAL) == []


def test_missing_data_root_names_the_command_line_key():
    cfg = copy.deepcopy(DEMO)
    cfg["data_root"] = None
    assert [e for e in config_errors(cfg) if "--config data_root=" in e]


@pytest.mark.parametrize("key, value", [
    ("budgets", ["short"]),
    ("sources", ["bm25", "bge", "provider_bm25"]),
    ("formats", ["labels"]),
])
def test_a_study2_factor_without_two_levels_is_refused(key, value):
    cfg = copy.deepcopy(DEMO)
    cfg["generation"][key] = value
    errors = config_errors(cfg)
    assert any(e.startswith(f"generation.{key} = {value}: Study 2 compares two levels of it") for e in errors), errors


def test_short_budget_not_below_long_is_refused():
    cfg = copy.deepcopy(DEMO)
    cfg["evidence"]["budgets"] = {"short": 500, "long": 10}
    assert any("evidence.budgets.short" in e and "evidence.budgets.long" in e for e in config_errors(cfg))


def test_budget_name_missing_from_evidence_budgets_is_refused():
    cfg = copy.deepcopy(DEMO)
    cfg["generation"]["controls"]["budgets"] = ["tiny"]
    assert any("generation.controls.budgets" in e and "evidence.budgets" in e for e in config_errors(cfg))


def test_seed_replicates_beyond_the_generated_seeds_are_refused():
    cfg = copy.deepcopy(DEMO)
    cfg["accounting"]["study2"]["seed_replicates"] = [1, 2, 3, 4, 5, 6, 7]
    assert any("seed_replicates" in e and "generation.seeds" in e for e in config_errors(cfg))
    cfg["generation"]["seeds"] = []
    assert any("generation.seeds is empty" in e for e in config_errors(cfg))


def test_judge_not_under_models_is_refused():
    cfg = copy.deepcopy(DEMO)
    cfg["wikicontradict"]["judge"]["model"] = "gpt"
    assert any("wikicontradict.judge.model" in e for e in config_errors(cfg))


def test_placeholder_revision_of_a_used_model_is_refused():
    cfg = copy.deepcopy(PAPER)
    cfg["models"]["llama3_70b"]["revision"] = "PIN: commit sha"
    errors = config_errors(cfg)
    assert any(e.startswith("models.llama3_70b.revision is the placeholder") for e in errors), errors


def test_placeholder_revision_of_an_unused_model_is_not_checked():
    cfg = copy.deepcopy(PAPER)
    cfg["models"]["llama3_70b"]["revision"] = "PIN: commit sha"
    cfg["studies"]["wikicontradict"] = False
    assert "models.llama3_70b.revision" not in used_models(cfg)


def test_local_stand_ins_need_no_revision():
    assert not any(k.startswith("models.") for k in used_models(REHEARSAL))
    assert "verifier.base_model.revision" not in used_models(REHEARSAL)
    assert "retrieval.reranker.revision" not in used_models(REHEARSAL)


@pytest.mark.parametrize("config", [DEMO, PAPER, REHEARSAL], ids=["demo", "paper", "rehearsal"])
def test_study2_family_sizes_are_the_papers(config):
    """Derived from the comparison families: 2 / 10 / 7 per panel x 3 datasets x 2 models."""
    assert {f: study2_family_size(config, f) for f in STUDY2_FAMILIES} == {"primary": 12, "exploratory": 60,
                                                                           "crossed": 42}


def test_study2_family_size_follows_the_panels():
    cfg = copy.deepcopy(DEMO)
    cfg["generation"]["datasets"] = ["fever"]
    assert study2_family_size(cfg, "primary") == 2 * len(cfg["generation"]["models"])


def test_stated_family_size_that_agrees_passes():
    cfg = copy.deepcopy(DEMO)
    cfg["accounting"]["bootstrap"]["crossed"]["family_size"] = 42
    assert config_errors(cfg) == []


def test_disagreeing_family_size_names_the_key():
    cfg = copy.deepcopy(DEMO)
    cfg["accounting"]["bootstrap"]["exploratory"]["family_size"] = 12
    errors = config_errors(cfg)
    assert len(errors) == 1
    assert re.search(r"accounting\.bootstrap\.exploratory\.family_size = 12.* 60 comparisons", errors[0])


def test_schema_errors_are_one_line_each_naming_key_value_origin_and_what_is_expected():
    """A typo or a wrong type is one line per problem (never the schema), with where the value came from."""
    import yaml

    from evidence_ledger.run.config_checks import schema_errors
    from evidence_ledger.config.layers import run_config

    schema = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    run = run_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml"],
                     ["studdies={study1: true}", "gpu_jobs=gpus", "sampling={fever: {n: '100'}}",
                      "evidence={budgets: {short: -1}}"])
    errors = schema_errors(run.config, schema, run.origin)
    assert errors == [
        "unknown key 'studdies' (--config) (did you mean 'studies'?); keys allowed under (top level): "
        + ", ".join(schema["properties"]),
        "evidence.budgets.short = -1 (--config): must be >= 0",
        "gpu_jobs = 'gpus' (--config): expected one of 'gpu', 'cpu'",
        "sampling.fever.n = '100' (--config): expected an integer or null",
    ]


def test_budget_tokenizers_are_derived_from_the_generation_models_or_must_cover_them():
    from evidence_ledger.evidence.budget import budget_tokenizer_models

    cfg = copy.deepcopy(PAPER)
    assert cfg["evidence"]["budget_tokenizers"] is None
    assert budget_tokenizer_models(cfg) == cfg["generation"]["models"]
    cfg["generation"]["models"] = ["qwen3", "llama31", "llama3_70b"]
    assert budget_tokenizer_models(cfg) == ["qwen3", "llama31", "llama3_70b"]
    cfg["evidence"]["budget_tokenizers"] = ["qwen3"]
    errors = config_errors(cfg)
    assert any(e.startswith("evidence.budget_tokenizers = ['qwen3'] leaves out generation.models "
                            "['llama31', 'llama3_70b']") for e in errors), errors


@pytest.fixture()
def demo():
    return copy.deepcopy(DEMO)


def test_external_systems_need_equal_run_counts_a_gold_split_and_unique_names(demo):
    config = demo
    example = config["external"]["feverous"]["example"]
    example["sources"]["improved"] = example["sources"]["improved"][:1]
    example["gold_split"] = "test"
    config["external"]["fever"] = {"example": {"sources": {"a": ["x.jsonl"], "b": ["y.jsonl"]}}}
    errors = config_errors(config)
    assert any("external.feverous.example.sources give baseline: 2, improved: 1 run files" in e for e in errors)
    assert any("external.feverous.example.gold_split = 'test' is not a split of data.feverous.claims" in e
               for e in errors)
    assert any("external.fever.example: system name 'example' is also used under external.feverous" in e
               for e in errors)


def test_study1_sources_are_the_verifier_entry_of_external(demo):
    config = demo
    config["verifier"]["sources"] = list(reversed(config["verifier"]["sources"]))
    assert config_errors(config) == []  # verifier.sources orders the entry's sources
    config["verifier"]["sources"] = ["provider_bge", "provider_other"]
    assert any("verifier.sources = ['provider_bge', 'provider_other'] and external.feverous.providers.sources" in e
               for e in config_errors(config))
    del config["external"]["feverous"]["providers"]
    assert any("Study 1 needs one external.feverous entry with answers: verifier" in e for e in config_errors(config))


def test_an_exported_source_cannot_be_accounted_from_its_labels(demo):
    config = demo
    config["external"]["feverous"]["example"]["sources"]["improved"] = {"export": "bge"}
    assert any("export writes evidence only" in e for e in config_errors(config))


@pytest.mark.parametrize("entry, message", [
    ({}, "external.kilt.rag: give task (a KILT dataset: fever, aidayago2"),
    ({"task": "nq", "metric": "em"}, "external.kilt.rag: give task or metric, not both"),
    ({"task": "squad"}, "external.kilt.rag.task = 'squad' is not a KILT dataset"),
    ({"metric": "bleu"}, "external.kilt.rag.metric = 'bleu' is not a KILT downstream metric (accuracy, em, f1, rougel)"),
])
def test_a_kilt_system_names_its_metric_by_task_or_metric(demo, entry, message):
    demo["external"]["kilt"]["rag"] = {"gold_file": "kilt/nq-dev-kilt.jsonl",
                                      "sources": {"a": ["x.jsonl"], "b": ["y.jsonl"]}, **entry}
    errors = config_errors(demo)
    assert any(e.startswith(message) for e in errors), errors


def test_the_demo_kilt_systems_pass_the_config_checks(demo):
    assert not [e for e in config_errors(demo) if "kilt" in e]


@pytest.mark.parametrize("name, system, gold, new_key", [
    ("feverous", "example", "dev", "gold_split"),
    ("kilt", "rag_nq", "kilt/nq-dev-kilt.jsonl", "gold_file"),
])
def test_the_old_gold_key_is_refused_in_one_line_naming_the_key_that_replaces_it(demo, name, system, gold, new_key):
    """``gold`` meant a split for FEVER and a file for KILT: each meaning has its own key now."""
    entry = demo["external"][name][system]
    entry.pop("gold_file", None)
    entry["gold"] = gold
    errors = [e for e in config_errors(demo) if e.startswith(f"external.{name}.{system}")]
    assert errors[0] == (f"external.{name}.{system}.gold: renamed; give {new_key} instead ({name} entries name "
                         f"their gold by {new_key})")


def test_an_entry_key_its_format_does_not_take_and_an_unknown_format_are_refused_naming_them(demo):
    demo["external"]["feverous"]["example"]["gold_file"] = "feverous/dev.jsonl"  # a KILT-style key on FEVEROUS
    demo["external"]["hover"] = {"mine": {"sources": {"a": ["x.jsonl"], "b": ["y.jsonl"]}}}
    errors = config_errors(demo)
    assert ("external.feverous.example.gold_file: not a key of an external.feverous entry; its keys: ['answers', "
            "'sources', 'families', 'resample_runs', 'gold_split']") in errors
    assert any(e.startswith("external.hover.mine: no format of prediction files is named 'hover'; the formats: "
                            "['fever', 'feverous', 'kilt', 'scifact']") for e in errors), errors
