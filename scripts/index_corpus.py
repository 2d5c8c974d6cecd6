"""Rule index_corpus: results/ingest/{dataset}/documents.parquet (DOCUMENTS) -> the bm25s page /
abstract index directory results/retrieval/{dataset}/index/ (memory-mapped when loaded)."""
from evidence_ledger.jobs.rule_log import log_to_rule_log
from evidence_ledger.retrieval.stage import index_corpus

log_to_rule_log(snakemake.log[0])
index_corpus(documents=snakemake.input.documents, index=snakemake.output.index, method=snakemake.params.method,
             k1=snakemake.params.k1, b=snakemake.params.b)
