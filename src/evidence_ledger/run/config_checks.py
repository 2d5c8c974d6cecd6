"""Start-of-run checks the config schema cannot express (docs: config/README.md "Checked at start").

In:  the merged run config (``evidence_ledger.config.layers``).
Out: ``schema_errors(config, schema, origin)``: one line per value the schema refuses, naming
     the key, the value and where it came from (a file and line, or ``--config``), never the
     schema itself; ``config_errors(config)``: one message per problem the schema cannot
     express, each naming the config key(s) to change. The preflight's config checks
     (:mod:`evidence_ledger.run.checks.config`) run both before any job, for the workflow and for
     ``check`` and ``plan``, and raise :class:`ConfigRefused` with them for ``plan`` and ``call``.

Checked: ``data_root`` is given; keys that must agree do (every pair is named in the message);
a stated Study 2 Bonferroni ``family_size`` equals the one the comparison families determine
(:func:`study2_family_size`); every model a run loads has a real revision pin (no ``PIN:``
placeholder); ``generation.controls.design: one_per_unit`` names one control format and budget;
the budget tokenizers cover every generation model (:func:`budget_tokenizer_models`: derived
from ``generation.models`` when ``evidence.budget_tokenizers`` is null); the ``external`` entries are
consistent (:func:`external_errors`).
"""
from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping
from typing import Any

from ..accounting.estimands import family_size
from ..config.layers import config_value
from ..errors import ExpectedError, did_you_mean
from ..evidence.budget import budget_tokenizer_models
from ..prediction_files.format_registry import ENTRY_KEYS, format_names, get_format, is_format
from ..vocabulary import STUDY2_FAMILIES
from .empty_lists import empty_list_errors

PLACEHOLDER_PREFIX = "PIN:"


class ConfigRefused(ExpectedError, ValueError):
    """The run's config has problems the workflow refuses before any job (one line each)."""


# --- the schema, one line per error ---------------------------------------------------------

_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 200, 60, 6, 4, 2
_TYPE_NAMES = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
               "object": "a mapping", "array": "a list", "null": "null"}


def short_value(value: Any) -> str:
    """A value as one short line (long strings, lists and mappings cut with ``...``)."""
    return _SHORT.repr(value)


def _expected_types(types) -> str:
    types = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPE_NAMES.get(t, t) for t in types)


def schema_error_line(error, origin: Callable[[tuple], str]) -> str:
    """One ``jsonschema.ValidationError`` as one line: the key path, the value, where it came
    from, and what the schema wants (an unknown key: the keys allowed there, the closest first)."""
    path = tuple(str(p) for p in error.absolute_path)
    key = ".".join(path) or "(top level)"
    kind = error.validator
    if kind == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = list((error.schema.get("properties") or {}))
        unknown = [k for k in error.instance if k not in allowed]
        parts = []
        for name in unknown:
            parts.append(f"unknown key {'.'.join(path + (str(name),))!r} ({origin(path + (str(name),))})"
                         f"{did_you_mean(name, allowed)}")
        return "; ".join(parts) + (f"; keys allowed under {key}: {', '.join(allowed)}" if allowed else "")
    where = f"{key} = {short_value(error.instance)} ({origin(path)})"
    if kind == "type":
        return f"{where}: expected {_expected_types(error.validator_value)}"
    if kind == "enum":
        return f"{where}: expected one of {', '.join(repr(v) for v in error.validator_value)}"
    if kind == "required":
        missing = [k for k in error.validator_value if k not in (error.instance or {})]
        return f"{key} ({origin(path)}): missing key(s) {', '.join(missing)}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kind]
        return f"{where}: must be {word} {error.validator_value}"
    if kind in ("minItems", "maxItems", "minProperties", "uniqueItems", "pattern", "minLength"):
        return f"{where}: {error.message.split(' is ', 1)[-1] if kind != 'uniqueItems' else 'has repeated items'}" \
            if kind != "pattern" else f"{where}: does not match {error.validator_value!r}"
    if kind in ("oneOf", "anyOf"):
        from jsonschema.exceptions import best_match

        inner = best_match(error.context) if error.context else None
        if inner is not None and tuple(str(p) for p in inner.absolute_path) != path:
            return schema_error_line(inner, origin)
        return f"{where}: not a valid value here ({inner.message if inner is not None else kind})"[:300]
    return f"{where}: {error.message}"[:300]


