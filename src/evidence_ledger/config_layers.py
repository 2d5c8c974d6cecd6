"""The run configuration, built from layers (docs: config/README.md "How a run's config is built").

In:  the repository root, the config files named on the command line (``--configfile``, in
     order) and the ``--config key=value`` overrides.
Out: one mapping, the deep merge of

     1. ``config/defaults.yaml``: every setting of the method, at the paper's values, with its
        description beside it;
     2. ``config/demo.yaml`` when no ``--configfile`` is given (the embedded demo is the default
        run), otherwise the named files in order (``config/paper.yaml``; the CPU rehearsal adds
        ``config/rehearsal.yaml`` after it);
     3. the ``--config`` overrides.

A run never sees a layer it did not name: the demo file is read only when no config file is
given, whatever other flags are used. Mappings merge key by key and lists are replaced whole,
as Snakemake merges config files; a layer therefore adds to a default mapping but cannot remove
its keys, which is why the defaults hold no dataset, model or file of any particular run.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

DEFAULTS_FILE = "config/defaults.yaml"
DEMO_FILE = "config/demo.yaml"


def repo_root() -> Path:
    """The repository whose config/ a command outside Snakemake reads: the current directory when
    it holds ``config/defaults.yaml``, else the checkout this package is installed from."""
    for candidate in (Path.cwd(), Path(__file__).resolve().parents[2]):
        if (candidate / DEFAULTS_FILE).is_file():
            return candidate
    raise FileNotFoundError(f"{DEFAULTS_FILE} not found in {Path.cwd()} nor in the package's checkout; "
                            f"run from the repository root")


def merge_layer(base: dict, layer: Mapping) -> dict:
    """Deep-merge ``layer`` into ``base`` in place (mappings key by key, other values replaced)
    and return ``base``: the merge Snakemake applies to config files."""
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge_layer(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def read_layer(path: Path) -> dict:
    """One config file as a mapping; an empty file is an empty layer."""
    text = Path(path).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a config file must be a mapping of keys, not {type(data).__name__}")
    return data


def layer_files(repo: Path, configfiles: Sequence[str | Path]) -> list[Path]:
    """The files a run is built from, in merge order: the defaults, then the named files (the demo
    when none is named)."""
    repo = Path(repo)
    named = [Path(f) if Path(f).is_absolute() else Path.cwd() / f for f in configfiles]
    return [repo / DEFAULTS_FILE, *(named or [repo / DEMO_FILE])]


def layered_config(repo: Path, configfiles: Sequence[str | Path] = (),
                   overrides: Mapping[str, Any] | None = None) -> dict:
    """The merged config of a run: defaults, then ``configfiles`` (or the demo), then
    ``overrides`` (the ``--config`` values)."""
    config: dict = {}
    for path in layer_files(repo, configfiles):
        merge_layer(config, read_layer(path))
    return merge_layer(config, overrides or {})


def snakemake_run_config(repo: Path, cli_configfiles: Sequence[str | Path],
                         cli_overwrite: Mapping[str, Any]) -> dict:
    """The config of a Snakemake run from what its command line gave: ``cli_overwrite`` is
    Snakemake's merge of the ``--configfile`` files and ``--config`` values, applied last so it
    wins over the defaults (and over the demo, which is read only when no file was given)."""
    repo = Path(repo)
    config = read_layer(repo / DEFAULTS_FILE)
    if not cli_configfiles:
        merge_layer(config, read_layer(repo / DEMO_FILE))
    return merge_layer(config, cli_overwrite)
