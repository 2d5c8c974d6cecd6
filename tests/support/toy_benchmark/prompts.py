"""Toy prompt family: one template per answer format."""
from evidence_ledger.generation.prompts import PromptTemplate, register_templates

_TASK = "Is this toy claim true?\n\nClaim: {claim}\n\nFacts:\n{evidence}\n\n"

register_templates(
    "toy",
    codes=PromptTemplate("fv_toy_codes", 1, "toy", "codes",
                         _TASK + "{options}\nAnswer with exactly one letter ({letters}) and nothing else."),
    labels=PromptTemplate("fv_toy_labels", 1, "toy", "labels",
                          _TASK + "Answer with exactly one of these labels and nothing else: {labels}."),
)
