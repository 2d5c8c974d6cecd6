"""The items behind the pipeline's Study 1 and Study 2 numbers: ITEMS and ITEM_TEXTS.

In:  the indicator tables the accounting reads (ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT,
     FAMILIES; Study 1 its CLUSTER_COUNTS), and the tables that hold the texts: the claims
     (CLAIMS), the evidence (EVIDENCE: ``visible_text``), the answers (Study 1 VERIFIER_ANSWERS,
     Study 2 PARSED_ANSWERS with the raw responses).
Out: ITEMS rows (``accounting.items.item_rows``) of every comparison: Study 1 its one (source 0
     vs source 1 over the checkpoints); Study 2 one per dataset x model x format x budget of the
     primary parser (source 0 vs source 1 at that budget, over the sampled seeds), the items its
     claims (SciFact: a claim, its abstracts summed; answer and eligibility scores NaN, as a claim
     has none), families from FAMILIES. ITEM_TEXTS rows: each claim's text, each source's
     evidence text at each budget (SciFact: the claim's abstracts, each headed by its id), each
     run's answer. Study 2's are written dataset by dataset (:func:`write_study2_item_tables`),
     reading of the answers and texts only the rows of the compared sources.

The cells are those of the claim panel the estimates come from (``accounting.panel``), so each
comparison's item means are its ESTIMATES cells and components (replicate -1).
"""
from __future__ import annotations

import functools
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import tables
from ..tables.accounting import CLUSTER_COUNTS
from ..tables.evidence import EVIDENCE
from ..tables.generation import PARSED
from ..tables.ingest import CLAIMS
from ..tables.items import ITEM_TEXTS, ITEMS
from ..tables.sampling import FAMILIES
from ..tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
from ..tables.verifier import VERIFIER_ANSWERS
from .inputs import by_dataset, by_dataset_and_model
from .items import Comparison, ItemTableWriter, item_rows
from .panel import CountPanel, build_claim_panel, claim_indicators, panel_from_frame, replicate_subpanel

#: the columns of the text tables an item table reads
CLAIM_COLUMNS = ["claim_id", "claim", "label", "gold_abstracts"]
EVIDENCE_TEXT_COLUMNS = ["claim_id", "doc_id", "source", "budget", "visible_text"]
PARSED_TEXT_COLUMNS = ["claim_id", "doc_id", "source", "budget", "format", "replicate", "raw_response"]


def comparison_panel(panel: CountPanel, f: int, u: int) -> CountPanel:
    """The panel restricted to format ``f`` and budget ``u`` (answers and evidence at it)."""
    return CountPanel(panel.dataset, panel.system, panel.metric, panel.units, panel.replicates,
                      [panel.formats[f]], panel.sources, [panel.answer_budgets[u]], [panel.evidence_budgets[u]],
                      panel.num[:, :, f:f + 1, :, u:u + 1, :, u:u + 1], panel.den[:, :, f:f + 1, :, u:u + 1])


def panel_item_rows(panel: CountPanel, *, study: str, parser: str, gold: Mapping[str, str],
                    answers: pd.DataFrame | None = None, evidence: pd.DataFrame | None = None,
                    families: Mapping[str, str] | None = None) -> pd.DataFrame:
    """ITEMS rows of every format x budget of ``panel`` (sources 0 and 1); ``gold`` claim id ->
    the gold shown (:func:`gold_of_claims`). Where the panel is a strict one and the indicator
    frames are given, each item's answer correctness and eligibility come from them
    (``panel.claim_indicators``)."""
    frames = []
    for f, fmt in enumerate(panel.formats):
        for u, budget in enumerate(panel.answer_budgets):
            sub = comparison_panel(panel, f, u)
            ind = None
            if panel.metric == "strict" and answers is not None and evidence is not None:
                ind = claim_indicators(answers, evidence, sub, parser=parser)
            comparison = Comparison(study, panel.dataset, panel.system, fmt, parser, budget, panel.sources[0],
                                    panel.sources[1])
            frames.append(item_rows(
                comparison, sub.units, sub.num[:, :, 0, :2, 0, :2, 0], sub.den[:, :, 0, :2, 0], sub.multiplier,
                gold=[gold.get(c, "") for c in sub.units],
                families=None if families is None else [families.get(c, "") for c in sub.units],
                answer=None if ind is None else ind.correct[:, :, :2],
                eligible=None if ind is None else ind.eligible[:, :, :2]))
    return pd.concat(frames, ignore_index=True)


