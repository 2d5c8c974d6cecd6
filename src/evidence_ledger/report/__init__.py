"""Report inputs the stages do not produce themselves: provenance and per-claim traces."""
