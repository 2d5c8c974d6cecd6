"""The real Study 1 import path on a tiny FEVEROUS world: provider submission files ->
``evidence.stage.import_evidence_source`` -> ``verifier.stage.serialise_verifier_inputs``.

Tokenizers are built locally and saved, so both stages load them exactly as in the pipeline:
the budget tokenizer of ``support.evidence_tokenizers`` and a word-level verifier tokenizer
(one token per whitespace-separated word, with ``[CLS]`` / ``[SEP]``).
"""
import json
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from support.defaults import DEFAULTS

from evidence_ledger import tables
from evidence_ledger.evidence.prefix import CELL_LIKE_KINDS
from evidence_ledger.evidence.stage import import_evidence_source
from evidence_ledger.scoring.feverous import split_element_id
from evidence_ledger.tables.ingest import CLAIMS, UNITS
from evidence_ledger.tables.verifier import VERIFIER_INPUTS
from evidence_ledger.verifier.stage import serialise_verifier_inputs

from .evidence_tokenizers import budget_tokenizers

PAPER_LIMITS = dict(DEFAULTS["verifier"]["input"])  # the paper's serialisation limits


def verifier_tokenizer_dir(root: Path) -> Path:
    """A saved word-level tokenizer with [CLS] / [SEP], loadable by ``AutoTokenizer``."""
    path = root / "verifier_tokenizer"
    if not path.exists():
        tok = Tokenizer(models.WordLevel({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[PAD]": 3}, unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                                pad_token="[PAD]").save_pretrained(path)
    return path


def write_world(root: Path, claims: dict, units: dict) -> tuple[Path, Path]:
    """CLAIMS (``claim_id -> (label, gold groups)``) and UNITS (``unit_id -> text``) Parquet files."""
    claim_rows = [{"dataset": "feverous", "claim_id": cid, "claim": f"claim number {cid}", "label": label,
                   "evidence_groups": groups, "gold_abstracts": [], "cited_doc_ids": [], "source_file": "hand",
                   "source_line": i + 1, "unresolved_ids": []} for i, (cid, (label, groups)) in enumerate(claims.items())]
    unit_rows = []
    for i, (uid, text) in enumerate(sorted(units.items())):
        page, kind, _ = split_element_id(uid)
        unit_rows.append({"dataset": "feverous", "unit_id": uid, "doc_id": page, "kind": kind, "position": i,
                          "text": text, "context": ""})
    paths = root / "claims_dev.parquet", root / "units.parquet"
    tables.write_table(CLAIMS.from_rows(claim_rows), paths[0], CLAIMS)
    tables.write_table(UNITS.from_rows(unit_rows), paths[1], UNITS)
    return paths


def import_provider(root: Path, source: str, lists: dict, claims_path: Path, units_path: Path) -> tuple[Path, dict]:
    """Write ``lists`` (``claim_id -> predicted ids``) as a submission file and import it; returns
    (EVIDENCE path, the import summary JSON)."""
    submission = root / f"{source}.jsonl"
    submission.write_text("".join(json.dumps({"id": cid, "predicted_evidence": ids}) + "\n"
                                  for cid, ids in lists.items()))
    tokenizer_dirs = root / "budget_tokenizers"
    if not tokenizer_dirs.exists():
        budget_tokenizers(tokenizer_dirs)
    evidence, summary = root / f"provider_{source}.parquet", root / f"provider_{source}.summary.json"
    import_evidence_source(submission=str(submission), claims=[str(claims_path)], units=str(units_path),
                           evidence=str(evidence), summary=str(summary), dataset="feverous", source=source,
                           tokenizers={"words": {"path": str(tokenizer_dirs / "words"), "revision": None}},
                           prefix_non_cell=5, prefix_cell=25, cell_like_kinds=list(CELL_LIKE_KINDS))
    return evidence, json.loads(summary.read_text())


def serialise_through_import(root: Path, submissions: dict, claims: dict, units: dict, **limits) -> dict:
    """Import every source's submission (``source -> {claim_id -> ids}``) and serialise the claims
    with the verifier's stage function; returns ``{"inputs": {(source, claim_id): VERIFIER_INPUTS
    row}, "paths": {...}, "summaries": {source: import summary}}``."""
    claims_path, units_path = write_world(root, claims, units)
    evidence, summaries = {}, {}
    for source, lists in submissions.items():
        evidence[source], summaries[source] = import_provider(root, source, lists, claims_path, units_path)
    inputs_path = root / "inputs_dev.parquet"
    serialise_verifier_inputs(claims=str(claims_path), units=str(units_path), evidence=[str(p) for p in evidence.values()],
                              verifier_inputs=str(inputs_path), split="dev", sources=list(evidence),
                              base={"hub_id": str(verifier_tokenizer_dir(root)), "revision": None,
                                    "allow_pickle_weights": False},
                              **{**PAPER_LIMITS, **limits})
    rows = tables.read_table(inputs_path, VERIFIER_INPUTS).to_pylist()
    return {"inputs": {(r["source"], r["claim_id"]): r for r in rows},
            "paths": {"claims": claims_path, "units": units_path, "inputs": inputs_path, "evidence": evidence},
            "summaries": summaries}
