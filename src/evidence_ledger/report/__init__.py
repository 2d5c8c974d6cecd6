"""Report inputs the stages do not produce themselves: provenance, per-claim traces and the
summary page (built from the other stages' report TSVs)."""
