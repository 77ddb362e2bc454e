"""pytest plugin: scikit-learn's tree tests, with dtree's trees in place of scikit-learn's.

Loaded by ``tests/test_sklearn_suite.py`` in a subprocess as
``python -m pytest -p tests.sklearn_suite.plugin --pyargs sklearn.tree.tests.test_tree ...``.
When pytest configures the plugin (before it collects, so before the test
modules import anything from ``sklearn.tree``), the plugin

1. imports ``sklearn.ensemble`` first, so that the forests and gradient
   boosting keep scikit-learn's own trees (they bind the names at import);
2. replaces ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
   ``export_text``, ``export_graphviz`` and ``plot_tree`` in ``sklearn.tree``
   (and in ``sklearn.tree._classes`` / ``sklearn.tree._export``, which some
   tests import from) by dtree's.  ``ExtraTreeClassifier`` and
   ``ExtraTreeRegressor`` stay scikit-learn's;
3. writes the outcome of every test id (``passed``, ``failed``, ``skipped``,
   ``xfailed``, ...) to the JSON file named by the environment variable
   ``DTREE_SKLEARN_SUITE_REPORT`` when the session ends.

No test code of scikit-learn is copied: the tests run from the installed wheel,
every assertion as it is.
"""

from __future__ import annotations

import json
import os

import sklearn.ensemble  # noqa: F401  (first: the forests bind scikit-learn's trees)
import sklearn.tree
import sklearn.tree._classes
import sklearn.tree._export

import dtree

SUBSTITUTED = ("DecisionTreeClassifier", "DecisionTreeRegressor",
               "export_text", "export_graphviz", "plot_tree")


def substitute():
    """Put dtree's estimators and exports in scikit-learn's ``sklearn.tree`` modules."""
    for name in SUBSTITUTED:
        replacement = getattr(dtree, name)
        for module in (sklearn.tree, sklearn.tree._classes, sklearn.tree._export):
            if hasattr(module, name):
                setattr(module, name, replacement)


def pytest_configure(config):
    """Substitute when pytest loads this module as a plugin (``-p``), before it collects.

    Not on import: ``pytest --doctest-modules tests`` (``make test-unit``)
    imports every module under tests/, this one too, and must leave the test
    process's scikit-learn alone.
    """
    substitute()

_outcomes: dict[str, str] = {}
_messages: dict[str, str] = {}


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return text.splitlines()[0][:300] if text else ""


def pytest_runtest_logreport(report):
    """Record one outcome per test id: a failure in setup, call or teardown wins."""
    # With --pyargs the node ids are relative to a rootdir outside the wheel
    # ("::test_x[...]"): the key is the test file's name and the test's id.
    nodeid = os.path.basename(report.location[0]) + "::" + report.nodeid.split("::", 1)[-1]
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        else:
            outcome = report.outcome
        if report.when == "setup" and report.failed:
            outcome = "error"
        _outcomes[nodeid] = outcome
        if report.failed:
            _messages[nodeid] = _message(report)
    elif report.when == "teardown" and report.failed:
        _outcomes[nodeid] = "error"
        _messages[nodeid] = _message(report)


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("DTREE_SKLEARN_SUITE_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"sklearn": sklearn.__version__, "outcomes": _outcomes,
                       "messages": _messages}, handle,
                      indent=1, sort_keys=True)
