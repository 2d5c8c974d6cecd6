"""The paper run's input files: which are public, which only the study's authors hold, and
what a run on public files runs instead of each author-held one.

In:  a workflow config (a mapping), for :func:`substitutes`.
Out: :data:`PAPER_INPUTS` - every file ``config/paper.yaml`` reads below ``data_root``, with the
     config key that names it and who holds it (``public``: released by its benchmark, or made
     from a released model; ``author-held``: only the study's authors have it);
     :func:`substitutes` - for each author-held input a run does not read, (what the input is,
     what the run used instead), derived from the run's own config.

``config/README.md`` ("Paper data layout") is the human-readable list, with where each public
file is published; ``config/public.yaml`` is the layer that runs the paper's design on public
files only (README, "The paper on public files only"). The report's provenance table carries
one ``substitute`` row per entry of :func:`substitutes`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .layers import config_value

PUBLIC, AUTHOR_HELD = "public", "author-held"


@dataclass(frozen=True)
class PaperInput:
    path: str    # below data_root, as config/paper.yaml names it
    key: str     # the config key that names it
    holder: str  # PUBLIC or AUTHOR_HELD
    what: str    # what it is, in a few words


PAPER_INPUTS = (
    PaperInput("fever/shared_task_dev.jsonl", "data.fever.claims.dev", PUBLIC, "FEVER 1.0 labelled dev claims"),
    PaperInput("fever/wiki-pages", "data.fever.wiki", PUBLIC, "FEVER 1.0 wiki pages"),
    PaperInput("feverous/feverous_dev_challenges.jsonl", "data.feverous.claims.dev", PUBLIC,
               "FEVEROUS 1.0 dev claims (the Study 1 population)"),
    PaperInput("feverous/feverous_train_challenges.jsonl", "data.feverous.claims.train", PUBLIC,
               "FEVEROUS 1.0 train claims (verifier training)"),
    PaperInput("feverous/pool.jsonl", "data.feverous.claims.pool", AUTHOR_HELD, "the Study 2 FEVEROUS candidate pool"),
    PaperInput("feverous/reserved_ids.txt", "data.feverous.reserved_ids", AUTHOR_HELD,
               "the reserved FEVEROUS claim ids (their families are left out of the Study 2 sample)"),
    PaperInput("feverous/feverous_wikiv1.db", "data.feverous.wiki", PUBLIC, "FEVEROUS 1.0 wiki database"),
    PaperInput("feverous/providers/dcuf.jsonl", "external.feverous.providers.sources.dcuf", AUTHOR_HELD,
               "the DCUF evidence submission (Study 1 evidence source 0)"),
    PaperInput("feverous/providers/unifee.jsonl", "external.feverous.providers.sources.unifee", AUTHOR_HELD,
               "the UnifEE evidence submission (Study 1 evidence source 1)"),
    PaperInput("scifact/claims_dev.jsonl", "data.scifact.claims.dev", PUBLIC, "SciFact dev claims"),
    PaperInput("scifact/corpus.jsonl", "data.scifact.corpus", PUBLIC, "SciFact corpus"),
    PaperInput("wikicontradict/WikiContradict_dataset_v1_rag_qa.csv", "data.wikicontradict.rag_qa_csv", PUBLIC,
               "WikiContradict RAG-QA instances"),
    PaperInput("wikicontradict/human_judgements.jsonl", "data.wikicontradict.human_judgements", AUTHOR_HELD,
               "human judgements of model responses (judge agreement)"),
    PaperInput("conflict_qa/nqcc.jsonl", "data.nqcc.records", PUBLIC, "NQ-CC reader file (RetrieveOrGenerated)"),
    PaperInput("conflict_qa/tqacc.jsonl", "data.tqacc.records", PUBLIC, "TQA-CC reader file (RetrieveOrGenerated)"),
    PaperInput("models/deberta-large-mnli", "verifier.base_model.local_dir", PUBLIC,
               "the verifier's base model, converted from the Hub's microsoft/deberta-large-mnli"),
)

# The paper's Study 1 evidence sources by position (verifier.sources: source 0, source 1).
STUDY1_PROVIDERS = ("dcuf", "unifee")


def author_held_inputs() -> tuple[PaperInput, ...]:
    return tuple(i for i in PAPER_INPUTS if i.holder == AUTHOR_HELD)


def _study1_source(config: Mapping[str, Any], position: int) -> str:
    """What ran as Study 1 evidence source ``position`` (``verifier.sources``)."""
    dataset = config_value(config, "verifier.dataset") or "feverous"
    sources = config_value(config, "verifier.sources") or []
    if position >= len(sources):
        return "no such source in this run (verifier.sources)"
    name = sources[position]
    for system, spec in (config_value(config, f"external.{dataset}") or {}).items():
        if not spec or spec.get("answers", "files") != "verifier" or name not in spec["sources"]:
            continue
        where = f"external.{dataset}.{system}.sources.{name}"
        files = spec["sources"][name]
        if isinstance(files, Mapping):
            return (f"source {position} is {name}: the pipeline's own {files['export']} ordering, exported as a "
                    f"submission ({where})")
        return f"source {position} is {name}: the submission file {', '.join(files)} ({where})"
    return f"source {position} is {name}"


def _substitute(config: Mapping[str, Any], item: PaperInput) -> str:
    """What a run that does not read ``item`` (author-held) used instead."""
    if item.key == "data.feverous.claims.pool":
        s = config_value(config, "sampling.feverous") or {}
        size = "every claim" if s.get("n") is None else f"{s['n']} claims"
        return (f"the Study 2 FEVEROUS sample is {size} drawn by {s.get('method', 'hash')} sampling "
                f"(salt {s.get('salt')}) from the public {s.get('split')} split")
    if item.key == "data.feverous.reserved_ids":
        return "no claim families left out of the Study 2 sample (sampling.feverous.exclude_reserved_families: false)"
    if item.key.startswith("external.feverous.providers."):
        return _study1_source(config, STUDY1_PROVIDERS.index(item.key.rsplit(".", 1)[1]))
    if item.key == "data.wikicontradict.human_judgements":
        return "no human labels: the judge-agreement tables are not made"
    raise KeyError(item.key)


def substitutes(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(what the author-held input is, what this run used instead) for each author-held input
    the config does not name (its key is null or absent), in :data:`PAPER_INPUTS` order."""
    return [(f"{item.what} ({item.key})", _substitute(config, item))
            for item in author_held_inputs() if not config_value(config, item.key)]
