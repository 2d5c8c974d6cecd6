"""The bm25s page index built in two bounded passes over flat integer arrays spilled to disk.

In:  documents ``(doc_id, title, text)`` in ascending ``doc_id`` order, as an iterator of
     batches (three parallel sequences each), the BM25 parameters and the output directory.
Out: in that directory, the files ``bm25s.BM25.save`` writes for the retriever
     ``bm25s.BM25.index`` builds from per-document token-id lists (score matrix as CSC ``.npy``
     arrays, ``vocab.index.json``, ``params.index.json``, the non-occurrence array where the
     method needs one), byte for byte (``tests/unit/retrieval/test_lean_index.py`` compares
     them), plus the doc ids, written as ``doc_ids.json`` while they pass.

How, in memory that is the larger of two phases rather than their sum:

1. Pass 1 tokenises each batch (:func:`evidence_ledger.retrieval.text.bm25_tokens` of
   ``title + "\\n" + text``, vocabulary ids in order of first occurrence, looked up in a
   pandas hash table of the terms: :class:`Vocabulary`) into one flat int32 array, reduces it
   to (token, term frequency) pairs per document with ``numpy.unique`` and appends those pairs
   and the document lengths to a spill file (a temporary directory inside the output
   directory, removed afterwards, also on error). Only the vocabulary, the document
   frequencies and the total length stay in memory. When the pass ends the vocabulary is
   written as ``vocab.index.json`` (bm25s' own JSON, in chunks) and freed.
2. Pass 2 computes the CSC column pointers from the document frequencies and creates the
   ``data`` / ``indices`` ``.npy`` files at their full size (``numpy.lib.format.open_memmap``:
   the header ``numpy.save`` writes for that dtype and shape). It then fills them in blocks of
   consecutive term ids (:func:`term_blocks`, at most ``PASS2_BLOCK_BYTES`` of the two arrays
   a block): per block it maps only the block's slice ``[indptr[t0], indptr[t1])`` of each
   file, reads the spilled batches back one at a time, keeps the pairs whose token is in the
   block, scores them with bm25s' own idf / tf-component functions (the same float64 ->
   float32 arithmetic) and scatters them column by column, rows ascending within a column -
   the order bm25s' CSC builder sorts into - then flushes and unmaps the slices. The column
   pointers, the non-occurrence array and the parameters are saved as ``bm25s.BM25.save``
   saves them.

Peak memory: max(pass 1: the vocabulary, ~100 bytes a term; pass 2: one block, at most
``PASS2_BLOCK_BYTES``, + ~36 bytes a term), plus the interpreter and one batch
(docs/scale.md, "Memory model of the index"). The spill is read once a block.
"""
from __future__ import annotations

import itertools
import json
import logging
import shutil
import tempfile
from array import array
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, Sequence

import bm25s
import numpy as np
from bm25s.scoring import _build_nonoccurrence_array, _select_idf_scorer, _select_tfc_scorer
from bm25s.utils import json_functions
from pandas._libs import hashtable

from ..memory.peak_rss import peak_rss_mib
from .text import bm25_tokens

log = logging.getLogger(__name__)

NONOCCURRENCE_METHODS = ("bm25l", "bm25+")
# bm25s.BM25.save's file names
DATA_FILE, INDICES_FILE, INDPTR_FILE = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
VOCAB_FILE, PARAMS_FILE, NONOCCURRENCE_FILE = "vocab.index.json", "params.index.json", "nonoccurrence_array.index.npy"
SPILL_PREFIX = ".lean_index-"
VOCAB_CHUNK = 100_000  # vocabulary entries per JSON piece written
TOKENS_PER_LOOKUP = 1 << 18  # tokens looked up in the vocabulary at a time
# Bytes of the CSC data + indices slices pass 2 holds at a time. 512 MiB keeps pass 2 below
# pass 1's vocabulary at the full FEVEROUS wiki (docs/scale.md: ~11M terms, ~1.5 GiB) while the
# spill is re-read ~19 times there (1.23B non-zeros x 8 B / 512 MiB); FEVER needs 5 blocks.
PASS2_BLOCK_BYTES = 512 * 2**20