def schema_errors(config: Mapping, schema: Mapping, origin: Callable[[tuple], str] | None = None) -> list[str]:
    """Every value of ``config`` the JSON schema refuses, one line each (:func:`schema_error_line`),
    sorted by key; ``origin(path)`` says where a key's value came from (default ``?``)."""
    import jsonschema

    origin = origin or (lambda path: "?")
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    return list(dict.fromkeys(schema_error_line(e, origin) for e in errors))


def budget_tokenizer_errors(config: Mapping) -> list[str]:
    """A generation model whose tokenizer does not bound the budgets would be shown evidence cut by
    another model's tokenizer, possibly over its own budget."""
    if not config.get("studies", {}).get("study2", False):
        return []
    named = config_value(config, "evidence.budget_tokenizers")
    if named is None:
        return []
    missing = [m for m in config_value(config, "generation.models") or [] if m not in named]
    if not missing:
        return []
    return [f"evidence.budget_tokenizers = {list(named)} leaves out generation.models {missing}: their evidence "
            f"would be cut by another model's tokenizer; add them, or set evidence.budget_tokenizers: null "
            f"(derived from generation.models)"]


def data_root_errors(config: Mapping) -> list[str]:
    """``data_root`` must be set (on the command line: tracked config files leave it null)."""
    if not config.get("data_root"):
        return ["data_root is not set: give the directory holding the benchmark files on the command "
                "line, --config data_root=/path/to/data (config/README.md, 'Paper data layout')"]
    return []


def study2_factor_errors(config: Mapping) -> list[str]:
    """Study 2's accounting compares two levels of each factor (level 1 - level 0), in the order
    ``generation.sources`` / ``budgets`` / ``formats`` give them."""
    errors = []
    for key, effect in (("generation.sources", "E0 = T01 - T00"), ("generation.budgets", "the context effect"),
                        ("generation.formats", "the format effect")):
        levels = config_value(config, key)
        if levels is not None and len(levels) != 2:
            errors.append(f"{key} = {list(levels)}: Study 2 compares two levels of it (level 0, level 1: {effect})")
    return errors


def _subset(config: Mapping, a: str, b: str, what: str = "names") -> list[str]:
    """Every name in ``a`` is one of ``b`` (a list or a mapping's keys)."""
    va, vb = config_value(config, a), config_value(config, b)
    if va is None or vb is None:
        return []
    va = [va] if isinstance(va, str) else list(va)
    missing = [x for x in va if x not in vb]
    if not missing:
        return []
    return [f"{a} names {missing}, which {b} does not define ({what}: {list(vb)})"]


def agreement_errors(config: Mapping) -> list[str]:
    """Keys that describe one thing from two stages must agree."""
    errors: list[str] = []
    if config.get("studies", {}).get("study2", False):
        errors += study2_factor_errors(config)
        errors += _subset(config, "generation.budgets", "evidence.budgets", "budget names")
        errors += _subset(config, "generation.controls.budgets", "evidence.budgets", "budget names")
        errors += _subset(config, "accounting.controls.budget", "generation.controls.budgets", "budget names")
        errors += _subset(config, "generation.controls.sources", "evidence.controls", "control sources")
        errors += _subset(config, "generation.models", "models", "models")
        errors += _subset(config, "evidence.budget_tokenizers", "models", "models")
        errors += budget_tokenizer_errors(config)
        errors += _subset(config, "generation.datasets", "retrieval.datasets", "datasets")
        errors += seed_replicate_errors(config)
        errors += control_design_errors(config)
    budgets = config_value(config, "evidence.budgets") or {}
    names = list(config_value(config, "generation.budgets") or budgets)
    if len(names) == 2 and all(n in budgets for n in names) and budgets[names[0]] >= budgets[names[1]]:
        errors.append(f"evidence.budgets.{names[0]} = {budgets[names[0]]} must be smaller than "
                      f"evidence.budgets.{names[1]} = {budgets[names[1]]} (generation.budgets orders "
                      f"them level 0, level 1; the context effect is level 1 - level 0)")
    if config.get("studies", {}).get("wikicontradict", False):
        errors += _subset(config, "wikicontradict.models", "models", "models")
        errors += _subset(config, "wikicontradict.judge.model", "models", "models")
    if config.get("studies", {}).get("diffgr", False):
        errors += _subset(config, "diffgr.models", "models", "models")
    return errors


