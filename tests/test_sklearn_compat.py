"""dtree's estimators under scikit-learn's own estimator checks and tools (the oracle of the API).

``sklearn.utils.estimator_checks.check_estimator`` runs scikit-learn's
conformance suite: fit/predict contracts, input validation, sample weights as
multiplicities, pickling, no mutation of inputs.  ID3's acceptance of ``inf``
as a category cannot pass; it is listed in ``EXPECTED_FAILURES`` with the
reason, and the test fails if any other check fails *or* if a listed check
starts passing (the list stays exact).  (scikit-learn's own ``NotFittedError``
class is raised once scikit-learn's exceptions are imported: dtree.exceptions.)
"""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_estimator

import dtree

ESTIMATORS = {
    "DecisionTreeClassifier": dtree.DecisionTreeClassifier(),
    "DecisionTreeRegressor": dtree.DecisionTreeRegressor(),
    "ID3Classifier": dtree.ID3Classifier(),
    "C45Classifier": dtree.C45Classifier(),
}
# check_estimator also runs on these settings (other code paths of fit)
VARIANTS = {
    **ESTIMATORS,
    "DecisionTreeClassifier(splitter='random')": dtree.DecisionTreeClassifier(
        splitter="random", random_state=0),
    "DecisionTreeClassifier(max_leaf_nodes=5)": dtree.DecisionTreeClassifier(max_leaf_nodes=5),
    "DecisionTreeClassifier(ccp_alpha=0.01)": dtree.DecisionTreeClassifier(ccp_alpha=0.01),
    "DecisionTreeRegressor(absolute_error)": dtree.DecisionTreeRegressor(criterion="absolute_error"),
    "DecisionTreeRegressor(poisson)": dtree.DecisionTreeRegressor(criterion="poisson"),
    "DecisionTreeRegressor(friedman_mse)": dtree.DecisionTreeRegressor(criterion="friedman_mse"),
    "DecisionTreeRegressor(max_features=0.5)": dtree.DecisionTreeRegressor(
        max_features=0.5, random_state=0),
    "C45Classifier(pruning='pessimistic')": dtree.C45Classifier(pruning="pessimistic"),
}

# check -> why it fails, per estimator.  (check_estimators_unfitted passes:
# once scikit-learn is imported, dtree's NotFittedError is raised as a
# subclass of scikit-learn's too, see dtree/exceptions.py.)
EXPECTED_FAILURES = {name: {} for name in VARIANTS}
EXPECTED_FAILURES["ID3Classifier"]["check_estimators_nan_inf"] = (
    "ID3 treats every value as a category, inf included (NaN is refused)")
if tuple(int(part) for part in sklearn.__version__.split(".")[:2]) < (1, 7):
    # `make test-compat` runs the oldest supported scikit-learn.
    EXPECTED_FAILURES["ID3Classifier"]["check_positive_only_tag_during_fit"] = (
        "scikit-learn 1.6's check subtracts a float mean in place from the int32 X it makes for "
        "an estimator tagged categorical, which NumPy refuses before fit is called (1.7 casts "
        "the mean: X -= X.mean().astype(X.dtype))")


# Checks that may be skipped: scikit-learn >= 1.8 runs the array API check
# only where the environment variable SCIPY_ARRAY_API is set.
MAY_SKIP = {"check_array_api_input": "SCIPY_ARRAY_API is not set"}