class _Pairs:
    """(token id, term frequency) pairs per document of one batch, documents in order:
    ``tokens`` / ``tfs`` (int32, one per pair, tokens ascending within a document), ``nnz``
    (pairs per document, int32) and ``lengths`` (tokens per document, int64)."""

    __slots__ = ("tokens", "tfs", "nnz", "lengths")

    def __init__(self, tokens: np.ndarray, tfs: np.ndarray, nnz: np.ndarray, lengths: np.ndarray):
        self.tokens, self.tfs, self.nnz, self.lengths = tokens, tfs, nnz, lengths

    @classmethod
    def of_batch(cls, flat: np.ndarray, lengths: np.ndarray) -> "_Pairs":
        """The pairs of a batch given as one flat token-id array and each document's length."""
        rows = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        keys, counts = np.unique((rows << 32) | flat.astype(np.int64), return_counts=True)
        nnz = np.bincount((keys >> 32).astype(np.int64), minlength=lengths.size).astype(np.int32)
        return cls((keys & 0xFFFFFFFF).astype(np.int32), counts.astype(np.int32), nnz, lengths)

    def write(self, handle: BinaryIO) -> None:
        """Append the four arrays to ``handle`` as ``.npy`` records (lengths stored as int32)."""
        if self.lengths.size and int(self.lengths.max()) > np.iinfo(np.int32).max:
            raise ValueError("a document has more than 2**31 - 1 tokens")
        for a in (self.tokens, self.tfs, self.nnz, self.lengths.astype(np.int32)):
            np.save(handle, a, allow_pickle=False)

    @classmethod
    def read(cls, handle: BinaryIO) -> "_Pairs":
        """The next batch :meth:`write` appended to ``handle``."""
        tokens, tfs, nnz, lengths = (np.load(handle, allow_pickle=False) for _ in range(4))
        return cls(tokens, tfs, nnz, lengths.astype(np.int64))


class Vocabulary:
    """Term ids in order of first occurrence, kept in a pandas hash table of the term strings
    (``pandas._libs.hashtable.PyObjectHashTable``, the table ``pandas.factorize`` uses:
    ~95 bytes a short term against ~140 for a ``dict``) plus, per call of :meth:`ids`, an
    object array of the terms it added (in id order; they also keep the table's keys alive)."""

    def __init__(self):
        self.table = hashtable.PyObjectHashTable()
        self.added: list[np.ndarray] = []
        self.size = 0

    def ids(self, tokens: list[str]) -> np.ndarray:
        """The id (int32) of each of ``tokens``; unseen terms get the next ids, in order."""
        new = hashtable.ObjectVector()
        labels = self.table.get_labels(np.array(tokens, dtype=object), new, self.size, -1)
        added = new.to_array()
        if added.size:
            self.added.append(added)
            self.size += added.size
        return labels.astype(np.int32)

    def items(self) -> Iterator[tuple[str, int]]:
        """(term, id) in id order."""
        first = 0
        for added in self.added:
            yield from zip(added.tolist(), range(first, first + added.size))
            first += added.size


class Pass1:
    """What pass 1 keeps in memory: vocabulary, document frequencies, counts.

    ``vocab``: the :class:`Vocabulary`; ``df[:vocab.size]``: the document frequencies (int32,
    at most the document count); ``n_docs`` / ``n_batches`` / ``total_length`` count what was
    spilled."""

    def __init__(self):
        self.vocab = Vocabulary()
        self.df = np.zeros(1024, dtype=np.int32)
        self.n_docs = self.n_batches = self.total_length = 0

    def add_document_frequencies(self, tokens: np.ndarray) -> None:
        """Count one batch's pairs (each (document, token) once) into ``df``, growing it to the vocabulary."""
        if self.df.size < self.vocab.size:
            grown = np.zeros(max(self.vocab.size, 2 * self.df.size), dtype=np.int32)
            grown[:self.df.size] = self.df
            self.df = grown
        uniq, counts = np.unique(tokens, return_counts=True)
        self.df[uniq] += counts.astype(np.int32)


def _write_doc_ids_json(handle, ids: Sequence[str], first: bool) -> None:
    """Append ``ids`` to a JSON list being written as ``json.dumps(all_ids, ensure_ascii=False)``."""
    for doc_id in ids:
        handle.write(("" if first else ", ") + json.dumps(doc_id, ensure_ascii=False))
        first = False


