"""Lexical tokenisation for every BM25 in the pipeline (corpus index and within-pool).

In: a string. Out: a list of lower-case word tokens.

Rule: Unicode case-folding, tokens are maximal runs of word characters (``\\w+``, so
digits and one-letter words are kept: numbers matter in claims), English stop words
(bm25s' ``STOPWORDS_EN`` list) removed, no stemming. The same function tokenises the
query (the claim) and the documents, so a query term matches exactly the document terms
with the same case-folded spelling.
"""
from __future__ import annotations

import re

from bm25s.stopwords import STOPWORDS_EN

TOKEN_PATTERN = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(STOPWORDS_EN)
TOKENISATION = "casefold, regex \\w+ (unicode), bm25s STOPWORDS_EN removed, no stemming"


def bm25_tokens(text: str) -> list[str]:
    """Tokens of ``text`` for BM25: case-folded ``\\w+`` runs minus English stop words."""
    return [t for t in TOKEN_PATTERN.findall(text.casefold()) if t not in STOPWORDS]
