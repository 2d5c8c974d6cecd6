"""Logging for one Snakemake rule's script: everything, uncaught errors included, goes to its `log:` file.

In:  the path of the rule's log file (``snakemake.log[0]``).
Out: the root logger writes ``time level logger: message`` lines to that file (truncated
first, so a re-run's log holds only that run), Python warnings are captured, and an
uncaught exception is written with its full traceback before the process exits non-zero.
An expected error (:class:`evidence_ledger.errors.ExpectedError`: a bad file or setting the
user can fix, its message naming the file and line, entry or rule) is instead one line,
``error: <message>``, in the log and on the job's stderr, as on the command line
(``EVIDENCE_LEDGER_DEBUG=1`` adds the traceback). Snakemake and SLURM show a failed job's log,
so the real error is where users look.
When the process exits, one last line records what it cost (:func:`resource_usage_line`:
CPU seconds of the process and its finished children, from interpreter start, and peak
RSS), the figure ``benchmarks/demo_time.py`` sums per rule (Snakemake's own
``benchmark:`` CPU column samples the process tree and misses short-lived work).

Every rule's job calls :func:`log_to_rule_log` once and then its stage function
(:func:`evidence_ledger.jobs.stage_job.run_rule_job`).
"""
from __future__ import annotations

import atexit
import logging
import resource
import sys
from pathlib import Path

from ..errors import ExpectedError, debug_requested
from ..memory.peak_rss import own_peak_rss_kib

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_to_rule_log(path) -> logging.Logger:
    """Send logging and uncaught exceptions to ``path``; return the root logger.

    Calling it twice (e.g. from tests) replaces the earlier file handler.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_rule_log", False):
            root.removeHandler(handler)
            handler.close()
    path.write_text("", encoding="utf-8")  # truncate, then append: other writers of the log
    handler = logging.FileHandler(path, mode="a", encoding="utf-8")  # (tqdm bars) are not overwritten
    handler._rule_log = True
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught_exception
    if not getattr(log_to_rule_log, "_usage_registered", False):
        atexit.register(_log_resource_usage)
        log_to_rule_log._usage_registered = True
    return root


USAGE_PREFIX = "process resources:"


def resource_usage_line(self_usage, children_usage, self_peak_kib: int | None = None) -> str:
    """``process resources: cpu_s=C user_s=U system_s=S peak_rss_mib=M`` of two
    ``resource.getrusage`` results (the process and its finished children) and the process's
    own peak ``self_peak_kib`` (:func:`own_peak_rss_kib`; None: ``self_usage.ru_maxrss``). The
    peak is the larger of the process's and its largest child's (KiB on Linux)."""
    user = self_usage.ru_utime + children_usage.ru_utime
    system = self_usage.ru_stime + children_usage.ru_stime
    own = self_usage.ru_maxrss if self_peak_kib is None else self_peak_kib
    peak = max(own, children_usage.ru_maxrss) / 1024
    return f"{USAGE_PREFIX} cpu_s={user + system:.2f} user_s={user:.2f} system_s={system:.2f} peak_rss_mib={peak:.1f}"


def parse_resource_usage(line: str) -> dict[str, float] | None:
    """The numbers of a :func:`resource_usage_line` found in ``line`` (None if it holds none)."""
    at = line.find(USAGE_PREFIX)
    if at < 0:
        return None
    fields = dict(part.split("=", 1) for part in line[at + len(USAGE_PREFIX):].split())
    return {key: float(value) for key, value in fields.items()}


def _log_resource_usage() -> None:
    logging.getLogger("evidence_ledger").info(
        resource_usage_line(resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN),
                            own_peak_rss_kib()))


def _log_uncaught_exception(exc_type, exc, tb):
    if issubclass(exc_type, ExpectedError) and not debug_requested():
        logging.getLogger("evidence_ledger").error("error: %s", exc)
        print(f"error: {exc}", file=sys.stderr)
        return
    if not issubclass(exc_type, KeyboardInterrupt):
        logging.getLogger("evidence_ledger").critical("uncaught exception", exc_info=(exc_type, exc, tb))
    sys.__excepthook__(exc_type, exc, tb)