def tokenise_batches(batches: Iterable[tuple[Sequence, Sequence, Sequence]], doc_ids_handle,
                     spill: BinaryIO) -> Pass1:
    """Pass 1: tokenise ``batches``, append each batch's pairs to ``spill``; return the kept state.

    ``doc_ids_handle``: a text file the doc ids are written to as one JSON list (plus newline).
    Doc ids must ascend strictly (a repeat raises ``ValueError`` naming it); an empty
    collection raises ``ValueError``.
    """
    state = Pass1()
    last = None
    doc_ids_handle.write("[")
    for doc_ids, titles, texts in batches:
        flat, lengths, pending = [], array("q"), []
        for doc_id, title, text in zip(doc_ids, titles, texts):
            if last is not None and doc_id <= last:
                if doc_id == last:
                    raise ValueError(f"duplicate doc_id {doc_id!r} in the documents table")
                raise ValueError(f"documents are not in doc_id order at {doc_id!r}")
            last = doc_id
            tokens = bm25_tokens(f"{title}\n{text}")
            pending += tokens
            lengths.append(len(tokens))
            if len(pending) >= TOKENS_PER_LOOKUP:
                flat.append(state.vocab.ids(pending))
                pending = []
        flat.append(state.vocab.ids(pending))
        _write_doc_ids_json(doc_ids_handle, doc_ids, first=state.n_docs == 0)
        if not len(lengths):
            continue
        flat = np.concatenate(flat)
        pairs = _Pairs.of_batch(flat, np.frombuffer(lengths, np.int64))
        pairs.write(spill)
        state.add_document_frequencies(pairs.tokens)
        state.n_docs += len(lengths)
        state.n_batches += 1
        state.total_length += flat.size
    doc_ids_handle.write("]\n")
    if not state.n_docs:
        raise ValueError("cannot index an empty document collection")
    state.df = state.df[:state.vocab.size].copy()
    return state


def json_item_separator() -> str:
    """The text bm25s' JSON writer (``bm25s.utils.json_functions.dumps``: the json module, or
    orjson where installed) puts between two items of a dict."""
    text = json_functions.dumps({"a": 0, "b": 1}, ensure_ascii=False)
    return text[text.index("0") + 1:text.index('"b"')]


def write_vocab_json(items: Iterable[tuple[str, int]], path, chunk: int = VOCAB_CHUNK) -> None:
    """Write the (term, id) ``items`` (a dict's ``items()``) to ``path`` byte for byte as
    ``bm25s.BM25.save`` writes that dict (``json_functions.dumps(vocab, ensure_ascii=False)``),
    ``chunk`` entries at a time, so no dict or string of the whole vocabulary is built."""
    sep = json_item_separator()
    items = iter(items)
    with open(path, "wt", encoding="utf-8") as f:
        f.write("{")
        first = True
        while True:
            piece = dict(itertools.islice(items, chunk))
            if not piece:
                break
            body = json_functions.dumps(piece, ensure_ascii=False)[1:-1]
            f.write(body if first else sep + body)
            first = False
        f.write("}")


def idf_array(df: np.ndarray, n_docs: int, idf_fn, dtype) -> np.ndarray:
    """bm25s' ``_build_idf_array`` without its per-token dict: ``idf_fn(df, N=n_docs)`` (a
    Python float) computed once per distinct document frequency and stored in ``dtype``
    (0 where df is 0), the same values token by token."""
    values, inverse = np.unique(df, return_inverse=True)
    per_value = np.zeros(values.size, dtype=dtype)
    for i, d in enumerate(values.tolist()):
        if d != 0:
            per_value[i] = idf_fn(d, N=n_docs)
    return per_value[inverse.reshape(-1)]


def nonoccurrence_array(retriever: bm25s.BM25, df: np.ndarray, n_docs: int, avg_doc_len) -> np.ndarray | None:
    """The ``nonoccurrence_array`` ``bm25s.BM25.build_index_from_ids`` sets (None for methods
    without one)."""
    if retriever.method not in retriever.methods_requiring_nonoccurrence:
        return None
    return _build_nonoccurrence_array(
        doc_frequencies=dict(enumerate(df.tolist())), n_docs=n_docs,
        compute_idf_fn=_select_idf_scorer(retriever.idf_method), calculate_tfc_fn=_select_tfc_scorer(retriever.method),
        l_d=avg_doc_len, l_avg=avg_doc_len, k1=retriever.k1, b=retriever.b, delta=retriever.delta,
        dtype=retriever.dtype)