def control_design_errors(config: Mapping) -> list[str]:
    """``generation.controls.design: one_per_unit`` asks each control kind once per unit, so its
    ``formats``, ``budgets`` and ``code_mapping_budgets`` name one value each."""
    if config_value(config, "generation.controls.design") != "one_per_unit":
        return []
    errors = []
    for key in ("formats", "budgets", "code_mapping_budgets"):
        value = list(config_value(config, f"generation.controls.{key}") or [])
        if len(value) > 1:
            errors.append(f"generation.controls.{key} = {value}: generation.controls.design one_per_unit asks each "
                          f"control once per unit, so it names one value (or set design: crossed)")
    return errors


def seed_replicate_errors(config: Mapping) -> list[str]:
    """Study 2 seed replicates are 1-based positions in ``generation.seeds`` (0 is greedy)."""
    seeds = config_value(config, "generation.seeds") or []
    reps = config_value(config, "accounting.study2.seed_replicates") or []
    if not seeds:
        return []  # refused while Study 2 is planned: empty_lists
    bad = [r for r in reps if not 1 <= int(r) <= len(seeds)]
    if bad:
        return [f"accounting.study2.seed_replicates names {bad}, but generation.seeds has {len(seeds)} "
                f"seeds (replicates 1..{len(seeds)}); a replicate without generated answers would score 0"]
    return []


def study2_family_size(config: Mapping, family: str) -> int:
    """Bonferroni size of a Study 2 comparison family (docs/accounting.md): the family's
    comparisons per panel (``accounting.estimands.family_contrasts`` at the configured numbers
    of formats and budgets) times the panels, ``generation.datasets`` x ``generation.models``."""
    n_panels = len(config_value(config, "generation.datasets") or []) * len(config_value(config, "generation.models") or [])
    return family_size(family, n_panels, n_formats=len(config_value(config, "generation.formats") or []),
                       n_budgets=len(config_value(config, "generation.budgets") or []))


def family_size_errors(config: Mapping) -> list[str]:
    """A stated ``accounting.bootstrap.<family>.family_size`` (null: derived) must equal
    :func:`study2_family_size`; a different one would set the wrong Bonferroni tail."""
    if not config.get("studies", {}).get("study2", False):
        return []
    errors = []
    for family in STUDY2_FAMILIES:
        key = f"accounting.bootstrap.{family}.family_size"
        stated = config_value(config, key)
        if stated is not None and int(stated) != study2_family_size(config, family):
            errors.append(f"{key} = {stated}, but the {family} family has {study2_family_size(config, family)} "
                          f"comparisons (per panel x generation.datasets x generation.models); leave it null "
                          f"(derived) or state that number")
    return errors


def used_models(config: Mapping) -> dict[str, str]:
    """Every model a run loads from the Hub: config key of its revision -> revision.

    Study 2 models (and their tokenizers for the budgets), the conflict stage's readers and judge,
    the reranker unless it is built or loaded from a local directory, the verifier base unless a
    local build or directory replaces it."""
    studies = config.get("studies", {})
    names: set[str] = set()
    if studies.get("study2"):
        names |= set(config_value(config, "generation.models") or [])
        names |= set(budget_tokenizer_models(config))
    if studies.get("wikicontradict"):
        names |= set(config_value(config, "wikicontradict.models") or [])
        if config_value(config, "wikicontradict.judge.model"):
            names.add(config_value(config, "wikicontradict.judge.model"))
    if studies.get("diffgr"):
        names |= set(config_value(config, "diffgr.models") or [])
    out = {}
    for name in sorted(names):
        spec = config_value(config, f"models.{name}") or {}
        if not spec.get("local_dir"):
            out[f"models.{name}.revision"] = spec.get("revision")
    reranker = config_value(config, "retrieval.reranker") or {}
    if studies.get("study2") and reranker and not reranker.get("local_dir"):
        out["retrieval.reranker.revision"] = reranker.get("revision")
    verifier = config.get("verifier") or {}
    base = verifier.get("base_model") or {}
    if studies.get("study1") and not verifier.get("demo_model") and not base.get("local_dir"):
        out["verifier.base_model.revision"] = base.get("revision")
    return out


def revision_pin_errors(config: Mapping) -> list[str]:
    """A model the run loads from the Hub must have a revision, and not a ``PIN:`` placeholder."""
    errors = []
    for key, revision in used_models(config).items():
        if isinstance(revision, str) and revision.startswith(PLACEHOLDER_PREFIX):
            errors.append(f"{key} is the placeholder {revision!r}: set the Hub commit sha (40 hex digits) "
                          f"of the weights you downloaded")
        elif not revision:
            errors.append(f"{key} is not set: pin the Hub commit sha (40 hex digits) of the weights you "
                          f"downloaded, so the run does not load whatever the default branch holds")
    return errors


