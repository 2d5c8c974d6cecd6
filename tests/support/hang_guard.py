"""The one time limit of the tests' subprocesses (Snakemake runs, dry runs, CLI calls).

It is a hang guard, never a speed check: a test whose child hangs fails instead of the CI
job, while a run that takes minutes on an idle machine and several times that on a loaded
one still passes. Every ``subprocess`` call of ``tests/workflow`` and ``tests/benchmarks``
uses it (``tests/adversarial/test_test_suite_hygiene.py`` checks that no smaller literal
limit comes back).
"""

HANG_GUARD_S = 3600
