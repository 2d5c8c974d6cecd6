"""Evidence Ledger: fact-verification and knowledge-conflict evaluation with evidence/answer accounting.

Run:  snakemake --cores 2                     (embedded demo: config/defaults.yaml + config/demo.yaml)
      snakemake --profile workflow/profiles/default --configfile config/paper.yaml --config data_root=DIR

The run's config is built in Python, not by a `configfile:` directive, so that no flag (for
example --replace-workflow-config) can drop the defaults or bring the demo's keys into another
run: config/defaults.yaml, then config/demo.yaml only when no --configfile is given, then the
command line's files and --config values, each file read again and each --config value typed
by src/evidence_ledger/config/layers.py (a repeated key is refused, `n=100` is a number). Before
any job, the preflight checks the run (workflow/rules/common.smk; `python -m evidence_ledger
check` prints the same checks).
"""
from snakemake.utils import min_version

from evidence_ledger.config.layers import snakemake_run_config
from evidence_ledger.errors import ExpectedError

min_version("9.0")

try:
    RUN_CONFIG = snakemake_run_config(workflow.basedir, workflow.overwrite_configfiles,
                                      workflow.config_settings.config_args)
except ExpectedError as err:  # a config file or --config value that cannot be read: one line
    raise SystemExit(f"error: {err}")
config.clear()
config.update(RUN_CONFIG.config)
RUN_CONFIG.config = config


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
include: "workflow/rules/account.smk"
include: "workflow/rules/wikicontradict.smk"
include: "workflow/rules/diffgr.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        get_final_output(),
    default_target: True