def gold_of_claims(claims: pd.DataFrame) -> dict[str, str]:
    """claim id -> the gold as the item table shows it: the claim's label, with SciFact's gold
    abstracts (``doc: LABEL``) where it has them."""
    out = {}
    for claim_id, label, abstracts in zip(claims["claim_id"], claims["label"], claims["gold_abstracts"]):
        docs = "; ".join(f"{a['doc_id']}: {a['label']}" for a in (abstracts if abstracts is not None else []))
        out[str(claim_id)] = docs or str(label)
    return out


def claim_text_rows(claims: pd.DataFrame, dataset: str, units: Sequence[str]) -> pd.DataFrame:
    """ITEM_TEXTS ``claim`` rows of the claims in ``units``."""
    text = claims.drop_duplicates("claim_id").set_index("claim_id")["claim"]
    ids = [u for u in units if u in text.index]
    return pd.DataFrame({"dataset": dataset, "item_id": ids, "kind": "claim", "system": "", "format": "",
                         "source": "", "budget": "", "replicate": np.int64(-1),
                         "text": [str(text[u]) for u in ids]})


def arrow_texts(values: pd.Series) -> pa.Array:
    """A column's values as one Arrow string array (``large_string``: no 2 GiB limit)."""
    return pa.array(values.astype(str), type=pa.large_string())


def headed(doc_ids: pd.Series, texts: pd.Series) -> pa.Array:
    """A text per row, headed by its abstract where the row is one (``doc_id`` not ''): SciFact's
    per-abstract evidence and answers read as one text per claim. Built in Arrow, the texts
    copied once."""
    docs, texts = arrow_texts(doc_ids), arrow_texts(texts)
    string = functools.partial(pa.scalar, type=pa.large_string())
    heading = pc.if_else(pc.not_equal(docs, ""), pc.binary_join_element_wise(string("["), docs, string("] "),
                                                                             string("")), string(""))
    return pc.binary_join_element_wise(heading, texts, string(""))


def joined_texts(rows: pd.DataFrame, texts: pa.Array, keys: Sequence[str], separator: str) -> pd.DataFrame:
    """One row per run of adjacent rows with equal ``keys`` (``rows`` sorted so that each group's
    rows are adjacent), in order: its keys and the ``texts`` of its rows (one per row) joined by
    ``separator``."""
    changed = np.zeros(len(rows), dtype=bool)
    if len(rows):
        changed[0] = True
        for key in keys:
            values = rows[key].to_numpy()
            changed[1:] |= values[1:] != values[:-1]
    starts = np.flatnonzero(changed)
    lists = pa.LargeListArray.from_arrays(pa.array(np.append(starts, len(rows)), type=pa.int64()), texts)
    joined = pc.binary_join(lists, pa.scalar(separator, type=pa.large_string()))
    first = rows.iloc[starts]
    return pd.DataFrame({**{key: first[key].to_numpy() for key in keys}, "text": pd.Series(joined, dtype="str")})


def evidence_text_rows(evidence: pd.DataFrame, dataset: str, units: Sequence[str], sources: Sequence[str],
                       budgets: Sequence[str]) -> pd.DataFrame:
    """ITEM_TEXTS ``evidence`` rows: per claim, source and budget the evidence text as rendered for
    the model (EVIDENCE ``visible_text``; a claim's abstracts joined in order). Only the kept
    rows' texts are copied, once, in their order."""
    keys = ["claim_id", "source", "budget", "doc_id"]
    evidence = evidence.reset_index(drop=True)
    keep = evidence["claim_id"].isin(set(units)) & evidence["source"].isin(sources) & evidence["budget"].isin(budgets)
    rows = evidence.loc[keep, keys].sort_values(keys, kind="stable")
    texts = headed(rows["doc_id"], evidence["visible_text"].take(rows.index.to_numpy()))
    joined = joined_texts(rows, texts, ["claim_id", "source", "budget"], "\n\n")
    return pd.DataFrame({"dataset": dataset, "item_id": joined["claim_id"].astype(str), "kind": "evidence",
                         "system": "", "format": "", "source": joined["source"], "budget": joined["budget"],
                         "replicate": np.int64(-1), "text": joined["text"]})