@pytest.mark.parametrize("name", VARIANTS)
def test_scikit_learn_estimator_checks(name):
    with warnings.catch_warnings():
        # by design: dtree's estimators are not subclasses of scikit-learn's
        warnings.filterwarnings("ignore", message=".*does not inherit from", category=UserWarning)
        # scikit-learn >= 1.8's check_supervised_y_2d records warnings with the
        # "always" filter for its own DataConversionWarning only; dtree warns with its
        # class of that name (it does not import scikit-learn), which the default filter
        # shows once per place, and an earlier check has already shown it.
        warnings.simplefilter("always", dtree.DataConversionWarning)
        results = check_estimator(clone(VARIANTS[name]), on_fail=None)
    assert len(results) > 50
    failed = {r["check_name"]: str(r["exception"])[:300] for r in results
              if r["status"] == "failed"}
    skipped = {r["check_name"]: str(r["exception"]) for r in results if r["status"] == "skipped"}
    assert all(check in MAY_SKIP and MAY_SKIP[check] in why for check, why in skipped.items()), \
        skipped
    unexpected = {check: why for check, why in failed.items()
                  if check not in EXPECTED_FAILURES[name]}
    assert not unexpected
    assert set(failed) == set(EXPECTED_FAILURES[name]), "an expected failure now passes"


@pytest.mark.parametrize("name", ESTIMATORS)
def test_tags_say_what_the_estimator_is(name):
    estimator = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no "no __sklearn_tags__" deprecation warning
        tags = get_tags(estimator)
        classifier, regressor = is_classifier(estimator), is_regressor(estimator)
    assert classifier == name.endswith("Classifier") == (tags.estimator_type == "classifier")
    assert regressor == ("Regressor" in name) == (tags.estimator_type == "regressor")
    assert tags.target_tags.required
    assert tags.input_tags.allow_nan == (name in ("DecisionTreeClassifier", "DecisionTreeRegressor",
                                                  "C45Classifier"))
    assert tags.input_tags.string == tags.input_tags.categorical == name.startswith(("ID3", "C45"))


def test_tags_follow_the_criterion():
    # NaN is a missing value for every criterion but the absolute error; the
    # Poisson deviance needs y >= 0 (scikit-learn's checks then make y positive)
    for criterion in ("squared_error", "poisson", "absolute_error"):
        tags = get_tags(dtree.DecisionTreeRegressor(criterion=criterion))
        assert tags.input_tags.allow_nan == (criterion != "absolute_error")
        assert tags.target_tags.positive_only == (criterion == "poisson")
    assert not get_tags(dtree.DecisionTreeClassifier()).target_tags.positive_only


def test_cross_validation_stratifies_a_classifier():
    # cross_val_score with cv=5 stratifies the folds of a classifier.  Iris is
    # sorted by class: unstratified folds would hold out classes the training
    # folds lack, and score far lower.
    X, y = load_iris(return_X_y=True)
    ours = cross_val_score(dtree.DecisionTreeClassifier(random_state=0), X, y, cv=5)
    stratified = [dtree.DecisionTreeClassifier(random_state=0).fit(X[fit], y[fit])
                  .score(X[test], y[test]) for fit, test in StratifiedKFold(5).split(X, y)]
    np.testing.assert_array_equal(ours, stratified)
    search = GridSearchCV(dtree.DecisionTreeClassifier(), {"max_depth": [1, 2, 3]}, cv=3)
    assert search.fit(X, y).best_params_ == {"max_depth": 3}


def test_dtree_itself_imports_neither_scikit_learn_nor_scipy():
    # The tags import scikit-learn only when scikit-learn asks for them, and the
    # sparse check looks for scipy.sparse only if it is already loaded.  Numba,
    # which the first fit imports for the compiled sweep, loads scipy.linalg (its
    # BLAS) where SciPy is installed: dtree's own imports are checked without it.
    code = ("import sys\nimport numpy as np\nimport dtree\n"
            "X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 2\n"
            "for cls in (dtree.DecisionTreeClassifier, dtree.DecisionTreeRegressor, dtree.ID3Classifier):\n"
            "    cls().fit(X, y).predict(X)\n"
            "names = ('scipy.sparse', 'scipy.stats', 'scipy.special', 'sklearn', 'matplotlib')\n"
            "print(sorted(m for m in names if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "DTREE_NUMBA": "0"})
    assert out.stdout.strip() == "[]"
