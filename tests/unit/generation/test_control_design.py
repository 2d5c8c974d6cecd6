"""The greedy-control design (config ``generation.controls.design``; docs/accounting.md,
"Control generations after reuse"): ``crossed`` asks every control in every format, swap /
reversed and the alternative mappings from every primary source; ``one_per_unit`` (the paper
config) asks each control kind once per unit."""
import pytest

from evidence_ledger.run.config_checks import control_design_errors
from evidence_ledger.config.layers import layered_config, repo_root
from evidence_ledger.generation.requests import enumerate_conditions

GEN = {"seeds": [1103], "formats": ["codes", "labels"], "sources": ["bm25", "bge"], "budgets": ["short", "long"],
       "code_mappings": {"primary": {"A": "support", "B": "refute", "C": "nei"},
                         "alternatives": {"rotated": {"A": "refute", "B": "nei", "C": "support"},
                                          "reversed": {"A": "nei", "B": "refute", "C": "support"}}},
       "controls": {"sources": ["none", "swap", "gold", "reversed"], "formats": ["codes", "labels"],
                    "budgets": ["short"], "code_mapping_budgets": ["short"]}}


def controls(gen):
    return [(c.condition, c.source, c.format, c.code_mapping, c.budget)
            for c in enumerate_conditions(gen) if c.condition != "primary"]


def test_crossed_design_asks_16_controls_per_unit():
    """none 2 formats + gold 2 + swap 2 x 2 sources + reversed 2 x 2 + 2 mappings x 2 sources."""
    assert len(controls({**GEN, "controls": {**GEN["controls"], "design": "crossed"}})) == 16
    assert len(controls(GEN)) == 16  # crossed is the default


def test_one_per_unit_design_asks_each_control_kind_once():
    gen = {**GEN, "controls": {**GEN["controls"], "formats": ["codes"], "design": "one_per_unit"}}
    assert controls(gen) == [("none", "none", "codes", "primary", "short"),
                             ("swap", "swap_bm25", "codes", "primary", "short"),
                             ("gold", "gold", "codes", "primary", "short"),
                             ("reversed", "reversed_bm25", "codes", "primary", "short"),
                             ("code_mapping", "bm25", "codes", "rotated", "short")]


def test_unknown_design_is_an_error_naming_the_key():
    with pytest.raises(ValueError, match="generation.controls.design"):
        enumerate_conditions({**GEN, "controls": {**GEN["controls"], "design": "sometimes"}})


def test_one_per_unit_with_two_formats_is_refused_at_start():
    config = {"generation": {**GEN, "controls": {**GEN["controls"], "design": "one_per_unit"}}}
    errors = control_design_errors(config)
    assert len(errors) == 1 and "generation.controls.formats" in errors[0]


def test_paper_config_design_gives_at_most_five_controls_per_unit_and_model():
    """The paper config: 4,900 units per model (FEVER 2,000, FEVEROUS 2,000, SciFact 300 x 3)
    x 2 models x 5 control requests = 49,000 before reuse, the smallest design that reaches the
    paper's count of additional generations (4 per unit would give 39,200)."""
    config = layered_config(repo_root(), [repo_root() / "config" / "paper.yaml"])
    gen = config["generation"]
    assert gen["controls"]["design"] == "one_per_unit" and not control_design_errors(config)
    per_unit = len(controls(gen))
    units = sum((config["sampling"][d].get("n") or gen["planner"]["population"][d])
                * gen["planner"].get("docs_per_claim", {}).get(d, 1) for d in gen["datasets"])
    assert per_unit == 5 and units == 4900
    assert per_unit * units * len(gen["models"]) == 49000
