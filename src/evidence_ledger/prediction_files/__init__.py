"""Prediction files of any system, read through their format and accounted: source-0 and source-1 runs, crossed.

Modules:
  format_registry  the formats ``account`` reads (:class:`AccountedFormat`), one module each under
                   ``formats/`` (FEVER, FEVEROUS, SciFact, KILT; plugins from config
                   ``benchmark_plugins``): reading and scoring a file per item, options, titles,
                   config entry checks
  item_scores      one file scored per gold item (what a format hands the reader)
  labelled_claims  the part of the FEVER and FEVEROUS formats that is not the benchmark's
  options          argument types of the scorers' options on the command line
  runs             the runs of both sources read and scored (one process pool for every format)
                   -> per-item, per-run numerators, denominators, answer and evidence scores
  tables           those numbers -> the accounting tables the pipeline's Study 1 writes
                   (ESTIMATES, CLUSTER_COUNTS, COVERAGE, INTERVALS, the answer-metric rows), with
                   paired intervals
  write            the tables, their report TSVs, the summary page and ledger.json under one
                   directory; the terminal table
  stage            the rule function of the pipeline's route (``account_system``, config ``external``)

The ``account`` and ``score`` commands are ``evidence_ledger.commands.account`` and ``.score``.
"""
