"""Deterministic synthetic wiki corpora in the official FEVER and FEVEROUS release formats.

In:  a page count, a seed, an output directory.
Out: ``write_fever_release``: ``wiki-pages/wiki-NNN.jsonl`` (50,000 pages per file, the dump's
     empty first record, pages shuffled across files as in the dump, ``{"id", "text",
     "lines"}`` with ``lines`` = ``"i\\tsentence"`` rows) and a claims jsonl whose gold evidence
     resolves; ``write_feverous_release``: ``feverous_wikiv1.db`` (``wiki(id TEXT, data TEXT)``,
     pages with sentences, sections, tables of cells and lists) and a claims jsonl (first line
     the release's empty header record).
Shape, from the real releases: FEVER 5,416,537 pages / ~25.6M sentences (lognormal sentences per
page, mean ~4.7), words per sentence lognormal (mean ~21); FEVEROUS ~18 units per page (sentences,
sometimes a table, a list, sections). Words are drawn from a Zipf law (exponent 1.2) over an
open vocabulary whose most frequent ranks are English stop words, so the number of distinct
terms grows with the corpus as in real text. Claims reuse words of a gold sentence so
retrieval finds their pages. The same (pages, seed) gives the same bytes.
"""
from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path

import numpy as np
from bm25s.stopwords import STOPWORDS_EN

PAGES_PER_FILE = 50_000
BLOCK = 1000  # pages generated from one random stream
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"]  # 85
_STOP = sorted(set(STOPWORDS_EN))
_LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")


def word(rank: int) -> str:
    """The word of Zipf rank ``rank`` (0 = most frequent): stop words first, then syllable strings."""
    if rank < len(_STOP):
        return _STOP[rank]
    n, out = rank - len(_STOP), []
    while True:
        n, r = divmod(n, len(_SYLLABLES))
        out.append(_SYLLABLES[r])
        if n == 0:
            return "".join(out)
        n -= 1


class _Words:
    """Zipf-distributed words, the first million ranks cached as strings."""

    def __init__(self, cache: int = 1_000_000):
        built = list(_STOP)
        for length in (1, 2, 3, 4):  # word(rank) for ranks in order, syllable strings by length
            built += ["".join(reversed(p)) for p in itertools.islice(
                itertools.product(_SYLLABLES, repeat=length), max(0, cache - len(built)))]
            if len(built) >= cache:
                break
        self.cache = np.array(built[:cache], dtype=object)

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        ranks = np.minimum(rng.zipf(1.2, size=n) - 1, 2**40)
        small = ranks < len(self.cache)
        out = np.empty(n, dtype=object)
        out[small] = self.cache[ranks[small]]
        for i in np.flatnonzero(~small):
            out[i] = word(int(ranks[i]))
        return out.tolist()


def page_id(k: int) -> str:
    """Page ``k``'s id: a title-like word pair plus the number (unique, not in k order)."""
    return f"{word(len(_STOP) + (k * 7919) % 50_000).capitalize()}_{word(len(_STOP) + k % 997)}_{k}"


def _sentence_counts(rng, n: int, mean: float) -> np.ndarray:
    sigma = 0.8
    return np.maximum(1, np.round(rng.lognormal(np.log(mean) - sigma ** 2 / 2, sigma, n))).astype(int)


def fever_block(block: int, seed: int, words: _Words, n_pages: int) -> list[tuple[str, list[str]]]:
    """(page id, sentences) of the pages of one block (``BLOCK`` pages, fewer at the end)."""
    rng = np.random.default_rng([seed, block])
    first = block * BLOCK
    count = min(BLOCK, n_pages - first)
    sentences = _sentence_counts(rng, count, 4.7)
    lengths = _sentence_counts(rng, int(sentences.sum()), 21.0)
    tokens = words.draw(rng, int(lengths.sum()))
    out, t, s = [], 0, 0
    for i in range(count):
        page = []
        for _ in range(sentences[i]):
            n = lengths[s]
            page.append(" ".join(tokens[t:t + n]) + " .")
            t += n
            s += 1
        out.append((page_id(first + i), page))
    return out


