"""scikit-learn's own tree tests, run on dtree's trees (issue 23: dtree as a drop-in).

The three test modules that the installed scikit-learn wheel ships in
``sklearn/tree/tests`` (``test_tree``, ``test_export``, ``test_monotonic_tree``)
run in a subprocess with the plugin :mod:`tests.sklearn_suite.plugin`, which
puts dtree's ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
``export_text``, ``export_graphviz`` and ``plot_tree`` in ``sklearn.tree``
before those modules import them (ExtraTree and forest cases stay
scikit-learn's).  No assertion is changed and no test code is copied.

Every test that fails is listed in ``tests/sklearn_suite/expected_failures.json``
with its category, and each category says whether it is a feature dtree does
not have *yet* or a *permanent* difference (tests of scikit-learn's compiled
internals).  This test fails on an unexpected failure and on an unexpected
pass (then the list is out of date: remove the entry).  The test ids and
behaviours are those of the scikit-learn release the list was made with; with
another release the test is skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

sklearn = pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = Path(__file__).resolve().parent / "sklearn_suite" / "expected_failures.json"
MODULES = ["sklearn.tree.tests.test_tree", "sklearn.tree.tests.test_export",
           "sklearn.tree.tests.test_monotonic_tree"]


def load_expected():
    """The expectation file: scikit-learn's version, the categories, the failing test ids."""
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    categories = expected["categories"]
    for test_id, category in expected["failures"].items():
        assert category in categories, f"{test_id}: unknown category {category!r}"
    for name, category in categories.items():
        assert category["kind"] in ("not yet", "permanent"), name
        assert category["reason"], name
    return expected


def run_suite(tmp_path):
    """Run scikit-learn's tree tests on dtree; return {test id: outcome}, {test id: message}."""
    report = tmp_path / "report.json"
    env = dict(os.environ, DTREE_SKLEARN_SUITE_REPORT=str(report),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    # cwd is tmp_path: pytest's rootdir and configuration are not this project's
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.sklearn_suite.plugin",
         "-p", "no:cacheprovider", "-q", "--tb=no", "-rN", "--pyargs", *MODULES],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1500)
    assert result.returncode in (0, 1), (  # 0: all passed, 1: some failed; else: broken run
        f"pytest exited with {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    data = json.loads(report.read_text(encoding="utf-8"))
    return data["outcomes"], data["messages"]


def test_importing_the_plugin_substitutes_nothing():
    # `pytest --doctest-modules tests` imports the plugin's module: only -p may patch
    code = ("import sklearn.tree, dtree, tests.sklearn_suite.plugin\n"
            "assert sklearn.tree.DecisionTreeClassifier is not dtree.DecisionTreeClassifier\n"
            "tests.sklearn_suite.plugin.substitute()\n"
            "assert sklearn.tree.DecisionTreeClassifier is dtree.DecisionTreeClassifier\n"
            "assert sklearn.tree.ExtraTreeClassifier.__module__.startswith('sklearn')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_expectation_file_is_consistent():
    expected = load_expected()
    used = set(expected["failures"].values())
    assert used == set(expected["categories"]), "a category with no test, or the reverse"


def test_sklearn_tree_tests_on_dtree(tmp_path):
    expected = load_expected()
    if sklearn.__version__ != expected["sklearn"]:
        pytest.skip(f"the expectations are for scikit-learn {expected['sklearn']}, "
                    f"not {sklearn.__version__}")
    outcomes, messages = run_suite(tmp_path)
    assert len(outcomes) >= expected["min_tests"], "fewer tests ran than when the list was made"
    failed = {t for t, outcome in outcomes.items() if outcome in ("failed", "error")}
    listed = set(expected["failures"])
    unexpected_failures = sorted(failed - listed)
    unexpected_passes = sorted(t for t in listed - failed if outcomes.get(t) == "passed")
    missing = sorted(t for t in listed if t not in outcomes)
    lines = []
    if unexpected_failures:
        lines.append(f"{len(unexpected_failures)} scikit-learn test(s) fail that are not in "
                     f"{EXPECTED.relative_to(ROOT)}:")
        lines += [f"  {t}: {messages.get(t, '')}" for t in unexpected_failures]
    if unexpected_passes:
        lines.append(f"{len(unexpected_passes)} listed test(s) now pass: remove them from "
                     f"{EXPECTED.relative_to(ROOT)}:")
        lines += [f"  {t} ({expected['failures'][t]})" for t in unexpected_passes]
    if missing:
        lines.append(f"{len(missing)} listed test(s) did not run (renamed?):")
        lines += [f"  {t}" for t in missing]
    counts = Counter(outcomes.values())
    assert not lines, "\n".join(lines + [f"outcomes: {dict(counts)}"])
