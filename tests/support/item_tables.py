"""Small ITEMS / ITEM_TEXTS tables shaped like the accountings' (``tables.items``), and the page's data read back.

:func:`write_demo_items` writes three pairs of tables, as a pipeline run with an accounted
system has them: a Study 1 (FEVEROUS, a verifier's 4 checkpoints, strict 0/1 scores), a Study 2
(FEVER, two models x two budgets, 5 seeds; evidence per source and budget shared by the models,
answers per model, budget, source and seed) and an accounted KILT system (a continuous F1, 2
runs, each run citing its own pages). The cells are built from per-run answer scores and
eligibility exactly as the contract says (``T_ab,i`` = 100 x answer_a x eligible_b, averaged
over the runs), so every component is a difference of cells and the pattern follows the runs.

:func:`page_index` and :func:`page_payloads` read an explorer page's index and decompress its
payloads, as its script does.
"""
from __future__ import annotations

import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

from evidence_ledger.report.items_page import PAYLOAD_TYPE
from evidence_ledger.tables import write_table
from evidence_ledger.tables.items import ITEM_TEXTS, ITEMS

LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
HOSTILE_CLAIM = 'A claim that ends its script: </script><script>document.title="owned"</script> & "quotes" \'too\''


def cell_pattern(runs: np.ndarray) -> str:
    """One pattern character of a cell's per-run scores (0..1): 1 every run full, 0 none, ~ else."""
    return "1" if np.all(runs == 1) else "0" if np.all(runs == 0) else "~"


def item_row(fields: dict, item_id: str, gold: str, answer: np.ndarray, eligible: np.ndarray,
             evidence: np.ndarray | None = None) -> dict:
    """One ITEMS row from an item's per-run answer scores ``answer[r, a]`` and eligibility
    ``eligible[r, b]`` (0..1): ``C_ab`` = answer_a x eligible_b per run, cells in points."""
    runs = answer.shape[0]
    cell = {f"T{a}{b}": answer[:, a] * eligible[:, b] for a in (0, 1) for b in (0, 1)}
    t = {name: 100 * float(values.mean()) for name, values in cell.items()}
    e0, a1, a0, e1 = t["T01"] - t["T00"], t["T11"] - t["T01"], t["T10"] - t["T00"], t["T11"] - t["T10"]
    evidence = np.full((runs, 2), np.nan) if evidence is None else evidence
    return {**fields, "comparison": "/".join(fields[k] for k in ("study", "dataset", "system", "format", "parser",
                                                                  "budget")),
            "item_id": item_id, "family_id": item_id, "gold": gold, "runs": runs,
            "answer_0": float(answer[:, 0].mean()), "answer_1": float(answer[:, 1].mean()),
            "eligible_0": float(eligible[:, 0].mean()), "eligible_1": float(eligible[:, 1].mean()),
            "evidence_0": float(evidence[:, 0].mean()), "evidence_1": float(evidence[:, 1].mean()),
            **t, "gain": t["T11"] - t["T00"], "E0": e0, "A1": a1, "A0": a0, "E1": e1, "interaction": e1 - e0,
            "pattern": "".join(cell_pattern(cell[name]) for name in ("T00", "T01", "T10", "T11")),
            **{f"run_{name}": (100 * values).tolist() for name, values in cell.items()}}


def text_row(dataset: str, item_id: str, kind: str, text: str, *, system="", fmt="", source="", budget="",
             replicate=-1) -> dict:
    return {"dataset": dataset, "item_id": item_id, "kind": kind, "system": system, "format": fmt,
            "source": source, "budget": budget, "replicate": replicate, "text": text}


