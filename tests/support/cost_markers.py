"""The markers that say what a test costs, and the checks that a costly start is marked: a pytest
plugin (tests/conftest.py loads it).

``workflow`` (starts Snakemake), ``vllm`` (starts a vLLM server or engine) and ``slurm`` (starts
a SLURM cluster) keep a test out of the fast tier, ``pytest -m "not workflow and not vllm and not
slurm"`` (README "Tests and benchmarks"). The plugin records which test is running
(:func:`running`); whatever starts Snakemake, a server or a cluster calls
:func:`refuse_unless_marked` first, which raises :class:`UnmarkedCost` - before anything starts -
when the running test carries none of the markers named. A session fixture is set up inside the
first test that asks for it, so that test is the one checked; the tests that only read a
fixture's run are checked at collection: a test using a fixture tagged with :func:`costs`
without one of its markers stops the session (:func:`unmarked_readers`). Outside a test session
nothing is checked, nor inside :func:`for_the_tests_that_read_it`: a run started at the session's
start for marked tests that will read it (support/session_runs.py), whatever test happens to be first.
"""
from __future__ import annotations

from contextlib import contextmanager

import pytest

#: the cost markers, as pyproject.toml declares them
COST_MARKERS = ("workflow", "vllm", "slurm")
#: the markers that allow a test to start Snakemake: a SLURM test submits its runs itself
SNAKEMAKE_MARKERS = ("workflow", "slurm")

_running: list = []


class UnmarkedCost(AssertionError):
    """A test without the marker of its cost started (or read) what that marker names."""


@contextmanager
def running(item):
    """While the body runs, ``item`` (a pytest item) is the running test."""
    _running.append(item)
    try:
        yield item
    finally:
        _running.pop()


@contextmanager
def for_the_tests_that_read_it():
    """While the body runs, no test is running: what it starts is for the tests, checked at
    collection, that read it later (a fixture tagged with :func:`costs`)."""
    _running.append(None)
    try:
        yield
    finally:
        _running.pop()


def running_test():
    """The pytest item now running, or None outside a test."""
    return _running[-1] if _running else None


def marker_names(item) -> set[str]:
    return {mark.name for mark in item.iter_markers()}


def refuse_unless_marked(markers: tuple[str, ...], what: str) -> None:
    """Raise :class:`UnmarkedCost` if the running test carries none of ``markers``; ``what`` is
    what it was about to start (for the message)."""
    item = running_test()
    if item is None or marker_names(item) & set(markers):
        return
    raise UnmarkedCost(f"{item.nodeid} starts {what} but is not marked "
                       f"{' or '.join(markers)}: mark it (pytest.mark.{markers[0]}), so that the fast tier "
                       f"(-m \"not {' and not '.join(COST_MARKERS)}\") leaves it out")


def costs(*markers: str):
    """Tag a fixture function as costing one of ``markers`` (put it under ``@pytest.fixture``):
    every test that uses it, directly or through another fixture, must carry one of them."""
    def tag(function):
        function.cost_markers = markers
        return function
    return tag


def fixture_cost_markers(item) -> dict[str, tuple[str, ...]]:
    """``{fixture name: markers}`` of the tagged fixtures in ``item``'s fixture closure."""
    found = {}
    for name, definitions in item._fixtureinfo.name2fixturedefs.items():
        markers = getattr(definitions[-1].func, "cost_markers", None)
        if markers:
            found[name] = markers
    return found


def unmarked_readers(items) -> list[str]:
    """One line per test that uses a tagged fixture without one of that fixture's markers."""
    lines = []
    for item in items:
        have = marker_names(item)
        lines += [f"{item.nodeid} uses fixture {name} but is not marked {' or '.join(markers)}"
                  for name, markers in sorted(fixture_cost_markers(item).items()) if not have & set(markers)]
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    with running(item):
        return (yield)


def pytest_collection_modifyitems(items):
    unmarked = unmarked_readers(items)
    if unmarked:
        raise pytest.UsageError("tests without the cost marker of a fixture they use:\n" + "\n".join(unmarked))
