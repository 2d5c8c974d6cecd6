"""Every list-valued key of the config schema, set to ``[]``: refused at start in one line naming
the key while a stage the run plans iterates over it, or accepted where an empty list is a
setting (``empty_lists.EMPTY_MEANS_NONE``). The config checks run directly on the embedded demo
(every study on), built once and given one ``--config`` entry per key as the command line gives
it; no Snakemake run.
"""
from __future__ import annotations

import copy

import pytest
import yaml

from evidence_ledger.config.layers import COMMAND_LINE, config_value, load_schema, parse_config_entries
from evidence_ledger.run.checks.config import config_checks
from evidence_ledger.run.empty_lists import EMPTY_MEANS_NONE, NEEDED_WHEN_PLANNED
from evidence_ledger.run.preflight import command_line_run

from support.paths import REPO_ROOT

SCHEMA = load_schema(REPO_ROOT)
DEMO_RUN = command_line_run([], [], REPO_ROOT)
DEMO = DEMO_RUN.config


def schema_lists(node: dict, path: tuple = ()) -> dict[str, int]:
    """``{dotted key (``*`` for any name): minItems (0 when the schema gives none)}`` of every
    list-valued key below ``node``."""
    if "$ref" in node:
        target = SCHEMA
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    out = {}
    types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
    if "array" in types and path:
        out[".".join(path)] = int(node.get("minItems", 0))
    for name, child in (node.get("properties") or {}).items():
        out.update(schema_lists(child, path + (name,)))
    if isinstance(node.get("additionalProperties"), dict):
        out.update(schema_lists(node["additionalProperties"], path + ("*",)))
    for child in node.get("oneOf", []) + node.get("anyOf", []):
        out.update(schema_lists(child, path))
    return out


LISTS = schema_lists(SCHEMA)


def concrete(key: str, config=DEMO) -> str | None:
    """``key`` with each ``*`` the first name the demo config has there (None: the demo has none)."""
    parts: list[str] = []
    for part in key.split("."):
        if part == "*":
            node = config_value(config, parts)
            if not isinstance(node, dict) or not node:
                return None
            part = next(iter(node))
        parts.append(part)
    return ".".join(parts)


def emptied(key: str) -> str:
    """The ``--config`` entry setting the dotted ``key`` to ``[]``."""
    first, *rest = key.split(".")
    value: object = []
    for part in reversed(rest):
        value = {part: value}
    return f"{first}={yaml.safe_dump(value, default_flow_style=True).strip()}"


def failures(key: str) -> list[str]:
    """The config checks' failures with ``key`` set to ``[]`` on the command line."""
    ctx = copy.deepcopy(DEMO_RUN)
    ctx.run.merge(parse_config_entries([emptied(key)]), COMMAND_LINE)
    return [c.text for c in config_checks(ctx) if c.failed]


def test_every_list_key_of_the_schema_is_of_one_kind():
    """minItems in the schema, needed while its stage is planned, or empty means none: never two, never none."""
    kinds = {key: [min_items > 0, key in NEEDED_WHEN_PLANNED, key in EMPTY_MEANS_NONE] for key, min_items in LISTS.items()}
    assert {key: k for key, k in kinds.items() if sum(k) != 1} == {}
    assert sorted((set(NEEDED_WHEN_PLANNED) | set(EMPTY_MEANS_NONE)) - set(LISTS)) == []  # no stale entry


@pytest.mark.parametrize("key", [k for k in LISTS if k not in EMPTY_MEANS_NONE and concrete(k)])
def test_an_empty_list_a_planned_stage_iterates_over_is_one_line_naming_it(key):
    name = concrete(key)
    failed = failures(name)
    naming = [f for f in failed if f.startswith(f"{name} ")]
    assert len(naming) == 1, failed
    assert all("\n" not in f for f in failed)


@pytest.mark.parametrize("key", [k for k in EMPTY_MEANS_NONE if concrete(k)])
def test_an_empty_list_that_means_none_is_accepted(key):
    assert failures(concrete(key)) == []


def test_an_empty_generation_datasets_passes_once_study2_is_not_planned():
    ctx = command_line_run([], ["generation={datasets: []}", "studies={study2: false}"], REPO_ROOT)
    assert [c.text for c in config_checks(ctx) if c.failed] == []


def test_the_empty_generation_datasets_line_says_what_to_do():
    assert failures("generation.datasets") == [
        "generation.datasets is empty, but Study 2 generates, scores and accounts each dataset: name at "
        "least one, or set studies.study2: false [generation.datasets: --config; studies.study2: "
        "config/defaults.yaml:25]"]