def evidence_text(rng: np.random.Generator, dataset: str, item: str, source: str, words: int) -> str:
    lines = [f"{dataset.title()} page {rng.integers(1, 500)} | " + " ".join(f"w{rng.integers(0, 300)}"
                                                                          for _ in range(12))
             for _ in range(max(1, words // 12))]
    return f"[{source} on {item}]\n" + "\n".join(lines)


def study1_tables(rng: np.random.Generator, n_items: int = 40) -> tuple[list, list]:
    """Study 1: FEVEROUS, the verifier's 4 checkpoints, sources retrieval_bm25 -> provider."""
    fields = {"study": "study1", "dataset": "feverous", "system": "verifier", "format": "verifier",
              "parser": "none", "budget": "full", "source0": "retrieval_bm25", "source1": "provider"}
    items, texts = [], []
    for k in range(n_items):
        item = f"fv{k:03d}"
        gold = LABELS[k % 3]
        answer = (rng.random((4, 2)) < [0.55, 0.7]).astype(float)
        eligible = np.repeat((rng.random((1, 2)) < [0.4, 0.6]).astype(float), 4, axis=0)  # shared evidence
        items.append(item_row(fields, item, gold, answer, eligible))
        claim = HOSTILE_CLAIM if k == 7 else f"Claim {k} about page {k % 11} says it is {gold.lower()}."
        texts.append(text_row("feverous", item, "claim", claim))
        for source in (fields["source0"], fields["source1"]):
            texts.append(text_row("feverous", item, "evidence", evidence_text(rng, "feverous", item, source, 60),
                                  source=source, budget="full"))
            for r in range(4):
                texts.append(text_row("feverous", item, "answer", LABELS[rng.integers(0, 3)], system="verifier",
                                      fmt="verifier", source=source, budget="full", replicate=r))
    return items, texts


def study2_tables(rng: np.random.Generator, n_items: int = 30) -> tuple[list, list]:
    """Study 2: FEVER, models qwen3 and llama x budgets short and long, format codes, 5 seeds,
    sources bm25 -> bge; the evidence of a source and budget is shared by the models."""
    items, texts = [], []
    claims = [f"Fever claim {k}: the river {k} flows north." for k in range(n_items)]
    evidence = {(k, s, b): evidence_text(rng, "fever", f"f{k:03d}", s, {"short": 24, "long": 96}[b])
                for k in range(n_items) for s in ("bm25", "bge") for b in ("short", "long")}
    for k in range(n_items):
        texts.append(text_row("fever", f"f{k:03d}", "claim", claims[k]))
        for (kk, source, budget), text in evidence.items():
            if kk == k:
                texts.append(text_row("fever", f"f{k:03d}", "evidence", text, source=source, budget=budget))
    for system in ("qwen3", "llama"):
        for budget in ("short", "long"):
            fields = {"study": "study2", "dataset": "fever", "system": system, "format": "codes",
                      "parser": "strict", "budget": budget, "source0": "bm25", "source1": "bge"}
            for k in range(n_items):
                item = f"f{k:03d}"
                answer = (rng.random((5, 2)) < [0.5, 0.65]).astype(float)
                eligible = np.repeat((rng.random((1, 2)) < [0.5, 0.7]).astype(float), 5, axis=0)
                items.append(item_row(fields, item, LABELS[k % 3], answer, eligible))
                for source in ("bm25", "bge"):
                    for r in range(1, 6):
                        texts.append(text_row("fever", item, "answer", "ABC"[rng.integers(0, 3)], system=system,
                                              fmt="codes", source=source, budget=budget, replicate=r))
    return items, texts


def kilt_tables(rng: np.random.Generator, n_items: int = 25) -> tuple[list, list]:
    """An accounted KILT system: answer F1 (continuous), 2 runs citing their own pages."""
    fields = {"study": "study1", "dataset": "kilt", "system": "mysystem", "format": "official", "parser": "none",
              "budget": "full", "source0": "base", "source1": "new"}
    items, texts = [], []
    for k in range(n_items):
        item = f"q{k:03d}"
        answer = np.round(rng.random((2, 2)) * (rng.random((2, 2)) < 0.7), 3)
        rprec = (rng.random((2, 2)) < [0.4, 0.6]).astype(float)
        items.append(item_row(fields, item, f"answer {k} | alias {k}", answer, (rprec == 1).astype(float), rprec))
        texts.append(text_row("kilt", item, "claim", f"who wrote book {k}?"))
        for source in ("base", "new"):
            for r in range(2):
                texts.append(text_row("kilt", item, "evidence", f"Page {k}_{r}\nPage {k + 1}", system="mysystem",
                                      source=source, budget="full", replicate=r))
                texts.append(text_row("kilt", item, "answer", f"author {rng.integers(0, 5)}", system="mysystem",
                                      fmt="official", source=source, budget="full", replicate=r))
    return items, texts


def write_pair(directory: Path, items: list, texts: list) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    return (write_table(ITEMS.from_rows(items), directory / "items.parquet", ITEMS),
            write_table(ITEM_TEXTS.from_rows(texts), directory / "item_texts.parquet", ITEM_TEXTS))


def write_demo_items(root: Path, seed: int = 7) -> tuple[list[Path], list[Path]]:
    """The three pairs under ``root`` (``study1/``, ``study2/``, ``account/mysystem/``); returns the
    ITEMS paths and the ITEM_TEXTS paths, aligned."""
    rng = np.random.default_rng(seed)
    pairs = [write_pair(root / "study1", *study1_tables(rng)), write_pair(root / "study2", *study2_tables(rng)),
             write_pair(root / "account" / "mysystem", *kilt_tables(rng))]
    return [p[0] for p in pairs], [p[1] for p in pairs]


class ScriptElements(HTMLParser):
    """The page's script elements: ``(attributes, text)`` in page order."""

    def __init__(self):
        super().__init__()
        self.scripts: list[tuple[dict, str]] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._open = dict(attrs)
            self.scripts.append((self._open, ""))

    def handle_data(self, data):
        if self._open is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._open = None


def page_scripts(path: Path) -> list[tuple[dict, str]]:
    """The page's script elements, their text one character per byte (Latin-1: the payloads'
    bytes are read back with ``.encode("latin-1")``; the rest of the page is ASCII)."""
    parser = ScriptElements()
    parser.feed(Path(path).read_bytes().decode("latin-1"))
    return parser.scripts


def payload_bytes(text: str) -> bytes:
    """A payload element's bytes, its escapes undone (``=`` and the byte + 64), as the page's
    script reads them."""
    return re.sub(rb"=(.)", lambda m: bytes([(m.group(1)[0] - 64) % 256]), text.encode("latin-1"), flags=re.S)


def page_index(path: Path) -> dict:
    """The page's index (its ``<script type="application/json" id="index">``)."""
    (text,) = [text for attrs, text in page_scripts(path) if attrs.get("id") == "index"]
    return json.loads(text)


def page_payloads(path: Path) -> dict[str, object]:
    """Every payload of the page, decompressed: element id -> its JSON document."""
    return {attrs["id"]: json.loads(gzip.decompress(payload_bytes(text)))
            for attrs, text in page_scripts(path) if attrs.get("type") == PAYLOAD_TYPE}


def dumped_status(dom: str) -> dict[str, str]:
    """The ``data-*`` attributes of ``#status`` in a dumped DOM."""
    tag = re.search(r'<div id="status"[^>]*>', dom).group(0)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', tag))


def dumped_group_counts(dom: str) -> dict[str, int]:
    """group -> ``data-count`` of each group section in a dumped DOM."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(
        r'<section class="group" data-group="(\w+)" data-component="\w+" data-count="(\d+)"', dom)}