def write_fever_release(out_dir, n_pages: int, n_claims: int = 2000, seed: int = 0) -> dict:
    """A FEVER-format release of ``n_pages`` pages and ``n_claims`` claims under ``out_dir``;
    returns the paths (``wiki``, ``claims``) and counts."""
    out_dir = Path(out_dir)
    wiki = out_dir / "wiki-pages"
    wiki.mkdir(parents=True, exist_ok=True)
    words = _Words()
    n_blocks = -(-n_pages // BLOCK)
    rng = np.random.default_rng([seed, 10**9])
    block_order = rng.permutation(n_blocks)  # the dump is not in page id order
    n_files = max(1, -(-n_pages // PAGES_PER_FILE))
    handles = [(wiki / f"wiki-{f + 1:03d}.jsonl").open("w", encoding="utf-8") for f in range(n_files)]
    handles[0].write(json.dumps({"id": "", "text": "", "lines": ""}) + "\n")
    claim_pages = rng.integers(n_pages, size=n_claims)
    wanted = set(claim_pages.tolist())
    kept = {}
    written = sentences_total = 0
    for b in block_order:
        for i, (page, sentences) in enumerate(fever_block(int(b), seed, words, n_pages)):
            if int(b) * BLOCK + i in wanted:
                kept[int(b) * BLOCK + i] = (page, sentences)
            lines = "\n".join(f"{i}\t{s}" for i, s in enumerate(sentences))
            handles[min(written // PAGES_PER_FILE, n_files - 1)].write(
                json.dumps({"id": page, "text": " ".join(sentences), "lines": lines}, ensure_ascii=False) + "\n")
            written += 1
            sentences_total += len(sentences)
    for h in handles:
        h.close()
    claims = out_dir / "claims.jsonl"
    with claims.open("w", encoding="utf-8") as handle:
        for c in range(n_claims):
            page, sentences = kept[int(claim_pages[c])]
            line = int(rng.integers(len(sentences)))
            label = _LABELS[c % 3]
            claim = " ".join(sentences[line].split()[:12])
            evidence = [[[c, None, None, None]]] if label == "NOT ENOUGH INFO" else [[[c, c, page, line]]]
            handle.write(json.dumps({"id": c + 1, "verifiable": "VERIFIABLE", "label": label, "claim": claim,
                                     "evidence": evidence}) + "\n")
    return {"wiki": str(wiki), "claims": str(claims), "pages": n_pages, "units": sentences_total}


def feverous_page(k: int, rng: np.random.Generator, words: _Words) -> dict:
    """One FEVEROUS page JSON (``data`` column) with ~18 units: sentences under sections,
    sometimes a table (header row + cells) and a list."""
    data, order = {"title": page_id(k).replace("_", " ")}, []
    n_sent = int(_sentence_counts(rng, 1, 9.0)[0])
    lengths = _sentence_counts(rng, n_sent, 21.0)
    tokens = words.draw(rng, int(lengths.sum()) + 60)
    t = 0
    for s in range(n_sent):
        if s % 4 == 0:
            data[f"section_{s // 4}"] = {"value": " ".join(tokens[t:t + 2]), "level": 1}
            order.append(f"section_{s // 4}")
            t += 2
        data[f"sentence_{s}"] = " ".join(tokens[t:t + lengths[s]]) + " ."
        order.append(f"sentence_{s}")
        t += int(lengths[s])
    if rng.random() < 0.35:
        rows, cols = int(rng.integers(2, 5)), int(rng.integers(2, 4))
        table = [[{"id": f"header_cell_0_0_{c}", "value": tokens[(t + c) % len(tokens)], "is_header": True}
                  for c in range(cols)]]
        table += [[{"id": f"cell_0_{r}_{c}", "value": tokens[(t + r * cols + c) % len(tokens)], "is_header": False}
                   for c in range(cols)] for r in range(1, rows)]
        data["table_0"] = {"table": table, "caption": "Table of " + tokens[t % len(tokens)]}
        order.append("table_0")
    if rng.random() < 0.3:
        data["list_0"] = {"list": [{"id": f"item_0_{i}", "value": " ".join(tokens[i:i + 4]), "level": 0}
                                   for i in range(int(rng.integers(2, 6)))]}
        order.append("list_0")
    data["order"] = order
    return data


def write_feverous_release(out_dir, n_pages: int, n_claims: int = 2000, seed: int = 0) -> dict:
    """A FEVEROUS-format release (SQLite wiki + claims jsonl) of ``n_pages`` pages under
    ``out_dir``; returns the paths (``wiki``, ``claims``) and counts. Rows are inserted in
    shuffled block order (the table is not in id order)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    db = out_dir / "feverous_wikiv1.db"
    db.unlink(missing_ok=True)
    words = _Words()
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE wiki (id TEXT, data TEXT)")
    n_blocks = -(-n_pages // BLOCK)
    rng = np.random.default_rng([seed, 10**9 + 1])
    claim_pages = rng.integers(n_pages, size=n_claims)
    wanted = set(claim_pages.tolist())
    kept = {}
    units = 0
    for b in rng.permutation(n_blocks):
        brng = np.random.default_rng([seed, 2 * 10**9 + int(b)])
        rows = []
        for k in range(int(b) * BLOCK, min((int(b) + 1) * BLOCK, n_pages)):
            data = feverous_page(k, brng, words)
            if k in wanted:
                kept[k] = data
            units += 1 + sum(1 if not isinstance(data[key], dict) or "value" in data[key] else
                             len(data[key].get("list", [])) + sum(len(r) for r in data[key].get("table", [])) +
                             (1 if data[key].get("caption") else 0) for key in data["order"])
            rows.append((page_id(k), json.dumps(data, ensure_ascii=False)))
        con.executemany("INSERT INTO wiki VALUES (?, ?)", rows)
    con.commit()
    claims = out_dir / "claims.jsonl"
    with claims.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "", "claim": "", "label": "", "evidence": []}) + "\n")
        for c in range(n_claims):
            k = int(claim_pages[c])
            data = kept[k]
            sentence = next(key for key in data["order"] if key.startswith("sentence_"))
            content = [f"{page_id(k)}_{sentence}"]
            handle.write(json.dumps({"id": c + 1, "label": _LABELS[c % 3], "claim": " ".join(data[sentence].split()[:12]),
                                     "evidence": [{"content": content, "context": {}}]}) + "\n")
    con.close()
    return {"wiki": str(db), "claims": str(claims), "pages": n_pages, "units": units}
