"""Rule build_families: claim families of one dataset (union-find with a reason per link).

Reads:  snakemake.input.claims (CLAIMS parquet files of the family population, e.g. FEVEROUS
        dev + pool); params.dataset, params.negation_tokens, params.top_k, params.threshold.
Writes: snakemake.output.families (FAMILIES), output.links (FAMILY_LINKS), output.summary
        (TSV: family size -> count, links per reason); log to snakemake.log[0].
"""
import logging
from collections import Counter

from tqdm import tqdm

from evidence_ledger.families import build_family_links, families_rows, family_population, family_sizes
from evidence_ledger.tables import read_table, write_table
from evidence_ledger.tables.ingest import CLAIMS
from evidence_ledger.tables.sampling import FAMILIES, FAMILY_LINKS

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
dataset = snakemake.params.dataset
ids, texts, cited = family_population([read_table(p, CLAIMS) for p in snakemake.input.claims])
logging.info("%s: %d claims in the family population", dataset, len(ids))
with open(snakemake.log[0], "a") as log_handle, tqdm(total=len(ids), desc="near-duplicates", file=log_handle) as bar:
    links = build_family_links(ids, texts, cited, snakemake.params.negation_tokens, snakemake.params.top_k,
                               snakemake.params.threshold, progress=bar.update)
fam_rows, link_rows = families_rows(dataset, ids, links)
write_table(FAMILIES.from_rows(fam_rows), snakemake.output.families, FAMILIES)
write_table(FAMILY_LINKS.from_rows(link_rows), snakemake.output.links, FAMILY_LINKS)
sizes = family_sizes(r["family_id"] for r in fam_rows)
reasons = Counter(r["reason"] for r in link_rows)
with open(snakemake.output.summary, "w") as out:
    out.write("kind\tkey\tcount\n")
    out.write(f"claims\tall\t{len(ids)}\n")
    out.write(f"families\tall\t{sum(sizes.values())}\n")
    for size, count in sizes.items():
        out.write(f"family_size\t{size}\t{count}\n")
    for reason in sorted(reasons):
        out.write(f"links\t{reason}\t{reasons[reason]}\n")
logging.info("%d families, links %s", sum(sizes.values()), dict(reasons))
