"""The peak resident memory of this process, as Linux counts it for the process's own address space.

In:  nothing (``/proc/self/status``, else ``resource.getrusage``).
Out: the peak in KiB (:func:`own_peak_rss_kib`) or MiB (:func:`peak_rss_mib`). Read by the rule
log's last line (:mod:`evidence_ledger.jobs.rule_log`), the corpus index's progress lines
(:mod:`evidence_ledger.retrieval.lean_index`) and the memory benchmarks (``benchmarks/``).
"""
from __future__ import annotations

import resource


def high_water_kib(status_text: str) -> int | None:
    """``VmHWM`` (peak resident set of the process's own address space, KiB) of a
    ``/proc/<pid>/status`` text; None when the text has no such line."""
    for line in status_text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def own_peak_rss_kib() -> int:
    """This process's peak resident set in KiB: Linux's ``VmHWM`` where ``/proc`` has it, else
    ``ru_maxrss``. ``ru_maxrss`` alone is not this process's own: a process started by
    vfork + exec (Python's ``subprocess`` on Linux, and so every Snakemake job and every
    benchmark child) starts with its parent's peak as its own, so a 230 MiB job under a 700 MiB
    parent reports 700 MiB. ``VmHWM`` counts only the address space the process executes in."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            kib = high_water_kib(status.read())
    except OSError:
        kib = None
    return kib if kib is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss_mib() -> float:
    """:func:`own_peak_rss_kib` in MiB."""
    return own_peak_rss_kib() / 1024
