"""Evidence/answer accounting ("What Changes When Fact-Verification Scores Improve?", Study 1): cross-scoring T_ab from saved indicators, exactly.

Modules, in the order the rules use them:

* ``metrics``: how a panel's summed counts make a score (strict, F1, and those formats register).
* ``panel``: indicator tables -> per-cluster count arrays (:class:`~.panel.CountPanel`; integer,
  float64 for continuous numerators) and back from CLUSTER_COUNTS rows.
* ``estimands``: cells, contrasts, the quantity lists and the comparison families.
* ``estimates``: exact point estimates (T cells, components, factor effects, Eq. 4, ...).
* ``patterns``: invalid-answer rates and (1,0,1,0)/(0,1,0,1) pattern traces.
* ``reference``: paper reference values (``resources/reference/paper_values.tsv``).
* ``answer_scores``: the answer score, the evidence score and the eligibility per source of
  runs scored per item (KILT's answer metric and R-precision, ``account kilt``), with Eq. 4 and
  paired intervals.
* ``intervals``: bootstrap intervals of count panels per comparison family (the generic
  bootstrap itself is ``evidence_ledger.resampling.bootstrap``).
* ``decisions``: the Study 2 decision labels and Figure 1.
* ``stage``: the rule functions (study1_accounting, study1_bootstrap, study2_accounting,
  study2_bootstrap, decision_labels, study2_forest_plot).
"""
