"""Warnings as lines on stderr: what ``score`` and ``account`` say of the files they read.

In:  the warnings given inside :func:`warnings_as_lines`.
Out: one ``warning: MESSAGE`` line each on stderr, none left out as a repeat.
"""
from __future__ import annotations

import contextlib
import sys
import warnings


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr)


@contextlib.contextmanager
def warnings_as_lines():
    """Every warning given inside as one ``warning: MESSAGE`` line on stderr, none left out as a
    repeat (the ``score`` and ``account`` commands)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _warning_to_stderr
        yield
