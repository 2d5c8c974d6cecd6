"""Deterministic synthetic wiki corpora in the official FEVER and FEVEROUS release formats.

In:  a page count, a seed, an output directory.
Out: ``write_fever_release``: ``wiki-pages/wiki-NNN.jsonl`` (50,000 pages per file, the dump's
     empty first record, pages shuffled across files as in the dump, ``{"id", "text",
     "lines"}`` with ``lines`` = ``"i\\tsentence"`` rows) and a claims jsonl whose gold evidence
     resolves; ``write_feverous_release``: ``feverous_wikiv1.db`` (``wiki(id TEXT, data TEXT)``,
     pages with sentences, sections, tables of cells and lists) and a claims jsonl (first line
     the release's empty header record).
Shape, calibrated to the published statistics of the real releases (:data:`FEVER`,
:data:`FEVEROUS`; sources and figures in docs/scale.md): FEVER pages are introductions (lognormal
sentences per page), FEVEROUS pages full articles (sentences under sections, sometimes a table
of cells and a list). A word is a stop word (bm25s' English list) with probability
``stop_share``, else a content word of Zipf-Mandelbrot rank ``floor((1 + q) U^(-1/(s-1))) - q``
(``U`` uniform): content words follow Heaps' law ``V(T) = Gamma(1 - 1/s) (T (s-1) (1+q)^(s-1))^(1/s)``
distinct terms after ``T`` content tokens (:func:`heaps_vocabulary`), ``s`` fitted so that
``V`` at the FEVER wiki's published token count is its distinct-term count. Claims reuse
words of a gold sentence so retrieval finds their pages. The same (pages, seed) gives the
same bytes.
"""
from __future__ import annotations

import itertools
import json
import math
import sqlite3
from typing import NamedTuple
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


class Calibration(NamedTuple):
    """What a generated page looks like: lognormal sentences per page (mean) and words per
    sentence (mean, stop words included), the share of stop words among words, and the
    Zipf-Mandelbrot law of content words (exponent ``s``, offset ``q``; the most frequent
    content word is ~(s-1)/(1+q) of content tokens)."""

    sentences_per_page: float
    words_per_sentence: float
    stop_share: float = 0.45
    s: float = 1.4873
    q: float = 99.0


# Published targets (docs/scale.md): FEVER (Anserini's fever-paragraph index, the one Pyserini
# tests: 5,396,106 documents, 322,660,814 analysed terms -> 59.8 non-stop tokens a page; ~4M
# distinct unstemmed terms at that size: the 3,293,639 stemmed of Pyserini's BEIR FEVER index
# (beir-v1.0.0-fever.flat: 325,179,165 terms, 5,416,568 documents)
# plus the share stemming merges); FEVEROUS full articles: >= 280 non-stop tokens a page.
FEVER_TOKENS_PER_PAGE = 322_660_814 / 5_396_106
FEVER_DISTINCT_TERMS = 4_000_000
FEVEROUS_TOKENS_PER_PAGE = 280
# 4.7 sentences of ~23.5 words (55% content) give 59.8 content tokens a page with the title;
# FEVEROUS: 20 sentences plus sections, table cells and list items give ~280.
FEVER = Calibration(sentences_per_page=4.7, words_per_sentence=22.9)
FEVEROUS = Calibration(sentences_per_page=21.0, words_per_sentence=23.5)


def heaps_vocabulary(tokens: float, s: float = FEVER.s, q: float = FEVER.q) -> float:
    """Expected distinct content words among ``tokens`` draws of the Zipf-Mandelbrot law (the
    continuous approximation, within ~1% of a simulation from 10^6 draws on)."""
    return math.gamma(1 - 1 / s) * (tokens * (s - 1) * (1 + q) ** (s - 1)) ** (1 / s)


