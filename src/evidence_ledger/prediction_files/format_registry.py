"""The formats of prediction files that ``account`` reads: one :class:`AccountedFormat` a name.

In:  the modules of ``prediction_files/formats/`` (each registers its format when imported; the
     registry imports every module there the first time it is read) and plugin modules named by
     config ``benchmark_plugins`` or, for the command line, the environment variable
     ``benchmark_registry.PLUGINS_ENV`` (each calls :func:`register_format` when imported, as a
     benchmark plugin calls ``register_benchmark``).
Out: lookups: :func:`get_format`, :func:`is_format`, :func:`format_names`.

A format is everything about one kind of prediction file, in one module: how its files are read
and scored into per-item numbers (:class:`~.item_scores.ItemScores`) and how two files' numbers
cross into a cell's numerator; the scorer's options on the command line (``score <name>`` and
``account <name>``); its titles and the rows its tables, page and ``ledger.json`` show; what its
``external.<name>.<system>`` config entry holds and how that entry is checked; the first-record
fields the preflight checks in its files. The ``account`` and ``score`` commands, the
``account_system`` rule, the config checks, the preflight and the summary page loop over the
registry and never name a format (lm-evaluation-harness's tasks are the model: one task, one
place).

The shared keys of an ``external`` entry (:data:`ENTRY_KEYS`) are read by the code that loops;
a format names where its gold comes from (:attr:`AccountedFormat.gold_key`: ``gold_split``, a
split of ``data.<name>.claims`` whose official file is the gold, or ``gold_file``, a file in
``data_root``) and its own keys (:attr:`AccountedFormat.entry_keys`).
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Mapping

import numpy as np

from ..benchmark_registry import load_env_plugins
from ..config.layers import config_value
from .item_scores import ItemScores

#: the keys every ``external.<format>.<system>`` entry may hold, whatever its format
ENTRY_KEYS = ("answers", "sources", "families", "resample_runs")
#: the two ways an entry names its gold: a split of ``data.<format>.claims``, or a file in data_root
GOLD_KEYS = ("gold_split", "gold_file")
#: the split an entry with ``gold_key`` ``gold_split`` accounts when it names none
DEFAULT_GOLD_SPLIT = "dev"

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_REGISTRY: dict[str, "AccountedFormat"] = {}
_BUILT_INS_LOADED = False


class AccountedFormat:
    """One format of prediction files. A format module subclasses it, sets the facts below and
    overrides what its files need, then calls :func:`register_format` with an instance.

    ``settings`` (every method that takes it): the scorer's settings of one accounting, a dict
    of plain values built by :meth:`settings_from_args` (the command line) or
    :meth:`settings_from_entry` (an ``external`` entry), so a rule passes it as a param.
    """

    #: the sub-command (``account <name>``, ``score <name>``) and the key ``external.<name>``
    name: str = ""
    #: how titles name the benchmark (``FEVEROUS``)
    title: str = ""
    #: the shape of one prediction record, for help texts
    record_help: str = ""
    #: what a gold file holds, plural: ``claims``, ``items`` (titles and intros)
    item_word: str = "claims"
    #: the accounting metric of its cells (``accounting.metrics``: ``strict``, ``f1``, or one it registers)
    panel_metric: str = "strict"
    #: the keys the preflight wants in a prediction file's first record
    prediction_fields: tuple[str, ...] = ("id",)
    #: where an entry's gold comes from: ``gold_split`` or ``gold_file`` (:data:`GOLD_KEYS`)
    gold_key: str = "gold_split"
    #: the keys the preflight wants in the gold file's first record (``gold_file`` formats)
    gold_fields: tuple[str, ...] = ("id",)
    #: the entry's own keys beside :data:`ENTRY_KEYS` and :attr:`gold_key`
    entry_keys: tuple[str, ...] = ()
    #: keys an older config used, with the key that replaces each (refused naming the new key)
    renamed_keys: Mapping[str, str] = {}
    #: facts that describe the gold file, the same in every file's scores: counted once
    gold_facts: tuple[str, ...] = ()
    #: how the tables name the per-item evidence score, where the format has one beside the
    #: eligibility (KILT: ``rprec``)
    evidence_name: str = ""
    #: ``score <name>``'s help line and description
    score_help: str = ""
    score_description: str = ""

    # --- the command line -------------------------------------------------------------------
    def add_scorer_options(self, parser) -> None:
        """The official scorer's options, shared by ``score <name>`` and ``account <name>``."""

    def add_account_options(self, parser) -> None:
        """``account <name>``'s own options: the scorer's (:meth:`add_scorer_options`) by default."""
        self.add_scorer_options(parser)

    def settings_from_args(self, args) -> dict:
        """The scorer's settings of ``account <name>``'s parsed arguments."""
        return {}

    def add_score_arguments(self, parser) -> None:
        """``score <name>``'s arguments (its files and the scorer's options)."""
        raise NotImplementedError(f"format {self.name!r} has no score command")

    def score_files(self, args) -> dict:
        """``score <name>``: the official scores of the files ``args`` names, as one JSON object."""
        raise NotImplementedError(f"format {self.name!r} has no score command")

    # --- the pipeline's external entries ------------------------------------------------------
    def settings_from_entry(self, entry: Mapping, config: Mapping) -> dict:
        """The scorer's settings of an ``external.<name>.<system>`` entry in a run of ``config``."""
        return {}

    def gold_path(self, entry: Mapping, config: Mapping) -> str:
        """The gold file of an entry, relative to ``data_root``: the entry's ``gold_file``, or the
        file of split ``gold_split`` (default :data:`DEFAULT_GOLD_SPLIT`) under ``data.<name>.claims``."""
        if self.gold_key == "gold_file":
            return entry["gold_file"]
        return config_value(config, f"data.{self.name}.claims")[entry.get("gold_split", DEFAULT_GOLD_SPLIT)]

    def gold_errors(self, key: str, entry: Mapping, config: Mapping) -> list[str]:
        """The entry names its gold as :attr:`gold_key` says (a known split; a file)."""
        if self.gold_key == "gold_file":
            if not entry.get("gold_file"):
                return [f"{key}: give gold_file, the {self.title} gold file in data_root"]
            return []
        split = entry.get("gold_split", DEFAULT_GOLD_SPLIT)
        claims = config_value(config, f"data.{self.name}.claims") or {}
        if split not in claims:
            return [f"{key}.gold_split = {split!r} is not a split of data.{self.name}.claims ({sorted(claims)}): "
                    f"the gold file of the accounted {self.item_word}"]
        return []

    def entry_errors(self, key: str, entry: Mapping, config: Mapping) -> list[str]:
        """What the format refuses in an entry beyond its keys and its gold (one line each)."""
        return []

    # --- titles and what the tables show -------------------------------------------------------
    def title_of(self, settings: Mapping) -> str:
        """The benchmark as a title names it, with what the settings add (KILT: its task and score)."""
        return self.title

    def intro_note(self, settings: Mapping) -> str:
        """What the page's intro says after "T_ab scores source-a answers with source-b evidence"."""
        return "."

    def recorded_settings(self, settings: Mapping) -> dict:
        """The settings as provenance and ``ledger.json`` record them (``scoring.<key>``)."""
        return dict(settings)

    def answer_name(self, settings: Mapping) -> str:
        """How the tables name the per-item answer score (``accuracy``; KILT: its metric)."""
        return "accuracy"

    def rate_rows(self, settings: Mapping) -> tuple[tuple[str, str], ...]:
        """``(quantity, meaning)`` of the terminal table's rows after the cells and components."""
        return ()

    def page_layout(self, settings: Mapping) -> dict:
        """What the summary page shows of an accounted system beyond its cells and components:
        ``rates`` (rows ``[quantity, meaning]``) and ``rates_caption``, ``answer_name`` (the
        quantity whose interval an Eq. 4 mean correctness has) and ``eq4_note`` (appended to the
        Eq. 4 caption). Plain values: the pipeline passes them to the page as a param."""
        return {"rates": [], "rates_caption": "", "answer_name": self.answer_name(settings), "eq4_note": ""}

    def matching(self, facts: Mapping) -> dict[str, int]:
        """How the files' lines were paired with the gold, where the command and ``ledger.json``
        report it (empty: nothing to report)."""
        return {}

    def matching_rows(self) -> Mapping[str, str]:
        """Meaning of each :meth:`matching` count printed in the terminal table."""
        return {}

    # --- reading and scoring ---------------------------------------------------------------------
    def read_gold(self, gold_path: str, settings: Mapping):
        """The gold file read and parsed once per process, for :meth:`score_file`."""
        raise NotImplementedError

    def check_gold(self, gold_path: str, settings: Mapping) -> None:
        """Warn about a gold file that reads but is likely not what was meant (once, before any
        file is scored; the command prints each warning as a line)."""

    def score_file(self, gold, path: str, settings: Mapping) -> ItemScores:
        """One prediction file scored against the gold (:meth:`read_gold`), per gold item; bad
        input is an ``InputError`` naming the file and line."""
        raise NotImplementedError

    def cross(self, answers: ItemScores, evidence: ItemScores) -> np.ndarray:
        """Per item (aligned), the numerator of ``answers``' answers scored with ``evidence``'s
        evidence: ``answer * eligible`` unless the format says otherwise."""
        return answers.answer * evidence.eligible