def answer_text_rows(parsed: pd.DataFrame, *, dataset: str, system: str, parser: str, units: Sequence[str],
                     sources: Sequence[str], budgets: Sequence[str], formats: Sequence[str],
                     replicates: Sequence[int]) -> pd.DataFrame:
    """ITEM_TEXTS ``answer`` rows of one model: per claim, format, source, budget and replicate the
    parsed label under ``parser`` and the raw response (a claim's abstracts joined)."""
    rows = parsed[parsed["claim_id"].isin(set(units)) & parsed["source"].isin(sources) & parsed["budget"].isin(budgets)
                  & parsed["format"].isin(formats) & parsed["replicate"].isin(replicates)]
    rows = rows.sort_values(["claim_id", "format", "source", "budget", "replicate", "doc_id"], kind="stable")
    label = rows[f"{parser}_label"].astype(str)
    texts = headed(rows["doc_id"], label + "  (raw: " + rows["raw_response"].astype(str).str.strip() + ")")
    joined = joined_texts(rows, texts, ["claim_id", "format", "source", "budget", "replicate"], "\n")
    return pd.DataFrame({"dataset": dataset, "item_id": joined["claim_id"].astype(str), "kind": "answer",
                         "system": system, "format": joined["format"], "source": joined["source"],
                         "budget": joined["budget"], "replicate": joined["replicate"].astype(np.int64),
                         "text": joined["text"]})


def verifier_answer_rows(answers: pd.DataFrame, *, dataset: str, system: str, fmt: str, budget: str,
                         units: Sequence[str], sources: Sequence[str]) -> pd.DataFrame:
    """ITEM_TEXTS ``answer`` rows of the Study 1 verifier: per claim, checkpoint and source its
    label with the softmax probabilities."""
    rows = answers[answers["claim_id"].isin(set(units)) & answers["source"].isin(sources)]
    text = (rows["predicted_label"].astype(str) + "  (p SUPPORTS " + rows["p_supports"].map("{:.3f}".format)
            + ", REFUTES " + rows["p_refutes"].map("{:.3f}".format) + ", NEI " + rows["p_nei"].map("{:.3f}".format)
            + ")")
    return pd.DataFrame({"dataset": dataset, "item_id": rows["claim_id"].astype(str), "kind": "answer",
                         "system": system, "format": fmt, "source": rows["source"], "budget": budget,
                         "replicate": rows["checkpoint"].astype(np.int64), "text": text})


