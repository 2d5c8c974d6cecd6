"""benchmarks/demo_time.py: the per-rule table summed from a run's benchmark files."""
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("demo_time", REPO / "benchmarks" / "demo_time.py")
demo_time = importlib.util.module_from_spec(spec)
spec.loader.exec_module(demo_time)

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write(logs: Path, rel: str, wall: float, cpu: str) -> None:
    path = logs / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{wall}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")


def test_per_rule_table_sums_jobs_of_both_log_layouts(tmp_path):
    """generate: 2 jobs, 10.5 + 20.0 = 30.5 s wall, 8 + 12 = 20 CPU s, 9.5 + 14.25 process CPU
    s from the jobs' logs (the last resource line of a log counts); provenance (a rule without
    wildcards): 1 job; an empty cpu_time and a log without the line count as 0."""
    logs = tmp_path / "logs"
    write(logs, "generation/generate/qwen3_fever_0.timing.tsv", 10.5, "8")
    write(logs, "generation/generate/qwen3_fever_1.timing.tsv", 20.0, "12")
    write(logs, "report/provenance.timing.tsv", 0.5, "")
    (logs / "generation/generate/qwen3_fever_0.log").write_text(
        "x INFO evidence_ledger: process resources: cpu_s=1.00 user_s=1.00 system_s=0.00 peak_rss_mib=1.0\n"
        "x INFO evidence_ledger: process resources: cpu_s=9.50 user_s=9.00 system_s=0.50 peak_rss_mib=300.0\n")
    (logs / "generation/generate/qwen3_fever_1.log").write_text(
        "x INFO evidence_ledger: process resources: cpu_s=14.25 user_s=14.00 system_s=0.25 peak_rss_mib=310.0\n")
    (logs / "report/provenance.log").write_text("x INFO provenance: done\n")
    rows = demo_time.per_rule_table(logs)
    assert rows == [{"rule": "generate", "jobs": 2, "wall_s": 30.5, "cpu_s": 20.0, "process_cpu_s": 23.75},
                    {"rule": "provenance", "jobs": 1, "wall_s": 0.5, "cpu_s": 0.0, "process_cpu_s": 0.0}]
    table = demo_time.markdown_table(rows)
    assert "| generate | 2 | 30.5 | 20.0 | 23.8 |" in table and "| all (3 jobs) | | 31.0 | 20.0 | 23.8 |" in table


def test_flat_logs_of_older_runs_map_to_rule_names(tmp_path):
    logs = tmp_path / "logs"
    rules = ("generate", "gather_responses", "assemble_evidence", "ingest_fever", "ingest_conflict_qa",
             "sample_claims", "train_verifier")
    cases = {"generation/generate_llama31_fever_0.benchmark.tsv": "generate",
             "evidence/feverous/assemble_evidence.benchmark.tsv": "assemble_evidence",
             "ingest/fever.benchmark.tsv": "ingest_fever",
             "ingest/nqcc.benchmark.tsv": "ingest_conflict_qa",
             "sampling/sample_fever.benchmark.tsv": "sample_claims",
             "verifier/train_verifier_ckpt3.benchmark.tsv": "train_verifier"}
    for rel, rule in cases.items():
        assert demo_time.rule_of(logs / rel, logs, rules) == rule, rel
