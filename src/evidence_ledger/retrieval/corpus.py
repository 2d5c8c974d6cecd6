"""Corpus-scale BM25 over wiki pages or abstracts (bm25s), and top-k retrieval per claim.

In:  the DOCUMENTS table (doc_id, title, text) of one dataset; claims (CLAIMS rows).
Out: an index directory (bm25s sparse score matrix as .npy, memory-mapped on load, plus
     ``doc_ids.json`` and ``meta.json``); RETRIEVED rows (top-k documents per claim with
     retrieval misses).

BM25 variant: bm25s ``method="lucene"`` by default (Lucene's BM25: idf =
ln(1 + (N - df + 0.5) / (df + 0.5)), tf saturation tf / (tf + k1 (1 - b + b dl/avgdl)),
k1 = 1.5, b = 0.75; all three are config values). Lucene's idf is never negative, so no
epsilon floor is needed (unlike rank_bm25's BM25Okapi, used within pools).
Tokenisation: :func:`evidence_ledger.retrieval.text.bm25_tokens` (case-folded ``\\w+``,
English stop words removed, no stemming) of ``title + "\\n" + text``.
Document order in the index is the sorted ``doc_id`` order, so ties in score are broken
by ``doc_id``. The index is built by :mod:`.lean_index` from documents read in batches (flat
integer arrays spilled to disk, then the score matrix filled from the spill; no per-document
lists): the same files ``bm25s.BM25.index`` + ``save`` write. A document scoring 0 (no query term in common) is never retrieved, so a
claim can retrieve fewer than k documents (e.g. a claim whose words all are stop words).
"""
from __future__ import annotations

import json
import logging
import mmap
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import bm25s
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from tqdm import tqdm

from ..files.safe_files import atomic_directory
from .lean_index import build_bm25_index
from .text import TOKENISATION, bm25_tokens

log = logging.getLogger(__name__)

DOC_IDS_FILE = "doc_ids.json"
META_FILE = "meta.json"


