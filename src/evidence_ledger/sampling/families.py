"""Claim families: union-find over claims with a saved reason for every link.

In:  claims as parallel lists (claim ids, claim texts, cited document ids) and the settings
     (negation tokens, number of BM25 neighbours, near-duplicate threshold).
Out: FAMILY_LINKS rows ``(a, b, reason, score)`` and FAMILIES rows ``(claim_id, family_id)``
     (``tables.sampling``), both sorted deterministically.

Link rules (each recorded with its reason; a pair can carry several reasons):
* ``exact_match``: equal after ``normalise_claim`` (NFKC, casefold, punctuation removed,
  whitespace collapsed).
* ``negation_mutation``: one claim's token sequence equals the other's with exactly one
  negation token (configured list, e.g. ``not``, ``never``) removed.
* ``numeric_mutation``: same number of tokens, equal everywhere except exactly one position
  where both tokens are numbers (digits with optional ``.``/``,`` groups) and differ.
* ``citation``: the claims share a cited document (SciFact ``cited_doc_ids``); each claim
  citing document d is linked to the smallest claim citing d, score = Jaccard of the two
  cited sets.
* ``near_duplicate``: b is among a's top-k BM25 neighbours (bm25s index, Lucene BM25;
XX
  |A ∩ B| / |A ∪ B| of the two claims is >= the threshold; score = that Jaccard.
Groups of exact/mutation matches are linked as a star to their smallest member, so a group of
n claims contributes n-1 links. ``family_id`` = smallest member id (``claim_sort_key`` order).
"""
from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter, defaultdict
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

