"""Logging for one Snakemake rule's script: everything, uncaught errors included, goes to its `log:` file.

In:  the path of the rule's log file (``snakemake.log[0]``).
Out: the root logger writes ``time level logger: message`` lines to that file (truncated
first, so a re-run's log holds only that run), Python warnings are captured, and an
uncaught exception is written with its full traceback before the process exits non-zero.
Snakemake and SLURM show a failed job's log, so the real error is where users look.

Every ``scripts/<rule>.py`` calls :func:`log_to_rule_log` once and then one stage function.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path

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
    return root


def _log_uncaught_exception(exc_type, exc, tb):
    if not issubclass(exc_type, KeyboardInterrupt):
        logging.getLogger("evidence_ledger").critical("uncaught exception", exc_info=(exc_type, exc, tb))
    sys.__excepthook__(exc_type, exc, tb)
