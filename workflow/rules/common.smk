"""Helpers shared by all rules: config validation, path resolution, target lists.

Only helper/input functions live here; rules live in the per-stage files. Each stage has
its own section below (ingest, sampling, retrieval, generation, verifier, scoring,
accounting, conflict, report); keep helpers in their stage's section.
"""
import os
from pathlib import Path

from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")

REPO_ROOT = Path(workflow.basedir)


def _resolve_inside(root_key, relpath):
    """Resolve ``relpath`` under ``config[root_key]`` and refuse paths that escape it."""
    root = Path(config[root_key])
    if not root.is_absolute():
        root = REPO_ROOT / root
    root = root.resolve()
    path = (root / relpath).resolve()
    if path != root and root not in path.parents:
        raise ValueError(
            f"config: path {relpath!r} resolves to {path}, outside {root_key}={root}; "
            f"paths in the config must stay inside the directory you named"
        )
    return str(path)


def data_path(relpath):
    """A dataset file named in config, resolved inside ``data_root``."""
    return _resolve_inside("data_root", relpath)


FINAL_OUTPUTS = {}  # stage name -> function returning a list of targets; stages register here


def get_final_output():
    """All `rule all` targets, derived from the config switches through each stage's hook."""
    targets = []
    for name, fn in FINAL_OUTPUTS.items():
        targets.extend(fn())
    return targets


def enabled(study):
    return bool(config["studies"].get(study, False))


# --- ingest -------------------------------------------------------------------------


# --- sampling -----------------------------------------------------------------------


# --- retrieval ----------------------------------------------------------------------


# --- generation ---------------------------------------------------------------------


# --- verifier -----------------------------------------------------------------------


# --- scoring ------------------------------------------------------------------------


# --- accounting ---------------------------------------------------------------------


# --- conflict -----------------------------------------------------------------------


# --- report -------------------------------------------------------------------------

