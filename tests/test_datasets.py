"""dtree.datasets: shapes, textbook counts, and Iris against scikit-learn's copy."""

import numpy as np
import pytest
from sklearn.datasets import load_iris as sklearn_load_iris

from dtree.datasets import load_animals, load_iris, load_student_scores, load_weather


def test_animals():
    animals = load_animals()
    assert animals.shape == (4, 4)
    assert animals["animal"].tolist() == ["bear", "hawk", "penguin", "dolphin"]
    assert "Müller" in animals.attrs["source"]


def test_weather_nominal_and_numeric_agree():
    nominal, numeric = load_weather(), load_weather(numeric=True)
    assert nominal.shape == numeric.shape == (14, 5)
    assert nominal.index.tolist() == list(range(1, 15))
    assert nominal["play"].value_counts().to_dict() == {"yes": 9, "no": 5}
    assert nominal["windy"].dtype == bool
    for column in ("outlook", "windy", "play"):
        assert nominal[column].tolist() == numeric[column].tolist()
    # The categories were made from the numbers: hot >= 80 > mild >= 70 > cool,
    # humidity high > 80 >= normal (Witten, Frank & Hall, Tables 1.2 and 1.3).
    temperature = np.where(numeric["temperature"] >= 80, "hot",
                           np.where(numeric["temperature"] >= 70, "mild", "cool"))
    assert temperature.tolist() == nominal["temperature"].tolist()
    humidity = np.where(numeric["humidity"] > 80, "high", "normal")
    assert humidity.tolist() == nominal["humidity"].tolist()


def test_student_scores_rules():
    scores = load_student_scores()
    assert scores.shape == (10, 3)
    assert ((scores["score"] >= 75) == (scores["passed"] == "pass")).all()
    bins = {"excellent": (90, 101), "good": (75, 90), "fair": (60, 75), "poor": (0, 60)}
    for grade, (low, high) in bins.items():
        chosen = scores[scores["grade"] == grade]["score"]
        assert ((chosen >= low) & (chosen < high)).all()


def test_iris_equals_scikit_learn():
    ours = load_iris()
    theirs = sklearn_load_iris()
    np.testing.assert_array_equal(ours.iloc[:, :4].to_numpy(), theirs.data)
    np.testing.assert_array_equal(ours["species"].to_numpy(), theirs.target_names[theirs.target])


@pytest.mark.parametrize("loader", [load_animals, load_weather, load_student_scores, load_iris])
def test_each_call_returns_a_fresh_frame(loader):
    original = loader()
    modified = loader()
    for column in list(modified.columns):   # in place (pandas 3.1 deprecates inplace=True)
        del modified[column]
    assert modified.shape[1] == 0
    assert loader().equals(original)
