"""The ``models`` area: every model the planned jobs load (:func:`planned_models`): built by a
rule of the run, or present at its pinned revision (Hub cache or local directory) and complete
(``model_files.model_dir_problems``: config, tokenizer, every shard its index lists, weights
loadable by the safe rule or the conversion command named), remote code as the config says.

A generation model (``models.<name>``) whose directory holds its config and tokenizer but no
weights (``model_files.weights_absent``: a download of those files alone) is enough for ``plan``,
for the evidence budgets and for every rule of the stages before generation
(:data:`PRE_GENERATION_STAGES`): a run ``--until`` such rules only is let through with a note;
any other run is refused, the line naming the weights left to fetch and the command. Its tokenizer
is loaded as ``plan`` loads it, so a damaged ``tokenizer.json`` is refused here, not by ``plan``.

In:  a :class:`~evidence_ledger.run.checks.context.RunContext`.
Out: ``models`` :class:`~evidence_ledger.run.checks.context.Check` rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...evidence.budget import budget_tokenizer_models
from .context import FAIL, NOTE, OK, Check, RunContext, not_here
from .data_files import data_root_problem
from .paths import inside_data_root

# stages whose rules load no generation model's weights (the evidence stage reads tokenizers only)
PRE_GENERATION_STAGES = ("ingest", "sampling", "retrieval", "evidence")
RULE_NAME = re.compile(r"^rule (\w+):", re.MULTILINE)


@dataclass(frozen=True)
class PlannedModel:
    """A model the run loads: its config key, a local directory (``local``, absolute) or a Hub
    id at ``revision``, the key allowing pickle weights, whether remote code is trusted, the
    rule that builds it (None: it must exist before the run), and ``convert`` (the Hub model a
    ``convert-weights`` output in ``local`` comes from)."""

    key: str
    local: Path | None
    hub_id: str | None
    revision: str | None
    allow_key: str
    allow_pickle: bool
    trust_remote_code: bool = False
    built_by: str | None = None
    convert: bool = False


def planned_models(ctx: RunContext) -> list[PlannedModel]:
    """Every model the run's jobs load: generation models and budget tokenizers (Study 2), the
    conflict stages' readers and judge, the reranker, the verifier's base (Study 1)."""
    config = ctx.config
    studies = config.get("studies") or {}
    models = config.get("models") or {}
    names: list[str] = []
    if studies.get("study2"):
        names += list((config.get("generation") or {}).get("models") or [])
        names += budget_tokenizer_models(config)
    if studies.get("wikicontradict"):
        wc = config.get("wikicontradict") or {}
        names += list(wc.get("models") or []) + [wc.get("judge", {}).get("model")]
    if studies.get("diffgr"):
        names += list((config.get("diffgr") or {}).get("models") or [])
    builds = {m.get("local_dir"): f"build_demo_models (models.{n}.build)" for n, m in models.items()
              if (m or {}).get("build") and m.get("local_dir")}
    out = []
    for name in dict.fromkeys(n for n in names if n in models):
        spec = models[name]
        local = spec.get("local_dir")
        out.append(PlannedModel(f"models.{name}", ctx.path(f"models.{name}.local_dir", "run") if local else None,
                                spec.get("hub_id"), spec.get("revision"), f"models.{name}.allow_pickle_weights",
                                bool(spec.get("allow_pickle_weights")), bool(spec.get("trust_remote_code")),
                                builds.get(local)))
    retrieval = config.get("retrieval") or {}
    reranker = retrieval.get("reranker") or {}
    if reranker and retrieval.get("datasets"):
        local = reranker.get("local_dir")
        out.append(PlannedModel("retrieval.reranker", ctx.path("retrieval.reranker.local_dir", "run") if local else None,
                                reranker.get("hub_id"), reranker.get("revision"),
                                "retrieval.reranker.allow_pickle_weights", bool(reranker.get("allow_pickle_weights")),
                                built_by="build_demo_reranker (retrieval.reranker.build)" if reranker.get("build")
                                else None))
    verifier = config.get("verifier") or {}
    if studies.get("study1") and verifier:
        base = verifier.get("base_model") or {}
        if verifier.get("demo_model"):
            out.append(PlannedModel("verifier.base_model", None, base.get("hub_id"), base.get("revision"),
                                    "verifier.base_model.allow_pickle_weights", False,
                                    built_by="build_demo_verifier (verifier.demo_model)"))
        else:
            usable_root = ctx.data_root() is not None and data_root_problem(ctx) is None
            local = inside_data_root(ctx, base["local_dir"]) if base.get("local_dir") and usable_root else None
            out.append(PlannedModel("verifier.base_model", local, base.get("hub_id"), base.get("revision"),
                                    "verifier.base_model.allow_pickle_weights", bool(base.get("allow_pickle_weights")),
                                    convert=bool(base.get("local_dir"))))
    return out


def _convert_command(model: PlannedModel) -> str:
    return (f"python -m evidence_ledger convert-weights {model.hub_id} --revision {model.revision} "
            f"--out {model.local}")


def pre_generation_rules(workflow_dir: Path) -> set[str]:
    """Names of the rules of :data:`PRE_GENERATION_STAGES` (``rule NAME:`` in their rule files,
    plus the ``ingest_<benchmark>`` rules made per registered benchmark)."""
    names = set()
    for stage in PRE_GENERATION_STAGES:
        path = Path(workflow_dir) / "workflow" / "rules" / f"{stage}.smk"
        if path.is_file():
            names.update(RULE_NAME.findall(path.read_text(encoding="utf-8")))
    return names


def loads_generation_weights(ctx: RunContext) -> bool:
    """Whether the run may load a generation model's weights: not when every ``--until`` rule
    belongs to a stage before generation (:func:`pre_generation_rules`)."""
    if not ctx.until:
        return True
    before = pre_generation_rules(ctx.workflow_dir)
    return not all(rule in before or rule.startswith("ingest_") for rule in ctx.until)


def tokenizer_load_problem(directory: Path, trust_remote_code: bool) -> str | None:
    """Why the tokenizer of ``directory`` does not load as ``plan`` and the evidence budgets load it
    (``generation.plan_tokens.loaded_tokenizer``, offline); None when it loads."""
    from ...generation.plan_tokens import loaded_tokenizer

    try:
        loaded_tokenizer(str(directory), trust_remote_code)
    except Exception as err:  # whatever transformers raises on a damaged file: reported, never a traceback
        first = str(err).splitlines()[0] if str(err) else ""
        return f"its tokenizer does not load ({type(err).__name__}: {first})"
    return None


def weightless_check(ctx: RunContext, model: PlannedModel, label: str, directory: Path) -> Check:
    """The line of a generation model whose config and tokenizer are here but not its weights:
    a note where the run stops before generation, else a refusal naming what to fetch; a refusal
    too where its tokenizer does not load (``plan`` and the budgets need it: the check loads what
    it vouches for)."""
    from ...models.model_files import fetch_weights_command

    problem = tokenizer_load_problem(directory, model.trust_remote_code)
    if problem:
        return Check("models", FAIL, f"{label}: config and tokenizer only, no weights, and {problem}: `plan` and "
                                     f"the evidence budgets read it; download its tokenizer files again")

    fetch = (f"place them in {directory}" if model.local is not None
             else f"fetch them with `{fetch_weights_command(model.hub_id, model.revision)}`")
    what = (f"{label}: config and tokenizer only, no weights: enough for `plan` and the stages before generation "
            f"({', '.join(PRE_GENERATION_STAGES)}; e.g. snakemake --until assemble_evidence)")
    if loads_generation_weights(ctx):
        return Check("models", FAIL, f"{what}; its weights are left to fetch, and this run's jobs load them: {fetch}")
    return Check("models", NOTE, f"{what}: this run (--until {' '.join(ctx.until)}) loads no weights of it; its "
                                 f"weights are left to fetch before generation: {fetch}")


def model_check(ctx: RunContext, model: PlannedModel) -> Check:
    """Whether one planned model can be loaded as the run will load it."""
    from ...models.model_files import ModelNotCached, hub_snapshot_dir, model_dir_problems, weights_absent

    key = model.key
    where = ctx.origin(f"{key}.local_dir" if model.local else f"{key}.revision")
    if model.built_by:
        return Check("models", OK, f"{key}: built by rule {model.built_by} before any job loads it")
    if model.local is None and model.convert:
        return Check("models", NOTE, f"{key}.local_dir ({where}): in data_root, not checked until data_root is "
                                     f"set to an existing directory")
    if model.local is not None:
        label = f"{key}.local_dir -> {model.local} ({where})"
        directory = model.local
        if not directory.exists():
            fix = (f"convert the pickle-only base model once: {_convert_command(model)}" if model.convert
                   else "place the model there, or set the key to null to load the Hub id at its revision")
            return Check("models", FAIL, f"{label}: does not exist; {fix}")
    else:
        label = f"{key}: {model.hub_id}@{model.revision} ({where})"
        try:
            directory = hub_snapshot_dir(model.hub_id, model.revision)
        except ModelNotCached as err:
            return Check("models", FAIL, f"{key} ({where}): {err}")
    problems = model_dir_problems(directory, allow_pickle=model.allow_pickle, allow_key=model.allow_key,
                                  trust_remote_code=model.trust_remote_code,
                                  trust_key=f"{key}.trust_remote_code" if key.startswith("models.") else None)
    if key.startswith("models.") and weights_absent(directory):
        problems = [p for p in problems if not p.startswith("no weights transformers loads")]
        if not problems:
            return weightless_check(ctx, model, label, directory)
    if problems:
        fix = ""
        if model.convert:
            fix = f"; convert it again: {_convert_command(model)}"
        elif any("weights are pickle" in p for p in problems):
            source = str(model.local) if model.local else f"{model.hub_id} --revision {model.revision}"
            fix = (f"; or convert them once: python -m evidence_ledger convert-weights {source} --out DIR, and "
                   f"set {key}.local_dir to DIR")
        return Check("models", FAIL, f"{label}: {'; '.join(problems)}{fix}")
    return Check("models", OK, f"{label}: config, tokenizer and weights complete")


def models_before_generation(ctx: RunContext) -> set[str]:
    """Keys of the models the stages before generation load: the budget tokenizers (their
    tokenizers only) and the reranker (``order_bge``)."""
    return {f"models.{name}" for name in budget_tokenizer_models(ctx.config)} | {"retrieval.reranker"}


def model_checks(ctx: RunContext) -> list[Check]:
    """One line per planned model; a run ``--until`` rules before generation only checks the
    models those stages load (:func:`models_before_generation`) and says which it leaves."""
    out = []
    models = planned_models(ctx)
    if not loads_generation_weights(ctx):
        needed = models_before_generation(ctx)
        left = [m.key for m in models if m.key not in needed]
        models = [m for m in models if m.key in needed]
        if left:
            out.append(Check("models", NOTE, f"{', '.join(left)}: not loaded by this run (--until "
                                             f"{' '.join(ctx.until)}), so not checked"))
    for model in models:
        try:
            out.append(model_check(ctx, model))
        except ModuleNotFoundError as err:  # a Hub model, where huggingface_hub is not installed
            out.append(not_here("models", err))
    return out