class _Words:
    """Words of a :class:`Calibration`: stop words (uniformly) with probability ``stop_share``,
    else content words by Zipf-Mandelbrot rank (the first million ranks cached as strings)."""

    def __init__(self, calibration: Calibration = FEVER, cache: int = 1_000_000):
        built = []
        for length in (1, 2, 3, 4):  # word(len(_STOP) + rank) for ranks in order, by length
            built += ["".join(reversed(p)) for p in itertools.islice(
                itertools.product(_SYLLABLES, repeat=length), max(0, cache - len(built)))]
            if len(built) >= cache:
                break
        self.cache = np.array(built[:cache], dtype=object)
        self.stop = np.array(_STOP, dtype=object)
        self.calibration = calibration

    def content_ranks(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` Zipf-Mandelbrot ranks (0 = the most frequent content word)."""
        c = self.calibration
        u = 1.0 - rng.random(n)  # (0, 1]
        ranks = np.floor((1 + c.q) * u ** (-1 / (c.s - 1))) - c.q - 1
        return np.minimum(ranks, 2.0 ** 40).astype(np.int64)

    def draw(self, rng: np.random.Generator, n: int) -> list[str]:
        stop = rng.random(n) < self.calibration.stop_share
        out = np.empty(n, dtype=object)
        out[stop] = self.stop[rng.integers(len(self.stop), size=int(stop.sum()))]
        ranks = self.content_ranks(rng, int((~stop).sum()))
        small = ranks < len(self.cache)
        content = np.empty(ranks.size, dtype=object)
        content[small] = self.cache[ranks[small]]
        for i in np.flatnonzero(~small):
            content[i] = word(len(_STOP) + int(ranks[i]))
        out[~stop] = content
        return out.tolist()


def page_id(k: int) -> str:
    """Page ``k``'s id: three title words, the base-500 digits of a permutation of ``k``
    (unique below 125M pages, not in k order). Titles add no term per page: real titles' words
    are already in the published vocabulary counts."""
    n = (k * 7_919_009 + 12_345) % 125_000_000  # 7,919,009 is coprime to 125M: a bijection
    digits = [n // 250_000, (n // 500) % 500, n % 500]
    return "_".join(word(len(_STOP) + d) for d in digits).capitalize()


def _sentence_counts(rng, n: int, mean: float) -> np.ndarray:
    sigma = 0.8
    return np.maximum(1, np.round(rng.lognormal(np.log(mean) - sigma ** 2 / 2, sigma, n))).astype(int)


def fever_block(block: int, seed: int, words: _Words, n_pages: int) -> list[tuple[str, list[str]]]:
    """(page id, sentences) of the pages of one block (``BLOCK`` pages, fewer at the end)."""
    rng = np.random.default_rng([seed, block])
    first = block * BLOCK
    count = min(BLOCK, n_pages - first)
    sentences = _sentence_counts(rng, count, words.calibration.sentences_per_page)
    lengths = _sentence_counts(rng, int(sentences.sum()), words.calibration.words_per_sentence)
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
    words = _Words(FEVER)
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
    n_sent = int(_sentence_counts(rng, 1, words.calibration.sentences_per_page)[0])
    lengths = _sentence_counts(rng, n_sent, words.calibration.words_per_sentence)
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
    words = _Words(FEVEROUS)
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


def _feverous_texts(data: dict) -> list[str]:
    """The texts of a FEVEROUS page's units (sentences, section titles, cells, caption, items)."""
    out = []
    for key in data["order"]:
        value = data[key]
        if isinstance(value, str):
            out.append(value)
        elif "value" in value:
            out.append(value["value"])
        else:
            out += [cell["value"] for row in value.get("table", []) for cell in row]
            out += [item["value"] for item in value.get("list", [])]
            if value.get("caption"):
                out.append(value["caption"])
    return out


def sample_statistics(corpus: str, n_pages: int, seed: int = 0) -> dict:
    """Statistics of the first ``n_pages`` pages the generator writes for ``corpus`` ("fever" or
    "feverous"), tokenised as the index tokenises (``retrieval.text.bm25_tokens`` of title and
    text): ``tokens_per_page`` (non-stop), ``units_per_page``, ``distinct_terms`` and the
    ``heaps_prediction`` for that many content tokens."""
    from evidence_ledger.retrieval.text import bm25_tokens

    tokens, units, vocab = 0, 0, set()
    if corpus == "fever":
        words = _Words(FEVER)
        pages = [p for b in range(-(-n_pages // BLOCK)) for p in fever_block(b, seed, words, n_pages)]
        texts = [(pid.replace("_", " "), sentences) for pid, sentences in pages]
    else:
        words = _Words(FEVEROUS)
        rng = np.random.default_rng([seed, 2 * 10**9])
        texts = [(page_id(k).replace("_", " "), _feverous_texts(feverous_page(k, rng, words)))
                 for k in range(n_pages)]
    for title, unit_texts in texts:
        toks = bm25_tokens(title + "\n" + " ".join(unit_texts))
        tokens += len(toks)
        units += len(unit_texts)
        vocab.update(toks)
    return {"pages": n_pages, "tokens_per_page": tokens / n_pages, "units_per_page": units / n_pages,
            "distinct_terms": len(vocab), "heaps_prediction": heaps_vocabulary(tokens, words.calibration.s,
                                                                               words.calibration.q)}