@dataclass
class CorpusIndex:
    """A loaded corpus index: the bm25s retriever and the doc id of each column."""

    retriever: bm25s.BM25
    doc_ids: Sequence[str]
    meta: dict

    def release_pages(self) -> None:
        """Drop the pages of the memory-mapped score arrays from this process's memory
        (``madvise(MADV_DONTNEED)``; they stay in the page cache and are read again when
        touched), so the columns of past queries do not accumulate in its resident set.
        Arrays loaded into memory (``mmap=False``) are left as they are."""
        for name in ("data", "indices", "indptr"):
            array = self.retriever.scores[name]
            if isinstance(array, np.memmap) and array._mmap is not None:
                array._mmap.madvise(mmap.MADV_DONTNEED)

    def query_token_ids(self, text: str) -> np.ndarray:
        vocab = self.retriever.vocab_dict
        ids = [vocab[t] for t in bm25_tokens(text) if t in vocab]
        return np.asarray(ids, dtype=np.int64)

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every document for query ``text`` (index order).

        Equal to bm25s' ``get_scores_from_ids``: the precomputed per-(term, document) scores
        of the query's terms (repeats count again) summed in the index dtype, term by term.
        bm25s adds each term's column with ``np.add.at``; a column holds each document at
        most once, so plain fancy-index addition performs the same float additions, only
        faster.
        """
        ids = self.query_token_ids(text)
        m = self.retriever.scores
        out = np.zeros(len(self.doc_ids), dtype=m["data"].dtype)
        data, indices, indptr = m["data"], m["indices"], m["indptr"]
        for t in ids:
            s, e = indptr[t], indptr[t + 1]
            out[indices[s:e]] += data[s:e]
        nonocc = getattr(self.retriever, "nonoccurrence_array", None)
        if nonocc is not None and ids.size:
            out += nonocc[ids].sum()
        return out


def _save_index(batches, out_dir, k1: float, b: float, method: str) -> dict:
    """Build the index of ``batches`` (ascending doc id) with :mod:`.lean_index`, which writes
    bm25s' files to ``out_dir``, plus ``doc_ids.json`` and ``meta.json``; return the meta dict.
    The directory appears complete or not at all (built beside it, then renamed)."""
    with atomic_directory(out_dir) as building:
        meta = _write_index(batches, building, k1, b, method)
    return meta


def _write_index(batches, out_dir: Path, k1: float, b: float, method: str) -> dict:
    with (out_dir / DOC_IDS_FILE).open("w", encoding="utf-8") as handle:
        n_docs, n_vocab, _nnz = build_bm25_index(batches, handle, out_dir, k1=k1, b=b, method=method)
    meta = {
        "engine": f"bm25s {bm25s.__version__}",
        "method": method, "k1": k1, "b": b,
        "tokenisation": TOKENISATION,
        "text": "title + '\\n' + text",
        # as bm25s counts it (and as this meta always did): the terms plus bm25s' empty token ""
        "n_docs": n_docs, "vocab_size": n_vocab + 1,
    }
    (out_dir / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return meta


def build_corpus_index(doc_ids: Iterable[str], titles: Iterable[str], texts: Iterable[str],
                       out_dir, k1: float, b: float, method: str, show_progress: bool = False) -> dict:
    """Tokenise and index in-memory documents, save the index to ``out_dir``; return its meta dict.

    Documents are indexed in sorted ``doc_id`` order; duplicate doc ids raise ValueError.
    (The pipeline indexes the DOCUMENTS table with :func:`build_corpus_index_from_table`.)
    """
    rows = sorted(zip(doc_ids, titles, texts), key=lambda r: r[0])
    batch = ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    return _save_index(iter([batch]), out_dir, k1, b, method)


def open_documents(documents_path) -> pq.ParquetFile:
    """A DOCUMENTS file opened for one pass of reads that keep nothing they have finished with:
    ``pre_buffer=False`` (pyarrow's default, True, coalesces each row group's column chunks into
    buffers its reader keeps until the file is closed: ~1x the compressed file by the end of a
    full pass). Use it as a context manager, so it is closed when the pass ends."""
    return pq.ParquetFile(str(documents_path), pre_buffer=False)


def sort_order_if_unsorted(documents_path) -> pa.Array | None:
    """None when the DOCUMENTS file's ``doc_id`` column ascends (as ingest writes it), else the
    indices that sort it. The column is read with its own reader, closed before returning."""
    with open_documents(documents_path) as parquet:
        ids = parquet.read(columns=["doc_id"]).column("doc_id")
    order = pc.sort_indices(ids)
    if not len(ids) or pc.all(pc.equal(order, pa.array(np.arange(len(ids), dtype=np.uint64)))).as_py():
        return None
    return order


def document_batches(documents_path, batch_rows: int, show_progress: bool):
    """(doc ids, titles, texts) batches of a DOCUMENTS file, in ascending doc id order.

    A file already in doc id order (as ingest writes it) is streamed batch by batch with a
    reader of its own (:func:`open_documents`), closed when the last batch has been taken; any
    other is read whole (three Arrow columns) and taken in sorted order, batch by batch."""
    order = sort_order_if_unsorted(documents_path)
    columns = ["doc_id", "title", "text"]
    with open_documents(documents_path) as parquet:
        bar = tqdm(total=parquet.metadata.num_rows, desc="tokenise documents", disable=not show_progress,
                   mininterval=10)
        if order is None:
            source = (pa.Table.from_batches([rb]) for rb in parquet.iter_batches(batch_size=batch_rows,
                                                                                 columns=columns))
        else:
            table = parquet.read(columns=columns)
            source = (table.take(order.slice(i, batch_rows)) for i in range(0, len(order), batch_rows))
        for chunk in source:
            bar.update(chunk.num_rows)
            yield (chunk.column("doc_id").to_pylist(), chunk.column("title").to_pylist(),
                   chunk.column("text").to_pylist())
        bar.close()


def build_corpus_index_from_table(documents_path, out_dir, k1: float, b: float, method: str, batch_rows: int = 8192,
                                  show_progress: bool = False) -> dict:
    """Index a DOCUMENTS Parquet file (already checked by its reader) in batches of
    ``batch_rows`` documents: the same index as :func:`build_corpus_index` of its rows, in
    memory that follows the index, not the corpus text (no reader outlives its pass)."""
    return _save_index(document_batches(documents_path, batch_rows, show_progress), out_dir, k1, b, method)


VOCAB_FILE = "vocab.index.json"
# one '"term": id' entry of a JSON object and the ',' or '}' after it (escapes allowed in the term)
_VOCAB_ENTRY = re.compile(r'\s*"([^"\\]*(?:\\.[^"\\]*)*)"\s*:\s*(-?\d+)\s*[,}]', re.S)
READ_CHARS = 1 << 22  # characters of a JSON file read at a time


def iter_vocab_entries(path, chunk_chars: int = READ_CHARS) -> Iterator[tuple[str, int]]:
    """(term, id) of every entry of a bm25s ``vocab.index.json`` (a JSON object of ints), in
    file order, reading ``chunk_chars`` characters at a time: memory follows the chunk, not the
    vocabulary. Escaped terms are decoded as ``json`` decodes them; a file that is not such an
    object raises ``ValueError``."""
    with open(path, encoding="utf-8") as f:
        buf, started, done = "", False, False
        while not done:
            more = f.read(chunk_chars)
            done = more == ""
            buf += more
            if not started:
                if not buf.strip() and not done:
                    continue
                if not buf.lstrip().startswith("{"):
                    raise ValueError(f"{path}: not a JSON object")
                buf, started = buf.lstrip()[1:], True
            pos = 0
            for m in _VOCAB_ENTRY.finditer(buf):
                if m.start() != pos:
                    break
                term = m.group(1)
                yield (json.loads(f'"{term}"') if "\\" in term else term), int(m.group(2))
                pos = m.end()
            buf = buf[pos:]
        if buf.strip() not in ("", "}"):
            raise ValueError(f"{path}: malformed vocabulary entry near {buf[:80]!r}")


def read_vocab_subset(path, terms, chunk_chars: int = READ_CHARS) -> dict[str, int]:
    """The entries of a bm25s ``vocab.index.json`` whose token is in ``terms``, without building
    the whole vocabulary as a dict or its text as one string (for the real wikis it holds
    millions of terms): the file is read ``chunk_chars`` characters at a time."""
    return {t: i for t, i in iter_vocab_entries(path, chunk_chars) if t in terms}


def _string_quotes(b: np.ndarray, backslashes_before: int) -> np.ndarray:
    """Positions in the bytes ``b`` of the ``"`` that open or close a JSON string: those preceded
    by an even number of backslashes (``backslashes_before``: the run of ``\\`` ending just
    before ``b``)."""
    quotes = np.flatnonzero(b == ord('"'))
    prev_bs = np.zeros(quotes.size, dtype=bool)
    inside = quotes > 0
    prev_bs[inside] = b[quotes[inside] - 1] == ord("\\")
    if quotes.size and quotes[0] == 0:
        prev_bs[0] = backslashes_before > 0
    keep = ~prev_bs
    for j in np.flatnonzero(prev_bs):  # rare: count the run of backslashes before the quote
        q, run = int(quotes[j]), 0
        while q - run - 1 >= 0 and b[q - run - 1] == ord("\\"):
            run += 1
        if q - run == 0:
            run += backslashes_before
        keep[j] = run % 2 == 0
    return quotes[keep]


def _trailing_backslashes(b: np.ndarray, before: int) -> int:
    """Length of the run of ``\\`` at the end of ``b`` (continuing a run of ``before``)."""
    not_bs = np.flatnonzero(b != ord("\\"))
    return int(b.size - 1 - not_bs[-1]) if not_bs.size else before + int(b.size)


def json_string_starts(path: Path, chunk_bytes: int = READ_CHARS) -> tuple[np.ndarray, int]:
    """(byte offset of the opening ``"`` of every string of a JSON list of strings, byte offset
    just past the last string's closing ``"``), from one scan of ``path`` in chunks of
    ``chunk_bytes``: a quote opens or closes a string unless an odd run of backslashes precedes
    it, and the strings' quotes alternate open, close."""
    starts, offset, n_quotes, backslashes, last_close = [], 0, 0, 0, 1
    with path.open("rb") as f:
        while chunk := f.read(chunk_bytes):
            b = np.frombuffer(chunk, dtype=np.uint8)
            quotes = _string_quotes(b, backslashes).astype(np.int64) + offset
            first_open = n_quotes % 2  # index within ``quotes`` of the first opening quote
            starts.append(quotes[first_open::2])
            closes = quotes[1 - first_open::2]
            if closes.size:
                last_close = int(closes[-1]) + 1
            n_quotes += quotes.size
            backslashes = _trailing_backslashes(b, backslashes)
            offset += len(chunk)
    if n_quotes % 2:
        raise ValueError(f"{path}: unterminated JSON string")
    return (np.concatenate(starts) if starts else np.zeros(0, np.int64)), last_close


class DocIds(Sequence):
    """The doc ids of an index (``doc_ids.json``: ``json.dumps`` of a list of strings) as a
    read-only sequence that holds only each id's byte offset in the file (8 bytes a document),
    not the ids; ``ids[i]`` / :meth:`take` read the requested ids from the file."""

    def __init__(self, path, chunk_bytes: int = READ_CHARS):
        self.path = Path(path)
        self.starts, self.end = json_string_starts(self.path, chunk_bytes)

    def __len__(self) -> int:
        return int(self.starts.size)

    def _span(self, i: int) -> tuple[int, int]:
        """Byte range of item ``i``'s JSON string (items are separated by ``", "``)."""
        stop = self.starts[i + 1] - 2 if i + 1 < self.starts.size else self.end
        return int(self.starts[i]), int(stop)

    def take(self, indices) -> list[str]:
        """The ids at ``indices`` (ints in ``range(len(self))``), in that order, from one open file."""
        out = []
        with self.path.open("rb") as f:
            for i in indices:
                start, stop = self._span(range(len(self))[int(i)])
                f.seek(start)
                out.append(json.loads(f.read(stop - start).decode("utf-8")))
        return out

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.take(range(len(self))[i])
        return self.take([i])[0]

    def __iter__(self) -> Iterator[str]:
        for first in range(0, len(self), 10_000):
            yield from self.take(range(first, min(first + 10_000, len(self))))


def load_corpus_index(index_dir, mmap: bool = True, terms=None) -> CorpusIndex:
    """Load an index written by :func:`build_corpus_index` (arrays memory-mapped by default; the
    doc ids as a :class:`DocIds`, read from the file when asked for).

    ``terms``: when given, only these vocabulary entries are loaded (the query terms of the
    claims to retrieve for: scores of those queries are unchanged, memory no longer grows
    with the vocabulary)."""
    index_dir = Path(index_dir)
    retriever = bm25s.BM25.load(str(index_dir), mmap=mmap, load_vocab=terms is None, show_progress=False)
    if terms is not None:
        retriever.vocab_dict = read_vocab_subset(index_dir / VOCAB_FILE, set(terms))
    doc_ids = DocIds(index_dir / DOC_IDS_FILE)
    meta = json.loads((index_dir / META_FILE).read_text(encoding="utf-8"))
    return CorpusIndex(retriever=retriever, doc_ids=doc_ids, meta=meta)


def top_k_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best positive scores: score descending, then index ascending.

    Exact and deterministic under ties (candidates are every index scoring at least the
    k-th best score, then sorted); zero and negative scores are never returned.
    """
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    cand = np.flatnonzero(scores > 0)
    m = cand.size
    if m > k:
        kth = np.partition(scores[cand], m - k)[m - k]
        cand = cand[scores[cand] >= kth]
    order = np.lexsort((cand, -scores[cand].astype(np.float64)))
    return cand[order][:k]


def retrieve_top_k(index: CorpusIndex, text: str, k: int) -> tuple[list[str], list[float]]:
    """Top-k documents for query ``text``: (doc ids in rank order, their scores)."""
    scores = index.scores(text)
    top = top_k_indices(scores, k)
    ids = index.doc_ids.take(top) if isinstance(index.doc_ids, DocIds) else [index.doc_ids[i] for i in top]
    return ids, [float(scores[i]) for i in top]


def retrieve_for_claims(index: CorpusIndex, claims: list[dict], gold_docs: dict[str, list[str]],
                        unresolved_gold: dict[str, int], k: int, show_progress: bool = False,
                        release_every: int = 1) -> list[dict]:
    """RETRIEVED rows for ``claims`` (dicts with dataset, claim_id, claim).

    Every ``release_every`` claims (default: after each) the pages of the memory-mapped index
    read so far are released (:meth:`CorpusIndex.release_pages`), so memory holds the columns
    of one claim's terms, not of every term read so far (a common term's column is 8 bytes a
    document that holds it).

    ``gold_docs[claim_id]`` are the claim's gold documents and ``unresolved_gold[claim_id]``
    the count of gold unit ids whose document is unknown (see
    :func:`evidence_ledger.retrieval.pools.gold_documents`).
    """
    rows = []
    for n, c in enumerate(tqdm(claims, desc="retrieve", disable=not show_progress, mininterval=10)):
        if n and n % release_every == 0:
            index.release_pages()
        doc_ids, scores = retrieve_top_k(index, c["claim"], k)
        gold = sorted(gold_docs.get(c["claim_id"], []))
        got = set(doc_ids)
        missed = [d for d in gold if d not in got]
        rows.append({
            "dataset": c["dataset"], "claim_id": c["claim_id"], "claim": c["claim"],
            "doc_ids": doc_ids, "scores": scores, "gold_doc_ids": gold,
            "missed_gold_doc_ids": missed, "retrieval_miss": bool(missed),
            "unresolved_gold_units": int(unresolved_gold.get(c["claim_id"], 0)),
        })
    return rows
