"""Rule index_corpus: reads results/ingest/{dataset}/documents.parquet, writes the bm25s page /
abstract index directory results/retrieval/{dataset}/index/ (memory-mapped when loaded)."""
import logging

logging.basicConfig(filename=snakemake.log[0], filemode="w", level=logging.INFO,
                    format="%(asctime)s %(name)s %(levelname)s %(message)s")

from evidence_ledger.retrieval.stage import index_corpus

index_corpus(snakemake.input.documents, snakemake.output.index, **snakemake.params.bm25)
