"""Evidence Ledger: evaluation pipeline library (ingestion, retrieval, generation, scoring, accounting)."""

__version__ = "0.1.0"
