"""The lean page index (retrieval.lean_index: read from the DOCUMENTS table in batches, pairs
spilled to disk in pass 1, score matrix filled from the spill in pass 2) is byte for byte the
index bm25s builds from per-document token-id lists (the reference below, the pipeline's
builder before the lean one): same score matrix, vocabulary, parameters and doc ids, on the
demo corpora and on a synthetic corpus, for every bm25s method; its spill files never outlive it."""
import filecmp
import json

import bm25s
import numpy as np
import pyarrow as pa
import pytest
from bm25s.utils import json_functions

from support.defaults import CORPUS_BM25

from support.in_memory_release import read_fever_claims, read_fever_wiki, read_feverous_wiki
from evidence_ledger.datasets.scifact import read_scifact_corpus
from evidence_ledger.retrieval.corpus import (CorpusIndex, DocIds, build_corpus_index_from_table, iter_vocab_entries,
                                              load_corpus_index, read_vocab_subset, retrieve_for_claims,
                                              retrieve_top_k)
from evidence_ledger.retrieval import lean_index
from evidence_ledger.retrieval.lean_index import SPILL_PREFIX, Vocabulary, build_bm25_index, write_vocab_json
from evidence_ledger.retrieval.text import TOKENISATION, bm25_tokens
from evidence_ledger.tables import write_table
from evidence_ledger.tables.ingest import DOCUMENTS
from support.paths import REPO_ROOT

DEMO = REPO_ROOT / "resources" / "demo"
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


