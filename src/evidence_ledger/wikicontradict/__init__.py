"""WikiContradict: answers of readers given two contradicting passages, judged by an LLM.

Modules:
* ``prompts``: prompt templates as versioned data and prompt rendering.
* ``judge``: the WikiContradictEval few-shot judge prompt and its strict output parser.
* ``run``: request, response and judge rows of the rules.
* ``metrics``: per model x template rates, conflict detection, judge agreement.
* ``stage``: the rule functions (``workflow/rules/wikicontradict.smk``).
"""
