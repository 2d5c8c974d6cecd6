"""Accounting of official prediction files: any system's source-0 and source-1 runs, crossed.

Modules:
  runs    the benchmark's gold file and the runs of each source (official submission formats,
          read and scored by ``evidence_ledger.scoring``) -> per-claim, per-run indicators
  kilt_runs  the same for KILT files (``scoring.kilt``): per item the answer metric and the
          R-precision of the provenance
  tables  those indicators -> the accounting tables the pipeline's Study 1 writes (ESTIMATES,
          CLUSTER_COUNTS, COVERAGE, INTERVALS, the answer-metric rows), with paired intervals
  write   the tables, their report TSVs, the summary page and ledger.json under one directory;
          the terminal table
  cli     ``python -m evidence_ledger account {fever,feverous,scifact,kilt} ...``
  stage   the rule function of the pipeline's route (``account_system``, config ``external``)
"""
