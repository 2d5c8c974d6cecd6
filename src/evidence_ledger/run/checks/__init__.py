"""The preflight's checks, one module per area, each a list of small check functions over one
run context (:class:`~evidence_ledger.run.checks.context.RunContext`) returning
:class:`~evidence_ledger.run.checks.context.Check` rows:

* :mod:`.config`: the schema, plugins and benchmark names, the cross-key checks;
* :mod:`.paths`: where relative paths resolve, every ``data_root`` path inside it;
* :mod:`.data_files`: ``data_root`` and the first record of every file the planned jobs read;
* :mod:`.models`: every model the planned jobs load, present and complete;
* :mod:`.machine`: GPU fit, GPUs visible, the devices GPU jobs are pinned to, free disk;
* :mod:`.plan`: the planner's rows and the longest planned prompt against ``max_model_len``.

:mod:`evidence_ledger.run.preflight` runs them in that order (the workflow's start);
:mod:`evidence_ledger.commands.check` is the ``check`` command.
"""
