"""The sampling rules, one keyword-only function each (paths and plain values in, files out).

  build_families  CLAIMS tables of the family population -> FAMILIES, FAMILY_LINKS, summary TSV
  sample_claims   CLAIMS of the sampled split (+ FAMILIES and reserved ids) -> sample CLAIMS, summary TSV
"""
from __future__ import annotations

import logging
from collections import Counter

from tqdm import tqdm

from ..datasets.feverous import read_id_list
from ..tables.report_tsv import write_report_tsv
from ..tables import read_table, write_table
from ..tables.ingest import CLAIMS
from ..tables.sampling import FAMILIES, FAMILY_LINKS
from . import families as _families
from . import sample as _sample

log = logging.getLogger(__name__)


def build_families(*, claims: list, families: str, links: str, summary: str, dataset: str,
                   negation_tokens: list, top_k: int, threshold: float) -> None:
    """Claim families of the CLAIMS tables ``claims`` (union-find, a reason per link) ->
    FAMILIES ``families``, FAMILY_LINKS ``links`` and the ``summary`` TSV."""
    ids, texts, cited = _families.family_population([read_table(p, CLAIMS) for p in claims])
    log.info("%s: %d claims in the family population", dataset, len(ids))
    with tqdm(total=len(ids), desc="near-duplicates", mininterval=10) as bar:
        family_links = _families.build_family_links(ids, texts, cited, negation_tokens, top_k, threshold,
                                                    progress=bar.update)
    fam_rows, link_rows = _families.families_rows(dataset, ids, family_links)
    write_table(FAMILIES.from_rows(fam_rows), families, FAMILIES)
    write_table(FAMILY_LINKS.from_rows(link_rows), links, FAMILY_LINKS)
    write_report_tsv(_families.families_summary_table(len(ids), fam_rows, link_rows), summary)
    n_families = len({r["family_id"] for r in fam_rows})
    log.info("%d families, links %s", n_families, dict(Counter(r["reason"] for r in link_rows)))


def sample_claims(*, claims: str, families=None, reserved=None, sample: str, summary: str, method: str,
                  salt: str, n) -> None:
    """The Study 2 population of the CLAIMS table ``claims`` -> CLAIMS ``sample`` and the key/value
    ``summary`` TSV. With ``reserved`` (reserved claim ids, one per line) the ``families``
    (FAMILIES) holding them are excluded first. ``n`` None: every eligible claim."""
    claim_table = read_table(claims, CLAIMS)
    family_of, reserved_ids = None, []
    if reserved is not None:
        reserved_ids = read_id_list(reserved)
        fam = read_table(families, FAMILIES)
        family_of = dict(zip(fam.column("claim_id").to_pylist(), fam.column("family_id").to_pylist()))
    selected, counts = _sample.sample_claims(claim_table, salt, n, method, family_of, reserved_ids)
    write_table(selected, sample, CLAIMS)
    write_report_tsv(_sample.summary_table(counts), summary)
    log.info("%s", counts)
    if counts["requested"] > counts["selected"]:
        log.warning("requested %d claims but only %d are eligible: all selected",
                    counts["requested"], counts["selected"])
