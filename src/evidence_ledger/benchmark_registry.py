"""What a claim-verification benchmark is: one frozen :class:`Benchmark` per name.

In:  nothing at import but the three built-in entries (fever, feverous, scifact); more come
     from :func:`register_benchmark`, called by plugin modules that the workflow imports from
     config ``benchmark_plugins`` (:func:`load_plugins`).
Out: lookups (:func:`get_benchmark`, :func:`benchmark_names`, :func:`benchmarks`) and the
     Snakemake wildcard regex of the registered names (:func:`dataset_wildcard_regex`).

Every other place that needs a benchmark fact (the readers' and scorers' label sets, the
indicator code, the prompts, the workflow's wildcard constraints, ingest rules and config
checks) reads it here, so adding a benchmark means one :func:`register_benchmark` call plus
its reader / scorer / prompt modules (README "Extending").

Plugins reach the rules' script processes too: :func:`load_plugins` records the module names
in the environment variable :data:`PLUGINS_ENV`, and every lookup imports the modules named
there first, so a script run by Snakemake sees the same registry as the workflow.
"""
from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping


#: unit of evaluation: one row per claim, or one per claim x retrieved abstract (SciFact)
UNIT_CLAIM = "claim"
UNIT_CLAIM_ABSTRACT = "claim_abstract"
UNITS = (UNIT_CLAIM, UNIT_CLAIM_ABSTRACT)
#: accounting metrics (``accounting.METRIC_MULTIPLIER`` keys)
METRICS = ("strict", "f1")
#: the official scorers' evidence caps, as keywords of every scorer's ``unit_evidence_eligible``,
#: with the config key (under ``scoring``) that may override each for a run
SCORER_CAPS = {"max_evidence": "max_evidence", "max_evidence_cell": "max_evidence_cell",
               "max_sentences": "max_abstract_sentences"}
#: the conflict-QA reader files of DiffGR (NQ-CC, TQA-CC: the RetrieveOrGenerated release, "Blinded
#: by Generated Contexts", Tan et al., 2024), each with the questions of its released file: the
#: reader runs read the whole open-domain test split of Natural Questions (3,610 questions) and
#: TriviaQA (11,313), the splits of DPR (Karpukhin et al., 2020). Counts only: the release files (a
#: Google Drive folder named in the repository's README) could not be fetched to record a content hash.
CONFLICT_QA_RELEASES = {"nqcc": 3610, "tqacc": 11313}
#: their names: the ``{dataset}`` values of the ingest_conflict_qa rule and the ``diffgr.datasets`` of a run
CONFLICT_QA_DATASETS = tuple(CONFLICT_QA_RELEASES)

#: environment variable listing plugin modules (comma-separated) imported before each lookup
PLUGINS_ENV = "EVIDENCE_LEDGER_BENCHMARK_PLUGINS"