def reference_index(doc_ids, titles, texts, out_dir, k1=1.5, b=0.75, method="lucene"):
    """The straightforward builder (the pipeline's before the lean one): rows sorted by doc id,
    one token-id list per document, ``bm25s.BM25.index`` on them, saved with ``doc_ids.json``
    and ``meta.json``."""
    rows = sorted(zip(doc_ids, titles, texts), key=lambda r: r[0])
    vocab, corpus_ids = {}, []
    for _, title, text in rows:
        corpus_ids.append([vocab.setdefault(t, len(vocab)) for t in bm25_tokens(f"{title}\n{text}")])
    retriever = bm25s.BM25(k1=k1, b=b, method=method)
    retriever.index(bm25s.tokenization.Tokenized(ids=corpus_ids, vocab=vocab), show_progress=False)
    out_dir.mkdir(parents=True)
    retriever.save(str(out_dir), show_progress=False)
    (out_dir / "doc_ids.json").write_text(json.dumps([r[0] for r in rows], ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    meta = {"engine": f"bm25s {bm25s.__version__}", "method": method, "k1": k1, "b": b,
            "tokenisation": TOKENISATION, "text": "title + '\\n' + text",
            "n_docs": len(rows), "vocab_size": len(vocab)}  # vocab holds bm25s' empty token "" by now
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return len(vocab)


def assert_same_index(documents_table, tmp_path, method="lucene", batch_rows=8192):
    path = tmp_path / "documents.parquet"
    write_table(documents_table, path, DOCUMENTS)
    cols = {c: documents_table.column(c).to_pylist() for c in ("doc_id", "title", "text")}
    vocab_size = reference_index(cols["doc_id"], cols["title"], cols["text"], tmp_path / "ref", method=method)
    meta = build_corpus_index_from_table(path, tmp_path / "lean", k1=CORPUS_BM25["k1"], b=CORPUS_BM25["b"], method=method,
                                         batch_rows=batch_rows)
    ref_files = sorted(p.name for p in (tmp_path / "ref").iterdir())
    lean_files = sorted(p.name for p in (tmp_path / "lean").iterdir())
    assert lean_files == ref_files
    for name in ref_files:
        assert filecmp.cmp(tmp_path / "ref" / name, tmp_path / "lean" / name, shallow=False), name
    assert meta["vocab_size"] == vocab_size and meta["n_docs"] == len(set(cols["doc_id"]))
    return load_corpus_index(tmp_path / "lean")


@pytest.mark.parametrize("reader, source", [
    (read_fever_wiki, DEMO / "fever" / "wiki-pages"),
    (read_feverous_wiki, DEMO / "feverous" / "feverous_wikiv1.db"),
    (read_scifact_corpus, DEMO / "scifact" / "corpus.jsonl"),
])
def test_demo_corpus_index_is_byte_identical_to_bm25s(reader, source, tmp_path):
    """Small batches (50 documents) so the batch boundaries are crossed many times; SciFact's
    DOCUMENTS are in file order (not doc id order), the path that sorts before streaming."""
    _units, documents = reader(source)
    index = assert_same_index(documents, tmp_path, batch_rows=50)
    assert list(index.doc_ids) == sorted(documents.column("doc_id").to_pylist())


def synthetic_documents(n_docs=700, seed=7):
    """Zipf word ids over a 3,000-word vocabulary (some words repeat within a document), some
    documents empty or stop words only, doc ids shuffled (the file is not in doc id order)."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(3000)] + ["the", "of", "and"]
    ids = [f"Doc_{i:04d}" for i in rng.permutation(n_docs)]
    titles, texts = [], []
    for i in range(n_docs):
        n = int(rng.integers(0, 60)) if i % 50 else 0
        toks = np.minimum(rng.zipf(1.3, size=n), len(words)) - 1
        texts.append(" ".join(words[t] for t in toks) if i % 97 else "the of and")
        titles.append(ids[i].replace("_", " "))
    return DOCUMENTS.conform(pa.table({"dataset": ["synthetic"] * n_docs, "doc_id": ids, "title": titles,
                                       "text": texts}))


@pytest.mark.parametrize("method", METHODS)
def test_synthetic_corpus_index_is_byte_identical_to_bm25s_for_every_method(method, tmp_path):
    index = assert_same_index(synthetic_documents(), tmp_path, method=method, batch_rows=64)
    assert len(index.doc_ids) == 700


def test_index_loaded_with_the_claims_terms_only_retrieves_the_same(tmp_path):
    """retrieve loads only the vocabulary entries of its claims' terms: the same top-5 pages
    and scores for every demo FEVER dev claim as with the whole vocabulary."""
    _units, documents = read_fever_wiki(DEMO / "fever" / "wiki-pages")
    assert_same_index(documents, tmp_path)
    claims = read_fever_claims(DEMO / "fever" / "paper_dev.jsonl").column("claim").to_pylist()
    terms = {t for c in claims for t in bm25_tokens(c)}
    full = load_corpus_index(tmp_path / "lean")
    lean = load_corpus_index(tmp_path / "lean", terms=terms)
    assert lean.retriever.vocab_dict == {t: i for t, i in full.retriever.vocab_dict.items() if t in terms}
    assert 0 < len(lean.retriever.vocab_dict) < len(full.retriever.vocab_dict)
    assert [retrieve_top_k(lean, c, 5) for c in claims] == [retrieve_top_k(full, c, 5) for c in claims]
    assert read_vocab_subset(tmp_path / "lean" / "vocab.index.json", {""}) == {"": len(full.retriever.vocab_dict) - 1}


def test_spill_directory_is_removed_after_success_and_after_an_error(tmp_path):
    """Pass 1 spills its pairs under ``<index>/.lean_index-*``; nothing of it is left once the
    index is saved, nor when indexing fails part way (a repeated doc id in the second batch)."""
    documents = synthetic_documents(n_docs=200)
    path = tmp_path / "documents.parquet"
    write_table(documents, path, DOCUMENTS)
    build_corpus_index_from_table(path, tmp_path / "ok", **CORPUS_BM25, batch_rows=64)
    assert sorted(p.name for p in (tmp_path / "ok").iterdir()) == [
        "data.csc.index.npy", "doc_ids.json", "indices.csc.index.npy", "indptr.csc.index.npy", "meta.json",
        "params.index.json", "vocab.index.json"]
    out = tmp_path / "bad"
    out.mkdir()
    seen = []

    def batches():
        yield ["a", "b"], ["", ""], ["alpha beta", "gamma"]
        seen.extend(p.name for p in out.glob(SPILL_PREFIX + "*/*"))  # the first batch is spilled by now
        yield ["b"], [""], ["delta"]

    with open(out / "doc_ids.json", "w", encoding="utf-8") as handle, \
            pytest.raises(ValueError, match="duplicate doc_id 'b'"):
        build_bm25_index(batches(), handle, out, k1=1.5, b=0.75, method="lucene")
    assert seen == ["pairs.npy"]
    assert not list(out.glob(SPILL_PREFIX + "*"))


def test_vocab_written_in_chunks_is_bm25s_json(tmp_path):
    """``write_vocab_json`` writes, a few entries at a time, exactly the text bm25s' ``save``
    writes for the whole dict (``json_functions.dumps(vocab, ensure_ascii=False)``), escapes and
    non-ASCII terms included, whatever the chunk size."""
    vocab = {"alpha": 0, 'quo"te': 1, "back\\slash": 2, "über": 3, "日本": 4, "tab\there": 5, "": 6}
    expected = json_functions.dumps(vocab, ensure_ascii=False)
    for chunk in (1, 2, 3, 100):
        write_vocab_json(vocab.items(), tmp_path / f"v{chunk}.json", chunk=chunk)
        assert (tmp_path / f"v{chunk}.json").read_text(encoding="utf-8") == expected


TRICKY_IDS = ["", "a", 'q"uote', 'ends, "', '", "', "back\\", "\\\\", '\\"', "tab\there", "日本語", "Ünïcode_(x)",
              "x" * 300]


@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 7, 1 << 20])
def test_doc_ids_read_by_offset_equal_the_json_list(chunk_bytes, tmp_path):
    """``DocIds`` finds every id's offset in ``doc_ids.json`` (as the index writes it) by a
    chunked scan, whatever the chunk boundaries cut: escaped quotes and backslashes, ids holding
    the item separator ``", "``, non-ASCII and empty ids all come back as ``json.loads`` reads them."""
    path = tmp_path / "doc_ids.json"
    path.write_text(json.dumps(TRICKY_IDS, ensure_ascii=False) + "\n", encoding="utf-8")
    ids = DocIds(path, chunk_bytes=chunk_bytes)
    assert len(ids) == len(TRICKY_IDS)
    assert list(ids) == TRICKY_IDS
    assert ids.take([5, 0, 11, 3]) == [TRICKY_IDS[i] for i in (5, 0, 11, 3)]
    assert ids[-1] == TRICKY_IDS[-1] and ids[2:5] == TRICKY_IDS[2:5]
    (tmp_path / "empty.json").write_text("[]\n", encoding="utf-8")
    assert len(DocIds(tmp_path / "empty.json", chunk_bytes=chunk_bytes)) == 0


@pytest.mark.parametrize("chunk_chars", [1, 2, 5, 64, 1 << 20])
def test_vocab_read_in_chunks_equals_the_full_read(chunk_chars, tmp_path):
    """The vocabulary file read a few characters at a time gives exactly ``json.loads`` of the
    whole file, escaped terms included; the subset read keeps only the asked terms."""
    vocab = {t: i for i, t in enumerate(["alpha", 'q"uote', "back\\", 'x": 1, "y', "tab\there", "日本", "a, ", ""])}
    path = tmp_path / "vocab.index.json"
    write_vocab_json(vocab.items(), path)
    assert json.loads(path.read_text(encoding="utf-8")) == vocab
    assert list(iter_vocab_entries(path, chunk_chars)) == list(vocab.items())
    assert read_vocab_subset(path, {'x": 1, "y', "back\\", "absent"}, chunk_chars) == {"back\\": 2, 'x": 1, "y': 3}


def test_retrieval_with_offset_doc_ids_and_released_pages_is_unchanged(tmp_path):
    """retrieve's index (claims' vocabulary only, doc ids read by offset, mapped pages released
    every 3 claims) gives the same RETRIEVED rows for every demo FEVER dev claim as the index
    loaded as before (whole vocabulary, arrays in memory, ``doc_ids.json`` as a Python list)."""
    _units, documents = read_fever_wiki(DEMO / "fever" / "wiki-pages")
    assert_same_index(documents, tmp_path)
    index_dir = tmp_path / "lean"
    claims = [{"dataset": "fever", "claim_id": str(i), "claim": c} for i, c in
              enumerate(read_fever_claims(DEMO / "fever" / "paper_dev.jsonl").column("claim").to_pylist())]
    before = CorpusIndex(retriever=bm25s.BM25.load(str(index_dir), mmap=False, show_progress=False),
                         doc_ids=json.loads((index_dir / "doc_ids.json").read_text(encoding="utf-8")),
                         meta=json.loads((index_dir / "meta.json").read_text(encoding="utf-8")))
    now = load_corpus_index(index_dir, terms={t for c in claims for t in bm25_tokens(c["claim"])})
    assert isinstance(now.doc_ids, DocIds) and list(now.doc_ids) == before.doc_ids
    gold = {c["claim_id"]: [before.doc_ids[int(c["claim_id"]) % len(before.doc_ids)]] for c in claims}
    expected = retrieve_for_claims(before, claims, gold, {}, k=5)
    assert retrieve_for_claims(now, claims, gold, {}, k=5, release_every=3) == expected
    assert sum(len(r["doc_ids"]) for r in expected) > 4 * len(claims)


def test_vocabulary_ids_follow_first_occurrence_across_lookups():
    """Term ids are given in order of first occurrence over all lookups (as bm25s' vocabulary
    dict of the reference gives them); ``items`` lists them in id order."""
    vocab = Vocabulary()
    assert vocab.ids(["b", "a", "b"]).tolist() == [0, 1, 0]
    assert vocab.ids([]).tolist() == []
    assert vocab.ids(["c", "a", "d", "c"]).tolist() == [2, 1, 3, 2]
    assert vocab.ids(["d", "b"]).dtype == np.int32 and vocab.size == 4
    assert list(vocab.items()) == [("b", 0), ("a", 1), ("c", 2), ("d", 3)]


def test_index_is_byte_identical_when_lookups_split_documents(monkeypatch, tmp_path):
    """Tokens are looked up in the vocabulary a few at a time (every 5 tokens here, so lookups
    split documents and batches): the index is still bm25s' own."""
    monkeypatch.setattr(lean_index, "TOKENS_PER_LOOKUP", 5)
    assert_same_index(synthetic_documents(n_docs=300), tmp_path, batch_rows=64)


@pytest.mark.parametrize("method", METHODS)
def test_index_is_byte_identical_when_pass2_fills_many_blocks(method, monkeypatch, caplog, tmp_path):
    """Pass 2 fills the CSC files in blocks of terms of at most 50 non-zeros here (400 bytes of
    float32 data + int32 indices; a term in more documents is a block of its own), re-reading
    the spill once a block: still bm25s' own files."""
    monkeypatch.setattr(lean_index, "PASS2_BLOCK_BYTES", 400)
    with caplog.at_level("INFO", logger=lean_index.__name__):
        assert_same_index(synthetic_documents(n_docs=300), tmp_path, method=method, batch_rows=64)
    (message,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("pass 2:")]
    nnz, blocks = (int(w) for w in message.split()[2:6:3])
    assert blocks > nnz // 100 > 10, message


def test_term_blocks_are_consecutive_and_within_the_budget():
    """Column pointers of document frequencies 3,1,4,1,5,9,2,6 in blocks of at most 6 non-zeros:
    consecutive ranges covering every term; the term with 9 is a block of its own."""
    indptr = np.concatenate([[0], np.cumsum([3, 1, 4, 1, 5, 9, 2, 6])])
    blocks = lean_index.term_blocks(indptr, 6)
    assert blocks == [(0, 2), (2, 4), (4, 5), (5, 6), (6, 7), (7, 8)]
    assert lean_index.term_blocks(indptr, 10**9) == [(0, 8)]
    assert lean_index.term_blocks(indptr[:1], 6) == []


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("n", [0, 5, 100_003])
def test_npy_created_then_filled_by_slices_is_numpy_save_output(dtype, n, tmp_path):
    """``create_npy`` writes the header ``numpy.save`` writes for that dtype and length (the
    same bytes before the values); filled through two mapped slices the file is byte for byte
    ``numpy.save``'s of the whole array."""
    values = np.arange(n, dtype=dtype) * 3
    np.save(tmp_path / "saved.npy", values, allow_pickle=False)
    saved = (tmp_path / "saved.npy").read_bytes()
    path = tmp_path / "filled.npy"
    header = lean_index.create_npy(path, dtype, n)
    assert path.read_bytes()[:header] == saved[:header] and path.stat().st_size == len(saved)
    for start, stop in [(0, n // 3), (n // 3, n)][int(n == 0) * 2:]:  # nothing to map in an empty file
        part = lean_index.map_slice(path, dtype, header, start, stop)
        part[:] = values[start:stop]
        part.flush()
        del part
    assert path.read_bytes() == saved


def test_document_reader_holds_about_one_batch_not_the_file(tmp_path):
    """Streaming a DOCUMENTS file of 48 row groups, the Arrow memory held at any batch is about
    one row group's, never the compressed file, and nothing once the pass ends: pyarrow's
    default ``pre_buffer=True`` reads the column chunks of every row group the pass will read
    into buffers the reader keeps until it is closed (~1x the compressed file throughout);
    ``corpus.open_documents`` turns it off and closes the reader with the pass."""
    import pyarrow.parquet as pq
    from evidence_ledger.retrieval.corpus import document_batches

    rng = np.random.default_rng(0)
    n = 48 * 500
    texts = [" ".join(f"w{x}" for x in rng.integers(10**9, size=60)) for _ in range(n)]
    table = pa.table({"doc_id": [f"d{i:06d}" for i in range(n)], "title": [f"t{i}" for i in range(n)],
                      "text": texts})
    path = tmp_path / "documents.parquet"
    pq.write_table(table, path, row_group_size=500, compression="zstd")
    meta = pq.ParquetFile(path).metadata
    compressed = sum(meta.row_group(g).column(c).total_compressed_size
                     for g in range(meta.num_row_groups) for c in range(meta.num_columns))
    base = pa.total_allocated_bytes()
    held = [pa.total_allocated_bytes() - base for _ in document_batches(path, 500, False)]
    assert len(held) == 48
    assert max(held) < compressed / 4, (max(held), compressed)
    assert pa.total_allocated_bytes() - base == 0
