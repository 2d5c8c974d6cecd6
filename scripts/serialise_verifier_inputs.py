"""Rule serialise_verifier_inputs: verifier inputs (<= 512 tokens) of one split per source.

Reads:  snakemake.input.claims (CLAIMS of the split), snakemake.input.units (UNITS),
        snakemake.input.evidence (provider EVIDENCE tables, in params.sources order),
        the base model's tokenizer (params.base: Hub id + revision, or the demo directory);
        params.limits (config verifier.input).
Writes: snakemake.output[0] (VERIFIER_INPUTS); log to snakemake.log[0].
"""
import logging

from tqdm import tqdm

from evidence_ledger.verifier.serialise import SerialisationLimits, run_serialise
from evidence_ledger.verifier.train import BaseModel

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(message)s")
sources = list(snakemake.params.sources)
evidence = list(snakemake.input.evidence)
if len(sources) != len(evidence):
    raise ValueError(f"{len(sources)} sources but {len(evidence)} evidence tables")
run_serialise(snakemake.input.claims, snakemake.input.units, dict(zip(sources, evidence)),
              BaseModel(**snakemake.params.base), SerialisationLimits(**snakemake.params.limits),
              snakemake.wildcards.split, snakemake.output[0],
              progress=lambda it, desc: tqdm(it, desc=desc, mininterval=5), log=logging.getLogger("serialise"))