def term_blocks(indptr: np.ndarray, max_nnz: int) -> list[tuple[int, int]]:
    """Consecutive term-id ranges ``[t0, t1)`` covering every column of the CSC column pointers
    ``indptr``, each as long as its non-zeros stay within ``max_nnz`` (a single term with more
    is a block of its own)."""
    n_terms, blocks, t0 = indptr.size - 1, [], 0
    while t0 < n_terms:
        t1 = int(np.searchsorted(indptr, indptr[t0] + max_nnz, side="right")) - 1
        t1 = min(max(t1, t0 + 1), n_terms)
        blocks.append((t0, t1))
        t0 = t1
    return blocks


def create_npy(path, dtype, n: int) -> int:
    """Create ``path`` as the ``.npy`` file ``numpy.save`` writes for a 1-D array of ``n``
    ``dtype`` values (same header; values zero, the file sparse until filled); return the
    header's length, the offset of value 0."""
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.dtype(dtype), shape=(n,))
    offset = array.offset
    del array
    return offset


def map_slice(path, dtype, header: int, start: int, stop: int) -> np.memmap:
    """Values ``[start, stop)`` of the 1-D ``.npy`` file ``path`` (values from byte ``header``),
    mapped read-write; only those pages are mapped, and unmapped when the array is freed."""
    dtype = np.dtype(dtype)
    return np.memmap(path, dtype=dtype, mode="r+", offset=header + start * dtype.itemsize, shape=(stop - start,))


def pair_scorer(retriever: bm25s.BM25, df: np.ndarray, n_docs: int, avg_doc_len):
    """``score(tokens, tfs, doc_lengths)``: bm25s' score (``retriever.dtype``) of each (token,
    term frequency) pair of a document of that length, as ``bm25s.BM25.build_index_from_ids``
    computes it (idf x tf component, minus the non-occurrence value where the method has one)."""
    idf = idf_array(df, n_docs, _select_idf_scorer(retriever.idf_method), retriever.dtype)
    tfc_fn = _select_tfc_scorer(retriever.method)

    def score(tokens: np.ndarray, tfs: np.ndarray, doc_lengths: np.ndarray) -> np.ndarray:
        tfc = tfc_fn(tf_array=tfs.astype(retriever.dtype), l_d=doc_lengths, l_avg=avg_doc_len, k1=retriever.k1,
                     b=retriever.b, delta=retriever.delta)
        scores = idf[tokens] * tfc
        if retriever.method in NONOCCURRENCE_METHODS:
            scores -= retriever.nonoccurrence_array[tokens]
        return scores
    return score


def fill_block(spill: BinaryIO, n_batches: int, block: tuple[int, int], cursor: np.ndarray, base: int,
               data: np.ndarray, indices: np.ndarray, score) -> None:
    """Scatter the spilled pairs whose token is in ``block`` (``[t0, t1)``) into ``data`` /
    ``indices``, the block's slices (value 0 of each is the matrix's non-zero ``base``):
    ``cursor[t]`` is the next free position of column ``t`` (advanced here); within a column
    rows ascend, as the spill holds documents in order."""
    t0, t1 = block
    first_doc = 0
    spill.seek(0)
    for _ in range(n_batches):
        p = _Pairs.read(spill)
        sel = np.flatnonzero((p.tokens >= t0) & (p.tokens < t1))
        if sel.size:
            doc = np.searchsorted(np.cumsum(p.nnz, dtype=np.int64), sel, side="right")
            tokens = p.tokens[sel]
            scores = score(tokens, p.tfs[sel], p.lengths[doc])
            order = np.argsort(tokens, kind="stable")  # column-major, rows ascending (documents in order)
            cols = tokens[order]
            uniq, first, counts = np.unique(cols, return_index=True, return_counts=True)
            where = cursor[cols] - base + (np.arange(cols.size) - np.repeat(first, counts))
            data[where] = scores[order]
            indices[where] = first_doc + doc[order]
            cursor[uniq] += counts
        first_doc += p.lengths.size


