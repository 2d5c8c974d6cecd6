"""The rows the Study 1 tables show: each quantity with what it means, in the order shown.

In:  nothing. Out: :data:`STUDY1_CELLS`, :data:`STUDY1_COMPONENTS`, :data:`STUDY1_RATES`
(label accuracy, macro-F1, eligibility) and :data:`EQ4_TERMS`, ``(quantity, meaning)`` pairs read by
the summary page's Study 1 and accounted-system sections, the item explorer, the ``items``
command and the formats of labelled prediction files (their page layout). Words only, so that a
format's facts load where the page's drawing libraries are not installed (the SLURM submit host
parses the workflow).
"""

STUDY1_CELLS = (
    ("T00", "source-0 answers scored with source-0 evidence"),
    ("T01", "source-0 answers scored with source-1 evidence"),
    ("T10", "source-1 answers scored with source-0 evidence"),
    ("T11", "source-1 answers scored with source-1 evidence"),
)
STUDY1_COMPONENTS = (
    ("gain", "T11 − T00: the whole change"),
    ("E0", "T01 − T00: evidence change, source-0 answers"),
    ("A1", "T11 − T01: answer change, source-1 evidence"),
    ("A0", "T10 − T00: answer change, source-0 evidence"),
    ("E1", "T11 − T10: evidence change, source-1 answers"),
    ("interaction", "E1 − E0"),
)
STUDY1_RATES = (
    ("accuracy_0", "label accuracy, source-0 input"),
    ("accuracy_1", "label accuracy, source-1 input"),
    ("accuracy_diff", "accuracy_1 − accuracy_0"),
    ("macro_f1_0", "macro-F1, source-0 input"),
    ("macro_f1_1", "macro-F1, source-1 input"),
    ("macro_f1_diff", "macro_f1_1 − macro_f1_0"),
    ("eligibility_0", "claims whose source-0 evidence is eligible"),
    ("eligibility_1", "claims whose source-1 evidence is eligible"),
    ("eligibility_diff", "eligibility_1 − eligibility_0"),
)
EQ4_TERMS = (
    ("direct", "E_a computed directly: mean of c_a × ΔE"),
    ("accuracy", "mean correctness c̄_a of source-a answers"),
    ("eligibility_diff", "mean eligibility change ΔĒ (source 1 − source 0)"),
    ("product", "c̄_a × ΔĒ"),
    ("covariance", "cov(c_a, ΔE) over claims"),
    ("sum", "product + covariance (= E_a)"),
)
