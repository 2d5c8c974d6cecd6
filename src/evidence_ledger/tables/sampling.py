"""Claim families (union-find groups of dependent claims) and their links.

``results/families/{dataset}/families.parquet`` (FAMILIES) and ``family_links.parquet``
(FAMILY_LINKS), written by ``families.build_families``; the Study 2 bootstrap resamples whole
families, and the FEVEROUS sample excludes the families of reserved ids.
"""
import pyarrow as pa

from . import TableSchema


FAMILIES = TableSchema(
    name="families",
    version=1,
    written_by=("build_families",),
    doc="""One row per claim of the family population (sorted by claim id, numeric ids in
numeric order). `family_id` is the smallest member claim id under the same order, so it is
deterministic and a singleton's family id is its own claim id.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("claim_id", pa.string()),
        ("family_id", pa.string()),
    ]),
)

FAMILY_LINKS = TableSchema(
    name="family_links",
    version=1,
    written_by=("build_families",),
    doc="""One row per (a, b, reason) link that joined two claims (a < b in claim-id order).
`reason` is one of exact_match (equal after casefold and removing punctuation/whitespace),
negation_mutation (equal after removing one configured negation token), numeric_mutation
(same tokens except exactly one number token), citation (SciFact cited_doc_ids overlap;
linked to the smallest claim citing the shared document), near_duplicate (among the top-k BM25
neighbours, token-set Jaccard >= threshold). `score`: 1.0 for exact/negation/numeric links,
the Jaccard of the cited-document sets for citation links, the token Jaccard for
near_duplicate links.""",
    schema=pa.schema([
        ("dataset", pa.string()),
        ("a", pa.string()),
        ("b", pa.string()),
        ("reason", pa.string()),
        ("score", pa.float64()),
    ]),
)
