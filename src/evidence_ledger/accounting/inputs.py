"""The Study 2 rules' input lists keyed by dataset (and model).

In:  a rule's list of files in panel order: one per dataset of ``datasets``, or one per dataset x
     model, dataset-major with the models in ``models`` order (``study2_inputs`` in
     workflow/rules/accounting_functions.smk).
Out: ``{dataset: path}`` (:func:`by_dataset`) or ``{dataset: {model: path}}``
     (:func:`by_dataset_and_model`); a list of another length is a ValueError naming both.
"""
from __future__ import annotations

from typing import Sequence


def by_dataset(paths: Sequence[str], datasets: Sequence[str]) -> dict[str, str]:
    """``{dataset: path}`` of a per-dataset input list in ``datasets`` order."""
    paths, datasets = list(paths), list(datasets)
    if len(paths) != len(datasets):
        raise ValueError(f"{len(paths)} files for the {len(datasets)} datasets {datasets}")
    return dict(zip(datasets, paths))


def by_dataset_and_model(paths: Sequence[str], datasets: Sequence[str], models: Sequence[str]) -> dict[str, dict]:
    """``{dataset: {model: path}}`` of a per-dataset-x-model input list, dataset-major."""
    paths, models = list(paths), list(models)
    if len(paths) != len(datasets) * len(models):
        raise ValueError(f"{len(paths)} files for the {len(datasets)} datasets x {len(models)} models")
    return {d: dict(zip(models, paths[i * len(models):(i + 1) * len(models)])) for i, d in enumerate(datasets)}