LOG = logging.getLogger(__name__)
_TOKEN = re.compile(r"\w+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def claim_sort_key(claim_id: str):
    """Numeric ids in numeric order, before any non-numeric id (which sort as strings)."""
    return (0, int(claim_id), "") if claim_id.isdigit() else (1, 0, claim_id)


def normalise_claim(text: str) -> str:
    """NFKC, casefold, drop punctuation (Unicode category P*), collapse whitespace."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text)
    return " ".join(text.split())


def claim_tokens(text: str) -> list[str]:
    """Word tokens of the casefolded claim; numbers keep their ``.``/``,`` groups (``1,000``).
    Apostrophes split words (``isn't`` -> ``isn``, ``t``)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def is_number(token: str) -> bool:
    return _NUMBER.fullmatch(token) is not None


class UnionFind:
    """Union-find over string ids; the root of a set is its smallest id (``claim_sort_key``)."""

    def __init__(self, ids: Iterable[str]):
        self.parent = {i: i for i in ids}

    def find(self, x: str) -> str:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if claim_sort_key(rb) < claim_sort_key(ra):
            ra, rb = rb, ra
        self.parent[rb] = ra


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if claim_sort_key(a) <= claim_sort_key(b) else (b, a)


def _star_links(groups: dict, reason: str) -> list[tuple[str, str, str, float]]:
    """Link every member of each group (size >= 2) to the group's smallest member."""
    links = []
    for members in groups.values():
        members = sorted(set(members), key=claim_sort_key)
        for other in members[1:]:
            links.append((members[0], other, reason, 1.0))
    return links


def exact_match_links(ids: Sequence[str], texts: Sequence[str]):
    groups = defaultdict(list)
    for cid, text in zip(ids, texts):
        groups[normalise_claim(text)].append(cid)
    return _star_links(groups, "exact_match")


def negation_mutation_links(ids: Sequence[str], tokens: Sequence[list[str]], negation_tokens: Iterable[str]):
    """Pairs (x, y) where removing one negation token from y's tokens gives x's tokens."""
    negations = {t.casefold() for t in negation_tokens}
    by_tokens = defaultdict(list)
    for cid, toks in zip(ids, tokens):
        by_tokens[tuple(toks)].append(cid)
    links = set()
    for cid, toks in zip(ids, tokens):
        for i, tok in enumerate(toks):
            if tok in negations:
                for other in by_tokens.get(tuple(toks[:i] + toks[i + 1:]), ()):
                    if other != cid:
                        a, b = _ordered(cid, other)
                        links.add((a, b, "negation_mutation", 1.0))
    return sorted(links, key=lambda l: (claim_sort_key(l[0]), claim_sort_key(l[1])))


def numeric_mutation_links(ids: Sequence[str], tokens: Sequence[list[str]]):
    """Claims equal except for one number token at the same position (and that number differs)."""
    groups = defaultdict(list)
    for cid, toks in zip(ids, tokens):
        for i, tok in enumerate(toks):
            if is_number(tok):
                groups[(i, tuple(toks[:i]), tuple(toks[i + 1:]))].append((cid, tok))
    links = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        members = sorted(members, key=lambda m: claim_sort_key(m[0]))
        # star over distinct numbers: claims with the same number here are exact matches, not mutations
        first_by_number = {}
        for cid, num in members:
            first_by_number.setdefault(num, cid)
        if len(first_by_number) < 2:
            continue
        hub_id, hub_num = members[0]
        for cid, num in members[1:]:
            if num != hub_num:
                a, b = _ordered(hub_id, cid)
                links.add((a, b, "numeric_mutation", 1.0))
            else:
                other = next(c for n, c in first_by_number.items() if n != hub_num)
                a, b = _ordered(other, cid)
                links.add((a, b, "numeric_mutation", 1.0))
    return sorted(links, key=lambda l: (claim_sort_key(l[0]), claim_sort_key(l[1])))


def citation_links(ids: Sequence[str], cited: Sequence[Sequence[str]]):
    by_doc = defaultdict(list)
    for cid, docs in zip(ids, cited):
        for d in set(docs):
            by_doc[d].append(cid)
    cited_sets = {cid: set(docs) for cid, docs in zip(ids, cited)}
    links = {}
    for doc in sorted(by_doc):
        members = sorted(set(by_doc[doc]), key=claim_sort_key)
        for other in members[1:]:
            a, b = members[0], other
            sa, sb = cited_sets[a], cited_sets[b]
            links[(a, b)] = (a, b, "citation", len(sa & sb) / len(sa | sb))
    return sorted(links.values(), key=lambda l: (claim_sort_key(l[0]), claim_sort_key(l[1])))


def token_jaccard(a: set, b: set) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def bm25_score_matrix(tokens: Sequence[list[str]]):
    """Sparse (claims x vocabulary) BM25 term-score matrix of the claims, from a bm25s index
    (Lucene BM25, whose IDF log(1 + (N - df + 0.5)/(df + 0.5)) stays positive even in tiny
    corpora; k1=1.5, b=0.75), and the token -> column map."""
    import bm25s
    import scipy.sparse as sp

    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index([t if t else ["<empty>"] for t in tokens], show_progress=False)
    sc = retriever.scores
    matrix = sp.csc_matrix((sc["data"], sc["indices"], sc["indptr"]),
                           shape=(sc["num_docs"], len(sc["indptr"]) - 1)).tocsr()
    return matrix, retriever.vocab_dict


def bm25_top_neighbours(tokens: Sequence[list[str]], top_k: int, batch: int = 512, progress=None):
    """For each claim, the indices of its ``top_k`` highest-scoring other claims.

    Query = the claim's tokens (repeated tokens count again, as in bm25s), corpus = all
    claims. Ranking: BM25 score descending, ties by claim position, the claim itself
    excluded; claims with zero score are not neighbours. Scores are computed in batches as a
    sparse product, so 10k claims take seconds.
    """
    import scipy.sparse as sp

    n = len(tokens)
    matrix, vocab = bm25_score_matrix(tokens)
    rows, cols = [], []
    for qi, toks in enumerate(tokens):
        for tok in toks:
            rows.append(qi)
            cols.append(vocab[tok])
    queries = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, matrix.shape[1]))
    out: list[list[int]] = []
    for start in range(0, n, batch):
        stop = min(start + batch, n)
        scores = np.asarray((queries[start:stop] @ matrix.T).todense())
        scores[np.arange(stop - start), np.arange(start, stop)] = -np.inf  # not its own neighbour
        k = min(top_k, n - 1)
        kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1]
        for row in range(stop - start):
            cand = np.flatnonzero((scores[row] >= kth[row]) & (scores[row] > 0))
            order = np.lexsort((cand, -scores[row, cand]))
            out.append([int(c) for c in cand[order][:k]])
        if progress is not None:
            progress(stop - start)
    return out


