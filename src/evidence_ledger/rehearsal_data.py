"""``python -m evidence_ledger rehearsal-data --out DIR``: a small data tree in the paper's file layout.

In:  the embedded demo data (``resources/demo/``, see ``resources/demo/README.md``: FEVER,
     FEVEROUS, SciFact, WikiContradict and NQ-CC/TQA-CC files in the official release formats).
Out: under ``DIR`` every file of :data:`LAYOUT`, at the official release names that
     ``config/paper.yaml`` reads below ``data_root`` (the "Paper data layout" table of
     ``config/README.md``), so the paper configuration can be rehearsed on CPU by pointing
     ``data_root`` at ``DIR``. Files are copied byte for byte from the demo, except:

* ``fever/wiki-pages/wiki-NNN.jsonl``: the demo's wiki pages in page-id order, split into
  files of :data:`PAGES_PER_WIKI_FILE` pages (the release splits its pages over
  ``wiki-001.jsonl`` ... ``wiki-109.jsonl``);
* ``feverous/providers/{dcuf,unifee}.jsonl``: two evidence-provider submissions (the format
  :mod:`evidence_ledger.evidence.providers` reads) for every FEVEROUS train and dev claim,
  computed from the claim and the elements of its gold pages (:func:`dcuf_prediction`,
  :func:`unifee_prediction`);
* ``README.md``: what the tree is, with each file's record count.

Two runs write byte-identical trees (fixed orders, no randomness, no timestamps). The tree is
built in a hidden temporary directory and renamed into place, so a failed or killed run leaves no
half-written tree. Writing into a non-empty ``DIR`` is refused unless ``force`` is set; then the
layout's files are replaced (each renamed over the old one: a link at a layout path is replaced,
never written through) and nothing else in ``DIR`` is touched. Before anything is written, every
layout path is checked under :mod:`evidence_ledger.safe_files`' rule: a link on the way that
leads out of ``DIR`` (a linked file or directory) is refused naming it, so ``--force`` never
overwrites a file outside ``DIR``.
"""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import sqlite3
import zlib
from contextlib import closing
from pathlib import Path

from .datasets.feverous import is_header_record, iter_feverous_pages
from .jsonl import iter_jsonl
from .safe_files import OutputRefused, atomic_directory, new_directory_refusal, output_path, temporary_directory
from .vocabulary import FEVEROUS_CELL_LIKE_TYPES as CELL_LIKE_KINDS
from .vocabulary import feverous_element_id
from .vocabulary import split_feverous_element_id as split_element_id

DEFAULT_DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"

# tree path -> demo path, copied byte for byte
COPIED = {
    "fever/shared_task_dev.jsonl": "fever/paper_dev.jsonl",
    "fever/train.jsonl": "fever/train.jsonl",
    "feverous/feverous_dev_challenges.jsonl": "feverous/dev.jsonl",
    "feverous/feverous_train_challenges.jsonl": "feverous/train.jsonl",
    "feverous/pool.jsonl": "feverous/pool.jsonl",
    "feverous/reserved_ids.txt": "feverous/reserved_ids.txt",
    "feverous/feverous_wikiv1.db": "feverous/feverous_wikiv1.db",
    "scifact/claims_dev.jsonl": "scifact/claims_dev.jsonl",
    "scifact/claims_train.jsonl": "scifact/claims_train.jsonl",
    "scifact/corpus.jsonl": "scifact/corpus.jsonl",
    "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv": "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv",
    "wikicontradict/human_judgements.jsonl": "wikicontradict/human_judgements.jsonl",
    "conflict_qa/nqcc.jsonl": "conflict_qa/nqcc.jsonl",
    "conflict_qa/tqacc.jsonl": "conflict_qa/tqacc.jsonl",
}
FEVER_WIKI_SOURCE = "fever/wiki-pages"
FEVER_WIKI_DIR = "fever/wiki-pages"
PAGES_PER_WIKI_FILE = 40
FEVEROUS_WIKI = "feverous/feverous_wikiv1.db"
# provider name -> its submission file; the FEVEROUS claim files whose claims it covers
PROVIDERS = {"dcuf": "feverous/providers/dcuf.jsonl", "unifee": "feverous/providers/unifee.jsonl"}
PROVIDER_CLAIM_FILES = ("feverous/feverous_train_challenges.jsonl", "feverous/feverous_dev_challenges.jsonl")
README = "README.md"

