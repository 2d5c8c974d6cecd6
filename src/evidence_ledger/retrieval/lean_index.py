"""The bm25s page index built in bounded passes over flat integer arrays.

In:  documents ``(doc_id, title, text)`` in ascending ``doc_id`` order, as an iterator of
     batches (three parallel sequences each), and the BM25 parameters.
Out: a ``bm25s.BM25`` whose score matrix, vocabulary, non-occurrence array and parameters are
     exactly those ``bm25s.BM25.index`` computes from per-document token-id lists (the
     reference; ``tests/unit/retrieval/test_lean_index.py`` compares the saved files byte for
     byte), plus the doc ids, written as ``doc_ids.json`` while they pass.

How, without a Python list per document: each batch is tokenised
(:func:`evidence_ledger.retrieval.text.bm25_tokens` of ``title + "\\n" + text``, vocabulary ids
in order of first occurrence) into one flat int32 array, reduced to (token, term frequency)
pairs per document with ``numpy.unique``; only those pairs (8 bytes each) and the document
lengths are kept. Document frequencies and the average length then give bm25s' idf array,
and a second pass over the kept pairs scores them (bm25s' own idf / tf-component functions,
the same float64 -> float32 arithmetic) and scatters them into the CSC arrays column by
column, rows ascending within a column - the order bm25s' CSC builder sorts into.
Peak memory: about 16 bytes per non-zero of the index plus the vocabulary dictionary.
"""
from __future__ import annotations

import json
from array import array
from typing import Iterable, Iterator, Sequence

import bm25s
import numpy as np
from bm25s.scoring import _build_nonoccurrence_array, _select_idf_scorer, _select_tfc_scorer

from .text import bm25_tokens

NONOCCURRENCE_METHODS = ("bm25l", "bm25+")


class _Pairs:
    """(token id, term frequency) pairs per document of one batch, documents in order."""

    __slots__ = ("tokens", "tfs", "nnz", "lengths")

    def __init__(self, flat: np.ndarray, lengths: np.ndarray):
        rows = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        keys, counts = np.unique((rows << 32) | flat.astype(np.int64), return_counts=True)
        self.tokens = (keys & 0xFFFFFFFF).astype(np.int32)
        self.tfs = counts.astype(np.int32)
        self.nnz = np.bincount((keys >> 32).astype(np.int64), minlength=lengths.size).astype(np.int64)
        self.lengths = lengths


def _write_doc_ids_json(handle, ids: Sequence[str], first: bool) -> None:
    """Append ``ids`` to a JSON list being written as ``json.dumps(all_ids, ensure_ascii=False)``."""
    for doc_id in ids:
        handle.write(("" if first else ", ") + json.dumps(doc_id, ensure_ascii=False))
        first = False


def tokenise_batches(batches: Iterable[tuple[Sequence, Sequence, Sequence]], doc_ids_handle
                     ) -> tuple[dict, list[_Pairs], int]:
    """Pass 1: (vocabulary, per-batch token/tf pairs, document count).

    ``doc_ids_handle``: a text file the doc ids are written to as one JSON list (plus newline).
    Doc ids must ascend strictly (a repeat raises ``ValueError`` naming it); an empty
    collection raises ``ValueError``.
    """
    vocab: dict[str, int] = {}
    kept: list[_Pairs] = []
    n_docs, last = 0, None
    doc_ids_handle.write("[")
    for doc_ids, titles, texts in batches:
        flat, lengths = array("i"), array("q")
        for doc_id, title, text in zip(doc_ids, titles, texts):
            if last is not None and doc_id <= last:
                if doc_id == last:
                    raise ValueError(f"duplicate doc_id {doc_id!r} in the documents table")
                raise ValueError(f"documents are not in doc_id order at {doc_id!r}")
            last = doc_id
            ids = [vocab.setdefault(t, len(vocab)) for t in bm25_tokens(f"{title}\n{text}")]
            flat.extend(ids)
            lengths.append(len(ids))
        _write_doc_ids_json(doc_ids_handle, doc_ids, first=n_docs == 0)
        n_docs += len(lengths)
        if len(lengths):
            kept.append(_Pairs(np.frombuffer(flat, np.int32) if len(flat) else np.zeros(0, np.int32),
                               np.frombuffer(lengths, np.int64)))
    doc_ids_handle.write("]\n")
    if not n_docs:
        raise ValueError("cannot index an empty document collection")
    return vocab, kept, n_docs


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