_NAME = re.compile(r"^[a-z][a-z0-9]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's fixed facts.

    ``labels`` are the answer labels in class-role order (support, refute, nei): the prompts
    map roles to them, the indicator code checks predictions against them. ``nei_label`` is
    the not-enough-info label (the third of ``labels``) or None for a benchmark without one.
    ``metric`` is how accounting scores it: ``strict`` (label right and evidence eligible, per
    claim: FEVER / FEVEROUS score) or ``f1`` (label x evidence F1 over claim x abstract units,
    SciFact). ``unit`` is :data:`UNIT_CLAIM` or :data:`UNIT_CLAIM_ABSTRACT` (one evaluation unit per
    claim x retrieved abstract; gold label NEI for an abstract without gold rationale).
    ``corpus_key`` names the corpus file of config ``data.<name>.<corpus_key>``. ``reader`` is
    ``"module:function"``, the function ``(claims_by_split, corpus, on_unresolved[, progress])
    -> (CLAIMS table per split, UNITS, DOCUMENTS)`` that the benchmark's ingest rule calls, or
    one that also takes ``units_path`` / ``documents_path``, streams the corpus tables there and
    returns the CLAIMS tables (FEVER, FEVEROUS: bounded memory whatever the wiki's size)
    (``progress``, when the reader takes it, is called once per corpus file or page).
    ``scorer`` and ``prompts`` are module paths; ``prompt_family`` keys the templates in
    ``generation.prompts``. ``scorer_caps`` are the official scorer's evidence caps (keys of
    :data:`SCORER_CAPS`: FEVER scores the first 5 predicted sentences, FEVEROUS 5 non-cell and 25
    cell-like elements, SciFact 3 sentences per abstract): the scorer's defaults, the scoring
    rules' values unless config ``scoring`` overrides one, and the evidence's scored prefix
    (:meth:`scored_prefix`). ``ingest_resources`` are the ingest rule's resources (fixed ``mem_mb`` / ``runtime``), or None
    for resources sized from the job's input by ``rule_resources`` (model ``ingest``: the
    streaming wiki readers, whose memory does not grow with the corpus).
    """

    name: str
    labels: tuple[str, ...]
    nei_label: str | None
    metric: str
    unit: str
    corpus_key: str
    reader: str
    scorer: str
    prompt_family: str
    scorer_caps: Mapping[str, int]
    prompts: str = "evidence_ledger.generation.prompts"
    ingest_resources: Mapping[str, int] | None = field(default_factory=lambda: {"mem_mb": 4000, "runtime": 60})

    @property
    def verdict_labels(self) -> tuple[str, ...]:
        """``labels`` without the NEI label (a gold abstract's labels, the SciFact "submitted" set)."""
        return tuple(label for label in self.labels if label != self.nei_label)

    @property
    def per_document(self) -> bool:
        """True where the unit of evaluation is claim x retrieved abstract."""
        return self.unit == UNIT_CLAIM_ABSTRACT

    def caps(self, scoring: Mapping | None = None) -> dict[str, int | None]:
        """Every scorer cap of :data:`SCORER_CAPS` for a run: config ``scoring.<key>`` where it is
        set (not null), else this benchmark's own cap, else None (a cap its scorer does not read)."""
        scoring = scoring or {}
        return {cap: scoring.get(key) if scoring.get(key) is not None else self.scorer_caps.get(cap)
                for cap, key in SCORER_CAPS.items()}

    def scored_prefix(self, scoring: Mapping | None = None) -> tuple[int, int | None]:
        """``(non_cell, cell)``: how many leading non-cell and cell-like units of a submission its
        scorer reads (FEVER ``max_evidence``; FEVEROUS ``max_evidence`` + ``max_evidence_cell``;
        SciFact ``max_sentences`` per abstract); ``cell`` None: no cell budget."""
        caps = self.caps(scoring)
        non_cell = caps["max_evidence"] if "max_evidence" in self.scorer_caps else caps["max_sentences"]
        return non_cell, caps["max_evidence_cell"] if "max_evidence_cell" in self.scorer_caps else None


_WIKI_LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")

_REGISTRY: dict[str, Benchmark] = {}
_LOADED_PLUGINS: set[str] = set()


def _check(bench: Benchmark) -> None:
    if not _NAME.match(bench.name):
        raise ValueError(f"benchmark name {bench.name!r} must be lower-case letters and digits, starting with a letter")
    if bench.unit not in UNITS:
        raise ValueError(f"benchmark {bench.name!r}: unit {bench.unit!r} is not one of {list(UNITS)}")
    if bench.metric not in METRICS:
        raise ValueError(f"benchmark {bench.name!r}: metric {bench.metric!r} is not one of {list(METRICS)}")
    unknown_caps = set(bench.scorer_caps) - set(SCORER_CAPS)
    if unknown_caps or not ({"max_evidence", "max_sentences"} & set(bench.scorer_caps)):
        raise ValueError(f"benchmark {bench.name!r}: scorer_caps {dict(bench.scorer_caps)} must hold max_evidence or "
                         f"max_sentences, and only keys of {list(SCORER_CAPS)}")
    if not bench.labels or len(set(bench.labels)) != len(bench.labels):
        raise ValueError(f"benchmark {bench.name!r}: labels {bench.labels!r} must be distinct and non-empty")
    if bench.nei_label is not None and bench.nei_label not in bench.labels:
        raise ValueError(f"benchmark {bench.name!r}: NEI label {bench.nei_label!r} is not in labels {bench.labels!r}")
    for what in ("scorer", "prompts"):
        if not _MODULE.match(getattr(bench, what)):
            raise ValueError(f"benchmark {bench.name!r}: {what} {getattr(bench, what)!r} is not a module path")
    module, sep, function = bench.reader.partition(":")
    if not (sep and _MODULE.match(module) and function.isidentifier()):
        raise ValueError(f"benchmark {bench.name!r}: reader {bench.reader!r} is not 'module:function'")


def register_benchmark(bench: Benchmark, *, replace: bool = False) -> Benchmark:
    """Add ``bench`` to the registry; a second registration of a name raises unless it is the
    same description (plugin modules may be imported twice) or ``replace`` is set."""
    _check(bench)
    known = _REGISTRY.get(bench.name)
    if known is not None and known != bench and not replace:
        raise ValueError(f"benchmark {bench.name!r} is already registered with another description")
    _REGISTRY[bench.name] = bench
    return bench


def load_plugins(modules: Iterable[str]) -> list[str]:
    """Import each plugin module (each calls :func:`register_benchmark` for a benchmark, and / or
    ``prediction_files.format_registry.register_format`` for a format of prediction files) and
    record them in :data:`PLUGINS_ENV` so child processes import them too. Returns the module list."""
    modules = list(modules)
    for module in modules:
        if not _MODULE.match(module):
            raise ValueError(f"benchmark plugin {module!r} is not a module path")
    known = [m for m in os.environ.get(PLUGINS_ENV, "").split(",") if m]
    os.environ[PLUGINS_ENV] = ",".join(known + [m for m in modules if m not in known])
    load_env_plugins()
    return modules


def load_env_plugins() -> None:
    """Import the plugin modules :data:`PLUGINS_ENV` names that this process has not imported yet
    (every lookup of a registry calls it, so a rule's script sees the workflow's plugins)."""
    for module in os.environ.get(PLUGINS_ENV, "").split(","):
        if module and module not in _LOADED_PLUGINS:
            _LOADED_PLUGINS.add(module)
            try:
                importlib.import_module(module)
            except ImportError as exc:
                _LOADED_PLUGINS.discard(module)
                raise ValueError(f"benchmark plugin {module!r} cannot be imported: {exc}") from exc


def benchmark_reader(name: str):
    """The reader function of benchmark ``name`` (its ``reader`` entry point, imported)."""
    module, _, function = get_benchmark(name).reader.partition(":")
    return getattr(importlib.import_module(module), function)


def get_benchmark(name: str) -> Benchmark:
    """The registered benchmark ``name``; an unknown name raises ``ValueError`` listing the known ones."""
    load_env_plugins()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; registered: {sorted(_REGISTRY)}") from None


def is_benchmark(name: str) -> bool:
    load_env_plugins()
    return name in _REGISTRY


def benchmark_names() -> tuple[str, ...]:
    """Registered names, built-ins first (fever, feverous, scifact), then in registration order."""
    load_env_plugins()
    return tuple(_REGISTRY)


def benchmarks() -> tuple[Benchmark, ...]:
    load_env_plugins()
    return tuple(_REGISTRY.values())


def dataset_wildcard_regex() -> str:
    """Snakemake constraint of the ``{dataset}`` wildcard: the registered names, e.g. ``fever|feverous|scifact``."""
    return "|".join(benchmark_names())


def conflict_qa_wildcard_regex() -> str:
    """Snakemake constraint of a conflict-QA dataset wildcard: ``nqcc|tqacc``."""
    return "|".join(CONFLICT_QA_DATASETS)


FEVER = register_benchmark(Benchmark(
    name="fever", labels=_WIKI_LABELS, nei_label="NOT ENOUGH INFO", metric="strict",
    unit=UNIT_CLAIM, corpus_key="wiki", reader="evidence_ledger.datasets.fever:write_fever_release",
    scorer="evidence_ledger.scoring.fever", prompt_family="wiki", scorer_caps={"max_evidence": 5},
    ingest_resources=None,
))
FEVEROUS = register_benchmark(Benchmark(
    name="feverous", labels=_WIKI_LABELS, nei_label="NOT ENOUGH INFO", metric="strict",
    unit=UNIT_CLAIM, corpus_key="wiki", reader="evidence_ledger.datasets.feverous:write_feverous_release",
    scorer="evidence_ledger.scoring.feverous", prompt_family="wiki",
    scorer_caps={"max_evidence": 5, "max_evidence_cell": 25}, ingest_resources=None,
))
SCIFACT = register_benchmark(Benchmark(
    name="scifact", labels=("SUPPORT", "CONTRADICT", "NOINFO"), nei_label="NOINFO", metric="f1",
    unit=UNIT_CLAIM_ABSTRACT, corpus_key="corpus", reader="evidence_ledger.datasets.scifact:ingest_scifact",
    scorer="evidence_ledger.scoring.scifact", prompt_family="scifact", scorer_caps={"max_sentences": 3},
    ingest_resources={"mem_mb": 2000, "runtime": 20},
))


def config_benchmark_references(config: dict) -> dict[str, list[str]]:
    """Every place a workflow config names a claim benchmark: ``{config key: [names]}`` (under
    ``external``, the names holding Study 1's evidence sources, ``answers: verifier``; the other
    entries name formats of prediction files, checked as such: ``run.config_checks.external_errors``)."""
    data = config.get("data") or {}
    retrieval = config.get("retrieval") or {}
    evidence = config.get("evidence") or {}
    generation = config.get("generation") or {}
    return {
        "data": [d for d, section in data.items() if "claims" in (section or {})],
        "sampling": list(config.get("sampling") or {}),
        "families.splits": list((config.get("families") or {}).get("splits") or {}),
        "retrieval.datasets": list(retrieval.get("datasets") or []),
        "retrieval.extra_claim_splits": list(retrieval.get("extra_claim_splits") or {}),
        "retrieval.reranker.build.datasets": list(((retrieval.get("reranker") or {}).get("build") or {}).get("datasets") or {}),
        "evidence.needs_no_evidence": list(evidence.get("needs_no_evidence") or {}),
        "external": [name for name, systems in (config.get("external") or {}).items()
                     if any((spec or {}).get("answers") == "verifier" for spec in (systems or {}).values())],
        "generation.datasets": list(generation.get("datasets") or []),
        "generation.demo_models.train_datasets": list((generation.get("demo_models") or {}).get("train_datasets") or []),
    }


def check_config_benchmarks(config: dict, schema_data_sections: Iterable[str]) -> None:
    """Every benchmark name in ``config`` is registered (built-ins and ``benchmark_plugins``), and
    the ``data`` section of a benchmark the schema does not describe (a plugin's) holds only
    ``claims``, ``on_unresolved`` and its corpus under the registry's corpus key.

    The config schema accepts any benchmark name; this check replaces a fixed list there.
    Raises ValueError naming the config key and the unknown names.
    """
    named = config_benchmark_references(config)
    for key, names in named.items():
        unknown = [n for n in names if not is_benchmark(n)]
        if unknown:
            raise ValueError(f"config: {key} names {unknown}, not registered benchmarks; registered: "
                             f"{list(benchmark_names())} (add one through benchmark_plugins, see README 'Extending')")
    declared = set(schema_data_sections)
    data = config.get("data") or {}
    for name in named["data"]:
        if name not in declared:
            extra = set(data[name]) - {"claims", "on_unresolved", get_benchmark(name).corpus_key}
            if extra:
                raise ValueError(f"config: data.{name} has {sorted(extra)}; benchmark {name!r} takes claims, "
                                 f"on_unresolved and its corpus under {get_benchmark(name).corpus_key!r}")