def near_duplicate_links(ids: Sequence[str], tokens: Sequence[list[str]], top_k: int, threshold: float,
                         progress=None):
    """Pairs among each claim's top-``top_k`` BM25 neighbours with token Jaccard >= ``threshold``.

    Neighbours from ``bm25_top_neighbours``; claims with no tokens have no near-duplicates.
    """
    n = len(ids)
    if n < 2 or top_k < 1:
        return []
    sets = [set(t) for t in tokens]
    links = {}
    for qi, neighbours in enumerate(bm25_top_neighbours(tokens, top_k, progress=progress)):
        if not tokens[qi]:
            continue
        for dj in neighbours:
            if not tokens[dj]:
                continue
            score = token_jaccard(sets[qi], sets[dj])
            if score >= threshold:
                a, b = _ordered(ids[qi], ids[dj])
                links[(a, b)] = (a, b, "near_duplicate", score)
    return sorted(links.values(), key=lambda l: (claim_sort_key(l[0]), claim_sort_key(l[1])))


def build_family_links(ids: Sequence[str], texts: Sequence[str], cited: Sequence[Sequence[str]] | None,
                       negation_tokens: Iterable[str], top_k: int, threshold: float,
                       progress=None) -> list[tuple[str, str, str, float]]:
    """All links, sorted by (a, b, reason). ``cited`` None or all-empty adds no citation links."""
    if len(set(ids)) != len(ids):
        raise ValueError("claim ids must be unique to build families")
    tokens = [claim_tokens(t) for t in texts]
    links = exact_match_links(ids, texts)
    links += negation_mutation_links(ids, tokens, negation_tokens)
    links += numeric_mutation_links(ids, tokens)
    if cited is not None:
        links += citation_links(ids, cited)
    links += near_duplicate_links(ids, tokens, top_k, threshold, progress)
    links = sorted(set(links), key=lambda l: (claim_sort_key(l[0]), claim_sort_key(l[1]), l[2]))
    LOG.info("%d claims, %d links", len(ids), len(links))
    return links


def assign_families(ids: Sequence[str], links) -> dict[str, str]:
    """claim id -> family id (smallest member id) from the union of all links."""
    uf = UnionFind(ids)
    for a, b, _reason, _score in links:
        uf.union(a, b)
    return {cid: uf.find(cid) for cid in ids}


def families_rows(dataset: str, ids: Sequence[str], links) -> tuple[list[dict], list[dict]]:
    """(FAMILIES rows sorted by claim id, FAMILY_LINKS rows in link order)."""
    family = assign_families(ids, links)
    fam_rows = [{"dataset": dataset, "claim_id": cid, "family_id": family[cid]}
                for cid in sorted(ids, key=claim_sort_key)]
    link_rows = [{"dataset": dataset, "a": a, "b": b, "reason": r, "score": float(s)} for a, b, r, s in links]
    return fam_rows, link_rows


def family_sizes(family_ids: Iterable[str]) -> dict[int, int]:
    """Family size -> number of families of that size."""
    counts = defaultdict(int)
    for fid in family_ids:
        counts[fid] += 1
    out = defaultdict(int)
    for size in counts.values():
        out[size] += 1
    return dict(sorted(out.items()))


def family_population(tables) -> tuple[list[str], list[str], list[list[str]]]:
    """(ids, texts, cited ids) of the union of several CLAIMS tables (e.g. FEVEROUS dev + pool).

    A claim id present in several tables must carry the same claim text (it is kept once, at
    its first occurrence); different texts raise ``ValueError`` naming both source files.
    """
    ids, texts, cited, where = [], [], [], {}
    for table in tables:
        for row in table.select(["claim_id", "claim", "cited_doc_ids", "source_file", "source_line"]).to_pylist():
            cid = row["claim_id"]
            if cid in where:
                first_text, first_src = where[cid]
                if first_text != row["claim"]:
                    raise ValueError(f"claim id {cid} has different texts in {first_src} and "
                                     f"{row['source_file']}:{row['source_line']}")
                continue
            where[cid] = (row["claim"], f"{row['source_file']}:{row['source_line']}")
            ids.append(cid)
            texts.append(row["claim"])
            cited.append(row["cited_doc_ids"] or [])
    return ids, texts, cited


def families_summary_table(n_claims: int, family_rows: list[dict], link_rows: list[dict]) -> pd.DataFrame:
    """The families summary report table (``kind``, ``key``, ``count``): claims, families, one
    row per family size (ascending) and per link reason (sorted)."""
    sizes = family_sizes(r["family_id"] for r in family_rows)
    reasons = Counter(r["reason"] for r in link_rows)
    rows = [("claims", "all", n_claims), ("families", "all", sum(sizes.values()))]
    rows += [("family_size", str(size), count) for size, count in sizes.items()]
    rows += [("links", reason, reasons[reason]) for reason in sorted(reasons)]
    return pd.DataFrame(rows, columns=["kind", "key", "count"])