def config_errors(config: Mapping) -> list[str]:
    """Every start-of-run problem of ``config`` the schema cannot express (files and models are
    the preflight's: :mod:`evidence_ledger.run.preflight`)."""
    return (data_root_errors(config) + empty_list_errors(config) + agreement_errors(config)
            + family_size_errors(config) + revision_pin_errors(config) + external_errors(config))


def external_errors(config: Mapping) -> list[str]:
    """``external.<format>.<system>`` entries: a system accounted from its own files
    (``answers: files``) names a registered format, holds only the shared keys and its format's
    (an older key refused naming the one that replaces it), names its gold as its format says,
    passes its format's own checks, gives both sources the same number of run files and is named
    once across formats; Study 1's evidence sources (``answers: verifier``) are one entry under
    ``verifier.dataset`` with one file (or an ``export``) per source, and ``verifier.sources``
    lists its sources (in the order that makes one source 0, the other source 1)."""
    errors: list[str] = []
    seen: dict[str, str] = {}
    verifier_entries = []
    for name, systems in (config.get("external") or {}).items():
        for system, spec in (systems or {}).items():
            if spec is None:  # set to null by a later layer: not part of this run
                continue
            key = f"external.{name}.{system}"
            sources = spec.get("sources") or {}
            if spec.get("answers", "files") == "verifier":
                verifier_entries.append((name, system, list(sources)))
                for source, files in sources.items():
                    if isinstance(files, list) and len(files) != 1:
                        errors.append(f"{key}.sources.{source} lists {len(files)} files: the Study 1 verifier "
                                      f"reads one evidence list per source (answers: verifier)")
                continue
            if system in seen:
                errors.append(f"{key}: system name {system!r} is also used under external.{seen[system]} "
                              f"(results/account/<system>/ holds one system)")
            seen[system] = name
            if not is_format(name):
                errors.append(f"{key}: no format of prediction files is named {name!r}; the formats: "
                              f"{list(format_names())} (more through benchmark_plugins, README 'Extending')")
                continue
            fmt = get_format(name)
            errors += entry_key_errors(key, spec, fmt)
            errors += fmt.gold_errors(key, spec, config) + fmt.entry_errors(key, spec, config)
            runs = {source: files for source, files in sources.items()}
            exported = [source for source, files in runs.items() if not isinstance(files, list)]
            if exported:
                errors.append(f"{key}.sources.{exported[0]}: export writes evidence only; a system accounted "
                              f"from its own labels (answers: files) names prediction files")
            elif len({len(files) for files in runs.values()}) > 1:
                counts = ", ".join(f"{source}: {len(files)}" for source, files in runs.items())
                errors.append(f"{key}.sources give {counts} run files: runs are matched by position, so both "
                              f"sources need the same number")
    if config_value(config, "studies.study1"):
        dataset, wanted = config_value(config, "verifier.dataset"), list(config_value(config, "verifier.sources") or [])
        mine = [(b, s, src) for b, s, src in verifier_entries if b == dataset]
        if len(mine) != 1:
            errors.append(f"Study 1 needs one external.{dataset} entry with answers: verifier (its evidence "
                          f"sources); found {len(mine)}: {[f'external.{b}.{s}' for b, s, _ in mine]}")
        elif sorted(mine[0][2]) != sorted(wanted):  # verifier.sources orders them (source 0 trains the verifier)
            errors.append(f"verifier.sources = {wanted} and external.{dataset}.{mine[0][1]}.sources = {mine[0][2]} "
                          f"must name the same sources")
    return errors


def entry_key_errors(key: str, spec: Mapping, fmt) -> list[str]:
    """The keys of an ``external`` entry: those every entry shares, its format's gold key and its
    format's own; a key an older config used is refused naming the key that replaces it."""
    allowed = ENTRY_KEYS + (fmt.gold_key,) + tuple(fmt.entry_keys)
    errors = []
    for name in spec:
        if name in allowed:
            continue
        if name in fmt.renamed_keys:
            errors.append(f"{key}.{name}: renamed; give {fmt.renamed_keys[name]} instead ({fmt.name} entries name "
                          f"their gold by {fmt.gold_key})")
        else:
            errors.append(f"{key}.{name}: not a key of an external.{fmt.name} entry; its keys: {list(allowed)}")
    return errors