def score_matrix(retriever: bm25s.BM25, pairs: list[_Pairs], n_docs: int, n_vocab: int) -> dict:
    """Pass 2: bm25s' ``scores`` dict (CSC data / indices / indptr, num_docs) of the pairs, and
    the retriever's ``nonoccurrence_array`` set as ``bm25s.BM25.build_index_from_ids`` sets it."""
    lengths = np.concatenate([p.lengths for p in pairs])
    avg_doc_len = lengths.mean()  # bm25s: np.array([len(ids) for ids in corpus]).mean()
    df = np.zeros(n_vocab, dtype=np.int64)
    for p in pairs:
        df += np.bincount(p.tokens, minlength=n_vocab)
    idf_fn = _select_idf_scorer(retriever.idf_method)
    if retriever.method in retriever.methods_requiring_nonoccurrence:
        doc_frequencies = dict(enumerate(df.tolist()))
        retriever.nonoccurrence_array = _build_nonoccurrence_array(
            doc_frequencies=doc_frequencies, n_docs=n_docs, compute_idf_fn=idf_fn,
            calculate_tfc_fn=_select_tfc_scorer(retriever.method), l_d=avg_doc_len, l_avg=avg_doc_len,
            k1=retriever.k1, b=retriever.b, delta=retriever.delta, dtype=retriever.dtype)
        del doc_frequencies
    else:
        retriever.nonoccurrence_array = None
    idf = idf_array(df, n_docs, idf_fn, retriever.dtype)
    tfc_fn = _select_tfc_scorer(retriever.method)
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    nnz = int(indptr[-1])
    data = np.empty(nnz, dtype=retriever.dtype)
    indices = np.empty(nnz, dtype=retriever.int_dtype)
    cursor = indptr[:-1].copy()
    first_doc = 0
    for p in pairs:
        rows = first_doc + np.repeat(np.arange(p.lengths.size, dtype=np.int64), p.nnz)
        tf = p.tfs.astype(retriever.dtype)
        tfc = tfc_fn(tf_array=tf, l_d=np.repeat(p.lengths, p.nnz), l_avg=avg_doc_len, k1=retriever.k1,
                     b=retriever.b, delta=retriever.delta)
        scores = idf[p.tokens] * tfc
        if retriever.method in NONOCCURRENCE_METHODS:
            scores -= retriever.nonoccurrence_array[p.tokens]
        order = np.argsort(p.tokens, kind="stable")  # column-major, rows ascending (documents in order)
        cols = p.tokens[order]
        uniq, first, counts = np.unique(cols, return_index=True, return_counts=True)
        where = cursor[cols] + (np.arange(cols.size) - np.repeat(first, counts))
        data[where] = scores[order]
        indices[where] = rows[order]
        cursor[uniq] += counts
        first_doc += p.lengths.size
    return {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}


def build_bm25_index(batches: Iterator[tuple[Sequence, Sequence, Sequence]], doc_ids_handle, k1: float, b: float,
                     method: str) -> tuple[bm25s.BM25, int]:
    """(retriever ready for ``save``, vocabulary size without bm25s' empty token) of the
    documents in ``batches`` (ascending doc id; doc ids written to ``doc_ids_handle``)."""
    vocab, pairs, n_docs = tokenise_batches(batches, doc_ids_handle)
    retriever = bm25s.BM25(k1=k1, b=b, method=method)
    retriever.scores = score_matrix(retriever, pairs, n_docs, len(vocab))
    n_vocab = len(vocab)
    vocab[""] = n_vocab  # bm25s.BM25.index(create_empty_token=True): max id + 1
    retriever.vocab_dict = vocab
    return retriever, n_vocab
