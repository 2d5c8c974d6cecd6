"""Rule assemble_evidence: reads the bm25 and bge ORDERINGs, RETRIEVED, the claims (gold groups),
UNITS and the budget tokenizers; writes results/evidence/{dataset}/evidence.parquet (EVIDENCE for
every source x budget, plus the controls none / swap / gold / reversed)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.evidence.stage import assemble_evidence_file

p = snakemake.params
assemble_evidence_file(snakemake.wildcards.dataset, {"bm25": snakemake.input.bm25, "bge": snakemake.input.bge},
                       snakemake.input.retrieved, list(snakemake.input.claims), snakemake.input.units,
                       snakemake.output.evidence, dict(p.tokenizers), dict(p.budgets), dict(p.caps),
                       p.per_document, list(p.controls), p.swap_seed)
