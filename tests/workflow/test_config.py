"""Configs validate against the schema, every schema key is documented, bad configs fail clearly."""
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from support.paths import REPO_ROOT

from evidence_ledger.config.layers import layered_config

SCHEMA = yaml.safe_load((REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
# every run the repository ships, as the layers it is built from (config.layers)
RUNS = {"demo": [], "paper": ["config/paper.yaml"], "rehearsal": ["config/paper.yaml", "config/rehearsal.yaml"],
        "served": ["config/paper.yaml", "config/served.yaml"],
        "public": ["config/paper.yaml", "config/public.yaml"],
        "public rehearsal": ["config/paper.yaml", "config/rehearsal.yaml", "config/public.yaml"]}


def schema_keys(node, prefix=""):
    """Dotted names of every property declared in the schema."""
    keys = []
    for name, sub in (node.get("properties") or {}).items():
        dotted = f"{prefix}{name}"
        keys.append(dotted)
        keys += schema_keys(sub, dotted + ".")
        if isinstance(sub.get("additionalProperties"), dict):
            keys += schema_keys(sub["additionalProperties"], dotted + ".*.")
    return keys


@pytest.mark.parametrize("run", RUNS)
def test_shipped_run_config_validates(run: str):
    jsonschema.validate(layered_config(REPO_ROOT, [REPO_ROOT / f for f in RUNS[run]]), SCHEMA)


def test_every_config_file_is_a_shipped_run_layer():
    """A new file under config/ is either the defaults, the demo, or a layer of a run tested above."""
    layers = {"defaults.yaml", "demo.yaml"} | {Path(f).name for files in RUNS.values() for f in files}
    assert {p.name for p in (REPO_ROOT / "config").glob("*.yaml")} == layers


def documented_names(readme: str) -> set[str]:
    """Identifiers inside backticked spans: `a.{b,c}.d` documents a, b, c and d."""
    spans = re.findall(r"`([^`]+)`", readme)
    return {word for span in spans for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}


def test_every_schema_key_is_documented():
    names = documented_names((REPO_ROOT / "config" / "README.md").read_text())
    missing = [key for key in schema_keys(SCHEMA)
               if key.split(".")[-1] != "*" and key.split(".")[-1] not in names]
    assert not missing, f"config keys not documented in config/README.md: {missing}"


def test_unknown_top_level_key_is_rejected():
    config = layered_config(REPO_ROOT)
    config["studdies"] = {}
    with pytest.raises(jsonschema.ValidationError, match="studdies"):
        jsonschema.validate(config, SCHEMA)


def test_wrong_type_is_rejected():
    config = layered_config(REPO_ROOT)
    config["studies"]["study1"] = "yes"
    with pytest.raises(jsonschema.ValidationError, match="'yes' is not of type 'boolean'"):
        jsonschema.validate(config, SCHEMA)
