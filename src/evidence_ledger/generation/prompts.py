"""Versioned prompt templates for fact verification, held as data.

In:  a claim, the evidence text exactly as the evidence stage rendered it, the dataset, the
     answer format (``codes`` / ``labels``) and, for codes, a code mapping.
Out: chat messages (``[{"role": "user", "content": ...}]``) that each model's own chat
     template formats later (Qwen3 with ``enable_thinking=False``).

The claim and the evidence keep special-token spellings as text: a claim that spells
``<|im_end|>``, ``<|eot_id|>``, ``<think>`` ... gets the evidence renderer's WORD JOINER after
the ``<`` (``evidence.render.neutralize_special_tokens``; evidence text already has it, and a
second application changes nothing), so only the chat template puts special tokens in a prompt.

Templates are plain data (:data:`TEMPLATES`): an id, a version and the text with
``{placeholders}``. Changing a template's text requires bumping its version; the version
is written into every request row, and the messages (hence request ids and cache keys)
change with the text, so no cached response is reused for a changed prompt.

Code mappings map the letters A/B/C to *class roles* (``support``, ``refute``, ``nei``),
which each benchmark's registry entry (``benchmark_registry``: its ``labels`` in role
order, its ``prompt_family``) turns into label strings and a template. The mapping itself
comes from config (``generation.code_mappings``); the primary mapping is A=support,
B=refute, C=nei. A benchmark with a new prompt family adds its templates with
:func:`register_templates` (from its prompt module).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..benchmark_registry import benchmark_names, get_benchmark, is_benchmark
from ..evidence.render import neutralize_special_tokens

ROLES = ("support", "refute", "nei")
CODES = ("A", "B", "C")

NO_EVIDENCE_TEXT = "(no evidence provided)"


@dataclass(frozen=True)
class PromptTemplate:
    """One versioned prompt: ``text`` is a ``str.format`` template for the user message."""

    template_id: str
    version: int
    family: str
    answer_format: str
    text: str


_WIKI_TASK = (
    "You are checking a claim against evidence from Wikipedia.\n\n"
    "Claim: {claim}\n\n"
    "Evidence:\n{evidence}\n\n"
)
_SCIFACT_TASK = (
    "You are checking a scientific claim against one research abstract.\n\n"
    "Claim: {claim}\n\n"
    "Abstract:\n{evidence}\n\n"
)

TEMPLATES: dict[tuple[str, str], PromptTemplate] = {
    ("wiki", "codes"): PromptTemplate(
        "fv_wiki_codes", 1, "wiki", "codes",
        _WIKI_TASK
        + "Does the evidence support the claim, refute it, or is there not enough information?\n"
        "{options}\n"
        "Answer with exactly one letter ({letters}) and nothing else.",
    ),
    ("wiki", "labels"): PromptTemplate(
        "fv_wiki_labels", 1, "wiki", "labels",
        _WIKI_TASK
        + "Does the evidence support the claim, refute it, or is there not enough information?\n"
        "Answer with exactly one of these labels and nothing else: {labels}.",
    ),
    ("scifact", "codes"): PromptTemplate(
        "fv_scifact_codes", 1, "scifact", "codes",
        _SCIFACT_TASK
        + "Does this abstract support the claim, contradict it, or give no information about it?\n"
        "{options}\n"
        "Answer with exactly one letter ({letters}) and nothing else.",
    ),
    ("scifact", "labels"): PromptTemplate(
        "fv_scifact_labels", 1, "scifact", "labels",
        _SCIFACT_TASK
        + "Does this abstract support the claim, contradict it, or give no information about it?\n"
        "Answer with exactly one of these labels and nothing else: {labels}.",
    ),
}


def register_templates(family: str, codes: PromptTemplate, labels: PromptTemplate) -> None:
    """Add the two templates of a new prompt family (a benchmark plugin's prompt module calls this)."""
    for answer_format, tpl in (("codes", codes), ("labels", labels)):
        if tpl.family != family or tpl.answer_format != answer_format:
            raise ValueError(f"template {tpl.template_id!r} is not the {family}/{answer_format} template")
        known = TEMPLATES.get((family, answer_format))
        if known is not None and known != tpl:
            raise ValueError(f"prompt family {family!r} already has a different {answer_format} template")
        TEMPLATES[(family, answer_format)] = tpl


def dataset_family(dataset: str) -> str:
    """The benchmark's prompt family (``wiki`` for FEVER/FEVEROUS, ``scifact`` for SciFact); unknown datasets raise."""
    if not is_benchmark(dataset):
        raise ValueError(f"no fact-verification prompt for dataset {dataset!r}; known: {sorted(benchmark_names())}")
    return get_benchmark(dataset).prompt_family


def _role_labels(dataset: str) -> dict[str, str]:
    """class role -> the dataset's canonical label string (its registry labels in role order)."""
    dataset_family(dataset)  # an unknown dataset raises there
    labels = get_benchmark(dataset).labels
    if len(labels) != len(ROLES):
        raise ValueError(f"benchmark {dataset!r} needs one label per role {ROLES} for the prompts; has {labels}")
    return dict(zip(ROLES, labels))


def labels_for(dataset: str) -> list[str]:
    """The dataset's label strings in role order (support, refute, nei)."""
    fam = _role_labels(dataset)
    return [fam[r] for r in ROLES]


def validate_code_mapping(name: str, mapping: Mapping[str, str]) -> dict[str, str]:
    """Check a letter -> role mapping is a bijection between A/B/C and the three roles."""
    if sorted(mapping) != sorted(CODES) or sorted(mapping.values()) != sorted(ROLES):
        raise ValueError(
            f"code mapping {name!r} must map each of {CODES} to a distinct role of {ROLES}; got {dict(mapping)}"
        )
    return {c: mapping[c] for c in CODES}


def code_to_label(dataset: str, mapping: Mapping[str, str]) -> dict[str, str]:
    """Letter -> canonical label of ``dataset`` under a role mapping."""
    fam = _role_labels(dataset)
    return {code: fam[role] for code, role in mapping.items()}


def template_for(dataset: str, answer_format: str) -> PromptTemplate:
    key = (dataset_family(dataset), answer_format)
    if key not in TEMPLATES:
        raise ValueError(f"no template for answer format {answer_format!r}; known: codes, labels")
    return TEMPLATES[key]


def render_user_message(
    dataset: str, answer_format: str, claim: str, evidence: str, mapping: Mapping[str, str] | None = None
) -> str:
    """The user message text. Empty evidence (e.g. the ``none`` control) shows a placeholder;
    special-token spellings in the claim and evidence stay text (module doc)."""
    tpl = template_for(dataset, answer_format)
    evidence = neutralize_special_tokens(evidence.strip()) or NO_EVIDENCE_TEXT
    fields = {"claim": neutralize_special_tokens(claim.strip()), "evidence": evidence}
    if answer_format == "codes":
        if mapping is None:
            raise ValueError("codes format needs a code mapping")
        c2l = code_to_label(dataset, validate_code_mapping("given", mapping))
        fields["options"] = "\n".join(f"{c} = {c2l[c]}" for c in CODES)
        fields["letters"] = ", ".join(CODES)
    else:
        fields["labels"] = ", ".join(labels_for(dataset))
    return tpl.text.format(**fields)


def build_messages(
    dataset: str, answer_format: str, claim: str, evidence: str, mapping: Mapping[str, str] | None = None
) -> list[dict[str, str]]:
    """Chat messages for one request (a single user turn; the chat template adds the rest)."""
    return [{"role": "user", "content": render_user_message(dataset, answer_format, claim, evidence, mapping)}]


def expected_answer(dataset: str, answer_format: str, label: str, mapping: Mapping[str, str] | None = None) -> str:
    """The exact answer string a perfect model would return (used to train demo models only)."""
    if answer_format == "labels":
        if label not in labels_for(dataset):
            raise ValueError(f"label {label!r} is not a {dataset} label")
        return label
    inverse = {lab: code for code, lab in code_to_label(dataset, mapping).items()}
    return inverse[label]
