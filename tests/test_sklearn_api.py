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
from pathlib import Path

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
    # cwd: the work tree, so that `import dtree` finds it even where it is not installed
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                            cwd=Path(__file__).resolve().parent.parent,
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
        _ = bunch.missing
    assert getattr(bunch, "missing", None) is None and not hasattr(bunch, "missing")
    with pytest.raises(KeyError):
        bunch["missing"]
    for twin in (pickle.loads(pickle.dumps(bunch)), copy.deepcopy(bunch), copy.copy(bunch)):
        assert type(twin) is kind and twin == bunch and twin.extra == 3


def test_bunch_missing_attribute_names_the_keys():
    with pytest.raises(AttributeError, match=r"no key 'alphas'.*\['ccp_alphas'\]"):
        _ = Bunch(ccp_alphas=[]).alphas


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


# --- parameter errors in scikit-learn's words ------------------------------------------------

SAME_MESSAGE = [("min_samples_split", 1), ("min_samples_split", 1.5), ("min_samples_leaf", 0),
                ("max_depth", 0), ("max_leaf_nodes", 1), ("min_weight_fraction_leaf", 0.7)]
SAME_FORM = [("min_impurity_decrease", -1.0), ("ccp_alpha", -0.1), ("splitter", "worst"),
             ("criterion", "mse"), ("random_state", "a"), ("max_features", "auto"),
             ("class_weight", "x"), ("random_state", -1)]


def _fit_error(estimator, X, y):
    with pytest.raises(ValueError) as caught:
        estimator.fit(X, y)
    return caught.value


@pytest.mark.parametrize("name, value", SAME_MESSAGE, ids=lambda v: str(v))
def test_parameter_error_is_sklearns_message(name, value):
    X, y = np.random.default_rng(0).random((20, 3)), np.arange(20) % 2
    ours = _fit_error(DecisionTreeClassifier(**{name: value}), X, y)
    theirs = _fit_error(sk.DecisionTreeClassifier(**{name: value}), X, y)
    assert isinstance(ours, dtree.InvalidParameterError)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("name, value", SAME_FORM, ids=lambda v: str(v))
def test_parameter_error_has_sklearns_form(name, value):
    # "The 'name' parameter of Estimator must be <expected>. Got <value> instead."
    X, y = np.random.default_rng(0).random((20, 3)), np.arange(20) % 2
    message = str(_fit_error(DecisionTreeClassifier(**{name: value}), X, y))
    assert message.startswith(f"The '{name}' parameter of DecisionTreeClassifier must be ")
    assert message.endswith(f". Got {value!r} instead.")


def test_regressor_criterion_error_lists_friedman_mse():
    message = str(_fit_error(DecisionTreeRegressor(criterion="gini"), [[0.0], [1.0]], [0, 1]))
    assert "{'absolute_error', 'friedman_mse', 'poisson', 'squared_error'}" in message


# --- random_state, sample_weight, sparse y, NaN ----------------------------------------------

def _tree(random_state):
    X = np.random.default_rng(1).random((200, 6))
    y = (X[:, 0] + X[:, 3] > 1).astype(int)
    return DecisionTreeClassifier(max_features=2, random_state=random_state).fit(X, y).tree_


def test_random_state_accepts_a_randomstate():
    one, two = np.random.RandomState(5), np.random.RandomState(5)
    a, b = _tree(one), _tree(two)
    np.testing.assert_array_equal(a.feature, b.feature)        # same state, same tree
    assert one.randint(1000) == two.randint(1000)              # both advanced alike
    np.testing.assert_array_equal(a.feature, _tree(np.random.default_rng(
        np.random.RandomState(5).randint(np.iinfo(np.int32).max))).feature)


def test_random_state_int_draws_are_unchanged():
    np.testing.assert_array_equal(_tree(3).feature, _tree(np.random.default_rng(3)).feature)
    np.testing.assert_array_equal(_tree(3).threshold, _tree(np.random.default_rng(3)).threshold)


def test_scalar_sample_weight():
    X, y = np.arange(10.0).reshape(-1, 1), np.array([0, 0, 1, 1, 1, 0, 0, 2, 2, 2])
    plain = DecisionTreeClassifier().fit(X, y)
    assert same_tree_arrays(DecisionTreeClassifier().fit(X, y, sample_weight=2.5), plain)
    with pytest.raises(TypeError, match=re_escape("got scalar `array(0.)` instead.")):
        DecisionTreeClassifier().fit(X, y, sample_weight=np.array(0))
    with pytest.raises(TypeError):
        sk.DecisionTreeClassifier().fit(X, y, sample_weight=np.array(0))   # as the oracle does
    # not a real number: refused, naming the parameter and showing what came
    for bad, shown in [("abc", "abc"), (np.array("x"), "array('x'"), (1 + 2j, "array(1.+2.j)"),
                       (np.array(None), "array(None")]:
        with pytest.raises(TypeError, match="sample_weight") as error:
            DecisionTreeClassifier().fit(X, y, sample_weight=bad)
        assert shown in str(error.value), str(error.value)


def test_sparse_y_is_a_type_error():
    from scipy.sparse import csr_matrix

    X = np.arange(10.0).reshape(-1, 1)
    for estimator in (DecisionTreeClassifier(), DecisionTreeRegressor()):
        with pytest.raises(TypeError, match="y is a sparse csr_matrix"):
            estimator.fit(X, csr_matrix(np.ones((10, 1))))


def test_nan_refused_in_sklearns_words():
    X = np.array([[1.0], [np.nan], [3.0]])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        DecisionTreeRegressor(criterion="absolute_error").fit(X, [1.0, 2.0, 3.0])
    fitted = DecisionTreeRegressor(criterion="absolute_error").fit([[1.0], [2.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted.predict(X)


def same_tree_arrays(a, b):
    return all(np.array_equal(getattr(a.tree_, n), getattr(b.tree_, n))
               for n in ("feature", "threshold", "children_left", "value"))


def re_escape(text):
    import re

    return re.escape(text)


def test_poisson_target_errors_in_sklearns_words():
    tree = DecisionTreeRegressor(criterion="poisson")
    with pytest.raises(ValueError, match="y is not positive.*Poisson"):
        tree.fit([[0.0], [1.0], [2.0]], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="Some.*y are negative.*Poisson.*smallest y is -0.1"):
        tree.fit([[0.0], [1.0], [2.0]], [5.0, -0.1, 2.0])


def test_poisson_target_is_checked_before_its_length_as_in_sklearn():
    # scikit-learn's test_error fits one sample of three features on three targets
    for y, pattern in (([0, 0, 0], "y is not positive.*Poisson"),
                       ([5, -0.1, 2], "Some.*y are negative.*Poisson")):
        for estimator in (DecisionTreeRegressor, sk.DecisionTreeRegressor):
            with pytest.raises(ValueError, match=pattern):
                estimator(criterion="poisson").fit([[0, 1, 2]], y)
    with pytest.raises(ValueError, match="X has 1 samples but y has 3"):
        DecisionTreeRegressor(criterion="poisson").fit([[0, 1, 2]], [1.0, 2.0, 3.0])


def test_n_outputs_():
    assert DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1]).n_outputs_ == 1
    assert DecisionTreeRegressor().fit([[0.0], [1.0]], [0.0, 1.0]).n_outputs_ == 1


def test_bunch_with_a_key_that_is_not_a_string():
    from dtree._base import Bunch

    bunch = Bunch(ccp_alphas=[0.0])
    bunch[1] = 2
    assert not hasattr(bunch, "missing") and getattr(bunch, "missing", 7) == 7
