"""rule_log.log_to_rule_log: a rule script's logging and uncaught errors land in its log file."""
import subprocess
import sys
import textwrap


def test_uncaught_exception_is_written_to_the_rule_log_with_its_traceback(tmp_path):
    log = tmp_path / "logs" / "stage" / "rule.log"
    script = textwrap.dedent(f"""
        import logging
        from evidence_ledger.rule_log import log_to_rule_log
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
    script = f"from evidence_ledger.rule_log import log_to_rule_log; import logging; log_to_rule_log({str(log)!r}); logging.info('new run')"
    subprocess.run([sys.executable, "-c", script], check=True)
    text = log.read_text()
    assert "old run" not in text and "new run" in text


def test_python_warnings_are_captured_in_the_log(tmp_path):
    log = tmp_path / "rule.log"
    script = (f"from evidence_ledger.rule_log import log_to_rule_log; import warnings; "
              f"log_to_rule_log({str(log)!r}); warnings.warn('zero denominator')")
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
    assert "UserWarning: zero denominator" in log.read_text()