def write_score_matrix(retriever: bm25s.BM25, spill: BinaryIO, state: Pass1, out_dir: Path,
                       block_bytes: int) -> tuple[np.ndarray, int]:
    """Pass 2: write bm25s' CSC files (data, indices, indptr) of the pairs spilled to ``spill``
    into ``out_dir``, ``data`` / ``indices`` filled one block of terms at a time (at most
    ``block_bytes`` of the two a block); set ``retriever.nonoccurrence_array`` as
    ``bm25s.BM25.build_index_from_ids`` sets it. Returns (indptr, blocks)."""
    n_docs, df = state.n_docs, state.df
    # bm25s: np.array([len(ids) for ids in corpus]).mean(); an exact integer sum divided by n
    avg_doc_len = np.float64(state.total_length) / n_docs
    retriever.nonoccurrence_array = nonoccurrence_array(retriever, df, n_docs, avg_doc_len)
    score = pair_scorer(retriever, df, n_docs, avg_doc_len)
    indptr = np.zeros(df.size + 1, dtype=np.int64)
    np.cumsum(df, dtype=np.int64, out=indptr[1:])
    nnz = int(indptr[-1])
    files = [(out_dir / DATA_FILE, retriever.dtype), (out_dir / INDICES_FILE, retriever.int_dtype)]
    headers = [create_npy(path, dtype, nnz) for path, dtype in files]
    per_nnz = sum(np.dtype(dtype).itemsize for _, dtype in files)
    blocks = term_blocks(indptr, max(1, block_bytes // per_nnz))
    cursor = indptr[:-1].copy()
    for t0, t1 in blocks:
        start, stop = int(indptr[t0]), int(indptr[t1])
        if stop == start:
            continue
        data, indices = (map_slice(path, dtype, h, start, stop) for (path, dtype), h in zip(files, headers))
        fill_block(spill, state.n_batches, (t0, t1), cursor, start, data, indices, score)
        data.flush()
        indices.flush()
        del data, indices  # unmapped: the block's pages leave this process
    np.save(out_dir / INDPTR_FILE, indptr, allow_pickle=False)
    return indptr, len(blocks)


def save_params(retriever: bm25s.BM25, out_dir: Path, n_docs: int) -> None:
    """The files of ``bm25s.BM25.save(out_dir)`` besides the vocabulary and the CSC arrays: the
    non-occurrence array where there is one, and the parameters, with bm25s' own calls."""
    if retriever.nonoccurrence_array is not None:
        np.save(out_dir / NONOCCURRENCE_FILE, retriever.nonoccurrence_array, allow_pickle=False)
    params = dict(k1=retriever.k1, b=retriever.b, delta=retriever.delta, method=retriever.method,
                  idf_method=retriever.idf_method, dtype=retriever.dtype, int_dtype=retriever.int_dtype,
                  num_docs=n_docs, version=bm25s.__version__, backend=retriever.backend)
    with open(out_dir / PARAMS_FILE, "w") as f:
        json.dump(params, f, indent=4)


def build_bm25_index(batches: Iterator[tuple[Sequence, Sequence, Sequence]], doc_ids_handle, out_dir,
                     k1: float, b: float, method: str) -> tuple[int, int, int]:
    """Index the documents in ``batches`` (ascending doc id; doc ids written to
    ``doc_ids_handle``) and save bm25s' index files in ``out_dir`` (an existing directory).

    Returns (documents, vocabulary size without bm25s' empty token, index non-zeros). The
    spill directory ``out_dir/.lean_index-*`` is removed whether or not indexing succeeds."""
    out_dir = Path(out_dir)
    spill_dir = Path(tempfile.mkdtemp(prefix=SPILL_PREFIX, dir=out_dir))
    try:
        with open(spill_dir / "pairs.npy", "w+b") as spill:
            state = tokenise_batches(batches, doc_ids_handle, spill)
            n_vocab = state.vocab.size
            log.info("pass 1: %d documents, %d terms, spill %.0f MB; peak RSS so far %.0f MiB", state.n_docs,
                     n_vocab, spill.tell() / 1e6, peak_rss_mib())
            # bm25s.BM25.index(create_empty_token=True) adds "" as max id + 1
            write_vocab_json(itertools.chain(state.vocab.items(), [("", n_vocab)]), out_dir / VOCAB_FILE)
            state.vocab = None  # freed before pass 2 allocates the score matrix
            spill.flush()
            retriever = bm25s.BM25(k1=k1, b=b, method=method)
            block_bytes = PASS2_BLOCK_BYTES
            indptr, n_blocks = write_score_matrix(retriever, spill, state, out_dir, block_bytes)
    finally:
        shutil.rmtree(spill_dir, ignore_errors=True)
    save_params(retriever, out_dir, state.n_docs)
    nnz = int(indptr[-1])
    log.info("pass 2: %d non-zeros in %d blocks of at most %d bytes; peak RSS %.0f MiB", nnz, n_blocks,
             block_bytes, peak_rss_mib())
    return state.n_docs, n_vocab, nnz

