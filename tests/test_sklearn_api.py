"""scikit-learn's API details that its own tests rely on (issue 23).

``cost_complexity_pruning_path`` returns a Bunch like scikit-learn's;
dtree's ``NotFittedError`` is caught by ``except sklearn.exceptions.NotFittedError``
once scikit-learn is imported, while ``import dtree`` imports no scikit-learn.
"""

import copy
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sklearn.exceptions
from sklearn import tree as sk
from sklearn.utils import Bunch as SklearnBunch

import dtree
from dtree import DecisionTreeClassifier, DecisionTreeRegressor
from dtree._base import Bunch


def run_python(code):
    """Run ``code`` in a fresh interpreter (no scikit-learn imported unless it does)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


# --- Bunch ------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", [Bunch, SklearnBunch])
def test_bunch_behaves_like_sklearns(kind):
    bunch = kind(ccp_alphas=[0.0, 1.0], impurities=[0.5, 0.7])
    assert isinstance(bunch, dict)
    assert bunch.ccp_alphas is bunch["ccp_alphas"]
    bunch.extra = 3
    assert bunch["extra"] == 3
    bunch["other"] = 4
    assert bunch.other == 4
    assert set(dir(bunch)) >= {"ccp_alphas", "impurities", "extra", "other"}
    with pytest.raises(AttributeError):
        bunch.missing
    assert getattr(bunch, "missing", None) is None and not hasattr(bunch, "missing")
    with pytest.raises(KeyError):
        bunch["missing"]
    for twin in (pickle.loads(pickle.dumps(bunch)), copy.deepcopy(bunch), copy.copy(bunch)):
        assert type(twin) is kind and twin == bunch and twin.extra == 3


def test_bunch_missing_attribute_names_the_keys():
    with pytest.raises(AttributeError, match=r"no key 'alphas'.*\['ccp_alphas'\]"):
        Bunch(ccp_alphas=[]).alphas


@pytest.mark.parametrize("estimator", ["classifier", "regressor"])
def test_pruning_path_is_a_bunch_like_sklearns(estimator):
    rng = np.random.default_rng(0)
    X = rng.random((80, 3))
    if estimator == "classifier":
        y = (X[:, 0] > 0.5).astype(int) ^ (rng.random(80) > 0.8)
        ours, theirs = DecisionTreeClassifier(), sk.DecisionTreeClassifier(random_state=0)
    else:
        y = X[:, 0] + rng.random(80)
        ours, theirs = DecisionTreeRegressor(), sk.DecisionTreeRegressor(random_state=0)
    path = ours.cost_complexity_pruning_path(X, y)
    expected = theirs.cost_complexity_pruning_path(X, y)
    assert isinstance(path, Bunch) and sorted(path) == sorted(expected)
    np.testing.assert_allclose(path.ccp_alphas, expected.ccp_alphas, atol=1e-12)
    np.testing.assert_allclose(path["impurities"], expected["impurities"], atol=1e-12)


# --- NotFittedError ------------------------------------------------------------------------

def test_not_fitted_error_is_sklearns_once_sklearn_is_imported():
    for estimator in (DecisionTreeClassifier(), DecisionTreeRegressor()):
        with pytest.raises(sklearn.exceptions.NotFittedError) as caught:
            estimator.predict([[0.0]])
        error = caught.value
        assert isinstance(error, dtree.NotFittedError)
        assert isinstance(error, ValueError) and isinstance(error, AttributeError)
        assert "is not fitted yet" in str(error)
        twin = pickle.loads(pickle.dumps(error))
        assert type(twin) is type(error) and str(twin) == str(error)


def test_not_fitted_error_raised_directly_is_sklearns_too():
    with pytest.raises(sklearn.exceptions.NotFittedError, match="by hand"):
        raise dtree.NotFittedError("by hand")


def test_import_dtree_imports_no_sklearn_and_raises_its_own_class():
    out = run_python("""
        import sys
        import dtree
        assert "sklearn" not in sys.modules
        try:
            dtree.DecisionTreeClassifier().predict([[0.0]])
        except dtree.NotFittedError as error:
            print(type(error).__mro__[0:2])
        assert "sklearn" not in sys.modules, "raising imported scikit-learn"
    """)
    assert out.strip() == "(<class 'dtree.exceptions.NotFittedError'>, <class 'ValueError'>)"


def test_sklearn_imported_after_dtree_still_catches():
    out = run_python("""
        import dtree
        from sklearn.exceptions import NotFittedError
        try:
            dtree.DecisionTreeRegressor().apply([[0.0]])
        except NotFittedError:
            print("caught")
    """)
    assert out.strip() == "caught"
