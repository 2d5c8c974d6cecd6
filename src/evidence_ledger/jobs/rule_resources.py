"""Resources of the data-path rules from the size of their inputs (Snakemake ``resources``).

In:  a rule name and the rule's input paths (files or directories, e.g. FEVER's wiki-pages
     directory or a corpus index directory): all of them, or the named inputs its model is
     sized by (the rules after the pools read only the pooled units of UNITS, so their memory
     follows the POOLS / ORDERING files, not the corpus).
Out: ``mem_mb``, ``runtime`` (minutes) and ``disk_mb`` for that job: ``base + per_mb x
     input MB`` each, rounded up, never below the base; ``mem_mb`` at most the model's
     ``mem_max`` where it has one (the index, whose memory stops growing with the matrix).

The coefficients come from ``benchmarks/scale.py`` (synthetic FEVER and FEVEROUS releases in
the official formats, each rule function in its own process, peak RSS / CPU / output size
fitted linearly on input MB; see docs/scale.md for the measured numbers and how the margins
were chosen). Memory: a base of 450-700 MB (the interpreter and libraries take ~180-300 MB)
plus the fitted slope x ~1.7, so the declared mem_mb is 1.5-3x the measured peak at every
measured size (``benchmarks/scale.py``'s ``declared_against_measured``, checked against the
committed results by ``tests/benchmarks/test_scale.py``). Runtime: the fitted CPU slope x 3 (a shared
or slower node), at least 10 minutes. Disk: the outputs' size relative to the inputs, x 1.5.
Snakemake's own ``input.size_mb`` counts a directory as its inode (4 kB), so directories are
walked here.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable


@dataclass(frozen=True)
class SizeModel:
    """``value = base + per_mb * input_mb`` for memory (MB), runtime (minutes) and disk (MB)."""

    mem_base: float
    mem_per_mb: float
    runtime_base: float
    runtime_per_mb: float
    disk_base: float
    disk_per_mb: float
    mem_max: float | None = None
    sized_by: tuple[str, ...] | None = None  # the named inputs counted (None: every input)


# Measured by benchmarks/scale.py (benchmarks/results/scale.json); docs/scale.md has the table.
MODELS: dict[str, SizeModel] = {
    # FEVER / FEVEROUS release (claims + wiki) -> UNITS, DOCUMENTS, CLAIMS: flat memory (streaming)
    # (measured 184-313 MiB from 0.1 to 5.1 GB of release)
    "ingest": SizeModel(mem_base=450, mem_per_mb=0.02, runtime_base=10, runtime_per_mb=0.005,
                        disk_base=50, disk_per_mb=0.9),
    # DOCUMENTS (zstd Parquet) -> bm25s index: max(pass 1: the vocabulary, pass 2: one block of
    # at most 512 MiB of the matrix + 36 B a term) + one batch; measured peaks 338-1,072 MiB at
    # 24-314 MB of DOCUMENTS (docs/scale.md: declared / measured 1.6-2.9). Capped at 3,000 MB:
    # the memory model's full-corpus peaks are 1.6 GiB (FEVEROUS) and 0.9 GiB (FEVER), so the
    # cap is 1.8x / 3.1x of them, where the linear term would ask for ~23 GB / ~6 GB.
    "index_corpus": SizeModel(mem_base=700, mem_per_mb=4, runtime_base=10, runtime_per_mb=0.025,
                              disk_base=50, disk_per_mb=4.5, mem_max=3000),
    # index (memory-mapped, pages released per claim; claims' vocabulary entries, doc-id offsets)
    # + claims + UNITS (filtered reads): 0.03-0.05 MiB per input MB
    "retrieve": SizeModel(mem_base=600, mem_per_mb=0.1, runtime_base=10, runtime_per_mb=0.01,
                          disk_base=50, disk_per_mb=0),
    # RETRIEVED + UNITS (filtered reads of the retrieved pages)
    "build_pools": SizeModel(mem_base=600, mem_per_mb=0.2, runtime_base=10, runtime_per_mb=0.005,
                             disk_base=50, disk_per_mb=0),
    # The rules after the pools hold each claim's pool and its passages: sized by the POOLS /
    # ORDERING files (claims x units), not by UNITS, of which they read only the pooled units.
    # Measured 295-416 MiB at 2,000 claims (0.29-0.61 MB of POOLS), flat in corpus size.
    "order_bm25": SizeModel(mem_base=600, mem_per_mb=300, runtime_base=10, runtime_per_mb=20,
                            disk_base=50, disk_per_mb=2, sized_by=("pools",)),
    # As order_bm25 plus the cross-encoder. Sized for BAAI/bge-reranker-base on the CPU, the
    # larger case (278M parameters in fp32, its 250,002-piece tokenizer: ~0.6 GiB loaded) + the
    # torch / CUDA host libraries: the stand-in's measured peak plus the base model's difference
    # (docs/scale.md, "The rules after the pools"), 2.0-2.2x at every measured size.
    "order_bge": SizeModel(mem_base=7000, mem_per_mb=1000, runtime_base=20, runtime_per_mb=100,
                           disk_base=50, disk_per_mb=2, sized_by=("pools",)),
    # Both orderings' units x budgets x controls, the budget tokenizers: measured 696-892 MiB at
    # 2,000 claims (0.6-1.2 MB of the two ORDERING files).
    "assemble_evidence": SizeModel(mem_base=1200, mem_per_mb=500, runtime_base=10, runtime_per_mb=60,
                                   disk_base=50, disk_per_mb=10, sized_by=("bm25", "bge")),
}


def input_mb(paths: Iterable) -> float:
    """Total size in MB (10^6 bytes) of ``paths``: files, and every file under a directory;
    missing paths count 0 (a dry run before the inputs exist)."""
    total = 0
    for path in paths:
        path = Path(str(path))
        if path.is_dir():
            for root, _dirs, files in os.walk(path):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        elif path.exists():
            total += path.stat().st_size
    return total / 1e6


def rule_resources(rule: str, paths: Iterable) -> dict[str, int]:
    """``{"mem_mb", "runtime", "disk_mb"}`` of a job of ``rule`` (a key of :data:`MODELS`) whose
    inputs are ``paths``."""
    return resources_for_mb(rule, input_mb(paths))


def resources_for_mb(rule: str, mb: float) -> dict[str, int]:
    """``{"mem_mb", "runtime", "disk_mb"}`` of a job of ``rule`` whose counted inputs total
    ``mb`` MB."""
    model = MODELS[rule]
    mem = math.ceil(model.mem_base + model.mem_per_mb * mb)
    return {
        "mem_mb": mem if model.mem_max is None else min(mem, math.ceil(model.mem_max)),
        "runtime": math.ceil(model.runtime_base + model.runtime_per_mb * mb),
        "disk_mb": math.ceil(model.disk_base + model.disk_per_mb * mb),
    }


def sizing_inputs(rule: str, job_input) -> list:
    """The inputs of a job of ``rule`` its model counts: the named ones of ``sized_by`` (each a
    path or a list of paths), else every input."""
    names = MODELS[rule].sized_by
    if names is None:
        return list(job_input)
    paths = []
    for name in names:
        value = job_input[name]
        paths += [value] if isinstance(value, (str, os.PathLike)) else list(value)
    return paths


def resource(rule: str, name: str):
    """A Snakemake resource callable ``(wildcards, input) -> int``: :func:`rule_resources`'s
    ``name`` (mem_mb, runtime or disk_mb) for ``rule`` from the job's inputs (those its model
    is sized by)."""
    def of_job(wildcards, input):
        return rule_resources(rule, sizing_inputs(rule, input))[name]
    of_job.__name__ = f"{rule}_{name}"
    return of_job


def ingest_resource(fixed: dict | None, name: str):
    """Resource ``name`` of a benchmark's ingest rule: its registry entry's fixed value when it has
    ``ingest_resources`` (``fixed``; disk_mb defaults to 1000), else a callable sizing it from the
    job's input (model ``ingest``, the streaming wiki readers)."""
    if fixed is None:
        return resource("ingest", name)
    return fixed.get(name, 1000)
