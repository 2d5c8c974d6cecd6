"""The config's lists that a planned stage iterates over: refused at start when empty.

In:  the merged run config.
Out: :func:`empty_list_errors`, one line per list that is empty although a stage the run plans
     makes one job, row or comparison per item of it (naming the key and the study to switch
     off instead); part of ``config_checks.config_errors``, so ``check``, ``plan`` and the
     workflow's start refuse it before any job.

Every list-valued key of the config schema is one of three kinds:

* the schema gives it ``minItems`` (an empty list is a schema error naming the key);
* :data:`NEEDED_WHEN_PLANNED`: empty is refused here while the stage that reads it is planned;
* :data:`EMPTY_MEANS_NONE`: an empty list is a setting ("none of them"), each with its reason.

``tests/unit/run/test_empty_lists.py`` walks every list-valued key of the schema and fails on
a key of none of these kinds.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..config.layers import config_value


def _study(name: str) -> Callable[[Mapping], bool]:
    return lambda config: bool(config_value(config, f"studies.{name}"))


def _builds_demo_models(config: Mapping) -> bool:
    """A model of the run is built by the demo rule (``models.<name>.build``)."""
    return any((spec or {}).get("build") for spec in (config.get("models") or {}).values())


STUDY2 = ("set studies.study2: false", _study("study2"))
STUDY1 = ("set studies.study1: false", _study("study1"))
DEMO_MODELS = ("build no demo model (models.<name>.build: null)", _builds_demo_models)

# key -> (what iterates over it, (the setting that leaves that stage out, whether it is planned))
NEEDED_WHEN_PLANNED = {
    "generation.datasets": ("Study 2 generates, scores and accounts each dataset", STUDY2),
    "generation.seeds": ("Study 2 generates one replicate per seed", STUDY2),
    "generation.controls.sources": ("Study 2's control conditions are one generation per control source", STUDY2),
    "generation.controls.formats": ("Study 2's control conditions are generated in each of these formats", STUDY2),
    "generation.controls.budgets": ("Study 2's control conditions are generated at each of these budgets", STUDY2),
    "generation.controls.code_mapping_budgets": ("Study 2's code-mapping controls are generated at each of these "
                                                 "budgets", STUDY2),
    "evidence.controls": ("Study 2's evidence is assembled for each control source (none: the no-evidence "
                          "baseline)", STUDY2),
    "retrieval.datasets": ("Study 2's evidence is retrieved for each dataset it generates for", STUDY2),
    "accounting.study1.macro_f1_classes": ("Study 1's macro-F1 averages over these classes", STUDY1),
    "generation.demo_models.train_datasets": ("the demo models learn from each of these datasets", DEMO_MODELS),
}

# key (``*``: any name at that level) -> why an empty list is a setting, not a mistake
EMPTY_MEANS_NONE = {
    "benchmark_plugins": "no plugin modules: the built-in benchmarks only",
    "families.negation_tokens": "no negation pairs are linked into one claim family",
    "retrieval.extra_claim_splits.*": "no ingest split beyond the sampled claims is retrieved for",
    "evidence.needs_no_evidence.*": "every label of the dataset needs evidence to be scored",
    "accounting.study2.sensitivity_parsers": "no sensitivity analysis: the primary parser only",
    "diffgr.reader_system_message.families": "no model family's reader prompt has a system message",
    "diffgr.reader_run_files": "no official reader outputs are scored as given",
}


def empty_list_errors(config: Mapping) -> list[str]:
    """One line per :data:`NEEDED_WHEN_PLANNED` key that is an empty list while its stage is planned."""
    errors = []
    for key, (what, (leave_out, planned)) in NEEDED_WHEN_PLANNED.items():
        value = config_value(config, key)
        if isinstance(value, list) and not value and planned(config):
            errors.append(f"{key} is empty, but {what}: name at least one, or {leave_out}")
    return errors
