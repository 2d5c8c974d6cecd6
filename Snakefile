"""Evidence Ledger: fact-verification and knowledge-conflict evaluation with evidence/answer accounting.

Run:  snakemake --cores 2                     (embedded demo, config/config.yaml)
      snakemake --cores 8 --configfile config/paper.yaml --profile workflow/profiles/default
"""
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/sampling.smk"
include: "workflow/rules/retrieval.smk"
include: "workflow/rules/evidence.smk"
include: "workflow/rules/generation.smk"
include: "workflow/rules/verifier.smk"
include: "workflow/rules/demo.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/accounting.smk"
include: "workflow/rules/conflict.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        get_final_output(),
    default_target: True
