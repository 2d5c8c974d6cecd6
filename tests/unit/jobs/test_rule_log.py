"""rule_log.log_to_rule_log: a rule script's logging and uncaught errors land in its log file."""
import os
import subprocess
import sys
import textwrap


def test_uncaught_exception_is_written_to_the_rule_log_with_its_traceback(tmp_path):
    log = tmp_path / "logs" / "stage" / "rule.log"
    script = textwrap.dedent(f"""
        import logging
        from evidence_ledger.jobs.rule_log import log_to_rule_log
        log_to_rule_log({str(log)!r})
        logging.getLogger("stage").info("starting")
        def stage_function():
            raise ValueError("bad.jsonl:101: field 'label': unknown label 'MAYBE'")
        stage_function()
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 1
    text = log.read_text()
    assert "INFO stage: starting" in text
    assert "Traceback (most recent call last)" in text
    assert "in stage_function" in text
    assert "ValueError: bad.jsonl:101: field 'label': unknown label 'MAYBE'" in text


def test_a_rerun_truncates_the_previous_log(tmp_path):
    log = tmp_path / "rule.log"
    log.write_text("old run\n")
    script = f"from evidence_ledger.jobs.rule_log import log_to_rule_log; import logging; log_to_rule_log({str(log)!r}); logging.info('new run')"
    subprocess.run([sys.executable, "-c", script], check=True)
    text = log.read_text()
    assert "old run" not in text and "new run" in text


def test_python_warnings_are_captured_in_the_log(tmp_path):
    log = tmp_path / "rule.log"
    script = (f"from evidence_ledger.jobs.rule_log import log_to_rule_log; import warnings; "
              f"log_to_rule_log({str(log)!r}); warnings.warn('zero denominator')")
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
    assert "UserWarning: zero denominator" in log.read_text()


def test_the_last_log_line_records_the_process_cpu_seconds_and_peak_rss(tmp_path):
    log = tmp_path / "rule.log"
    script = (f"from evidence_ledger.jobs.rule_log import log_to_rule_log; log_to_rule_log({str(log)!r})\n"
              "x = sum(i * i for i in range(3_000_000))\n"
              "buf = b'\\1' * (200 * 1024 * 1024)\n")
    subprocess.run([sys.executable, "-c", script], check=True)
    from evidence_ledger.jobs.rule_log import parse_resource_usage
    usage = parse_resource_usage(log.read_text().splitlines()[-1])
    assert usage is not None and usage["cpu_s"] > 0.05
    assert abs(usage["cpu_s"] - usage["user_s"] - usage["system_s"]) < 0.02
    assert usage["peak_rss_mib"] >= 200


def test_resource_usage_line_sums_process_and_children_and_takes_the_larger_peak():
    from types import SimpleNamespace
    from evidence_ledger.jobs.rule_log import parse_resource_usage, resource_usage_line
    line = resource_usage_line(SimpleNamespace(ru_utime=1.5, ru_stime=0.25, ru_maxrss=2048),
                               SimpleNamespace(ru_utime=3.0, ru_stime=0.5, ru_maxrss=4096))
    assert line == "process resources: cpu_s=5.25 user_s=4.50 system_s=0.75 peak_rss_mib=4.0"
    assert parse_resource_usage("2026-12-01 INFO evidence_ledger: " + line) == {
        "cpu_s": 5.25, "user_s": 4.5, "system_s": 0.75, "peak_rss_mib": 4.0}
    assert parse_resource_usage("INFO stage: done") is None


def test_the_peak_rss_is_the_process_own_not_the_peak_of_the_parent_that_started_it(tmp_path):
    """A job started by vfork + exec from a 600 MiB parent inherits the parent's peak in its
    ``ru_maxrss``; the usage line reports the job's own peak (``VmHWM``) instead."""
    log = tmp_path / "rule.log"
    job = f"from evidence_ledger.jobs.rule_log import log_to_rule_log; log_to_rule_log({str(log)!r})"
    parent = ("import subprocess, sys\n"
              "held = b'\\1' * (600 * 1024 * 1024)\n"
              f"subprocess.run([sys.executable, '-c', {job!r}], check=True)\n")
    subprocess.run([sys.executable, "-c", parent], check=True)
    from evidence_ledger.jobs.rule_log import parse_resource_usage
    usage = parse_resource_usage(log.read_text().splitlines()[-1])
    assert usage is not None and 5 < usage["peak_rss_mib"] < 400


def test_an_expected_error_is_one_line_in_the_log_and_on_stderr_without_a_traceback(tmp_path):
    log = tmp_path / "rule.log"
    script = textwrap.dedent(f"""
        from evidence_ledger.jobs.rule_log import log_to_rule_log
        from evidence_ledger.errors import InputError
        log_to_rule_log({str(log)!r})
        raise InputError("claims.jsonl", 7, "label", "unknown label 'MAYBE'")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr == "error: claims.jsonl:7: field 'label': unknown label 'MAYBE'\n"
    text = log.read_text()
    assert "ERROR evidence_ledger: error: claims.jsonl:7: field 'label': unknown label 'MAYBE'\n" in text
    assert "Traceback" not in text
    debug = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env={**os.environ, "EVIDENCE_LEDGER_DEBUG": "1"})
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "Traceback" in log.read_text()
