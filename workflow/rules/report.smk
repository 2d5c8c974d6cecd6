# Rules of the 'report' stage. Directive order: input, output, log, benchmark, params,
# threads, resources, conda, script. Config reaches scripts only through params.


report: "../report/workflow.rst"


rule provenance:
    output:
        tsv=report(
            "results/report/provenance.tsv",
            caption="../report/provenance.rst",
            category="Provenance",
        ),
    log:
        "logs/report/provenance.log",
    benchmark:
        "logs/report/provenance.benchmark.tsv"
    params:
        config=config,
        repo=workflow.basedir,
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        "../../envs/cpu.yaml"
    script:
        "../../scripts/provenance.py"


FINAL_OUTPUTS["report"] = lambda: rules.provenance.output