# element kinds a provider may return (the pool kinds of config/paper.yaml) and which of them
# count against the official scorer's cell budget (evidence.cell_like_kinds)
PROVIDER_KINDS = ("sentence", "cell", "header_cell", "table_caption", "item")
DCUF_CAPS = (5, 25)       # (sentences, cell-like elements): the official scorer's budgets
UNIFEE_CAPS = (3, 10)     # a shorter cut
UNIFEE_UNRESOLVED_EVERY = 4   # about one claim in 4 gets one id that does not resolve
_TOKEN = re.compile(r"\w+")


def wiki_file_names(n_pages: int, per_file: int = PAGES_PER_WIKI_FILE) -> list[str]:
    """``wiki-001.jsonl`` ... for ``n_pages`` pages, ``per_file`` a file (at least two files)."""
    n_files = max(2, -(-n_pages // per_file))
    return [f"wiki-{k:03d}.jsonl" for k in range(1, n_files + 1)]


def layout_files(n_wiki_pages: int) -> list[str]:
    """Every file of the tree (paths relative to DIR), sorted: the one definition of the layout."""
    wiki = [f"{FEVER_WIKI_DIR}/{name}" for name in wiki_file_names(n_wiki_pages)]
    return sorted([*COPIED, *wiki, *PROVIDERS.values(), README])


def layout_paths(n_wiki_pages: int) -> set[str]:
    """Files and the directories holding them (a config may name a directory, e.g. the FEVER wiki)."""
    files = layout_files(n_wiki_pages)
    dirs = {str(p) for f in files for p in Path(f).parents if str(p) != "."}
    return set(files) | dirs


# --- FEVER wiki -----------------------------------------------------------------------------


def fever_wiki_lines(demo: Path) -> list[tuple[str, str]]:
    """(page id, raw JSON line) of every demo wiki page, in page-id order."""
    lines = []
    for path in sorted((demo / FEVER_WIKI_SOURCE).glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                lines.append((json.loads(raw)["id"], raw))
    return sorted(lines)


def split_wiki(lines: list[tuple[str, str]], per_file: int = PAGES_PER_WIKI_FILE) -> dict[str, str]:
    """File name -> file text: consecutive runs of ``per_file`` pages (the last file may be shorter;
    with ``per_file`` pages or fewer, the pages are halved so there are still two files)."""
    names = wiki_file_names(len(lines), per_file)
    size = per_file if len(lines) > per_file else -(-len(lines) // 2)
    return {name: "".join(raw + "\n" for _, raw in lines[k * size:(k + 1) * size]) for k, name in enumerate(names)}


# --- FEVEROUS providers ---------------------------------------------------------------------


def tokens(text: str) -> set[str]:
    """Lower-cased ``\\w+`` tokens of a text."""
    return set(_TOKEN.findall(text.lower()))


def overlap(claim: set[str], element: set[str]) -> int:
    """Number of tokens the claim and an element share."""
    return len(claim & element)


def jaccard(claim: set[str], element: set[str]) -> float:
    """Shared tokens over all tokens of claim and element (0 when both are empty)."""
    union = claim | element
    return len(claim & element) / len(union) if union else 0.0


def gold_ids(claim: dict) -> list[str]:
    """Content ids of every evidence set of a FEVEROUS claim, in order, each once."""
    return list(dict.fromkeys(i for ev in claim["evidence"] for i in ev["content"]))


def gold_pages(claim: dict) -> list[str]:
    """Pages of a claim's gold elements, in order of first mention."""
    return list(dict.fromkeys(split_element_id(i)[0] for i in gold_ids(claim)))


def page_elements(db_path) -> dict[str, list[tuple[str, str, str]]]:
    """Page id -> its provider-kind elements ``(unit id, kind, text)`` in document order, read
    with the project's FEVEROUS wiki reader."""
    out = {}
    for page in iter_feverous_pages(db_path):
        out[page.doc_id] = [(u, k, t) for u, k, t in zip(page.unit_ids, page.kinds, page.texts)
                            if k in PROVIDER_KINDS]
    return out


def within_caps(ranked: list[tuple[str, str]], caps: tuple[int, int], keep=frozenset()) -> list[str]:
    """Ids of ``ranked`` ``(id, kind)`` in order, at most ``caps`` = (sentences, cell-like) of them;
    ids in ``keep`` are always taken and use up their kind's slots first."""
    sentences = sum(1 for u, k in ranked if u in keep and k not in CELL_LIKE_KINDS)
    cells = sum(1 for u, k in ranked if u in keep and k in CELL_LIKE_KINDS)
    out = []
    for unit_id, kind in ranked:
        if unit_id in keep:
            out.append(unit_id)
        elif kind in CELL_LIKE_KINDS and cells < caps[1]:
            out.append(unit_id)
            cells += 1
        elif kind not in CELL_LIKE_KINDS and sentences < caps[0]:
            out.append(unit_id)
            sentences += 1
    return out


def candidates(claim: dict, elements: dict) -> list[tuple[int, str, str, str]]:
    """``(document position, unit id, kind, text)`` of every element on the claim's gold pages."""
    out = []
    for page in gold_pages(claim):
        out += [(len(out), u, k, t) for u, k, t in elements.get(page, [])]
    return out


def dcuf_prediction(claim: dict, elements: dict) -> list[str]:
    """DCUF stand-in: the gold pages' elements ranked by token overlap with the claim (ties in
    document order), cut at 5 sentences and 25 cell-like elements, every gold element kept."""
    words = tokens(claim["claim"])
    cands = candidates(claim, elements)
    ranked = sorted(cands, key=lambda c: (-overlap(words, tokens(c[3])), c[0]))
    return within_caps([(u, k) for _, u, k, _ in ranked], DCUF_CAPS, keep=frozenset(gold_ids(claim)))


def unresolved_id(claim: dict, elements: dict) -> str:
    """A well-formed id on the claim's first gold page that names no element: the sentence after
    the page's last one, or (claims with an odd checksum) a cell of a table the page lacks."""
    page = gold_pages(claim)[0]
    keys = [split_element_id(u) for u, _, _ in elements.get(page, [])]
    if zlib.crc32(str(claim["id"]).encode()) % 2:
        tables = [int(pos.split("_")[0]) for _, kind, pos in keys if kind in ("cell", "header_cell")]
        return feverous_element_id(page, f"cell_{max(tables, default=-1) + 1}_0_0")
    lines = [int(pos) for _, kind, pos in keys if kind == "sentence"]
    return f"{page}_sentence_{max(lines, default=-1) + 1}"


def gets_unresolved_id(claim: dict) -> bool:
    """UnifEE's submission carries an unresolvable id for this claim (CRC-32 of its id)."""
    return zlib.crc32(f"unifee:{claim['id']}".encode()) % UNIFEE_UNRESOLVED_EVERY == 0


def unifee_prediction(claim: dict, elements: dict) -> list[list[str]]:
    """UnifEE stand-in: the gold pages' elements ranked by token Jaccard of the claim with the
    element's text (ties in document order), cut at 3 sentences and 10 cell-like elements with no
    gold element kept (so gold is sometimes missing); for the claims of :func:`gets_unresolved_id`
    an id that does not resolve takes second place. Items are ``[page, type, position]`` triples
    (the official FEVEROUS scorer's format)."""
    words = tokens(claim["claim"])
    ranked = sorted(candidates(claim, elements), key=lambda c: (-jaccard(words, tokens(c[3])), c[0]))
    ids = within_caps([(u, k) for _, u, k, _ in ranked], UNIFEE_CAPS)
    if gets_unresolved_id(claim):
        ids.insert(1, unresolved_id(claim, elements))
    return [list(split_element_id(u)) for u in ids]


def feverous_claims(path: Path) -> list[dict]:
    """Claims of a FEVEROUS claims file, the empty header record left out."""
    return [rec for line, rec in iter_jsonl(path) if not (line == 1 and is_header_record(rec))]


def submission_text(claims: list[dict], predict, elements: dict) -> str:
    """JSON lines ``{"id", "predicted_evidence"}``, one per claim, in claim-id order."""
    lines = [json.dumps({"id": c["id"], "predicted_evidence": predict(c, elements)}, ensure_ascii=False)
             for c in sorted(claims, key=lambda c: c["id"])]
    return "".join(line + "\n" for line in lines)


PREDICTORS = {"dcuf": dcuf_prediction, "unifee": unifee_prediction}


# --- record counts and README ---------------------------------------------------------------


def is_empty_header(rec: dict) -> bool:
    """The FEVEROUS release's first line: ``id`` and ``claim`` present and both empty."""
    return rec.get("id") == "" and rec.get("claim") == ""


def record_count(path: Path) -> int:
    """Records in one tree file: JSON lines (FEVEROUS header record excluded), CSV rows, wiki
    pages of the SQLite db, ids of a text id list."""
    if path.suffix == ".jsonl":
        return sum(1 for line, rec in iter_jsonl(path) if not (line == 1 and is_empty_header(rec)))
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as fh:
            return sum(1 for _ in csv.DictReader(fh))
    if path.suffix == ".db":
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return db.execute("SELECT COUNT(*) FROM wiki").fetchone()[0]
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.split("#", 1)[0].strip())


def readme_text(counts: dict[str, int]) -> str:
    """The tree's README.md: what it is, and each file with its record count."""
    rows = "".join(f"| `{path}` | {n} |\n" for path, n in sorted(counts.items()))
    return (
        "# Rehearsal data (generated; not the benchmarks)\n\n"
        "Written by `python -m evidence_ledger rehearsal-data` from the project's embedded demo data\n"
        "(`resources/demo/`, invented worlds; see its README). The files sit at the official release\n"
        "names that `config/paper.yaml` reads below `data_root` (the \"Paper data layout\" table of\n"
        "`config/README.md`), so the paper configuration can be rehearsed on CPU with `data_root`\n"
        "pointing here. Nothing here is FEVER, FEVEROUS, SciFact, WikiContradict or NQ-CC/TQA-CC data.\n\n"
        "The two FEVEROUS provider submissions cover every train and dev claim and are computed from\n"
        "each claim and the elements of its gold pages: `dcuf` ranks them by token overlap with the\n"
        "claim (5 sentences, 25 cell-like elements, every gold element kept; unit-id strings);\n"
        "`unifee` ranks them by token Jaccard (3 sentences, 10 cell-like elements, gold not kept,\n"
        "about one claim in 4 with an id that does not resolve; `[page, type, position]` triples).\n\n"
        "| file | records |\n|---|---|\n" + rows
        + "\nRecords exclude the FEVEROUS header line; the `.db` count is wiki pages.\n"
    )


# --- writing ----------------------------------------------------------------------------------


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def build_tree(tree: Path, demo: Path) -> dict[str, int]:
    """Write every layout file under the new directory ``tree`` from the demo data in ``demo``;
    return file -> record count."""
    for dest, src in COPIED.items():
        (tree / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(demo / src, tree / dest)
    wiki = fever_wiki_lines(demo)
    for name, text in split_wiki(wiki).items():
        write_text(tree / FEVER_WIKI_DIR / name, text)
    elements = page_elements(tree / FEVEROUS_WIKI)
    claims = [c for rel in PROVIDER_CLAIM_FILES for c in feverous_claims(tree / rel)]
    for name, rel in PROVIDERS.items():
        write_text(tree / rel, submission_text(claims, PREDICTORS[name], elements))
    counts = {rel: record_count(tree / rel) for rel in layout_files(len(wiki)) if rel != README}
    write_text(tree / README, readme_text(counts))
    return counts


def write_rehearsal_data(out, demo=DEFAULT_DEMO, force: bool = False) -> dict[str, int]:
    """Write the tree under ``out`` from the demo data in ``demo``; return file -> record count.

    A new or empty ``out`` receives the whole tree at once. A non-empty one raises
    :class:`~evidence_ledger.safe_files.OutputRefused` unless ``force``; then each layout file is
    replaced (see the module docstring), after every layout path has been checked."""
    out, demo = Path(out), Path(demo)
    refusal = new_directory_refusal(out)
    if refusal is None:
        with atomic_directory(out) as tree:
            return build_tree(tree, demo)
    if not out.is_dir():
        raise refusal
    if not force:
        raise OutputRefused(f"{out} is not empty; pass --force to overwrite the rehearsal files in it")
    layout = layout_files(len(fever_wiki_lines(demo)))
    targets = {rel: output_path(out, rel, what="--out directory") for rel in layout}
    with temporary_directory(out / "rehearsal-data") as tree:
        counts = build_tree(tree, demo)
        for rel, target in targets.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tree / rel, target)
    return counts


def register(subparsers) -> None:
    p = subparsers.add_parser("rehearsal-data", help="write a small data tree in the paper's file layout",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path, help="directory to write (must be empty or new)")
    p.add_argument("--demo", type=Path, default=DEFAULT_DEMO, help=f"demo data to read (default: {DEFAULT_DEMO})")
    p.add_argument("--force", action="store_true", help="write into a non-empty DIR (overwrites the tree's files only)")
    p.set_defaults(func=run)


def run(args) -> int:
    counts = write_rehearsal_data(args.out, args.demo, args.force)
    for rel, n in sorted(counts.items()):
        print(f"{n:6d}  {rel}")
    return 0