def item_texts(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """ITEM_TEXTS of the parts, in their order."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return ITEM_TEXTS.empty().to_pandas()
    return pd.concat(parts, ignore_index=True)[ITEM_TEXTS.columns]


def study1_item_tables(*, counts, answers, evidence, claims, evidence_texts: Sequence[str], verifier_answers,
                       dataset: str, system: str, parser: str, sources: Sequence[str], budget: str,
                       checkpoints: Sequence[int], answer_format: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ITEMS and ITEM_TEXTS of Study 1: the claims of its ``all`` population (CLUSTER_COUNTS, one
    cluster a claim), the verifier's answers per checkpoint, each source's evidence text."""
    count_rows = tables.read_frame(counts, CLUSTER_COUNTS)
    panel = panel_from_frame(count_rows[count_rows["population"] == "all"], formats=[answer_format], sources=sources,
                             answer_budgets=[budget], evidence_budgets=[budget], replicates=checkpoints,
                             path=str(counts))
    claim_frame = tables.read_frame(claims, CLAIMS, columns=CLAIM_COLUMNS)
    items = panel_item_rows(panel, study="study1", parser=parser, gold=gold_of_claims(claim_frame),
                            answers=tables.read_frame(answers, ANSWER_INDICATORS),
                            evidence=tables.read_frame(evidence, EVIDENCE_INDICATORS))
    evidence_rows = pd.concat([tables.read_filtered(path, EVIDENCE, "source", sources,
                                                    columns=EVIDENCE_TEXT_COLUMNS).to_pandas()
                               for path in evidence_texts], ignore_index=True)
    texts = item_texts([
        claim_text_rows(claim_frame, dataset, panel.units),
        evidence_text_rows(evidence_rows, dataset, panel.units, sources, [budget]),
        verifier_answer_rows(tables.read_frame(verifier_answers, VERIFIER_ANSWERS), dataset=dataset, system=system,
                             fmt=answer_format, budget=budget, units=panel.units, sources=sources)])
    return items, texts


def study2_dataset_item_tables(dataset: str, paths: Mapping, *, models: Sequence[str], sources: Sequence[str],
                               budgets: Sequence[str], formats: Sequence[str], parser: str,
                               seed_replicates: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """ITEMS and ITEM_TEXTS of one dataset's comparisons (every model x format x budget): its
    sample's claims, evidence texts and families, per model its answers. ``paths``: the
    dataset's tables by input name, ``answers`` and ``parsed`` by model. Only the rows of
    ``sources`` are read from the answers and texts (not the controls')."""
    evidence_frame = tables.read_frame(paths["evidence"], EVIDENCE_INDICATORS)
    relevant_frame = tables.read_frame(paths["relevant"], RELEVANT)
    family_frame = tables.read_frame(paths["families"], FAMILIES)
    family_of = dict(zip(family_frame["claim_id"].astype(str), family_frame["family_id"].astype(str)))
    claim_frame = tables.read_frame(paths["samples"], CLAIMS, columns=CLAIM_COLUMNS)
    gold = gold_of_claims(claim_frame)
    item_parts, answer_parts, units = [], [], []
    for model in models:
        answers_frame = tables.read_filtered(paths["answers"][model], ANSWER_INDICATORS, "answer_source",
                                             sources).to_pandas()
        panel = build_claim_panel(answers_frame, evidence_frame, relevant_frame, dataset=dataset, system=model,
                                  parser=parser, formats=formats, sources=sources, answer_budgets=budgets,
                                  evidence_budgets=budgets, replicates=seed_replicates,
                                  paths={"answers": str(paths["answers"][model])})
        panel = replicate_subpanel(panel, seed_replicates)
        units = panel.units
        item_parts.append(panel_item_rows(panel, study="study2", parser=parser, gold=gold, answers=answers_frame,
                                          evidence=evidence_frame, families=family_of))
        del answers_frame
        parsed = tables.read_filtered(paths["parsed"][model], PARSED, "source", sources,
                                      columns=PARSED_TEXT_COLUMNS + [f"{parser}_label"]).to_pandas()
        answer_parts.append(answer_text_rows(parsed, dataset=dataset, system=model, parser=parser, units=units,
                                             sources=sources, budgets=budgets, formats=formats,
                                             replicates=seed_replicates))
    evidence_rows = tables.read_filtered(paths["evidence_texts"], EVIDENCE, "source", sources,
                                         columns=EVIDENCE_TEXT_COLUMNS).to_pandas()
    texts = item_texts([claim_text_rows(claim_frame, dataset, units),
                        evidence_text_rows(evidence_rows, dataset, units, sources, budgets), *answer_parts])
    return pd.concat(item_parts, ignore_index=True), texts


def write_study2_item_tables(*, answers: Sequence[str], evidence: Sequence[str], relevant: Sequence[str],
                             families: Sequence[str], samples: Sequence[str], evidence_texts: Sequence[str],
                             parsed: Sequence[str], datasets: Sequence[str], models: Sequence[str],
                             sources: Sequence[str], budgets: Sequence[str], formats: Sequence[str], parser: str,
                             seed_replicates: Sequence[int], items_out, texts_out) -> None:
    """ITEMS and ITEM_TEXTS of every Study 2 comparison (see the module doc), the lists in panel
    order (``accounting.inputs``), written dataset by dataset so that memory holds one
    dataset's tables and texts: ITEM_TEXTS the datasets in sorted order, each item's rows
    together (as ``accounting.items.write_item_tables`` orders them), ITEMS the comparisons in
    panel order."""
    answers, parsed = by_dataset_and_model(answers, datasets, models), by_dataset_and_model(parsed, datasets, models)
    per_dataset = {name: by_dataset(x, datasets) for name, x in (("evidence", evidence), ("relevant", relevant),
                                                                   ("families", families), ("samples", samples),
                                                                   ("evidence_texts", evidence_texts))}
    items = {}
    with ItemTableWriter(texts_out, ITEM_TEXTS) as writer:
        for dataset in sorted(datasets):
            paths = {"answers": answers[dataset], "parsed": parsed[dataset],
                     **{name: x[dataset] for name, x in per_dataset.items()}}
            items[dataset], texts = study2_dataset_item_tables(
                dataset, paths, models=models, sources=sources, budgets=budgets, formats=formats, parser=parser,
                seed_replicates=seed_replicates)
            writer.append(texts.sort_values("item_id", kind="stable"))
    with ItemTableWriter(items_out, ITEMS) as writer:
        writer.append(pd.concat([items[d] for d in datasets], ignore_index=True))