def check_format(fmt: AccountedFormat) -> None:
    """A format's facts are well formed (raises ValueError naming the format)."""
    if not _NAME.match(fmt.name or ""):
        raise ValueError(f"accounted format name {fmt.name!r} must be lower-case letters, digits and _, "
                         f"starting with a letter")
    if fmt.gold_key not in GOLD_KEYS:
        raise ValueError(f"accounted format {fmt.name!r}: gold_key {fmt.gold_key!r} is not one of {list(GOLD_KEYS)}")
    shared = set(fmt.entry_keys) & (set(ENTRY_KEYS) | set(GOLD_KEYS))
    if shared:
        raise ValueError(f"accounted format {fmt.name!r}: entry_keys {sorted(shared)} are shared keys")
    if not fmt.title:
        raise ValueError(f"accounted format {fmt.name!r} has no title")


def register_format(fmt: AccountedFormat, *, replace: bool = False) -> AccountedFormat:
    """Add ``fmt`` to the registry; a second format under a taken name raises unless it is of
    the same class (a module imported twice) or ``replace`` is set."""
    check_format(fmt)
    known = _REGISTRY.get(fmt.name)
    if known is not None and type(known) is not type(fmt) and not replace:
        raise ValueError(f"accounted format {fmt.name!r} is already registered by {type(known).__module__}")
    _REGISTRY[fmt.name] = fmt
    return fmt


def _load_built_ins() -> None:
    """Import every module of ``prediction_files/formats/`` (each registers its format)."""
    global _BUILT_INS_LOADED
    if _BUILT_INS_LOADED:
        return
    _BUILT_INS_LOADED = True
    package = importlib.import_module(f"{__package__}.formats")
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
        importlib.import_module(f"{package.__name__}.{module}")


def _registry() -> dict[str, AccountedFormat]:
    _load_built_ins()
    load_env_plugins()
    return _REGISTRY


def get_format(name: str) -> AccountedFormat:
    """The registered format ``name``; an unknown name raises ValueError listing the known ones."""
    formats = _registry()
    if name not in formats:
        raise ValueError(f"no accounted format {name!r}; registered: {sorted(formats)}")
    return formats[name]


def is_format(name: str) -> bool:
    return name in _registry()


def format_names() -> tuple[str, ...]:
    """Registered names: the built-ins in module order, then plugins in registration order."""
    return tuple(_registry())
